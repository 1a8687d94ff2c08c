"""Run the benchmarks, write bench/results.md and bench/results.json: `python -m bench`."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import (
    archive,
    browse,
    entities,
    flat,
    import_chatgpt,
    import_llm,
    langchain_history,
    postgres,
    serve,
    suites,
    summaries,
)
from bench.harness import Row, markdown

HERE = Path(__file__).parent


def main(argv: list[str] | None = None) -> int:
    """Run every section; write the results (full runs only, unless --out is given)."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, runs in seconds")
    parser.add_argument("--out", type=Path, help="directory for results.md/.json")
    parser.add_argument("--cache", type=Path, help="where pre-built sessions are kept between runs")
    args = parser.parse_args(argv)
    sizes = suites.QUICK if args.quick else suites.FULL
    out = args.out or (None if args.quick else HERE)
    with tempfile.TemporaryDirectory(prefix="zerda-bench-") as tmp:
        work = Path(tmp)
        cache = args.cache or (
            work / "cache" if args.quick else Path(tempfile.gettempdir()) / "zerda-bench-cache"
        )
        cache.mkdir(parents=True, exist_ok=True)
        rows: list[Row] = []
        started = time.perf_counter()
        sections: list[tuple[str, Callable[[], list[Row]]]] = [
            ("start-up", lambda: suites.startup(sizes, work)),
            ("appends", lambda: suites.appends(sizes, cache, work)),
            ("last-10 read", lambda: suites.reads(sizes, cache)),
            ("stats/search/disk", lambda: suites.scans(sizes, cache, work)),
            ("tokens", lambda: suites.tokens(sizes)),
            ("flat memory", lambda: flat.flat(sizes, cache, work)),
            (
                "langchain history",
                lambda: langchain_history.langchain_history(sizes, cache, work),
            ),
            ("postgres", lambda: postgres.postgres(sizes, cache, work)),
            ("summaries", lambda: summaries.summaries(sizes)),
            ("import", lambda: import_chatgpt.chatgpt_import(sizes, work)),
            ("import llm", lambda: import_llm.llm_import(sizes, cache, work)),
            ("archive", lambda: archive.archive(sizes, cache, work)),
            ("browse", lambda: browse.browse(sizes, cache, work)),
            ("serve", lambda: serve.serve(sizes, cache, work)),
            ("entities", lambda: entities.entities()),
        ]
        for name, run in sections:
            print(f"-- {name}", file=sys.stderr, flush=True)
            rows += run()
        elapsed = time.perf_counter() - started
    report = render(rows, suites.machine(), args.quick, elapsed)
    print(report)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.md").write_text(report)
        data = {
            "machine": suites.machine(),
            "quick": args.quick,
            "seconds": elapsed,
            "rows": [r.to_dict() for r in rows],
            "targets": targets(rows),
        }
        suites.dump(out / "results.json", data)
    return 0


def render(rows: list[Row], machine: dict[str, object], quick: bool, elapsed: float) -> str:
    """results.md: machine line, the table, the targets."""
    head = (
        f"Measured {machine['date']} on {machine['cores']} cores, Python {machine['python']} "
        f"({machine['platform']}); whole run {elapsed:.0f} s"
        + (" (--quick: tiny sizes, not comparable)" if quick else "")
        + ".\n\n"
    )
    checks = "\n".join(
        f"- {t['target']}: {t['measured']} - **{t['verdict']}**" for t in targets(rows)
    )
    return f"{head}{markdown(rows)}\n\nTargets:\n\n{checks}\n"


def _find(rows: list[Row], section: str, *words: str) -> Row | None:
    for row in rows:
        if row.section == section and all(w in row.case for w in words):
            return row
    return None


def targets(rows: list[Row]) -> list[dict[str, str]]:
    """Each target with the figure that decides it and whether it is met."""
    found: list[dict[str, str]] = []

    def check(target: str, measured: str, ok: bool | None) -> None:
        verdict = "not measured" if ok is None else ("met" if ok else "missed")
        found.append({"target": target, "measured": measured, "verdict": verdict})

    add = _find(rows, "start-up", "zerda add")
    if add and add.zerda is not None:
        check("`zerda add` median within 150 ms", f"{add.zerda:.0f} ms", add.zerda <= 150)
        ratio = add.ratio
        check(
            "`zerda add` >= 6x faster than `llm logs -n 1`",
            f"{ratio:.1f}x" if ratio else "peer not measured",
            None if ratio is None else ratio >= 6,
        )
    appends = [r for r in rows if r.section == "appends" and "save_context fsync=True" in r.case]
    if len(appends) >= 2 and appends[0].zerda and appends[-1].zerda:
        growth = appends[-1].zerda / appends[0].zerda
        check(
            "appends O(1): largest session within 1.3x of the smallest (save_context, fsync)",
            f"{growth:.2f}x",
            growth <= 1.3,
        )
    at10k = _find(rows, "appends", "10,000 msgs", "save_context fsync=True")
    if at10k:
        check(
            "append at 10k messages >= 100x faster than FileChatMessageHistory",
            f"{at10k.ratio:.0f}x" if at10k.ratio else "peer not measured",
            None if at10k.ratio is None else at10k.ratio >= 100,
        )
    for label in ("window memory", "get_memory"):
        reads = [r for r in rows if r.section == "last-10 read" and label in r.case]
        if len(reads) >= 2 and reads[0].zerda and reads[-1].zerda:
            growth = reads[-1].zerda / reads[0].zerda
            check(
                f"last-10 read ({label}): largest within 2x of smallest, under 50 ms",
                f"{growth:.2f}x, {reads[-1].zerda:.1f} ms",
                growth <= 2 and reads[-1].zerda < 50,
            )
    searches = (("`zerda search`", 1.0), ("`zerda search --limit 10`", 1.0))
    for name, limit in (("`zerda stats`", 2.0), *searches):
        row = _find(rows, "stats/search", name) or _find(
            rows, "stats/search", name.replace("zerda ", "python -c SessionStore.")
        )
        peak = _find(rows, "stats/search", name, "peak")
        if row and row.zerda is not None:
            check(
                f"{name} over the big session under {limit} s",
                f"{row.zerda:.2f} s",
                row.zerda < limit,
            )
        if peak and peak.zerda is not None:
            check(f"{name} peak memory under 200 MB", f"{peak.zerda:.0f} MB", peak.zerda < 200)
    disk = _find(rows, "disk")
    if disk and disk.zerda:
        check("disk at most 1.3x the message text", f"{disk.zerda:.2f}x", disk.zerda <= 1.3)
    _flat_targets(rows, check)
    postgres.targets(rows, check)
    summaries.targets(rows, check)
    return found


def _flat_targets(rows: list[Row], check: Callable[[str, str, bool | None], None]) -> None:
    """Flat memory: each whole command under 100 MB; a long last line shown in 2 s."""
    for row in rows:
        if row.section != "flat memory" or row.zerda is None:
            continue
        if row.unit == "MB":
            check(f"{row.case} under {flat.TARGET_MB} MB", f"{row.zerda:.0f} MB", row.zerda < 100)
        elif "show --last 1" in row.case:
            limit = flat.LONG_LINE_TARGET_S
            check(f"{row.case} under {limit:g} s", f"{row.zerda:.2f} s", row.zerda < limit)


if __name__ == "__main__":
    raise SystemExit(main())
