"""One archive, asked of zerda and of llm: a generated logs.db of N conversations
(bench/llm_export.py, 10 exchanges each), imported into a file store with `zerda import
--from llm`, then the same two questions of both tools, as whole processes, interleaved:
the 20 most recent conversations (`zerda sessions --limit 20` / `llm logs list -n 20`)
and a rare word everywhere (`zerda search zebrafish` / `llm logs -q zebrafish -n 0`,
FTS5). Also: the archive index's build time and size beside the text it indexes, and
`zerda add` on the archive beside the floor.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from bench.corpus import NEEDLE
from bench.harness import Command, Row, run_once, time_commands, tool
from bench.llm_export import PER_CONVERSATION, write_responses
from bench.suites import QUICK, Sizes

CONVERSATIONS = (3_000, 30_000)
QUICK_CONVERSATIONS = (30,)
TARGET = 0.25  # zerda's time at most this share of llm's
FLAT = 1.5  # the largest archive's time at most this many times the smallest's
ADD_TARGET = 1.3  # `zerda add` on the archive at most this many times on an empty home
RUNS = 7


def archive(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """The rows of each archive size (see the module docstring)."""
    zerda, llm = tool("zerda"), tool("llm")
    if zerda is None or llm is None or importlib.util.find_spec("llm") is None:
        return [Row("archive", "sessions and search", "ms", None, note="zerda or llm missing")]
    rows: list[Row] = []
    counts = QUICK_CONVERSATIONS if sizes is QUICK else CONVERSATIONS
    for count in counts:
        rows += _one_size(zerda, llm, count, cache, work, 2 if sizes is QUICK else RUNS)
    return rows + _growth(rows, counts)


def _growth(rows: list[Row], counts: tuple[int, ...]) -> list[Row]:
    """How much longer each question takes on the largest archive than on the smallest
    (target: within FLAT times)."""
    if len(counts) < 2:
        return []
    found = []
    for command in ("`zerda sessions --limit 20`", f"`zerda search {NEEDLE}`"):
        times = [r.zerda for r in rows if command in r.case and r.zerda is not None]
        if len(times) < 2:
            continue
        growth = times[-1] / times[0]
        verdict = "met" if growth <= FLAT else "missed"
        case = f"{command} at {counts[-1]:,} / at {counts[0]:,} conversations"
        found.append(Row("archive", case, "x", growth, extra={"target": f"<= {FLAT}x: {verdict}"}))
    return found


def _prepared(zerda: str, count: int, cache: Path) -> tuple[Path, Path]:
    """(llm's user dir holding logs.db, zerda's home with the archive imported)."""
    user = cache / f"archive-llm-{count}"
    home = cache / f"archive-zerda-{count}"
    logs = user / "logs.db"
    if not logs.exists():
        write_responses(logs, count * PER_CONVERSATION)
    if not (home / "sessions").is_dir():
        subprocess.run(
            [zerda, "import", "--from", "llm", str(logs)],
            env=_env(home),
            check=True,
            capture_output=True,
        )
    return user, home


def _env(home: Path) -> dict[str, str]:
    import os

    return {**os.environ, "ZERDA_HOME": str(home), "NO_COLOR": "1"}


def _one_size(zerda: str, llm: str, count: int, cache: Path, work: Path, runs: int) -> list[Row]:
    user, home = _prepared(zerda, count, cache)
    (home / "index.sqlite3").unlink(missing_ok=True)
    build, _ = run_once(Command([zerda, "index", "rebuild"], {"ZERDA_HOME": str(home)}))
    status = json.loads(
        subprocess.run(
            [zerda, "index", "status", "--json"], env=_env(home), capture_output=True, check=True
        ).stdout
    )
    zenv, lenv = {"ZERDA_HOME": str(home)}, {"LLM_USER_PATH": str(user)}
    commands = {
        "python -c pass": Command([sys.executable, "-c", "pass"]),
        "zerda sessions": Command([zerda, "sessions", "--limit", "20"], zenv),
        "llm logs list": Command([llm, "logs", "list", "-n", "20"], lenv),
        "zerda search": Command([zerda, "search", NEEDLE], zenv, exits=(0, 1)),
        "llm logs -q": Command([llm, "logs", "-q", NEEDLE, "-n", "0"], lenv),
    }
    timed = time_commands(commands, runs)
    # Adding after the reads, in rounds of its own: a read right after an add also reads
    # (and counts the tokens of) the new turn, which is not what these rows measure.
    turn = [zerda, "add", "bench-added", "a new question", "an answer"]
    adding = {
        "python -c pass": commands["python -c pass"],
        "zerda add": Command(turn, zenv),
        "zerda add (empty home)": Command(turn, {"ZERDA_HOME": str(work / f"empty-{count}")}),
    }
    timed.update(time_commands(adding, runs))
    what = f"{count:,} conversations ({2 * count * PER_CONVERSATION:,} messages)"
    rows = []
    for ours, theirs, case in (
        ("zerda sessions", "llm logs list", "`zerda sessions --limit 20` vs `llm logs list -n 20`"),
        ("zerda search", "llm logs -q", f"`zerda search {NEEDLE}` vs `llm logs -q {NEEDLE} -n 0`"),
    ):
        ms, peer = timed[ours][0], timed[theirs][0]
        share = ms / peer
        verdict = "met" if share <= TARGET else "missed"
        rows.append(
            Row(
                "archive",
                f"{what}: {case}",
                "ms",
                ms,
                peer,
                "llm",
                extra={"share_of_llm": share, "target": f"<= {TARGET}x of llm: {verdict}"},
            )
        )
    text, size = status["text_bytes"], status["index_bytes"]
    rows.append(Row("archive", f"{what}: index build (`zerda index rebuild`)", "s", build))
    rows.append(
        Row(
            "archive",
            f"{what}: index size / text indexed ({size / 2**20:,.0f} / {text / 2**20:,.0f} MB)",
            "x",
            size / text if text else None,
            note="target <= 1x",
        )
    )
    floor, added, alone = (timed[name][0] for name in adding)
    share = added / alone
    rows.append(
        Row(
            "archive",
            f"{what}: `zerda add` on the archive / on an empty home",
            "x",
            share,
            extra={
                "ms": added,
                "empty_home_ms": alone,
                "floor_ms": floor,
                "target": f"<= {ADD_TARGET}x: {'met' if share <= ADD_TARGET else 'missed'}",
            },
        )
    )
    return rows
