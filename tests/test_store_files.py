"""SessionFile's line readers: backward reads agree with forward reads at any block size."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerda import ZerdaWarning
from zerda.store.files import _sessionfile as sf

lines_st = st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=12)


@settings(max_examples=150, deadline=None)
@given(lines=lines_st, torn=st.binary(max_size=9), block=st.integers(1, 20))
def test_backward_read_matches_forward_read(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], torn: bytes, block: int
) -> None:
    torn = torn.replace(b"\n", b"")
    path = tmp_path_factory.mktemp("f") / "s.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + torn)
    file = sf.SessionFile(path, path.with_name("s.lock"))
    old = sf.BLOCK
    sf.BLOCK = block
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            forward = list(file.lines())
            backward = list(file.lines_reversed())
    finally:
        sf.BLOCK = old
    assert [line for _, line in forward] == [line + b"\n" for line in lines]
    assert [line for _, line in backward] == list(reversed(lines))
    data = path.read_bytes()
    for offset, line in backward:
        assert data[offset : offset + len(line) + 1] == line + b"\n"
        assert file.line_number_at(offset) == data[:offset].count(b"\n") + 1
        assert file.line_at(offset) == line
    torn_warnings = [w for w in caught if issubclass(w.category, ZerdaWarning)]
    assert len(torn_warnings) == (2 if torn else 0)


def test_append_repairs_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"one\ntwo\nthr")
    file = sf.SessionFile(path, tmp_path / ".s.lock", fsync=False)
    seen: list[tuple[int, bytes | None]] = []

    def render(size: int, last: bytes | None) -> bytes:
        seen.append((size, last))
        return b"four\n"

    with pytest.warns(ZerdaWarning, match="torn"), file.locked():
        file.append(render)
    assert path.read_bytes() == b"one\ntwo\nfour\n"
    assert seen == [(8, b"two\n")]


def test_append_creates_an_empty_file_with_no_last_line(tmp_path: Path) -> None:
    file = sf.SessionFile(tmp_path / "s.jsonl", tmp_path / ".s.lock")
    seen: list[bytes | None] = []
    with file.locked():
        file.append(lambda size, last: seen.append(last) or b"head\n")
    assert seen == [None]
    assert file.path.read_bytes() == b"head\n"


def test_a_fifo_at_the_path_is_refused(tmp_path: Path) -> None:
    import os

    from zerda import UnsafePathError

    path = tmp_path / "s.jsonl"
    os.mkfifo(path)
    file = sf.SessionFile(path, tmp_path / ".s.lock")
    with pytest.raises(UnsafePathError):
        list(file.lines())
    with pytest.raises(UnsafePathError), file.locked():
        file.append(lambda size, last: b"x\n")
