"""What goes in comes back out: export | import | export, OpenAI transcripts, re-imports.

Every round trip runs the installed `zerda` as a real subprocess, on a session shaped
like a real one: a system prompt, an OpenAI tool call and its result, a named speaker,
content parts, arbitrary roles, message metadata, session metadata and a summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import Result, process

from zerda import Memory, Message, SessionStore, Summary
from zerda.formats.openai import from_openai

# An OpenAI chat transcript as the chat-completions API documents it
# (https://platform.openai.com/docs/api-reference/chat/create): a developer prompt,
# a named user with content parts, an assistant that only calls a tool (content null),
# the tool's answer, then the final reply.
OPENAI_TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "developer", "content": "Answer in one sentence."},
    {"role": "system", "content": "You can call get_weather."},
    {
        "role": "user",
        "name": "ada",
        "content": [
            {"type": "text", "text": "What is the weather in Paris?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/paris.png"}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18}'},
    {"role": "assistant", "content": "It is 18 °C in Paris.", "refusal": None},
]


def zerda(home: Path, *args: str, stdin: bytes = b"") -> Result:
    """`zerda ARGS` as a real process on `home`; it must succeed."""
    done = process(home, *args, stdin=stdin)
    assert done.code == 0, done.err
    return done


@pytest.fixture
def rich_session(store: SessionStore) -> str:
    """Session `a`: everything a session can hold, written through the library."""
    store.create_session("a", user_id="ada", metadata={"system": "Be brief.", "tags": ["x"]})
    messages = [from_openai(m) for m in OPENAI_TRANSCRIPT]
    messages += [
        Message("human", "Hello from Zep's roles", {"foo": "bar"}),
        Message("ai", "Hi."),
        Message("narrator", "Meanwhile, in Lisbon…", role_type="system"),
        Message("Alice", "Bob, are you there?"),
        Message("Bob", "Yes.", role_type="assistant"),
    ]
    store.add_memory("a", Memory(messages, summary=Summary("Ada asked about Paris.")))
    return "a"


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_export_import_export_is_lossless(
    fmt: str, home: Path, store: SessionStore, rich_session: str
) -> None:
    first = zerda(home, "export", rich_session, "--format", fmt).stdout
    zerda(home, "import", "b", "-", stdin=first)
    second = zerda(home, "export", "b", "--format", fmt).stdout
    assert second == first.replace(b'"id": "a"', b'"id": "b"')
    assert b'"id": "a"' in first  # the replacement above changed exactly the session id
    again = store.get_memory("b")
    assert again == store.get_memory(rich_session)
    assert store.get_session("b").metadata == {"system": "Be brief.", "tags": ["x"]}
    assert store.get_session("b").user_id == "ada"


@pytest.mark.parametrize("fmt", ["jsonl", "json", "openai"])
def test_importing_the_same_file_twice_adds_nothing(
    fmt: str, home: Path, store: SessionStore, rich_session: str, tmp_path: Path
) -> None:
    exported = tmp_path / f"a.{fmt}"
    exported.write_bytes(zerda(home, "export", rich_session, "--format", fmt).stdout)
    zerda(home, "import", "b", str(exported))
    once = zerda(home, "export", "b", "--format", fmt).stdout
    zerda(home, "import", "b", str(exported))
    if fmt == "openai":  # no uuids in an OpenAI array: a second import appends again
        assert store.message_count("b") == 2 * len(store.get_memory(rich_session).messages)
        return
    assert zerda(home, "export", "b", "--format", fmt).stdout == once
    assert store.message_count("b") == store.message_count(rich_session)


def test_an_openai_transcript_comes_back_exactly(home: Path) -> None:
    sent = json.dumps(OPENAI_TRANSCRIPT, ensure_ascii=False, indent=2) + "\n"
    zerda(home, "import", "t", "-", stdin=sent.encode())
    back = zerda(home, "export", "t", "--format", "openai").out
    assert json.loads(back) == OPENAI_TRANSCRIPT
    # Same keys and values; each message is laid out role, content, then the rest.
    in_order = [{"role": m["role"], "content": m["content"], **m} for m in OPENAI_TRANSCRIPT]
    assert back == json.dumps(in_order, ensure_ascii=False, indent=2) + "\n"
    shown = zerda(home, "show", "t", "--jsonl").out.splitlines()
    roles = [json.loads(line)["role"] for line in shown]
    assert roles == [m["role"] for m in OPENAI_TRANSCRIPT]


def test_keys_of_an_openai_item_zerda_also_uses_come_back(home: Path) -> None:
    # Items as the Responses API and some proxies write them: a "type" of their own, and
    # keys zerda knows by other meanings are the item's, kept as given.
    sent = [
        {"role": "user", "content": "hi", "type": "message", "status": "completed"},
        {"role": "assistant", "content": "hello", "type": "message", "id": "msg_1"},
    ]
    zerda(home, "import", "t", "-", stdin=json.dumps(sent).encode())
    back = zerda(home, "export", "t", "--format", "openai").stdout
    assert json.loads(back) == sent
    again = zerda(home, "export", "t", "--format", "jsonl").stdout
    zerda(home, "import", "u", "-", stdin=again)
    assert json.loads(zerda(home, "export", "u", "--format", "openai").stdout) == sent


def test_roles_and_their_types_are_kept_on_every_path(
    home: Path, store: SessionStore, rich_session: str
) -> None:
    stored = store.get_memory(rich_session).messages
    pairs = [(m.role, m.role_type) for m in stored]
    assert pairs[-5:] == [
        ("human", "user"),
        ("ai", "assistant"),
        ("narrator", "system"),
        ("Alice", "norole"),
        ("Bob", "assistant"),
    ]
    shown = zerda(home, "show", rich_session, "--json").stdout
    assert [(m["role"], m["role_type"]) for m in json.loads(shown)["messages"]] == pairs
    text = zerda(home, "show", rich_session).out
    assert "\nnarrator  " in text and "\nAlice  " in text and "\nhuman  " in text
    openai = json.loads(zerda(home, "export", rich_session, "--format", "openai").stdout)
    assert openai[-2] == {"role": "user", "content": "Bob, are you there?", "name": "Alice"}
    assert openai[-1] == {"role": "assistant", "content": "Yes.", "name": "Bob"}
    # Zep's aliases are sent by their type; the narrator is a system message.
    assert openai[-5] == {"role": "user", "content": "Hello from Zep's roles"}
    assert openai[-4] == {"role": "assistant", "content": "Hi."}
    assert openai[-3] == {"role": "system", "content": "Meanwhile, in Lisbon…", "name": "narrator"}


def test_add_keeps_any_role(home: Path, store: SessionStore) -> None:
    zerda(home, "add", "s", "--role", "narrator", "It was night.")
    zerda(home, "add", "s", "--role", "system", "Be terse.")
    assert [(m.role, m.role_type) for m in store.iter_messages("s")] == [
        ("narrator", "norole"),
        ("system", "system"),
    ]


def test_a_raw_session_file_imports_without_its_file_fields(
    home: Path, store: SessionStore
) -> None:
    store.append_turn("s1", "hello", "hi")
    store.add_message("s1", Message("Alice", "yo"))
    raw = store.sessions_dir / "s1.jsonl"
    zerda(home, "import", "s2", str(raw))
    exported = zerda(home, "export", "s2").out.splitlines()
    for line in exported[1:]:
        assert "extra" not in json.loads(line), line  # no tally or pointers taken as data
    assert [m.content for m in store.iter_messages("s2")] == ["hello", "hi", "yo"]


def test_an_import_that_cannot_be_stored_leaves_no_session(home: Path, store: SessionStore) -> None:
    bad = (
        '{"type":"session","id":"x","user_id":"alice"}\n'
        '{"role":"user","content":"x","metadata":{"score":NaN}}\n'
    )
    done = process(home, "import", "nan", "-", stdin=bad)
    assert done.code == 1 and done.stderr.count(b"\n") == 1, done.stderr
    assert not store.exists("nan")


def test_uuids_json_would_escape_are_refused_and_upserts_find_every_stored_uuid(
    store: SessionStore,
) -> None:
    from zerda import InvalidMessageError

    for unsafe in ('a"b', "back\\slash", "tab\tx"):
        with pytest.raises(InvalidMessageError):
            Message("user", "v1", uuid=unsafe)
    store.add_message("s", Message("user", "v1", uuid="plain-1"))
    store.add_message("s", Message("user", "v2", uuid="plain-1"))
    assert [(m.uuid, m.content) for m in store.iter_messages("s")] == [("plain-1", "v2")]
