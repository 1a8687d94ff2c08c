"""A process killed inside a write of several lines leaves no part of that write behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zerda import SessionStore, ZerdaWarning

# Writes the first `cut` bytes of the next append, then dies as SIGKILL would leave it.
DIES_MID_WRITE = """
import os, signal, sys
from zerda import SessionStore
import zerda.store.files._sessionfile as sessionfile

home, cut = sys.argv[1], sys.argv[2]
real_write = os.write

def dying_write(fd, data):
    first_line_end = data.index(b"\\n") + 1
    end = {"line": first_line_end, "second": first_line_end + 50}.get(cut) or int(cut)
    real_write(fd, data[:end])
    os.kill(os.getpid(), signal.SIGKILL)

store = SessionStore(home, fsync=False)
sessionfile.os.write = dying_write
store.append_turn("s", "doomed question " * 50, "doomed answer " * 50)
"""


def roles_and_texts(home: Path) -> list[tuple[str, str]]:
    lines = (home / "sessions" / "s.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return [(r["role"], r["content"]) for r in records if r["type"] == "message"]


@pytest.mark.parametrize("cut", ["line", "second", "5"])
def test_a_write_cut_short_by_death_is_removed_whole(home: Path, cut: str) -> None:
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "kept question", "kept answer")
    died = subprocess.run([sys.executable, "-c", DIES_MID_WRITE, str(home), cut], check=False)
    assert died.returncode == -9
    with pytest.warns(ZerdaWarning, match="unfinished write"):
        store.append_turn("s", "next question", "next answer")
    assert roles_and_texts(home) == [
        ("user", "kept question"),
        ("assistant", "kept answer"),
        ("user", "next question"),
        ("assistant", "next answer"),
    ]
    stats = store.session_stats("s")
    assert (stats.messages, stats.turn_count) == (4, 2)
