"""`zerda mcp`: the MCP server over a store, driven by the mcp package's own client: in
process on the file store and on PostgreSQL, and as the installed command over stdio.

What goes in through a tool comes back out exactly (role as given, content, metadata),
and every answer is checked against what the store itself holds. PostgreSQL comes from
`ZERDA_TEST_POSTGRES_URL`; without it those runs are skipped, except under `CI=true`,
where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cli_runner import process
from mcp import StdioServerParameters
from mcp.client import Client, ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents

from tools.pgserver import URL_VARIABLE
from zerda import SessionStore
from zerda.mcp import build_server
from zerda.mcp._results import MAX_CONTENT
from zerda.memory._summary import summarize_session
from zerda.messages import Message, format_time
from zerda.store._words import Words
from zerda.store.base import Store

pytestmark = pytest.mark.anyio
HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}
TOOLS = {"search_history", "list_sessions", "read_session", "summarize_session", "add_message"}


@pytest.fixture
def anyio_backend() -> str:
    """asyncio only, whatever other backends are installed."""
    return "asyncio"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh database on the test server, dropped afterwards."""
    admin = os.environ.get(URL_VARIABLE)
    if not admin:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is needed in CI: {URL_VARIABLE} is not set")
        pytest.skip(f"{URL_VARIABLE} is not set")
    import psycopg

    name = f"zerda_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield urlsplit(admin)._replace(path=f"/{name}").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["file", "postgres"])
def store(request: pytest.FixtureRequest, home: Path) -> Iterator[Store]:
    """An empty store of each kind."""
    if request.param == "file":
        yield SessionStore(home, fsync=False)
        return
    from zerda.store.postgres import PostgresStore

    opened = PostgresStore(request.getfixturevalue("postgres_url"))
    opened.init()
    yield opened
    opened.close()


def expected(session_id: str, message: Message, **more: Any) -> dict[str, Any]:
    """A message as the tools should give it back, from the store's own copy."""
    assert message.created_at is not None
    named = {}
    if message.entities is not None:
        named["entities"] = [{"label": e.label, "name": e.name} for e in message.entities]
    return {
        "session_id": session_id,
        "uuid": message.uuid,
        "created_at": format_time(message.created_at),
        "role": message.role,
        "role_type": message.role_type,
        "content": message.content,
        "token_count": message.token_count,
        "metadata": message.metadata,
        **named,
        **more,
    }


