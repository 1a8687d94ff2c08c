"""Zep's session endpoints: create, read, update and list sessions (`/api/v1/sessions`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from zerda.errors import NotFoundError
from zerda.messages import Session
from zerda.server._protocol import Problem, endpoint, in_thread, json_body, query_int
from zerda.server._zep import session_out
from zerda.store.base import Store


@endpoint
async def create_session(request: Request) -> Response:
    """POST /sessions: make the session (or update it, if it exists); 201."""
    body = await json_body(request)
    session_id = body.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise Problem(400, "session_id is required")
    store: Store = request.app.state.store
    made = await in_thread(store.create_session, session_id, body.get("user_id"), _meta(body))
    return JSONResponse(session_out(made), status_code=201)


@endpoint
async def get_session(request: Request) -> Response:
    """GET /sessions/{session_id}: the session; 404 when there is none."""
    store: Store = request.app.state.store
    found = await in_thread(store.get_session, request.path_params["session_id"])
    return JSONResponse(session_out(found))


@endpoint
async def update_session(request: Request) -> Response:
    """PATCH /sessions/{session_id}: set the user, merge the metadata (a key set to null
    is removed); 404 when there is no such session."""
    body = await json_body(request)
    store: Store = request.app.state.store
    session_id = request.path_params["session_id"]
    changed = await in_thread(store.update_session, session_id, body.get("user_id"), _meta(body))
    return JSONResponse(session_out(changed))


@endpoint
async def list_sessions(request: Request) -> Response:
    """GET /sessions?limit=&cursor=: sessions in id order, `cursor` of them skipped, at
    most `limit` (zep-python pages by adding `limit` to `cursor`)."""
    limit = query_int(request, "limit", 0) or None
    cursor = query_int(request, "cursor", 0) or 0
    store: Store = request.app.state.store
    page = await in_thread(_page, store, cursor, limit)
    return JSONResponse([session_out(s) for s in page])


def _page(store: Store, cursor: int, limit: int | None) -> list[Session]:
    """The sessions of one page; one deleted meanwhile is left out."""
    ids = store.session_ids()[cursor:]
    found = []
    for session_id in ids[:limit] if limit else ids:
        try:
            found.append(store.get_session(session_id))
        except NotFoundError:
            continue
    return found


def _meta(body: dict[str, object]) -> dict[str, object] | None:
    """The body's `metadata`: an object, or absent."""
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise Problem(400, "metadata must be an object")
    return metadata
