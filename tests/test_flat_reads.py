"""Reads that must not hold a session in memory, and listings that pass over sessions
that do not exist: streamed search, folded contexts, line numbers counted in blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import process

from zerda import Message, SessionStore
from zerda.memory import ConversationSummaryBufferMemory, ConversationSummaryMemory


def unfinished_first_write(store: SessionStore, session_id: str) -> None:
    """A session file holding only the start of its first write (a writer killed in it)."""
    store.sessions_dir.mkdir(parents=True, exist_ok=True)
    (store.sessions_dir / f"{session_id}.jsonl").write_bytes(b'{"type":"session","version":2')


def test_a_session_with_only_an_unfinished_first_write_is_not_listed(store: SessionStore) -> None:
    store.append_turn("a", "find me", "found")
    unfinished_first_write(store, "b")
    store.append_turn("c", "find me too", "found")
    assert store.session_ids() == ["a", "c"]
    assert [sid for sid, _ in store.search("find me")] == ["c", "a"]
    assert [s.session_id for s in store.list_sessions()] == ["c", "a"]
    found = process(store.home, "search", "find me", "--json")
    assert found.code == 0, found.err
    assert [hit["session_id"] for hit in json.loads(found.out)] == ["c", "a"]
    listed = process(store.home, "sessions", "--json")
    assert listed.code == 0 and listed.err == ""
    assert [row["session_id"] for row in json.loads(listed.out)] == ["c", "a"]


def test_a_session_deleted_during_a_search_is_passed_over(store: SessionStore) -> None:
    for sid in "abc":
        store.append_turn(sid, f"needle in {sid}", "reply")
    hits = store.search("needle")
    assert next(hits)[0] == "c"  # the newest: a and b are listed, not yet opened
    store.delete_session("b")
    assert [sid for sid, _ in hits] == ["a"]


def test_a_session_asked_for_by_name_must_exist(store: SessionStore) -> None:
    store.append_turn("a", "needle", "reply")
    unfinished_first_write(store, "b")
    result = process(store.home, "search", "needle", "--session", "b")
    assert result.code == 2  # trouble, as grep; 1 is "nothing matched"
    assert result.err == "error: session not found: b\n"


# Peak memory of a child that runs a command as a child of its own, so no other test's
# subprocesses count towards RUSAGE_CHILDREN.
PEAK_RSS = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
HEADER = {"type": "session", "version": 2, "created_at": "2024-05-01T08:00:00Z"}


def write_session(home: Path, session_id: str, count: int, tail: bytes = b"") -> None:
    """`count` counted messages of about 400 characters, each holding "needle", then `tail`."""
    (home / "sessions").mkdir(parents=True, exist_ok=True)
    text = "needle and thread " * 22
    with (home / "sessions" / f"{session_id}.jsonl").open("wb") as out:
        out.write(json.dumps({**HEADER, "id": session_id}).encode() + b"\n")
        out.writelines(
            f'{{"type":"message","uuid":"{i:032x}","created_at":"2024-05-01T08:00:00Z",'
            f'"role":"user","content":"{i} {text}","token_count":81,"metadata":{{}}}}\n'.encode()
            for i in range(count)
        )
        out.write(tail)


def peak_kb(home: Path, *command: str) -> int:
    run_it = [sys.executable, "-c", PEAK_RSS, sys.executable, *command]
    env = {**os.environ, "ZERDA_HOME": str(home)}
    done = subprocess.run(run_it, capture_output=True, text=True, env=env, check=True)
    return int(done.stdout)


SMALL, BIG = 2_000, 100_000  # a 1 MB and a 45 MB session
GROWTH_LIMIT_KB = 16_000  # holding every hit of the big one costs over 100 MB


# `zerda` with the search split between two processes whatever the file's size.
SPLIT_SEARCH = """
import sys
from zerda.store.files import _search as search
search.PARALLEL_MIN, search._can_fork = 0, lambda: True
from zerda_cli.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("output", [[], ["--json"]])
@pytest.mark.parametrize("zerda", [["-m", "zerda_cli"], ["-c", SPLIT_SEARCH]], ids=["one", "split"])
def test_search_memory_does_not_grow_with_the_hits(
    tmp_path: Path, output: list[str], zerda: list[str]
) -> None:
    peaks = []
    for count in (SMALL, BIG):
        home = tmp_path / str(count)
        write_session(home, "s", count)
        peaks.append(peak_kb(home, *zerda, "search", "needle", *output))
    assert peaks[1] - peaks[0] < GROWTH_LIMIT_KB, peaks


LINE_NUMBER = """
import sys
import pytest

from zerda import Message, SessionStore
from zerda.memory import ConversationSummaryBufferMemory, ConversationSummaryMemory
from zerda.errors import CorruptSessionError
try:
    SessionStore(sys.argv[1]).get_memory("s", lastn=1)
except CorruptSessionError as error:
    assert error.line == int(sys.argv[2]), error
else:
    raise AssertionError("the damaged last line was read")
"""


def test_numbering_a_damaged_line_far_in_keeps_memory_flat(tmp_path: Path) -> None:
    peaks = []
    for count in (SMALL, BIG):
        home = tmp_path / str(count)
        write_session(home, "s", count, tail=b"not json\n")
        line = str(count + 2)  # the header, the messages, then the damaged line
        peaks.append(peak_kb(home, "-c", LINE_NUMBER, str(home), line))
    assert peaks[1] - peaks[0] < GROWTH_LIMIT_KB, peaks


@pytest.mark.parametrize(
    ("kind", "budget"), [("summary-buffer", 40), ("summary-buffer", 100_000), ("summary", 0)]
)
def test_a_summary_context_is_the_bound_memory_and_writes_nothing(
    store: SessionStore, kind: str, budget: int
) -> None:
    store.add_message("s", Message("system", "Be brief."))
    for n in range(12):
        store.append_turn("s", f"Question {n}. Tell me more.", f"Answer {n}. Here is more.")
    store.add_message("s", Message("user", "A last question with no reply yet."))
    before = (store.sessions_dir / "s.jsonl").read_bytes()
    args = ("context", "s", "--memory", kind, "--max-tokens", str(budget))
    folded = process(store.home, *args, "--json")
    assert folded.code == 0, folded.err
    expected: ConversationSummaryMemory | ConversationSummaryBufferMemory
    if kind == "summary":
        expected = ConversationSummaryMemory(store=store, session_id="s")
    else:
        expected = ConversationSummaryBufferMemory(budget, store=store, session_id="s")
    assert json.loads(folded.out) == expected.context_messages()
    assert json.loads(folded.out)[0] == {"role": "system", "content": "Be brief."}
    assert process(store.home, *args).out == expected.load_memory_variables({})["history"] + "\n"
    assert (store.sessions_dir / "s.jsonl").read_bytes() == before
