"""The fast search (zerda.store.files._search) against a full decode, on generated session files."""

from __future__ import annotations

import json
import os
import random
import sys
import warnings
from pathlib import Path

import pytest

from zerda import SessionStore
from zerda.errors import CorruptSessionError, ZerdaWarning
from zerda.messages import Message
from zerda.store.files import _search as search

WORDS = [
    "zebrafish", "ZebraFish", "ZEBRAFISH", "zebra", "fish", "strasse", "Straße", "STRASSE",
    "\u017ftra\u017f\u017fe", "ﬁsh", "K", "kelvin", "café", "CAFÉ", "日本語", "🙂", "a/b",
    "x", "the", "ǰ", "İstanbul", "—", "tab\there", "quote\"d", "back\\slash",
]  # fmt: skip
NEEDLES = [
    "zebrafish", "ZEBRA", "fish", "strasse", "ss", "st", "fi", "k", "kelvin", "café",
    "日本", "a/b", "h", "the zebra", "j", "i", "quote\"d", "", "J̌", "🙂", "x x",
]  # fmt: skip


def _found(store: SessionStore, sid: str, needle: str) -> list[Message]:
    return [message for _, message in store.search(needle, sid)]


def _expected(store: SessionStore, sid: str, needle: str) -> list[Message]:
    """The messages holding `needle`, last added first, by a full decode: newest first,
    for these sessions' times are in order or (the lines appended by hand, which carry no
    running totals to say otherwise) taken in the order they were written."""
    folded = needle.casefold()
    return [m for m in reversed(list(store.iter_messages(sid))) if folded in m.content.casefold()]


