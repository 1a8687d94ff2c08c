"""Zep's message endpoints: a session's messages a page at a time, one message by uuid,
and a message's metadata updated (`/api/v1/sessions/{session_id}/messages`)."""

from __future__ import annotations

from dataclasses import replace
from itertools import islice
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from zerda.messages import Memory, Message
from zerda.server._protocol import Problem, endpoint, in_thread, json_body, query_int
from zerda.server._zep import Json, message_out, metadata_in
from zerda.store.base import Store, merged_metadata

PAGE = 100  # messages a page holds when the client gives no limit, as Zep's server


@endpoint
async def list_messages(request: Request) -> Response:
    """GET /messages?limit=&cursor=: page `cursor` (from 1) of `limit` messages, oldest
    first, with the session's total; 404 when there is no such session."""
    limit = query_int(request, "limit", 1) or PAGE
    page = query_int(request, "cursor", 1) or 1
    store: Store = request.app.state.store
    found = await in_thread(_page, store, request.path_params["session_id"], page, limit)
    return JSONResponse(found)


def _page(store: Store, session_id: str, page: int, limit: int) -> Json:
    total = store.message_count(session_id)
    start = (page - 1) * limit
    messages = [
        message_out(m) for m in islice(store.iter_messages(session_id), start, start + limit)
    ]
    return {"messages": messages, "total_count": total, "row_count": len(messages)}


@endpoint
async def get_message(request: Request) -> Response:
    """GET /messages/{uuid}: the message; 404 when the session does not hold it."""
    store: Store = request.app.state.store
    found = await in_thread(_find, store, *_ids(request))
    return JSONResponse(message_out(found))


@endpoint
async def update_message(request: Request) -> Response:
    """PATCH /messages/{uuid} with `{"metadata": {...}}`: merge it into the message's
    metadata (a key set to null is removed), its content and time kept; the message."""
    metadata = metadata_in(await json_body(request))
    store: Store = request.app.state.store
    changed = await in_thread(_update, store, metadata, *_ids(request))
    return JSONResponse(message_out(changed))


def _ids(request: Request) -> tuple[str, str]:
    """The session id and message uuid the path names."""
    return request.path_params["session_id"], request.path_params["message_uuid"]


def _find(store: Store, session_id: str, message_uuid: str) -> Message:
    """The session's message `message_uuid`; 404 when it holds none."""
    for message in store.iter_messages(session_id):
        if message.uuid == message_uuid:
            return message
    raise Problem(404, f"message not found: {message_uuid}")


def _update(store: Store, metadata: dict[str, Any], session_id: str, message_uuid: str) -> Message:
    """The message with `metadata` merged in, written back by uuid (the store replaces a
    message it holds in place, keeping its time)."""
    found = _find(store, session_id, message_uuid)
    changed = replace(found, metadata=merged_metadata(found.metadata, metadata))
    return store.add_memory(session_id, Memory(messages=[changed]))[0]
