"""Timing and reporting helpers: interleaved medians, whole-command runs with peak memory, rows."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

NOT_INSTALLED = "peer not installed"


@dataclass
class Row:
    """One comparison: a zerda figure, the peer's, and how many times better zerda is."""

    section: str
    case: str
    unit: str
    zerda: float | None
    peer: float | None = None
    peer_name: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        """How many times better zerda is: peer/zerda for costs, zerda/peer for rates."""
        if not self.zerda or not self.peer:
            return None
        return self.zerda / self.peer if self.unit == "per s" else self.peer / self.zerda

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the ratio."""
        return {**asdict(self), "ratio": self.ratio}


def median_ms(samples: list[float]) -> float:
    """The median of samples in seconds, in milliseconds."""
    return statistics.median(samples) * 1000


def interleaved(
    sides: Mapping[str, Callable[[], object]], rounds: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Run each side once per round, in turn, after `warmup` untimed rounds; seconds per call."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for index in range(warmup + rounds):
        for name, call in sides.items():
            start = time.perf_counter()
            call()
            elapsed = time.perf_counter() - start
            if index >= warmup:
                times[name].append(elapsed)
    return times


@dataclass(frozen=True)
class Command:
    """A whole command to time: its argv, environment overrides and the exit statuses
    that are no failure (a search exits 1 when nothing matches, as grep)."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    exits: tuple[int, ...] = (0,)


TIME = "/usr/bin/time"


def run_once(command: Command) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one run; output discarded, failure raises.

    Peak memory comes from `/usr/bin/time` where it exists: a child forked from this
    (large) process would otherwise report this process's size as its own peak.
    """
    env = {**os.environ, **command.env}
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        argv = (
            [TIME, "-f", "%M", "-o", rss.name, *command.argv]
            if os.path.exists(TIME)
            else command.argv
        )
        wall, peak = _run(argv, env, command.exits)
        text = rss.read().strip().splitlines()
    return wall, (int(text[-1]) / 1024 if text and text[-1].isdigit() else peak)


def _run(argv: list[str], env: dict[str, str], exits: tuple[int, ...]) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    error = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in exits:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {error.decode()[-300:]}")
    return elapsed, usage.ru_maxrss / 1024


def time_commands(
    commands: dict[str, Command], runs: int, warmup: int = 1
) -> dict[str, tuple[float, float]]:
    """Median wall ms and max peak MB of each command, run round-robin after a warm-up."""
    walls: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, float] = dict.fromkeys(commands, 0.0)
    for index in range(warmup + runs):
        for name, command in commands.items():
            wall, peak = run_once(command)
            if index >= warmup:
                walls[name].append(wall)
                peaks[name] = max(peaks[name], peak)
    return {name: (median_ms(walls[name]), peaks[name]) for name in commands}


def tool(name: str) -> str | None:
    """The console script `name` next to this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    return shutil.which(name)


def fmt(value: float | None, unit: str) -> str:
    """A figure for the table."""
    if value is None:
        return "-"
    if unit in ("ms", "MB", "s") and value >= 100:
        return f"{value:,.0f} {unit}"
    if unit in ("x",):
        return f"{value:.2f}x"
    if unit == "per s":
        return f"{value:,.0f}/s"
    return f"{value:,.3g} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def markdown(rows: list[Row]) -> str:
    """The results table."""
    lines = [
        "| section | case | zerda | peer | zerda better by |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        peer = fmt(row.peer, row.unit) if row.peer is not None else (row.note or "-")
        if row.peer is not None and row.peer_name:
            peer = f"{peer} ({row.peer_name})"
        ratio = f"{row.ratio:.1f}x" if row.ratio is not None else "-"
        lines.append(
            f"| {row.section} | {row.case} | {fmt(row.zerda, row.unit)} | {peer} | {ratio} |"
        )
    return "\n".join(lines)
