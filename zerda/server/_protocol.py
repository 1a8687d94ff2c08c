"""What every endpoint shares: reading a bounded JSON body and integer query parameters,
running the store off the event loop, and turning each failure into one status and one
line of reason (never a traceback)."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from zerda.errors import (
    InvalidArgumentError,
    InvalidMessageError,
    InvalidSessionIdError,
    NotFoundError,
    SessionExistsError,
    ZerdaError,
)

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]
log = logging.getLogger("zerda.server")

# Zerda's errors and the status Zep answered them with; any other is the server's fault.
STATUS_OF: tuple[tuple[type[ZerdaError], int], ...] = (
    (NotFoundError, 404),
    (SessionExistsError, 409),
    (InvalidSessionIdError, 400),
    (InvalidMessageError, 400),
    (InvalidArgumentError, 400),
)


class Problem(Exception):
    """A request the server answers with `status` and a one-line `reason`."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def reason(status: int, text: str) -> Response:
    """A plain-text answer of one line."""
    return PlainTextResponse(" ".join(text.split()) + "\n", status_code=status)


def endpoint(handler: Endpoint) -> Endpoint:
    """`handler` with its failures answered: a Problem or a zerda error as its status, any
    other as 500 (logged on stderr with its traceback, never sent)."""

    @functools.wraps(handler)
    async def answered(request: Request) -> Response:
        try:
            return await handler(request)
        except Problem as exc:
            return reason(exc.status, exc.reason)
        except ZerdaError as exc:
            return _failed(request, exc)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return reason(500, "internal server error")

    return answered


def _failed(request: Request, exc: ZerdaError) -> Response:
    """The status Zep gave for `exc`, with its message; a store's own failure is 500,
    its detail (a file's path, a server's address) logged, not sent."""
    status = next((s for kind, s in STATUS_OF if isinstance(exc, kind)), 500)
    if status != 500:
        return reason(status, str(exc))
    log.error("%s %s: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
    return reason(500, f"the store failed ({type(exc).__name__})")


async def in_thread(call: Callable[..., T], *args: Any) -> T:
    """`call(*args)` in a worker thread: the stores block on files and sockets."""
    return await run_in_threadpool(call, *args)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; 413 when it is larger than the app's `max_body`, 400
    when it is not a JSON object."""
    raw = await _bounded_body(request, request.app.state.max_body)
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Problem(400, f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise Problem(400, "the body must be a JSON object")
    return body


async def _bounded_body(request: Request, limit: int) -> bytes:
    """The body, read until it passes `limit` bytes (then 413, the rest unread)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise Problem(413, f"the body is larger than {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise Problem(413, f"the body is larger than {limit} bytes")
    return bytes(body)


def query_int(request: Request, name: str, low: int) -> int | None:
    """Query parameter `name` as an integer of at least `low`; None when absent."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    try:
        value = int(text)
    except ValueError:
        raise Problem(400, f"{name} must be an integer, not {text!r}") from None
    if value < low:
        raise Problem(400, f"{name} must be at least {low}, not {value}")
    return value
