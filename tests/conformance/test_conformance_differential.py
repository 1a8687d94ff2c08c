"""Every store answers alike: random runs of writes, applied to the file store and the
PostgreSQL store, leave both answering every read the same way (uuids and times aside,
which each store makes its own)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import empty
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerda import Memory, Message, SessionStore, Summary, ZerdaError
from zerda.store.base import Store

SESSIONS = ["a", "b"]
ROLES = ["user", "assistant", "system", "tool", "Alice", "developer", "human", "ai"]
TEXTS = st.text(alphabet="abßSS \x00\u017f\u212a%_\\é🦊\n", max_size=12)
NEEDLES = ["a", "ss", "SS", "%", "_", "\x00", "🦊", "k", ""]


@dataclass(frozen=True)
class Step:
    """One write, described without uuids or times (each store makes its own)."""

    kind: str
    session: str
    texts: tuple[str, ...] = ()
    role: str = "user"
    at: int = 0
    metadata: tuple[tuple[str, Any], ...] = ()


STEPS = st.one_of(
    st.builds(Step, st.just("turn"), st.sampled_from(SESSIONS), st.tuples(TEXTS, TEXTS)),
    st.builds(
        Step,
        st.just("message"),
        st.sampled_from(SESSIONS),
        st.tuples(TEXTS),
        st.sampled_from(ROLES),
    ),
    st.builds(
        Step,
        st.just("upsert"),
        st.sampled_from(SESSIONS),
        st.tuples(TEXTS),
        st.sampled_from(ROLES),
        st.integers(0, 12),
    ),
    st.builds(Step, st.just("summary"), st.sampled_from(SESSIONS), st.tuples(TEXTS)),
    st.builds(Step, st.sampled_from(["undo", "clear", "delete"]), st.sampled_from(SESSIONS)),
    st.builds(Step, st.just("retry"), st.sampled_from(SESSIONS), st.tuples(TEXTS, TEXTS)),
    st.builds(
        Step,
        st.just("facts"),
        st.sampled_from(SESSIONS),
        metadata=st.lists(
            st.tuples(st.sampled_from("xyz"), st.one_of(st.none(), st.integers(0, 3))),
            max_size=3,
        ).map(tuple),
    ),
)


def apply(store: Store, step: Step) -> Any:
    """Do `step` on `store`; what it gave back, with uuids and times left out."""
    sid = step.session
    try:
        if step.kind == "turn":
            return shape(store.append_turn(sid, *step.texts))
        if step.kind == "message":
            return shape([store.add_message(sid, Message(step.role, step.texts[0]))])
        if step.kind == "upsert":
            held = list(store.iter_messages(sid)) if store.exists(sid) else []
            uuid = held[step.at].uuid if step.at < len(held) else f"new-{step.at}"
            message = Message(step.role, step.texts[0], {"at": step.at}, uuid=uuid)
            return shape(store.add_memory(sid, Memory([message])))
        if step.kind == "summary":
            return store.set_summary(sid, Summary(step.texts[0])).content
        if step.kind == "undo":
            return shape(store.delete_last_turn(sid))
        if step.kind == "retry":
            return shape(store.replace_last_turn(sid, *step.texts))
        if step.kind == "clear":
            return store.clear(sid)
        if step.kind == "delete":
            return store.delete_session(sid)
        session = store.create_session(sid, user_id=f"u{len(step.metadata)}")
        return store.update_session(sid, metadata=dict(step.metadata)).metadata, session.user_id
    except ZerdaError as exc:
        return type(exc).__name__


def shape(messages: Any) -> list[tuple[Any, ...]]:
    """Messages without their uuids and times."""
    return [(m.role, m.role_type, m.content, m.token_count, m.metadata, m.extra) for m in messages]


def everything(store: Store) -> dict[str, Any]:
    """What every read says about every session."""
    seen: dict[str, Any] = {"ids": store.session_ids()}
    for sid in seen["ids"]:
        stats = store.session_stats(sid)
        session = store.get_session(sid)
        seen[sid] = {
            "messages": shape(store.iter_messages(sid)),
            "backwards": shape(store.iter_messages_reversed(sid)),
            "last 3": shape(store.get_memory(sid, lastn=3).messages),
            "summary": (store.get_summary(sid) or Summary("-")).content,
            "system": shape(store.system_messages(sid)),
            "facts": (session.user_id, session.metadata),
            "stats": (
                stats.messages,
                stats.turn_count,
                stats.total_characters,
                stats.token_count,
                store.message_count(sid),
            ),
        }
    seen["search"] = {n: [(s, m.content) for s, m in store.search(n)] for n in NEEDLES}
    seen["listed"] = sorted(s.session_id for s in store.list_sessions())
    return seen


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, max_size=14))
def test_every_store_answers_alike(pg: Store, steps: list[Step]) -> None:
    empty(pg)
    with tempfile.TemporaryDirectory() as home:
        files = SessionStore(Path(home), fsync=False)
        for step in steps:
            assert apply(pg, step) == apply(files, step), step
        assert everything(pg) == everything(files)
