"""`zerda import` streams its file: read twice (check, then write), never held whole.

A JSON document is read an element at a time, stdin is spooled to a private temp file,
a uuid the session holds is replaced in place (a streamed rewrite), and the first bad
item, however deep, is named while nothing is written. Every run is a real process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import process

from zerda import Memory, Message, SessionStore


def path_of(store: SessionStore, session_id: str = "s") -> Path:
    return store.sessions_dir / f"{session_id}.jsonl"


def add_turns(store: SessionStore, n: int, session_id: str = "s") -> None:
    pairs = [m for i in range(n) for m in (Message("user", f"q{i}"), Message("assistant", f"a{i}"))]
    store.add_memory(session_id, Memory(pairs))


@pytest.fixture
def big(store: SessionStore) -> str:
    """Session `big`: 4,001 messages (over 3 MiB, so documents span windows) with
    multi-byte text, metadata, a tool call and a summary."""
    store.create_session("big", user_id="ada", metadata={"k": "v"})
    messages = []
    for i in range(2000):
        text = f"été {i} \U0001f600 " + "ñ" * (i % 1400)
        messages += [Message("user", text, {"i": i}), Message("assistant", f"réponse {i}")]
    messages.append(
        Message.from_dict({"role": "assistant", "content": "", "extra": {"tool_calls": []}})
    )
    store.add_memory("big", Memory(messages, summary="Ada's long session."))
    return "big"


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
@pytest.mark.parametrize("via", ["file", "stdin"])
def test_a_big_export_imports_back_byte_for_byte(
    home: Path, big: str, tmp_path: Path, fmt: str, via: str
) -> None:
    first = process(home, "export", big, "--format", fmt).stdout
    assert len(first) > 3_000_000  # three windows
    spool = tmp_path / "spool"
    spool.mkdir()
    if via == "file":
        exported = tmp_path / f"big.{fmt}"
        exported.write_bytes(first)
        done = process(home, "import", "copy", str(exported))
    else:
        done = process(home, "import", "copy", "-", stdin=first, env={"TMPDIR": str(spool)})
    assert done.code == 0 and done.stderr == b"imported 4001 messages into session copy\n"
    assert list(spool.iterdir()) == []  # the spooled stdin is gone
    second = process(home, "export", "copy", "--format", fmt).stdout
    assert second == first.replace(b'"id": "big"', b'"id": "copy"')


def test_a_pipe_as_the_file_is_read_once_and_spooled(home: Path, big: str) -> None:
    exported = process(home, "export", big).stdout
    done = process(home, "import", "piped", "/dev/stdin", stdin=exported)
    assert done.code == 0, done.stderr
    assert process(home, "export", "piped").stdout == exported.replace(b'"big"', b'"piped"', 1)


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_reimporting_replaces_in_place_and_repeats_take_the_last_value(
    home: Path, store: SessionStore, fmt: str, tmp_path: Path
) -> None:
    add_turns(store, 30)
    store.append_turn("s", "kept after", "the export")
    old = list(store.iter_messages("s"))
    edited = [
        {**old[4].to_dict(), "content": "q2 edited"},
        {"role": "user", "content": "first", "uuid": "0000-new"},
        {**old[5].to_dict(), "content": "a2 edited"},
        {"role": "user", "content": "last", "uuid": "0000-new"},
        {"role": "user", "content": "no uuid"},
    ]
    if fmt == "json":
        data = json.dumps({"session": None, "summary": "re", "messages": edited}, indent=2)
    else:
        data = "".join(json.dumps(item) + "\n" for item in edited)
    source = tmp_path / f"edit.{fmt}"
    source.write_text(data)
    done = process(home, "import", "s", str(source))
    assert done.stderr == b"imported 4 messages into session s\n"
    got = list(store.iter_messages("s"))
    want = [m.content for m in old]
    want[4:6] = ["q2 edited", "a2 edited"]
    assert [m.content for m in got] == [*want, "last", "no uuid"]
    assert got[4].created_at == old[4].created_at and got[4].uuid == old[4].uuid
    if fmt == "json":
        summary = store.get_summary("s")
        assert summary is not None and summary.content == "re"


def test_repeated_uuids_in_a_new_session_are_stored_once(home: Path, store: SessionStore) -> None:
    items = [{"role": "user", "content": f"v{i}", "uuid": f"u{i % 3}"} for i in range(9)]
    done = process(home, "import", "n", "-", stdin=json.dumps(items).encode())
    assert done.stderr == b"imported 3 messages into session n\n"
    assert [(m.uuid, m.content) for m in store.iter_messages("n")] == [
        ("u0", "v6"),
        ("u1", "v7"),
        ("u2", "v8"),
    ]


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("jsonl", "line 4001: message role must be a non-empty string"),
        ("json", "item 4001: message role must be a non-empty string"),
    ],
)
def test_a_bad_item_deep_in_a_big_file_writes_nothing(
    home: Path, store: SessionStore, tmp_path: Path, fmt: str, needle: str
) -> None:
    add_turns(store, 2)
    before = path_of(store).read_bytes()
    items: list[dict[str, Any]] = [{"role": "user", "content": "z" * 1000} for _ in range(5000)]
    items[4000]["role"] = ""
    source = tmp_path / f"bad.{fmt}"
    if fmt == "json":
        source.write_text(json.dumps(items))
    else:
        source.write_text("".join(json.dumps(i) + "\n" for i in items))
    done = process(home, "import", "s", str(source))
    assert done.code == 1 and done.err.count("\n") == 1
    assert needle in done.err
    assert path_of(store).read_bytes() == before


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            b'[{"role":"user","content":"ok"}' + b"," + b" " * (3 << 20) + b'"x"]',
            "item 2: expected",
        ),
        (
            b'[{"role":"user","content":"' + b"\xc3\xa9" * (1 << 20) + b'\xff"}]',
            "not valid UTF-8 (byte 0xff at offset 2097179)",
        ),
        (b'{"messages": [], "messages": []}', 'two "messages" arrays'),
        (b'[{"role":"user","content":"\\ud800"}]', "item 1: cannot store this message"),
        (b'{"role":"user","content":"ok"}\n{"role":"user","content":"\\udfff"}\n', "line 2:"),
    ],
)
def test_import_errors_name_where_and_write_nothing(
    home: Path, store: SessionStore, data: bytes, needle: str
) -> None:
    add_turns(store, 1)
    before = path_of(store).read_bytes()
    done = process(home, "import", "s", "-", stdin=data)
    err = done.err
    assert done.code == 1 and needle in err and err.count("\n") == 1, err
    assert path_of(store).read_bytes() == before


def test_line_separators_inside_text_stay_inside_their_line(
    home: Path, store: SessionStore
) -> None:
    # zerda's JSON Lines keep U+2028, U+2029 and NEL raw: only "\n" ends a line.
    store.add_message("s", Message("user", "one\u2028two\u2029three\x85four\x1cfive"))
    exported = process(home, "export", "s").stdout
    assert "\u2028".encode() in exported
    done = process(home, "import", "copy", "-", stdin=exported)
    assert done.code == 0, done.stderr
    assert process(home, "export", "copy").stdout == exported.replace(b'"id": "s"', b'"id": "copy"')