async def answer(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured answer of a tool call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    structured: dict[str, Any] | None = result.structured_content
    assert structured is not None
    assert json.loads(result.content[0].text) == structured  # type: ignore[union-attr]
    return structured


METADATA = {"mood": "curious", "tags": ["db", 2], "nested": {"pi": 3.14}}


async def seeded(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """Session s1 written through the tools: Alice's message, then a turn."""
    message = {"role": "Alice", "content": "Hi, GIN?", "metadata": METADATA}
    added = await answer(client, "add_message", session_id="s1", **message)
    turn = {"user": "What is a gin index?", "assistant": "An index."}
    return added, await answer(client, "add_turn", session_id="s1", **turn)


async def test_what_is_added_is_stored_as_given(store: Store) -> None:
    async with Client(build_server(store)) as client:
        added, turn = await seeded(client)
    stored = list(store.iter_messages("s1"))
    assert [(m.role, m.role_type) for m in stored] == [
        ("Alice", "norole"), ("user", "user"), ("assistant", "assistant")
    ]  # fmt: skip
    assert stored[0].content == "Hi, GIN?" and stored[0].metadata == METADATA
    assert added == {"message": expected("s1", stored[0])}
    assert [m.entities is not None for m in stored] == [True, True, True]  # found as written
    assert turn == {"messages": [expected("s1", m) for m in stored[1:]]}


async def test_search_finds_what_the_store_finds(store: Store) -> None:
    async with Client(build_server(store)) as client:
        await seeded(client)
        found = await answer(client, "search_history", query="gin")
        only = await answer(client, "search_history", query="gin", role="Alice", limit=5)
        ranked = await answer(client, "search_history", query="gin ind*", words=True, rank=True)
    alice, question, _ = store.iter_messages("s1")
    assert [sid for sid, _ in store.search("gin")] == ["s1", "s1"]
    assert found["matches"] == [
        expected("s1", question, matches=[[10, 13]]),
        expected("s1", alice, matches=[[4, 7]]),
    ]
    assert [hit["uuid"] for hit in only["matches"]] == [alice.uuid]
    [best] = store.ranked(Words.parse("gin ind*"))
    assert ranked["matches"] == [
        expected("s1", question, matches=[[10, 13], [14, 19]], score=best[2])
    ]


async def test_listing_and_reading_give_the_stored_sessions(store: Store) -> None:
    async with Client(build_server(store)) as client:
        await seeded(client)
        store.set_summary("s1", "They talked about indexes.")
        listed = await answer(client, "list_sessions", limit=5, sort="name")
        tail = await answer(client, "read_session", session_id="s1", last=2)
        middle = await answer(client, "read_session", session_id="s1", start=1, end=2)
    [overview] = store.overviews("name")
    assert [(s["session_id"], s["messages"], s["tokens"]) for s in listed["sessions"]] == [
        ("s1", 3, overview.stats.token_count)
    ]
    _, question, reply = store.iter_messages("s1")
    assert tail["messages"] == [expected("s1", question, index=1), expected("s1", reply, index=2)]
    assert tail["summary"]["content"] == "They talked about indexes."
    assert tail["message_count"] == 3
    assert middle["messages"] == [expected("s1", question, index=1)]


async def test_summarizing_is_offline_and_changes_nothing(store: Store) -> None:
    async with Client(build_server(store)) as client:
        await seeded(client)
        store.set_summary("s1", "They talked about indexes.")
        made = await answer(client, "summarize_session", session_id="s1")
    offline = summarize_session(store, "s1")
    assert made["summary"]["content"] == offline.content
    assert made["summary"]["metadata"] == offline.metadata
    assert store.get_summary("s1").content == "They talked about indexes."  # type: ignore[union-attr]


async def test_the_resources_give_the_transcript_and_the_sessions(store: Store) -> None:
    first, second = store.append_turn("s1", "Hello\nthere", "Hi!")
    async with Client(build_server(store)) as client:
        read = await client.read_resource("zerda://sessions/s1")
        listed = await client.read_resource("zerda://sessions")
        with pytest.raises(MCPError, match="session not found: missing"):
            await client.read_resource("zerda://sessions/missing")
    text = read.contents[0]
    assert isinstance(text, TextResourceContents)
    times = [format_time(m.created_at) for m in (first, second) if m.created_at]
    assert text.text == (
        f"Session s1\n\n[{times[0]}] user:\nHello\nthere\n\n[{times[1]}] assistant:\nHi!\n"
    )
    sessions = json.loads(listed.contents[0].text)  # type: ignore[union-attr]
    assert [(s["session_id"], s["messages"], s["opening"]) for s in sessions] == [
        ("s1", 2, "Hello\nthere")
    ]


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("read_session", {"session_id": "missing"}, "session not found: missing"),
        ("summarize_session", {"session_id": "missing"}, "session not found: missing"),
        ("search_history", {"query": "x", "session_id": "missing"}, "session not found"),
        ("search_history", {"query": "x", "limit": 0}, "greater than or equal to 1"),
        ("list_sessions", {"limit": 101}, "less than or equal to 100"),
        ("list_sessions", {"sort": "size"}, "'activity', 'created'"),
        ("search_history", {"query": ""}, "at least 1 character"),
        ("search_history", {"query": "***", "words": True}, "no words to search for"),
        ("read_session", {"session_id": "s1", "last": 1, "start": 0}, "not both"),
        ("read_session", {"session_id": "s1", "start": 2, "end": 2}, "must be greater"),
        ("add_message", {"session_id": "s1", "role": " ", "content": "x"}, "role must be"),
        ("add_turn", {"session_id": "../up", "user": "q", "assistant": "a"}, "../up"),
    ],
)
async def test_mistakes_come_back_as_tool_errors(
    store: Store, tool: str, arguments: dict[str, Any], says: str
) -> None:
    store.append_turn("s1", "q", "a")
    async with Client(build_server(store)) as client:
        result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult) and result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert says in text and "Traceback" not in text
    assert store.session_ids() == ["s1"] and store.message_count("s1") == 2


