"""The API key never leaks: not in error lines, replies, session files, or to another server.

Hostile servers on 127.0.0.1 echo the Authorization header back in every way they can:
in a non-JSON error body, in a streamed reply split across events, in a redirect.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_runner import Result, process
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from zerda.clients._base import ClientError
from zerda.clients._command import CommandClient
from zerda.clients._openai import OpenAIClient
from zerda.clients._redact import MARK, redact, redact_stream
from zerda.store import SessionStore
from zerda_cli.chat.config import ChatConfig
from zerda_cli.chat.repl import Chat
from zerda_cli.chat.view import ChatView

KEY = "sk-test-0123456789abcdef"
CONTEXT = [{"role": "user", "content": "hi"}]


class Hostile(BaseHTTPRequestHandler):
    """The first path segment picks how the key is echoed back."""

    server: HostileServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._note()
        auth = self.headers.get("Authorization") or ""
        mode = self.path.strip("/").split("/")[0]
        if mode == "html-500":
            self._send(500, "text/html", f"<h1>oops</h1><pre>{auth}</pre>".encode())
        elif mode == "stream":
            key = auth.removeprefix("Bearer ")
            text = f"your key is {key}, and again: {auth}."
            self._events([text[i : i + 5] for i in range(0, len(text), 5)])
        elif mode == "plain":
            reply = {"choices": [{"message": {"content": f"key={auth}"}}]}
            self._send(200, "application/json", json.dumps(reply).encode())
        elif mode == "broken-sse":
            self._events([auth], raw=True)
        elif mode == "redirect":
            self.send_response(302)
            self.send_header("Location", self.server.target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._events(["fine"])

    do_GET = do_POST

    def _note(self) -> None:
        self.server.seen.append(dict(self.headers.items()))

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _events(self, pieces: list[str], raw: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for piece in pieces:
            event = piece if raw else json.dumps({"choices": [{"delta": {"content": piece}}]})
            self.wfile.write(f"data: {event}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True
    seen: list[dict[str, str]]
    target: str

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}/v1"


@contextmanager
def hostile() -> Iterator[HostileServer]:
    server = HostileServer(("127.0.0.1", 0), Hostile)
    server.seen, server.target = [], ""
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def failure(backend: OpenAIClient) -> str:
    with pytest.raises(ClientError) as caught:
        list(backend.reply(CONTEXT))
    return str(caught.value)


# -- redaction ----------------------------------------------------------------------------


@given(st.text("ab-sk", max_size=30), st.lists(st.integers(0, 40), max_size=6))
def test_a_streamed_key_is_redacted_wherever_the_pieces_split_it(
    text: str, cuts: list[int]
) -> None:
    secret = "sk-abab"
    whole = text + secret + text
    bounds = sorted({0, len(whole), *(min(c, len(whole)) for c in cuts)})
    pieces = [whole[a:b] for a, b in itertools.pairwise(bounds)]
    streamed = "".join(redact_stream(pieces, secret))
    assert streamed == redact(whole, secret)
    assert secret not in streamed and MARK in streamed


def test_a_stream_without_the_key_passes_through_whole() -> None:
    assert list(redact_stream(["sk-te", "a", "sk-t"], KEY)) == ["sk-tea", "sk-t"]
    assert list(redact_stream(["a", "b"], None)) == ["a", "b"]


# -- the OpenAI backend ---------------------------------------------------------------------


def test_a_non_json_error_body_echoing_the_key_shows_no_key() -> None:
    with hostile() as server:
        message = failure(OpenAIClient(server.url("html-500"), "m", KEY, timeout=10))
    assert message.startswith(f"HTTP 500 from 127.0.0.1:{server.server_address[1]}")
    assert KEY not in message and "Bearer [key]" in message


def test_a_broken_event_echoing_the_key_shows_no_key() -> None:
    with hostile() as server:
        message = failure(OpenAIClient(server.url("broken-sse"), "m", KEY, timeout=10))
    assert "not JSON" in message and KEY not in message and MARK in message


def test_a_reply_quoting_the_key_in_split_events_is_redacted_on_screen_and_on_disk(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "home", fsync=False)
    out = io.StringIO()
    with hostile() as server:
        backend = OpenAIClient(server.url("stream"), "m", KEY, timeout=10)
        view = ChatView(Console(file=out, width=200, color_system=None))
        chat = Chat(store, "s", ChatConfig(), view, backend)
        assert chat.handle("what is my key?")
    stored = (store.sessions_dir / "s.jsonl").read_text()
    assert chat.turn_count == 1
    assert "your key is [key], and again: Bearer [key]." in stored
    assert KEY not in stored and KEY not in out.getvalue() and MARK in out.getvalue()


def test_a_plain_json_reply_quoting_the_key_is_redacted() -> None:
    with hostile() as server:
        reply = "".join(OpenAIClient(server.url("plain"), "m", KEY, timeout=10).reply(CONTEXT))
    assert reply == "key=Bearer [key]"


def test_a_redirect_to_another_port_is_not_followed_and_gets_no_key() -> None:
    with hostile() as first, hostile() as second:
        first.target = second.url("stream") + "/chat/completions"
        message = failure(OpenAIClient(first.url("redirect"), "m", KEY, timeout=10))
    assert first.seen[0]["Authorization"] == f"Bearer {KEY}"
    assert second.seen == []
    assert message == (
        f"the server redirected to 127.0.0.1:{second.server_address[1]} (HTTP 302); "
        "not followed, so the API key is not sent there: point --base-url at it"
    )


def test_a_redirect_within_the_server_keeps_the_key() -> None:
    with hostile() as server:
        server.target = "/fine/v1/chat/completions"
        reply = "".join(OpenAIClient(server.url("redirect"), "m", KEY, timeout=10).reply(CONTEXT))
    assert reply == "fine"
    assert [seen.get("Authorization") for seen in server.seen] == [f"Bearer {KEY}"] * 2


@pytest.mark.parametrize("bad", [f"{KEY} x", f"{KEY}\r\nX-Injected: 1", f"{KEY}é"])
def test_a_key_that_cannot_be_a_header_is_refused_without_being_shown(bad: str) -> None:
    with pytest.raises(ClientError, match="ZERDA_API_KEY or OPENAI_API_KEY") as caught:
        OpenAIClient("http://127.0.0.1:9/v1", "m", bad)
    assert KEY not in str(caught.value)


# -- the command backend --------------------------------------------------------------------


def test_a_command_printing_the_key_from_its_environment_is_redacted(tmp_path: Path) -> None:
    script = tmp_path / "leak.py"
    script.write_text(
        "import os, sys\n"
        "sys.stdin.read()\n"
        "key = os.environ['ZERDA_API_KEY']\n"
        "for part in (key[:4], key[4:9], key[9:]): sys.stdout.write(part); sys.stdout.flush()\n"
        "sys.stderr.write('failed with ' + key + '\\n')\n"
        "sys.exit(3)\n"
    )
    backend = CommandClient(f"{sys.executable} {script}", env={"ZERDA_API_KEY": KEY}, secret=KEY)
    shown = ""
    with pytest.raises(ClientError) as caught:
        for piece in backend.reply(CONTEXT):
            shown += piece
    assert shown == MARK
    name = Path(sys.executable).name
    assert str(caught.value) == f"{name} exited with status 3: failed with [key]"


# -- end to end -----------------------------------------------------------------------------


def run_chat(home: Path, base_url: str, stdin: bytes) -> Result:
    return process(
        home,
        *("chat", "s", "--backend", "openai", "--base-url", base_url, "--model", "m"),
        stdin=stdin,
        env={"ZERDA_API_KEY": KEY},
        timeout=60,
    )


def test_zerda_chat_piped_never_shows_or_stores_the_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with hostile() as server:
        replies = run_chat(home, server.url("stream"), b"tell me\nagain\n")
        errors = run_chat(home, server.url("html-500"), b"and now?\n")
    assert replies.code == 0, replies.stderr
    assert replies.stdout.decode().count("your key is [key], and again: Bearer [key].") == 2
    assert errors.code == 1 and errors.stderr.decode().startswith("error: line 1: HTTP 500")
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "s.jsonl" for p in files)
    for output in (replies.stdout, replies.stderr, errors.stdout, errors.stderr):
        assert KEY.encode() not in output
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
