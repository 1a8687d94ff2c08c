"""Import of llm's logs.db: `zerda import --from llm` of a generated database
(bench/llm_export.py) of `LLM_RESPONSES` responses, in each of llm's two schemas, as a
real process under `/usr/bin/time` into a fresh file store (time and peak memory), and
the 0.32+ one read alone (`zerda.importers.read`, nothing stored).

No peer to compare with: no other tool imports an llm logs.db.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from bench.harness import Command, Row, run_once, tool
from bench.llm_export import PER_CONVERSATION, write_responses, write_threads
from bench.suites import QUICK, Sizes

LLM_RESPONSES = 100_000
QUICK_LLM_RESPONSES = 200
SCHEMAS: dict[str, Callable[[Path, int], None]] = {
    "llm 0.32+ threads": write_threads,
    "older responses table": write_responses,
}
READ_ONLY = (
    "from pathlib import Path; from zerda.importers import read; "
    "print(sum(1 for _ in read(Path({path!r}), 'llm')))"
)


def llm_import(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """Time and peak memory of importing generated logs.db files, and of reading one."""
    zerda = tool("zerda")
    if zerda is None or importlib.util.find_spec("llm") is None:
        return [Row("import", "llm logs.db", "s", None, note="zerda CLI or llm not installed")]
    count = QUICK_LLM_RESPONSES if sizes is QUICK else LLM_RESPONSES
    what = f"{count:,}-response logs.db ({count // PER_CONVERSATION:,} conversations"
    rows: list[Row] = []
    for number, (schema, write) in enumerate(SCHEMAS.items()):
        logs = cache / f"llm-logs-v1-{number}-{count}" / "logs.db"
        if not logs.exists():
            write(logs, count)
        home = work / f"import-llm-{number}"
        command = Command(
            ["sh", "-c", f'rm -rf "{home}" && exec "{zerda}" import --from llm "{logs}"'],
            {"ZERDA_HOME": str(home)},
        )
        seconds, peak = run_once(command)
        case = f"`zerda import --from llm` of a {what}, {schema})"
        rows.append(
            Row("import", f"{case} time", "s", seconds, note=f"{count / seconds:,.0f} responses/s")
        )
        rows.append(Row("import", f"{case} peak memory", "MB", peak))
        if number == 0:
            rows += _read_alone(logs, f"{what}, {schema})")
    return rows


def _read_alone(logs: Path, what: str) -> list[Row]:
    reading = Command([sys.executable, "-c", READ_ONLY.format(path=str(logs))])
    seconds, peak = run_once(reading)
    case = f"the {what} read alone (`zerda.importers.read`)"
    return [
        Row("import", f"{case} time", "s", seconds),
        Row("import", f"{case} peak memory", "MB", peak),
    ]