async def test_long_contents_come_back_cut_with_a_note(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    long = "a" * 9_000 + " needle " + "b" * 9_000
    store.append_turn("s1", "short", long)
    async with Client(build_server(store)) as client:
        read = await answer(client, "read_session", session_id="s1")
        found = await answer(client, "search_history", query="needle")
    cut = read["messages"][1]
    assert cut["content"] == long[:MAX_CONTENT]
    note = "cut: characters 0-4000 of 18008 shown"
    assert cut["cut"] == {"start": 0, "end": MAX_CONTENT, "note": note}
    hit = found["matches"][0]
    assert hit["matches"] == [[9_001, 9_007]]
    start = hit["cut"]["start"]
    assert hit["content"] == long[start : start + MAX_CONTENT] and "needle" in hit["content"]


async def test_the_command_serves_over_stdio(tmp_path: Path) -> None:
    home = tmp_path / "home"
    SessionStore(home).append_turn("s1", "Where is the gin index?", "In the catalog.")
    zerda = Path(sys.executable).parent / "zerda"
    params = StdioServerParameters(
        command=str(zerda), args=["mcp", "--home", str(home)], env={"HOME": str(tmp_path)}
    )
    turn = {"session_id": "s2", "user": "Ça va?", "assistant": "Oui."}
    with (tmp_path / "stderr").open("w") as errors:
        async with (
            stdio_client(params, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = await session.list_tools()
            found = await session.call_tool("search_history", {"query": "GIN"})
            added = await session.call_tool("add_turn", turn)
    assert {tool.name for tool in tools.tools} >= TOOLS
    assert found.structured_content is not None
    assert [hit["content"] for hit in found.structured_content["matches"]] == [
        "Where is the gin index?"
    ]
    assert not added.is_error
    landed = SessionStore(home).iter_messages("s2")
    assert [(m.role, m.content) for m in landed] == [("user", "Ça va?"), ("assistant", "Oui.")]
    assert "Traceback" not in (tmp_path / "stderr").read_text()


def test_stdout_carries_the_protocol_alone(tmp_path: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_session"}},
    ]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "zerda"), "mcp", "--home", str(tmp_path / "home")],
        input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    assert replies[1]["result"]["isError"] and "session_id" in done.stdout


def test_every_request_read_before_stdin_closes_is_answered(tmp_path: Path) -> None:
    """A client that writes its requests and closes stdin (a shell pipe) gets every answer,
    and every write it asked for is stored once (requests run concurrently, as JSON-RPC
    allows, so not in order); a cancel notification, known request or not, leaves no
    process waiting."""
    requests: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    contents = [f"piped message {n}" for n in range(12)]
    for n, content in enumerate(contents, start=2):
        arguments = {"session_id": "piped", "role": "user", "content": content}
        call = {"name": "add_message", "arguments": arguments}
        requests.append({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call})
    for request_id in (99, 100):
        cancel = {"requestId": request_id, "reason": "gone"}
        requests.append({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
    lines = "".join(json.dumps(request) + "\n" for request in requests)
    done = process(tmp_path / "home", "mcp", stdin=lines, timeout=60)
    assert done.code == 0, done.err
    replies = [json.loads(line) for line in done.out.splitlines()]
    assert sorted(reply["id"] for reply in replies) == list(range(1, 14))
    assert not any(reply["result"].get("isError") for reply in replies[1:])
    stored = SessionStore(tmp_path / "home").iter_messages("piped")
    assert sorted(message.content for message in stored) == sorted(contents)


MODERN = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}
OPENING = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
ADD = {"name": "add_message", "arguments": {"session_id": "a", "role": "user", "content": "x"}}


@pytest.mark.parametrize(
    ("requests", "answered", "closing"),
    [
        pytest.param(
            [
                *OPENING,
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ADD},
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": "2"},
                },
            ],
            [[1], [1, 2]],  # answered, unless the cancel came first
            None,
            id="cancelled-with-its-id-as-a-string",
        ),
        pytest.param(
            [*OPENING, *[{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}] * 3],
            [[1, 2, 2, 2]],
            None,
            id="one-id-used-three-times",
        ),
        pytest.param(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": MODERN},
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "subscriptions/listen",
                    "params": {**MODERN, "notifications": {"toolsListChanged": True}},
                },
            ],
            [[1, 2]],
            2,  # the listen ends with the connection
            id="a-listen-of-the-2026-protocol",
        ),
    ],
)
def test_the_end_of_input_waits_for_no_request_that_gets_no_answer(
    tmp_path: Path, requests: list[dict[str, Any]], answered: list[list[int]], closing: int | None
) -> None:
    """A request cancelled by the client (its id as a string or a number: the SDK takes
    them as one), a listen (answered only when the connection ends) and an id used again
    each leave `zerda mcp` free to end at once; the backstop for requests still open is 30
    s, and the process must end well before it."""
    lines = "".join(json.dumps(request) + "\n" for request in requests)
    done = process(tmp_path / "home", "mcp", stdin=lines, timeout=20)
    assert done.code == 0, done.err
    messages = [json.loads(line) for line in done.out.splitlines()]
    replies = [message for message in messages if "id" in message]  # not notifications
    assert all(
        message.get("method", "").startswith("notifications/")
        for message in messages
        if "id" not in message
    ), done.out
    assert sorted(reply["id"] for reply in replies) in answered, done.out
    finished = [reply for reply in replies if reply.get("id") != closing]
    assert all("result" in reply for reply in finished), done.out  # none cut off at the end


async def test_messages_come_back_with_the_entities_they_name(store: Store) -> None:
    async with Client(build_server(store)) as client:
        added = await answer(
            client, "add_message", session_id="e", role="user", content="Ada Lovelace in London"
        )
        read = await answer(client, "read_session", session_id="e")
    named = [{"label": "PERSON", "name": "Ada Lovelace"}, {"label": "GPE", "name": "London"}]
    assert added["message"]["entities"] == named
    assert read["messages"][0]["entities"] == named
