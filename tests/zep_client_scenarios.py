"""The real zep-python client (1.5.0) against a server: `python zep_client_scenarios.py
SCENARIO BASE_URL SESSION_ID` runs one scenario and prints what the client saw as JSON.

It runs in a venv of its own (zep-python pins httpx<0.25, which the main venv cannot
have; see .ci/run), so it imports nothing of zerda's. The API key, if any, comes from
$ZEP_API_KEY. tests/test_serve.py starts the server and asserts on the output.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

from zep_python import APIError, NotFoundError, ZepClient
from zep_python.exceptions import AuthError
from zep_python.memory import Memory, MemorySearchPayload, Message, Session, Summary

# The seed's history, as written there.
history = [
    {"role": "human", "content": "Who was Octavia Butler?"},
    {
        "role": "ai",
        "content": "Octavia Estelle Butler (June 22, 1947 – February 24, 2006) was an American"  # noqa: RUF001 (as the seed has it)
        + " science fiction author.",
    },
    {
        "role": "human",
        "content": "Which books of hers were made into movies?",
        "metadata": {"foo": "bar"},
    },
]


async def seed(client: ZepClient, session_id: str) -> Any:
    """The seed's example verbatim (its messages carry role and content), read back."""
    messages = [Message(role=m["role"], content=m["content"]) for m in history]
    memory = Memory(messages=messages)
    result = await client.memory.aadd_memory(session_id, memory)
    return {"result": result, **await _read(client, session_id)}


async def metadata(client: ZepClient, session_id: str) -> Any:
    """The seed's history with each message's metadata too, read back."""
    messages = [Message(**m) for m in history]
    await client.memory.aadd_memory(session_id, Memory(messages=messages))
    return await _read(client, session_id)


async def memory(client: ZepClient, session_id: str) -> Any:
    """The session's memory: every message and the summary."""
    return await _read(client, session_id)


async def lastn(client: ZepClient, session_id: str) -> Any:
    """The last two messages only."""
    return await _read(client, session_id, 2)


async def summary_posted(client: ZepClient, session_id: str) -> Any:
    """A memory posted with a summary, read back."""
    memory = Memory(messages=[], summary=Summary(content="They spoke of Octavia Butler."))
    await client.memory.aadd_memory(session_id, memory)
    return await _read(client, session_id)


async def _read(client: ZepClient, session_id: str, last: int | None = None) -> Any:
    try:
        memory = await client.memory.aget_memory(session_id, lastn=last)
    except NotFoundError:
        return {"error": "NotFoundError"}
    summary = memory.summary.to_dict() if memory.summary else None
    return {"messages": [m.to_dict() for m in memory.messages], "summary": summary}


def sessions(client: ZepClient, session_id: str) -> Any:
    """A session made, updated, read and listed (in one call, and page by page)."""
    made = client.memory.add_session(
        Session(session_id=session_id, user_id="reader", metadata={"topic": "books"})
    )
    updated = client.memory.update_session(Session(session_id=session_id, metadata={"year": 1993}))
    return {
        "made": made.dict(),
        "updated": updated.dict(),
        "got": client.memory.get_session(session_id).dict(),
        "listed": [s.session_id for s in client.memory.list_sessions()],
        "pages": [[s.session_id for s in p] for p in client.memory.list_all_sessions(2)],
    }


def search(client: ZepClient, session_id: str) -> Any:
    """The session's messages about Octavia Butler, best first."""
    found = client.memory.search_memory(session_id, MemorySearchPayload(text="Octavia Butler"))
    return [r.dict() for r in found]


def messages(client: ZepClient, session_id: str) -> Any:
    """The messages a page at a time, one by uuid, and one's metadata updated."""
    page = client.message.get_session_messages(session_id, limit=2, cursor=2)
    first = client.message.get_session_messages(session_id)[0]
    update = {"metadata": {"seen": True}}
    return {
        "page": [m.to_dict() for m in page],
        "one": client.message.get_session_message(session_id, first.uuid).to_dict(),
        "updated": client.message.update_message_metadata(session_id, first.uuid, update).dict(),
        "missing": _status(lambda: client.message.get_session_message(session_id, "nope")),
    }


async def delete(client: ZepClient, session_id: str) -> Any:
    """The memory deleted, then asked for."""
    result = await client.memory.adelete_memory(session_id)
    return {"result": result, **await _read(client, session_id)}


def missing(client: ZepClient, session_id: str) -> Any:
    """A session that does not exist, asked for in each way."""
    return {
        "memory": _status(lambda: client.memory.get_memory(session_id)),
        "session": _status(lambda: client.memory.get_session(session_id)),
        "update": _status(lambda: client.memory.update_session(Session(session_id=session_id))),
        "delete": _status(lambda: client.memory.delete_memory(session_id)),
    }


def calls(client: ZepClient, session_id: str) -> Any:
    """A read, to see whether the key is taken."""
    return _status(lambda: client.memory.get_memory(session_id))


def too_large(client: ZepClient, session_id: str) -> Any:
    """A memory larger than the server takes."""
    big = Memory(messages=[Message(role="human", content="x" * 100_000)])
    return _status(lambda: client.memory.add_memory(session_id, big))


def _status(call: Callable[[], Any]) -> Any:
    """What a call raised, as the client reports it (or "ok")."""
    try:
        call()
    except (AuthError, APIError) as exc:
        return {"error": type(exc).__name__, "response": exc.response_data}
    except NotFoundError as exc:
        return {"error": "NotFoundError", "message": exc.message}
    return "ok"


SCENARIOS = {
    f.__name__: f
    for f in [
        seed,
        metadata,
        memory,
        lastn,
        summary_posted,
        sessions,
        search,
        messages,
        delete,
        missing,
        calls,
        too_large,
    ]
}


async def main(name: str, base_url: str, session_id: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = ZepClient(base_url, os.environ.get("ZEP_API_KEY"))
    async with client:
        found = SCENARIOS[name](client, session_id)
        result = await found if asyncio.iscoroutine(found) else found
    client.close()
    json.dump({"result": result, "warnings": [str(w.message) for w in caught]}, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
