"""A session file written by zerda 0.1 (format version 1) keeps reading, and grows in place.

tests/fixtures/zerda-0.1-session.jsonl was written by zerda 0.1 itself (commit aea6928)
with `count_on_write=False`: a system message, a turn with a summary, Zep's `human`/`ai`
roles stored as `user`/`assistant`, a tool message, a `tokens` record and a
`session_update`, with that version's running totals (no `system` count).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_runner import ZERDA

from zerda import SessionStore
from zerda.memory import ConversationBufferWindowMemory

FIXTURE = Path(__file__).parent / "fixtures" / "zerda-0.1-session.jsonl"


@pytest.fixture
def legacy(store: SessionStore) -> SessionStore:
    store.sessions_dir.mkdir(parents=True, mode=0o700)
    target = store.sessions_dir / "legacy.jsonl"
    shutil.copyfile(FIXTURE, target)
    target.chmod(0o600)
    return store


def test_messages_roles_counts_and_summary_read(legacy: SessionStore) -> None:
    memory = legacy.get_memory("legacy")
    assert [(m.role, m.role_type) for m in memory.messages] == [
        ("system", "system"),
        ("user", "user"),
        ("assistant", "assistant"),
        ("user", "user"),
        ("assistant", "assistant"),
        ("tool", "tool"),
    ]
    assert [m.token_count for m in memory.messages] == [6, 4, 4, 3, 4, 5]
    assert memory.summary is not None and memory.summary.content == "Travel plans."
    assert memory.messages[4].metadata == {"k": 1}
    session = legacy.get_session("legacy")
    assert (session.user_id, session.metadata) == ("ada", {"system": "Be brief.", "topic": "trips"})
    stats = legacy.session_stats("legacy")
    assert (stats.messages, stats.turn_count, stats.token_count) == (6, 2, 26)


def test_its_system_message_opens_every_context(legacy: SessionStore) -> None:
    assert [m.content for m in legacy.system_messages("legacy")] == ["You are a travel agent."]
    window = ConversationBufferWindowMemory(k=1, store=legacy, session_id="legacy")
    context = window.context_messages()
    assert context[0] == {"role": "system", "content": "You are a travel agent."}
    assert context[1:] == [
        {"role": "user", "content": "And June?"},
        {"role": "assistant", "content": "Bergen."},
        {"role": "tool", "content": '{"ok": true}'},  # after the reply, inside its turn
    ]


def test_it_grows_in_place_and_compacts_to_version_2(legacy: SessionStore, home: Path) -> None:
    before = FIXTURE.read_bytes()
    legacy.append_turn("legacy", "July?", "Oslo.")
    path = legacy.sessions_dir / "legacy.jsonl"
    assert path.read_bytes().startswith(before)  # appended, never rewritten
    env = {**os.environ, "ZERDA_HOME": str(home)}
    shown = subprocess.run(
        [ZERDA, "show", "legacy", "--json"], capture_output=True, env=env, check=True
    )
    document = json.loads(shown.stdout)
    assert [m["content"] for m in document["messages"]][-2:] == ["July?", "Oslo."]
    assert document["summary"]["content"] == "Travel plans."
    legacy.compact("legacy")
    assert json.loads(path.read_bytes().split(b"\n")[0])["version"] == 2
    assert [
        m["content"]
        for m in json.loads(
            subprocess.run(
                [ZERDA, "show", "legacy", "--json"], capture_output=True, env=env, check=True
            ).stdout
        )["messages"]
    ] == [m["content"] for m in document["messages"]]
    assert legacy.session_stats("legacy").messages == 8
