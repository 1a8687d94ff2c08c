"""Deeply nested JSON is refused in one line, in little memory, wherever it is read."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from zerda.importers import ImportFailed, detect, read

DEPTH = 5000  # ijson's item paths would take ~60 MB at this depth


def _peak_of(call: Callable[[], None]) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_deep_nesting_in_an_export_is_one_line_in_little_memory(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text("[" * DEPTH + "]" * DEPTH)

    def read_all() -> None:
        with pytest.raises(ImportFailed, match="nested deeper than 1000 levels") as caught:
            list(read(path, "chatgpt"))
        assert "\n" not in str(caught.value)

    assert _peak_of(read_all) < 5 << 20


def test_deep_nesting_is_told_apart_in_little_memory(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text("[" * DEPTH)

    def tell() -> None:
        assert detect(path) == "openai"  # an array of no object with keys

    assert _peak_of(tell) < 5 << 20


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "importers" / "chatgpt" / "conversations.json"
    path = tmp_path / "conversations.json"
    path.write_bytes(b"\xef\xbb\xbf" + fixture.read_bytes())
    assert detect(path) == "chatgpt"
    assert len(list(read(path, "chatgpt"))) == 4
