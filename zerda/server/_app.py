"""The ASGI app: Zep's v1 memory API over one `Store`, its routes, the health check, the
key check, and the app made from the environment for uvicorn's workers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route

from zerda import __version__
from zerda.server import _memory as memory
from zerda.server import _messages as messages
from zerda.server import _sessions as sessions
from zerda.server._guard import BearerKey
from zerda.server._settings import MAX_BODY, Settings
from zerda.server._settings import from_environment as settings_from_environment
from zerda.store.base import Store

# zep-python warns below Zep 0.21; it reads the part before the first "-".
ZEP_VERSION = f"0.27.2-zerda-{__version__}"

SESSION = "/sessions/{session_id}"
ROUTES = [
    Route("/sessions", sessions.create_session, methods=["POST"]),
    Route("/sessions", sessions.list_sessions, methods=["GET"]),
    Route(SESSION, sessions.get_session, methods=["GET"]),
    Route(SESSION, sessions.update_session, methods=["PATCH"]),
    Route(SESSION + "/memory", memory.get_memory, methods=["GET"]),
    Route(SESSION + "/memory", memory.add_memory, methods=["POST"]),
    Route(SESSION + "/memory", memory.delete_memory, methods=["DELETE"]),
    Route(SESSION + "/search", memory.search_memory, methods=["POST"]),
    Route(SESSION + "/messages", messages.list_messages, methods=["GET"]),
    Route(SESSION + "/messages/{message_uuid}", messages.get_message, methods=["GET"]),
    Route(SESSION + "/messages/{message_uuid}", messages.update_message, methods=["PATCH"]),
]


async def health(request: Request) -> Response:
    """GET /healthz: ".", with the Zep version zep-python checks."""
    return PlainTextResponse(".", headers={"X-Zep-Version": ZEP_VERSION})


def create_app(store: Store, api_key: str | None, max_body: int = MAX_BODY) -> Starlette:
    """The server over `store`: requests must carry `Authorization: Bearer API_KEY`
    (None: no key is asked for; only for a server on a loopback address), bodies are
    at most `max_body` bytes. The store is closed when the server stops."""
    Settings(None, api_key, max_body).check()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.close()

    guard = [Middleware(BearerKey, key=api_key)] if api_key is not None else []
    routes = [Route("/healthz", health, methods=["GET"]), Mount("/api/v1", routes=ROUTES)]
    app = Starlette(routes=routes, middleware=guard, lifespan=lifespan)
    app.state.store = store
    app.state.max_body = max_body
    return app


def from_environment() -> Starlette:
    """The app `zerda serve` runs in each worker, made from the settings it exported
    (`zerda.server._settings`)."""
    from zerda.store._opening import open_store

    settings = settings_from_environment()
    return create_app(open_store(settings.location), settings.api_key, settings.max_body)
