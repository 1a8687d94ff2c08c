"""A side saved as None (a missing key) comes back as None when a bound memory is restored."""

from __future__ import annotations

from pathlib import Path

import pytest

from zerda import SessionStore
from zerda.memory import ConversationBufferMemory, ConversationBufferWindowMemory
from zerda.memory._base import BaseMemory


@pytest.mark.parametrize("kind", [ConversationBufferMemory, ConversationBufferWindowMemory])
def test_missing_keys_round_trip_through_the_store(kind: type[BaseMemory], home: Path) -> None:
    store = SessionStore(home, fsync=False)
    live = kind(store=store, session_id="s")
    live.save_context({"input": "asked, never answered"}, {})
    live.save_context({}, {"output": "answered, never asked"})
    live.save_context({"input": "q"}, {"output": "a"})

    restored = kind(store=store, session_id="s")

    assert restored.load_memory_variables({}) == live.load_memory_variables({})
    assert [(t["input"], t["output"]) for t in restored.chat_memory] == [
        ("asked, never answered", None),
        (None, "answered, never asked"),
        ("q", "a"),
    ]
    live_stats, restored_stats = live.get_memory_stats(), restored.get_memory_stats()
    assert restored_stats["total_characters"] == live_stats["total_characters"]
    assert restored_stats["message_count"] == live_stats["message_count"] == 3
