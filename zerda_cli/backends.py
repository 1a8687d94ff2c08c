"""Who answers in `zerda chat`: the user (manual), a program the user names, or an HTTP API.

A backend turns the context (OpenAI-style `{"role", "content"}` dicts, the new user
message last) into the reply, yielded in pieces as they arrive. Failures raise
BackendError with one line for people; a reply cut short is never recorded.
"""

from __future__ import annotations

import codecs
import contextlib
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Generator, Iterator
from typing import IO, TYPE_CHECKING, Any, Protocol

from zerda.formats.openai import content_text
from zerda_cli.redact import redact, redact_stream

if TYPE_CHECKING:
    from zerda_cli.config import ChatConfig

Messages = list[dict[str, Any]]
CHUNK = 4096
STDERR_TAIL = 4096


class BackendError(Exception):
    """The backend could not produce a reply; the message is one line for people."""


class Backend(Protocol):
    """Produces the assistant's reply to a context, in pieces."""

    name: str
    needs_terminal: bool

    def reply(self, messages: Messages) -> Generator[str, None, None]:
        """Yield the reply as it arrives; raise BackendError on failure."""
        ...

    def cancel(self) -> None:
        """Abort the reply in progress; called from another thread after Ctrl-C."""
        ...


def one_line(text: str, limit: int = 200) -> str:
    """`text` squeezed to one printable line of at most `limit` characters."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def as_text(messages: Messages) -> str:
    """The context in the `role: content` text form, one message after another."""
    return "\n".join(f"{m['role']}: {content_text(m.get('content'))}" for m in messages) + "\n"


class ManualBackend:
    """The user types the reply; `ask` shows the prompt and returns what was typed."""

    name = "manual"
    needs_terminal = True

    def __init__(self, ask: Callable[[], str] | None = None) -> None:
        self.ask = ask or _no_terminal

    def reply(self, messages: Messages) -> Generator[str, None, None]:
        """Yield what the user typed at the reply prompt."""
        yield self.ask()

    def cancel(self) -> None:
        """Nothing runs in the background: the prompt itself takes Ctrl-C."""


def _no_terminal() -> str:
    raise BackendError("the manual backend needs a terminal: use --backend command or openai")


class CommandBackend:
    """Runs `command` per turn: the context on its stdin, its stdout (streamed) is the reply.

    The program inherits the environment, API key included, so `secret` (that key) is
    redacted from its reply and from the stderr line quoted when it fails.
    """

    name = "command"
    needs_terminal = False

    def __init__(
        self,
        command: str,
        text_format: bool = False,
        env: dict[str, str] | None = None,
        secret: str | None = None,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise BackendError(f"cannot parse --command: {exc}") from None
        if not self.argv:
            raise BackendError("--command is empty")
        self.text_format = text_format
        self.env = env or {}
        self._secret = secret
        self._running: subprocess.Popen[bytes] | None = None

    def _payload(self, messages: Messages) -> bytes:
        if self.text_format:
            return as_text(messages).encode()
        return json.dumps({"messages": messages}, ensure_ascii=False).encode()

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            # Own session: Ctrl-C in the REPL reaches zerda only, which then ends the program.
            return subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        except FileNotFoundError:
            raise BackendError(f"command not found: {self.argv[0]}") from None
        except OSError as exc:
            raise BackendError(f"cannot run {self.argv[0]}: {exc.strerror or exc}") from None

    def reply(self, messages: Messages) -> Generator[str, None, None]:
        """Stream the program's stdout; a non-zero exit is a BackendError."""
        yield from redact_stream(self._output(messages), self._secret)

    def _output(self, messages: Messages) -> Iterator[str]:
        proc = self._running = self._start()
        assert proc.stdin and proc.stdout and proc.stderr
        tail = bytearray()
        threads = [
            threading.Thread(target=_feed, args=(proc.stdin, self._payload(messages)), daemon=True),
            threading.Thread(target=_drain, args=(proc.stderr, tail), daemon=True),
        ]
        for thread in threads:
            thread.start()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := os.read(proc.stdout.fileno(), CHUNK):
                if text := decoder.decode(chunk):
                    yield text
            if text := decoder.decode(b"", final=True):
                yield text
            status = proc.wait()
            threads[1].join()
            if status != 0:
                raise BackendError(self._failure(status, bytes(tail)))
        finally:
            _stop(proc, threads)

    def cancel(self) -> None:
        """End the running program (and its children); its reply then ends."""
        proc = self._running
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)

    def _failure(self, status: int, stderr: bytes) -> str:
        name = os.path.basename(self.argv[0])
        how = f"killed by signal {-status}" if status < 0 else f"exited with status {status}"
        lines = [ln for ln in stderr.decode(errors="replace").splitlines() if ln.strip()]
        return f"{name} {how}" + (f": {one_line(redact(lines[-1], self._secret))}" if lines else "")


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write the context to the program; it may exit without reading it all."""
    try:
        pipe.write(data)
        pipe.close()
    except (BrokenPipeError, OSError):
        pass


def _drain(pipe: IO[bytes], tail: bytearray) -> None:
    """Keep the last few KB of the program's stderr for the error message."""
    try:
        while chunk := pipe.read1(CHUNK):  # type: ignore[attr-defined]
            tail.extend(chunk)
            del tail[:-STDERR_TAIL]
    except (OSError, ValueError):
        pass


