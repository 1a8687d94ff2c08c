"""A small OpenAI-compatible server on 127.0.0.1 for the `zerda chat` tests.

The first path segment picks the behaviour: `/stream/v1`, `/plain/v1`, `/slow/v1`, `/hang/v1`,
`/echo-key/v1` (401 quoting the key), `/status-429/v1`, `/status-500/v1`, `/usage/v1`
(usage reported), `/cut/v1` (dies mid-stream), `/length/v1`, `/content_filter/v1`,
`/finish-then-close/v1`, `/lines/v1` (three lines), `/flaky/v1` (500 first),
`/no-stream-options/v1` (400 for stream_options), ...
Every request body is kept in `requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body, "headers": self.headers})
        mode = self.path.strip("/").split("/")[0]
        reply = f"echo: {body['messages'][-1]['content']}"
        if mode == "hang":
            time.sleep(self.server.pause)
            self._stream([reply], pause=0.0)
        elif mode.startswith("status-"):
            self._error(int(mode.split("-")[1]), "the server says no")
        elif mode == "echo-key":
            self._error(401, f"Incorrect API key provided: {self.headers['Authorization'][7:]}")
        elif mode == "plain":
            self._json(200, {"choices": [{"message": {"role": "assistant", "content": reply}}]})
        elif mode == "usage":
            self._stream([reply[:4], reply[4:]], pause=0.0, finish="stop", usage=True)
        elif mode == "cut":  # the server dies after three chunks: no finish_reason, no [DONE]
            self._stream([reply[:3], reply[3:6], reply[6:9]], pause=0.0, done=False)
        elif mode in ("length", "content_filter"):
            self._stream([reply[:4], reply[4:]], pause=0.0, finish=mode, usage=True)
        elif mode == "finish-then-close":  # a finish_reason, then the connection ends
            self._stream([reply], pause=0.0, finish="stop", done=False)
        elif mode == "lines":
            self._stream(["first line\nsec", "ond line\n", "third line"], pause=0.0)
        elif mode == "no-stream-options":  # an older server that refuses the option
            if "stream_options" in body:
                self._error(400, "Unrecognized request argument supplied: stream_options")
            else:
                self._stream([reply], pause=0.0)
        elif mode == "flaky":  # fails while `failures` lasts, then streams
            if self.server.failures > 0:
                self.server.failures -= 1
                self._error(500, "overloaded, try later")
            else:
                self._stream([reply], pause=0.0, finish="stop")
        elif mode == "slow":
            self._stream([reply[:3], reply[3:]], pause=self.server.pause)
        else:
            self._stream([reply[i : i + 4] for i in range(0, len(reply), 4)], pause=0.0)

    def _json(self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        extra = {"Retry-After": "7"} if status == 429 else {}
        self._json(status, {"error": {"message": message}}, extra)

    def _stream(
        self,
        pieces: list[str],
        pause: float,
        finish: str | None = None,
        usage: bool = False,
        done: bool = True,
    ) -> None:
        """Each piece as a chunk; then a finish_reason, a usage chunk and [DONE] if asked."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        events: list[dict[str, Any]] = [{"choices": [{"delta": {"content": p}}]} for p in pieces]
        if finish:
            events.append({"choices": [{"delta": {}, "finish_reason": finish}]})
        if usage:
            figures = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
            events.append({"model": "served-m", "choices": [], "usage": figures})
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
            if pause and "finish_reason" not in str(event):
                time.sleep(pause)
        if done:
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[dict[str, Any]]
    pause: float
    failures: int

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that give up (timeouts, cancelled replies) are what the tests do; the
        # default handler would print to whatever sys.stderr is then, even another test's.
        pass

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}/v1"


@contextmanager
def chat_server(pause: float = 5.0) -> Iterator[ChatServer]:
    """Serve in a thread; `pause` is how long `/slow/` waits between its two pieces."""
    server = ChatServer(("127.0.0.1", 0), Handler)
    server.requests = []
    server.pause = pause
    server.failures = 1
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    """A port with nothing listening (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
