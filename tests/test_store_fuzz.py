"""A session file damaged any way: readers answer or raise a ZerdaError, never anything else."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerda import CorruptSessionError, Memory, Message, SessionStore, ZerdaError

EDITS = st.lists(
    st.tuples(
        st.integers(min_value=0), st.integers(min_value=0, max_value=40), st.binary(max_size=40)
    ),
    min_size=1,
    max_size=4,
)


def damaged(original: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    data = original
    for start, length, replacement in edits:
        at = start % (len(data) + 1)
        data = data[:at] + replacement + data[at + length :]
    return data


def reads(store: SessionStore) -> list[Callable[[], object]]:
    return [
        lambda: list(store.iter_messages("s")),
        lambda: store.get_memory("s", lastn=3),
        lambda: store.get_memory("s"),
        lambda: store.session_stats("s"),
        lambda: list(store.search("question")),
        lambda: store.get_session("s"),
        lambda: store.get_summary("s"),
        lambda: store.list_sessions(),
    ]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=EDITS, lenient=st.booleans(), counted=st.booleans())
def test_damage_never_escapes_as_another_error(
    tmp_path_factory: pytest.TempPathFactory,
    edits: list[tuple[int, int, bytes]],
    lenient: bool,
    counted: bool,
) -> None:
    home = tmp_path_factory.mktemp("home")
    writer = SessionStore(home, fsync=False, count_on_write=counted)
    for n in range(4):
        writer.append_turn("s", f"question {n}", f"answer {n} ✓")
    writer.add_memory("s", Memory(messages=[Message("system", "terse")], summary="brief"))
    path = home / "sessions" / "s.jsonl"
    path.write_bytes(damaged(path.read_bytes(), edits))
    store = SessionStore(home, fsync=False, lenient=lenient)
    for read in reads(store):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.suppress(ZerdaError):
                read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            store.append_turn("s", "after damage", "still writes")
        except ZerdaError:
            return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tail = SessionStore(home, lenient=True).get_memory("s", lastn=2).messages
    assert any(m.content == "after damage" for m in tail)


@pytest.mark.parametrize("line", [b'{"type":"summary"}', b'{"type":"tokens"}'])
def test_records_missing_their_substance_are_damage(store: SessionStore, line: bytes) -> None:
    store.append_turn("s", "q", "a")
    path = store.sessions_dir / "s.jsonl"
    path.write_bytes(path.read_bytes() + line + b"\n")
    with pytest.raises(CorruptSessionError):
        store.get_summary("s")
