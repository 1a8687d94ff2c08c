"""The OpenAI-compatible client: `POST {base_url}/chat/completions`, streamed as server-sent events.

API: https://platform.openai.com/docs/api-reference/chat/create (`stream`,
`stream_options.include_usage`) and .../chat/streaming (the chunk object).
A streamed reply is complete when the server sends `data: [DONE]` or a chunk whose
choice has a `finish_reason`; a stream that simply stops (the server died, the
connection broke) is a ClientError and never a reply. The final usage chunk
(`choices: []`, `usage: {...}`) is read when the server sends one. A server that
answers with one JSON completion instead of a stream is accepted too.

The key is sent in the Authorization header only, and only to the base URL's
origin (see `_SameOriginRedirects`). It is never shown: every server text that
reaches an error line or the reply is redacted first.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Generator, Iterator
from typing import IO, Any

from zerda.clients._base import ClientError, Ending, Messages, Reply, one_line, usage_figures
from zerda.clients._redact import redact, redact_stream

ERROR_BODY = 4096


def _host(base_url: str) -> str:
    """`host[:port]` of an http(s) base URL, for messages; a URL holding credentials is
    refused without being repeated, since every error would show it."""
    authority = base_url.partition("://")[2].partition("/")[0]
    if "@" in authority:
        raise ClientError(
            "--base-url holds a user or key before '@': "
            "put the key in ZERDA_API_KEY or OPENAI_API_KEY instead"
        )
    try:
        parsed = urllib.parse.urlsplit(base_url)
        scheme, host, port = parsed.scheme, parsed.hostname, parsed.port
    except ValueError:  # a bad IPv6 literal or port
        scheme, host, port = "", None, None
    if scheme not in ("http", "https") or not host:
        raise ClientError(f"bad --base-url {base_url!r}: use http(s)://host[:port]/v1")
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
            raise ClientError(
                f"the server redirected to {_shown_origin(target)} (HTTP {code}); "
                "not followed, so the API key is not sent there: point --base-url at it"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _checked_key(api_key: str | None) -> str | None:
    """The key without surrounding blanks; one that cannot be sent in a header is refused
    without being repeated (the HTTP library's error would quote it)."""
    key = (api_key or "").strip()
    if any(not (" " < c < "\x7f") for c in key):
        raise ClientError(
            "the API key holds a space, control or non-ASCII character: "
            "check ZERDA_API_KEY or OPENAI_API_KEY"
        )
    return key or None


class OpenAIClient:
    """An OpenAI-compatible `/chat/completions` endpoint, streamed (server-sent events)."""

    name = "openai"

    def __init__(
        self, base_url: str, model: str, api_key: str | None, timeout: float = 60.0
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.host = _host(base_url)
        self.model: str | None = model
        self._key = _checked_key(api_key)
        if not timeout > 0:
            raise ClientError(f"the timeout must be more than 0 seconds, not {timeout:g}")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_SameOriginRedirects)
        self._response: Any = None
        # Usage figures are asked for until the server refuses the option that asks.
        self._ask_usage = True

    def __repr__(self) -> str:
        return f"OpenAIClient(url={self.url!r}, model={self.model!r})"

    def reply(self, messages: Messages) -> Reply:
        """The streamed completion's content, the key redacted; sent when first read."""
        return Reply(self.name, self.model, lambda ending: self._produce(messages, ending))

    def _request(self, messages: Messages) -> urllib.request.Request:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if self._ask_usage:
            body["stream_options"] = {"include_usage": True}
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )

    def _produce(self, messages: Messages, ending: Ending) -> Iterator[str]:
        response = self._response = self._open(messages)
        with response:
            try:
                if response.headers.get_content_type() == "text/event-stream":
                    events = self._events(response, ending)
                    try:
                        yield from redact_stream(events, self._key)
                    finally:
                        events.close()
                else:
                    yield self._redact(self._completion(self._json(response.read()), ending))
            except TimeoutError:
                raise ClientError(
                    f"{self.host} stopped sending for {self.timeout:g} s (timeout)"
                ) from None
            except (OSError, http.client.HTTPException) as exc:
                if ending.finish_reason is None:
                    raise ClientError(
                        f"connection to {self.host} broke: {self._server_text(str(exc))}"
                    ) from None

    def _open(self, messages: Messages) -> Any:
        try:
            return self._opener.open(self._request(messages), timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            detail = self._server_message(exc)
            if self._ask_usage and exc.code in (400, 422) and "stream_options" in detail:
                # A server that knows no stream_options: ask again without usage figures.
                self._ask_usage = False
                return self._open(messages)
            raise ClientError(self._http_failure(exc, detail)) from None
        except urllib.error.URLError as exc:
            raise ClientError(self._connect_failure(exc.reason)) from None
        except (TimeoutError, OSError) as exc:
            raise ClientError(self._connect_failure(exc)) from None
        except http.client.HTTPException as exc:  # a status line or header that is not HTTP
            raise ClientError(
                f"{self.host} did not answer in HTTP: {self._server_text(repr(exc))}"
            ) from None

    def cancel(self) -> None:
        """Shut the connection down, which ends a read blocked on it in another thread."""
        response = self._response
        sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
        with contextlib.suppress(OSError):
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)

    def _events(self, response: Any, ending: Ending) -> Generator[str, None, None]:
        """The content of each `data:` event until `[DONE]`; ClientError if it never came."""
        for raw in response:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[len("data:") :].strip()
            if data == "[DONE]":
                return
            yield from self._chunk(self._json(data.encode()), ending)
        if ending.finish_reason is None:
            raise ClientError(
                f"the reply from {self.host} was cut off: "
                "the stream ended without [DONE] or a finish_reason"
            )

    def _chunk(self, payload: Any, ending: Ending) -> Iterator[str]:
        """The text of one streamed chunk; its finish reason, usage and model go to `ending`."""
        if not isinstance(payload, dict):
            return
        self._note(payload, ending)
        choices = payload.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            content = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(content, str) and content:
                yield content
            if isinstance(choice.get("finish_reason"), str):
                ending.finish_reason = choice["finish_reason"]

    def _completion(self, payload: Any, ending: Ending) -> str:
        """The text of a whole (non-streamed) completion; the rest goes to `ending`."""
        try:
            choice = payload["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ClientError("the server's reply holds no choices[0].message.content") from None
        self._note(payload, ending)
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        ending.finish_reason = reason if isinstance(reason, str) else "stop"
        return str(content or "")

    def _note(self, payload: dict[str, Any], ending: Ending) -> None:
        """Keep the usage figures and the model name a chunk or completion reports."""
        usage = usage_figures(payload.get("usage"))
        if usage:
            ending.usage = usage
        model = payload.get("model")
        if isinstance(model, str) and model.strip():
            ending.model = self._server_text(model, 100)

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
            raise ClientError(
                f"the server sent something that is not JSON: {self._server_text(text, 80)!r}"
            ) from None
        if isinstance(payload, dict) and payload.get("error"):
            error = payload["error"]
            text = error.get("message", "") if isinstance(error, dict) else str(error)
            raise ClientError(f"the server reported an error: {self._server_text(text)}")
        return payload

    def _server_message(self, exc: urllib.error.HTTPError) -> str:
        try:
            body = exc.read(ERROR_BODY).decode("utf-8", errors="replace")
        except (OSError, http.client.HTTPException):
            return ""
        try:
            error = json.loads(body).get("error", body)
            text = error.get("message", "") if isinstance(error, dict) else str(error)
        except (ValueError, AttributeError):
            text = body
        return self._server_text(text)

    def _http_failure(self, exc: urllib.error.HTTPError, detail: str) -> str:
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
            hint = "the server failed"
        else:
            hint = "request refused"
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
