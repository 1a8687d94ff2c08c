"""Flat memory: peak memory (and time) of whole commands that must not grow with the session.

Every case runs on the big session of the stats/search section (or a copy, for the
commands that rewrite it), as a real process under `/usr/bin/time`: a search whose
every message is a hit, an import of the session's own export, `/undo`, `/retry` and
`compact` (the store's rewrites), and `show --last 1` on a session whose last message
is one very long line.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from bench.harness import Command, Row, run_once, tool
from bench.suites import Sizes, zerda_session

# A word in (nearly) every message of the corpus, so the search below hits them all.
COMMON = "the"
TARGET_MB = 100
LONG_LINE_TARGET_S = 2.0


def flat(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """Peak memory of search, import, undo, retry and compact; `show --last 1` on a long line."""
    zerda = tool("zerda")
    if zerda is None:
        return [Row("flat memory", "zerda CLI", "MB", None, note="zerda CLI not installed")]
    count = sizes.scan_size
    sid = f"m{count}"
    source = zerda_session(cache, count)
    copy = work / "flat-home"
    shutil.copytree(source, copy, dirs_exist_ok=True)
    exported = work / "flat-export.jsonl"
    run_once(Command([zerda, "export", sid, "-o", str(exported)], {"ZERDA_HOME": str(copy)}))
    fresh = work / "flat-import"
    cases = {
        f"`zerda search {COMMON}` (every message a hit)": Command(
            [zerda, "search", COMMON, "--session", sid], {"ZERDA_HOME": str(source)}
        ),
        "`zerda import` of its export into a new session": Command(
            ["sh", "-c", f'rm -rf "{fresh}" && exec "{zerda}" import s "{exported}"'],
            {"ZERDA_HOME": str(fresh)},
        ),
        "`delete_last_turn` (chat /undo)": _library(copy, f"s.delete_last_turn('{sid}')"),
        "`replace_last_turn` (chat /retry)": _library(
            copy, f"s.replace_last_turn('{sid}', 'again?', 'again.')"
        ),
        "`compact`": _library(copy, f"s.compact('{sid}')"),
    }
    rows = []
    for label, command in cases.items():
        seconds, peak = run_once(command)
        case = f"{count:,} msgs: {label}"
        rows.append(Row("flat memory", f"{case} peak memory", "MB", peak, note=_under(peak)))
        rows.append(Row("flat memory", f"{case} time", "s", seconds))
    return [*rows, _long_line(zerda, work, sizes)]


def _library(home: Path, call: str) -> Command:
    code = f"from zerda import SessionStore; s = SessionStore(fsync=True); {call}"
    return Command([sys.executable, "-c", code], {"ZERDA_HOME": str(home)})


def _under(peak_mb: float) -> str:
    return f"target < {TARGET_MB} MB: {'met' if peak_mb < TARGET_MB else 'MISSED'}"


def _long_line(zerda: str, work: Path, sizes: Sizes) -> Row:
    """`zerda show --last 1` on a session whose last message is one line of 60 MB."""
    megabytes = 60 if sizes.scan_size >= 100_000 else 2
    home = work / "flat-long"
    (home / "sessions").mkdir(parents=True, exist_ok=True)
    records = [
        {"type": "session", "version": 2, "id": "long", "created_at": "2024-01-01T00:00:00Z"},
        {
            "type": "message",
            "uuid": "00000000-0000-0000-0000-000000000001",
            "created_at": "2024-01-01T00:00:01.000000Z",
            "role": "user",
            "role_type": "user",
            "content": "x" * (megabytes << 20),
            "token_count": 1,
            "metadata": {},
        },
    ]
    path = home / "sessions" / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    path.chmod(0o600)
    seconds, peak = run_once(
        Command([zerda, "show", "long", "--last", "1"], {"ZERDA_HOME": str(home)})
    )
    verdict = "met" if seconds < LONG_LINE_TARGET_S else "MISSED"
    return Row(
        "flat memory",
        f"`zerda show --last 1` on a {megabytes} MB last line",
        "s",
        seconds,
        note=f"target < {LONG_LINE_TARGET_S:g} s: {verdict}; peak {peak:.0f} MB",
    )
