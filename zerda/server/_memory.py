"""Zep's memory endpoints: a session's messages and summary read, added, deleted and
searched (`/api/v1/sessions/{session_id}/memory` and `/search`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from zerda.messages import Summary
from zerda.server._protocol import Problem, endpoint, in_thread, json_body, query_int
from zerda.server._zep import Json, hit_out, memory_in, memory_out, summary_hit_out
from zerda.store._matching import Matcher
from zerda.store._words import Words
from zerda.store.base import Store

SEARCH_LIMIT = 10  # results when the client gives no limit, as Zep's server


@endpoint
async def get_memory(request: Request) -> Response:
    """GET /memory?lastn=N: the messages (only the last N, read from the end) and the
    summary; 404 when there is no such session."""
    lastn = query_int(request, "lastn", 1)
    store: Store = request.app.state.store
    memory = await in_thread(store.get_memory, request.path_params["session_id"], lastn)
    return JSONResponse(memory_out(memory))


@endpoint
async def add_memory(request: Request) -> Response:
    """POST /memory: add the messages (and a summary) in one write, creating the session
    on its first; "OK", as Zep answers."""
    memory = memory_in(await json_body(request))
    store: Store = request.app.state.store
    await in_thread(store.add_memory, request.path_params["session_id"], memory)
    return PlainTextResponse("OK")


@endpoint
async def delete_memory(request: Request) -> Response:
    """DELETE /memory: remove the session and everything in it, as Zep does; 404 when
    there is no such session."""
    store: Store = request.app.state.store
    await in_thread(store.delete_session, request.path_params["session_id"])
    return PlainTextResponse("OK")


@endpoint
async def search_memory(request: Request) -> Response:
    """POST /search?limit=N: the session's messages holding every word of `text`, best
    first (BM25), or its summary for `search_scope` "summary"."""
    body = await json_body(request)
    words = _words(body)
    limit = query_int(request, "limit", 1) or SEARCH_LIMIT
    store: Store = request.app.state.store
    session_id = request.path_params["session_id"]
    if body.get("search_scope") == "summary":
        found = await in_thread(store.get_summary, session_id)
        return JSONResponse(_summary_hits(found, words))
    ranked = await in_thread(lambda: store.ranked(words, session_id, limit=limit))
    return JSONResponse([hit_out(message, score) for _, message, score in ranked])


def _words(body: Json) -> Words:
    """The query's words; a search by metadata or of another scope is refused."""
    if body.get("metadata"):
        raise Problem(400, "search by metadata is not supported: search by text")
    if body.get("search_scope") not in (None, "messages", "summary"):
        raise Problem(400, "search_scope must be messages or summary")
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        raise Problem(400, "text is required")
    return Words.parse(text)


def _summary_hits(summary: Summary | None, words: Words) -> list[Json]:
    """The summary as the one result, when it holds every word."""
    if summary is None or not Matcher(words).found(summary.content):
        return []
    return [summary_hit_out(summary, 1.0)]