def _stop(proc: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
    """End the program (and its children) if it is still running, reap it, close pipes."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=2)
        except (ProcessLookupError, PermissionError):
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for thread in threads:
        thread.join(timeout=1)
    if proc.stdout:
        proc.stdout.close()


def _host(base_url: str) -> str:
    """`host[:port]` of an http(s) base URL, for messages; a URL holding credentials is
    refused without being repeated, since every error would show it."""
    authority = base_url.partition("://")[2].partition("/")[0]
    if "@" in authority:
        raise BackendError(
            "--base-url holds a user or key before '@': "
            "put the key in ZERDA_API_KEY or OPENAI_API_KEY instead"
        )
    try:
        parsed = urllib.parse.urlsplit(base_url)
        scheme, host, port = parsed.scheme, parsed.hostname, parsed.port
    except ValueError:  # a bad IPv6 literal or port
        scheme, host, port = "", None, None
    if scheme not in ("http", "https") or not host:
        raise BackendError(f"bad --base-url {base_url!r}: use http(s)://host[:port]/v1")
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port of a URL (the port filled in from the scheme)."""
    try:
        parsed = urllib.parse.urlsplit(url)
        scheme, host, port = parsed.scheme.lower(), (parsed.hostname or ""), parsed.port
    except ValueError:
        return ("", "", None)
    return scheme, host, port or {"http": 80, "https": 443}.get(scheme)


def _shown_origin(origin: tuple[str, str, int | None]) -> str:
    """`host:port` of an origin, for messages (never the path or query)."""
    _, host, port = origin
    if not host:
        return "an unreadable address"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the scheme, host and port the request went to.

    The request carries the API key; a redirect elsewhere (another host or port, or
    https to http) is not followed at all, so the key never reaches another server.
    """

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        target = _origin(newurl)
        if target != _origin(req.full_url):
            fp.close()
            raise BackendError(
                f"the server redirected to {_shown_origin(target)} (HTTP {code}); "
                "not followed, so the API key is not sent there: point --base-url at it"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _checked_key(api_key: str | None) -> str | None:
    """The key without surrounding blanks; one that cannot be sent in a header is refused
    without being repeated (the HTTP library's error would quote it)."""
    key = (api_key or "").strip()
    if any(not (" " < c < "\x7f") for c in key):
        raise BackendError(
            "the API key holds a space, control or non-ASCII character: "
            "check ZERDA_API_KEY or OPENAI_API_KEY"
        )
    return key or None


class OpenAIBackend:
    """An OpenAI-compatible `/chat/completions` endpoint, streamed (server-sent events).

    The key is sent in the Authorization header only, and only to the --base-url
    origin (see _SameOriginRedirects). It is never shown, logged or stored: every
    server text that reaches an error line or the reply is redacted first.
    """

    name = "openai"
    needs_terminal = False

    def __init__(
        self, base_url: str, model: str, api_key: str | None, timeout: float = 60.0
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.host = _host(base_url)
        self.model = model
        self._key = _checked_key(api_key)
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_SameOriginRedirects)
        self._response: Any = None

    def __repr__(self) -> str:
        return f"OpenAIBackend(url={self.url!r}, model={self.model!r})"

    def _request(self, messages: Messages) -> urllib.request.Request:
        body = {"model": self.model, "messages": messages, "stream": True}
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )

    def reply(self, messages: Messages) -> Generator[str, None, None]:
        """Yield the content deltas of the streamed completion, the key redacted."""
        response = self._open(messages)
        self._response = response
        with response:
            try:
                if response.headers.get_content_type() == "text/event-stream":
                    yield from redact_stream(self._events(response), self._key)
                else:
                    yield self._redact(_completion_text(self._json(response.read())))
            except TimeoutError:
                raise BackendError(
                    f"{self.host} stopped sending for {self.timeout:g} s (timeout); "
                    "nothing recorded"
                ) from None
            except (OSError, http.client.HTTPException) as exc:
                raise BackendError(
                    f"connection to {self.host} broke: {self._server_text(str(exc))}"
                ) from None

    def _open(self, messages: Messages) -> Any:
        try:
            return self._opener.open(self._request(messages), timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise BackendError(self._http_failure(exc)) from None
        except urllib.error.URLError as exc:
            raise BackendError(self._connect_failure(exc.reason)) from None
        except (TimeoutError, OSError) as exc:
            raise BackendError(self._connect_failure(exc)) from None
        except http.client.HTTPException as exc:  # a status line or header that is not HTTP
            raise BackendError(
                f"{self.host} did not answer in HTTP: {self._server_text(repr(exc))}"
            ) from None

    def cancel(self) -> None:
        """Shut the connection down, which ends a read blocked on it in another thread."""
        response = self._response
        sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
        with contextlib.suppress(OSError):
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)

    def _events(self, response: Any) -> Iterator[str]:
        for raw in response:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[len("data:") :].strip()
            if data == "[DONE]":
                return
            yield from _delta_text(self._json(data.encode()))

    def _redact(self, text: str) -> str:
        return redact(text, self._key)

    def _server_text(self, text: str, limit: int = 160) -> str:
        """Text from the server (or about its answer) for an error line: the key redacted
        before it is cut to one line, so no part of it survives."""
        return one_line(self._redact(text), limit)

    def _json(self, data: bytes) -> Any:
        try:
            payload = json.loads(data)
        except ValueError:
            text = data.decode("utf-8", errors="replace")
            raise BackendError(
                f"the server sent something that is not JSON: {self._server_text(text, 80)!r}"
            ) from None
        if isinstance(payload, dict) and payload.get("error"):
            error = payload["error"]
            text = error.get("message", "") if isinstance(error, dict) else str(error)
            raise BackendError(f"the server reported an error: {self._server_text(text)}")
        return payload

    def _server_message(self, exc: urllib.error.HTTPError) -> str:
        try:
            body = exc.read(STDERR_TAIL).decode("utf-8", errors="replace")
        except (OSError, http.client.HTTPException):
            return ""
        try:
            error = json.loads(body).get("error", body)
            text = error.get("message", "") if isinstance(error, dict) else str(error)
        except (ValueError, AttributeError):
            text = body
        return self._server_text(text)

    def _http_failure(self, exc: urllib.error.HTTPError) -> str:
        code = exc.code
        if code in (401, 403):
            hint = "the API key was refused: check ZERDA_API_KEY or OPENAI_API_KEY"
            if not self._key:
                hint = "no API key: set ZERDA_API_KEY or OPENAI_API_KEY"
        elif code == 404:
            hint = "not found: check --base-url (usually ending in /v1) and --model"
        elif code == 429:
            wait = exc.headers.get("Retry-After")
            hint = "rate limited or out of quota" + (
                f"; retry after {self._server_text(wait, 20)} s" if wait else ""
            )
        elif code >= 500:
            hint = "the server failed; try again with /retry"
        else:
            hint = "request refused"
        detail = self._server_message(exc)
        return f"HTTP {code} from {self.host}: {hint}" + (f" ({detail})" if detail else "")

    def _connect_failure(self, reason: object) -> str:
        if isinstance(reason, ConnectionRefusedError):
            return f"cannot connect to {self.host}: connection refused (is the server running?)"
        if isinstance(reason, TimeoutError):
            return f"no answer from {self.host} within {self.timeout:g} s (timeout)"
        if isinstance(reason, socket.gaierror):
            return f"cannot resolve {self.host}: {reason.strerror or reason}"
        text = getattr(reason, "strerror", None) or str(reason)
        return f"cannot reach {self.host}: {self._server_text(text)}"


def _delta_text(payload: Any) -> Iterator[str]:
    choices = payload.get("choices") if isinstance(payload, dict) else None
    for choice in choices if isinstance(choices, list) else []:
        if not isinstance(choice, dict):
            continue
        content = (choice.get("delta") or {}).get("content")
        if isinstance(content, str) and content:
            yield content


def _completion_text(payload: Any) -> str:
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise BackendError("the server's reply holds no choices[0].message.content") from None
    return str(content or "")


def make_backend(config: ChatConfig, session_id: str) -> Backend:
    """The backend the config names (manual, command or openai)."""
    name = config.backend_name
    if name == "command":
        return CommandBackend(
            config.command or "",
            text_format=config.command_format == "text",
            env={"ZERDA_SESSION": session_id},
            secret=config.api_key(),
        )
    if name == "openai":
        return OpenAIBackend(config.base_url, config.model, config.api_key(), config.timeout)
    return ManualBackend()
