"""A bound memory's save is all or nothing: one write, and a failed write changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from zerda import SessionStore, UnsafePathError
from zerda.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
)
from zerda.memory._base import BaseMemory
from zerda.messages import Summary
from zerda.store.files._sessionfile import SessionFile

FACTORIES = {
    "buffer": lambda **kw: ConversationBufferMemory(**kw),
    "window": lambda **kw: ConversationBufferWindowMemory(k=2, **kw),
    "token": lambda **kw: ConversationTokenBufferMemory(max_token_limit=12, **kw),
    "summary": lambda **kw: ConversationSummaryMemory(**kw),
    "summary_buffer": lambda **kw: ConversationSummaryBufferMemory(max_token_limit=12, **kw),
}


def _text(summary: Summary | None) -> str | None:
    """The text of a stored summary, or None."""
    return summary.content if summary else None


def state(memory: BaseMemory) -> tuple[list[dict[str, object]], str | None]:
    turns = [{"input": t["input"], "output": t["output"]} for t in memory.chat_memory]
    return turns, getattr(memory, "summary", None)


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_failed_write_changes_nothing(kind: str, tmp_path: Path) -> None:
    store = SessionStore(tmp_path, fsync=False)
    memory = FACTORIES[kind](store=store, session_id="s")
    for n in range(4):
        memory.save_context({"input": f"question {n}"}, {"output": f"answer {n}"})
    before = state(memory)
    path = store.sessions_dir / "s.jsonl"
    os.replace(path, tmp_path / "moved.jsonl")
    path.symlink_to(tmp_path / "moved.jsonl")

    with pytest.raises(UnsafePathError):
        memory.save_context({"input": "lost question"}, {"output": "lost answer"})

    assert state(memory) == before


@pytest.mark.parametrize("kind", ["summary", "summary_buffer"])
def test_summary_is_written_with_its_turn(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(tmp_path, fsync=False)
    memory = FACTORIES[kind](store=store, session_id="s")
    writes: list[SessionFile] = []
    real_append = SessionFile.append

    def counting_append(self: SessionFile, render: Any) -> None:
        writes.append(self)
        real_append(self, render)

    monkeypatch.setattr(SessionFile, "append", counting_append)
    for n in range(4):
        memory.save_context({"input": f"question {n}"}, {"output": f"answer {n}"})
    assert len(writes) == 4
    records = [
        json.loads(line) for line in (store.sessions_dir / "s.jsonl").read_text().splitlines()
    ]
    kinds = [r["type"] for r in records]
    summaries = [i for i, k in enumerate(kinds) if k == "summary"]
    assert summaries, kinds
    for index in summaries:
        assert kinds[index - 2 : index] == ["message", "message"]
    assert _text(store.get_summary("s")) == getattr(memory, "summary", None)