def _build(store: SessionStore, seed: int, count: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        store.add_message("s", Message(rng.choice(["user", "assistant"]), text))


def _append_escaped(store: SessionStore, texts: list[str]) -> None:
    """Message lines written as another tool might: every character `\\u` escaped."""
    path = store.sessions_dir / "s.jsonl"
    with path.open("a", encoding="ascii") as handle:
        for i, text in enumerate(texts):
            record = {
                "type": "message", "uuid": f"esc{i}", "created_at": "2024-01-01T00:00:00Z",
                "role": "user", "content": text, "metadata": {}, "token_count": 3,
            }  # fmt: skip
            line = json.dumps(record, ensure_ascii=True)
            for char in "zZfFsS/":
                line = line.replace(char, f"\\u{ord(char):04X}")
            handle.write(line.replace('"\\u0053', '"S').replace("\\u002F", "\\/") + "\n")


@pytest.fixture(params=[64, 1 << 20], ids=["tiny-chunks", "chunks"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    size: int = request.param
    monkeypatch.setattr(search, "CHUNK", size)
    return size


@pytest.mark.parametrize("count_on_write", [True, False])
def test_same_messages_as_a_full_decode(home: Path, chunk: int, count_on_write: bool) -> None:
    store = SessionStore(home, fsync=False, count_on_write=count_on_write)
    _build(store, seed=chunk, count=150)
    _append_escaped(store, ["Zebrafish at the end", "a/b and ZEBRA", "nothing here"])
    for needle in NEEDLES:
        assert _found(store, "s", needle) == _expected(store, "s", needle), needle


def _dies_mid_entry(fd: int, start: int, stop: int, finder: search.LineFinder, send: int) -> None:
    """A helper killed while handing over its second line: one whole entry, then half one."""
    with os.fdopen(send, "wb") as out:
        for sent, (offset, line) in enumerate(search._scan(fd, start, stop, finder)):
            entry = search._ENTRY.pack(offset, len(line)) + line
            out.write(entry if sent == 0 else entry[: len(entry) // 2])
            if sent == 1:
                break
    os._exit(9)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("dies", [False, True], ids=["child-hands-over", "child-dies"])
def test_two_process_split_finds_the_same(
    store: SessionStore, chunk: int, dies: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(store, seed=7, count=120)
    monkeypatch.setattr(search, "PARALLEL_MIN", 0)
    monkeypatch.setattr(search, "_can_fork", lambda: True)
    if dies:
        monkeypatch.setattr(search, "_scan_for_parent", _dies_mid_entry)
    for needle in ["zebrafish", "ss", "fi", "the", "café"]:
        assert _found(store, "s", needle) == _expected(store, "s", needle), needle


def test_every_split_point_keeps_each_line_once(store: SessionStore) -> None:
    _build(store, seed=3, count=40)
    path = store.sessions_dir / "s.jsonl"
    data = path.read_bytes()
    finder = search.LineFinder("a")
    with open(path, "rb") as handle:
        fd = handle.fileno()
        whole = list(search._scan(fd, 0, len(data), finder))
        for at in range(0, len(data), 97):
            mid = search._line_start(fd, at, len(data))
            halves = list(search._scan(fd, mid, len(data), finder)) + list(
                search._scan(fd, 0, mid, finder)
            )
            assert halves == whole
    assert [line for _, line in whole] == [
        line for line in reversed(data.split(b"\n")) if b"a" in line.lower()
    ]


def test_needle_at_chunk_and_line_edges(store: SessionStore, chunk: int) -> None:
    store.add_message("s", Message("user", "zebrafish"))
    store.add_message("s", Message("user", "x" * 40 + "ZEBRAFISH"))
    store.add_message("s", Message("user", "zebra fish"))
    store.add_message("s", Message("user", "ZebraFish" + "y" * 200))
    found = _found(store, "s", "zebrafish")
    assert [m.content[:9].lower() for m in found] == ["zebrafish", "xxxxxxxxx", "zebrafish"]
    assert found == _expected(store, "s", "zebrafish")


def test_counts_come_from_token_records(home: Path) -> None:
    writer = SessionStore(home, fsync=False, count_on_write=False)
    writer.add_message("s", Message("user", "a zebrafish"))
    writer.add_message("s", Message("user", "no match"))
    first = list(writer.iter_messages("s"))  # counts both and records them
    found = _found(writer, "s", "zebrafish")
    assert [m.token_count for m in found] == [first[0].token_count]
    assert found[0].token_count is not None


def test_a_damaged_line_holding_the_needle_is_reported(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    store.add_message("s", Message("user", "zebrafish one"))
    with (store.sessions_dir / "s.jsonl").open("a") as handle:
        handle.write('{"type":"message","content":"zebrafish broken\n')
        handle.write('{"type":"message","content":"other broken\n')
    with pytest.raises(CorruptSessionError, match=r"line 3"):
        _found(store, "s", "zebrafish")
    assert _found(store, "s", "nothing matches") == []
    lenient = SessionStore(home, fsync=False, lenient=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = _found(lenient, "s", "ZEBRAFISH")
    assert [m.content for m in found] == ["zebrafish one"]
    assert next(str(w.message) for w in caught if issubclass(w.category, ZerdaWarning)).count(
        "line 3"
    )


def test_a_torn_last_line_is_left_out_with_a_warning(store: SessionStore) -> None:
    store.add_message("s", Message("user", "zebrafish"))
    with (store.sessions_dir / "s.jsonl").open("a") as handle:
        handle.write('{"type":"message","content":"zebrafish')
    with pytest.warns(ZerdaWarning, match="torn"):
        assert [m.content for m in _found(store, "s", "zebrafish")] == ["zebrafish"]


def test_fold_table_matches_this_python() -> None:
    beyond_ascii = (chr(c) for c in range(128, sys.maxunicode + 1))
    folds = [c for c in beyond_ascii if any(f.isascii() for f in c.casefold())]
    assert "".join(folds) == search.FOLDS_TO_ASCII


@pytest.mark.parametrize(
    ("fold", "needle", "overlaps"),
    [("ss", "strasse", True), ("ss", "zebrafish", False), ("s", "zebrafish", True),
     ("fi", "zebrafish", True), ("ffi", "zebrafish", False), ("ffi", "if", True),
     ("h\u0331", "fish", True), ("a\u02be", "zebrafish", False), ("st", "t", True)],
)  # fmt: skip
def test_which_folds_can_take_part_in_a_match(fold: str, needle: str, overlaps: bool) -> None:
    assert search._overlaps(fold, needle) is overlaps
