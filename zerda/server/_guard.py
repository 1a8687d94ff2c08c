"""The API key check: every request but the health check carries `Authorization: Bearer
KEY`, or is answered 401 with no detail (before routing, so unknown paths say nothing
either)."""

from __future__ import annotations

import hmac

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

OPEN_PATHS = frozenset({"/healthz"})  # zep-python calls it without the key


class BearerKey:
    """ASGI middleware letting through only requests that present `key`."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS or self._presented(scope):
            await self.app(scope, receive, send)
            return
        refusal = Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})
        await refusal(scope, receive, send)

    def _presented(self, scope: Scope) -> bool:
        """True when the request's Authorization header is `Bearer` and the key, compared
        in constant time."""
        value = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        scheme, _, token = value.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self.key)
