"""`zerda browse` timed as a person meets it: a whole process on a real terminal (tmux,
120x40), the screen read back with `capture-pane` every few milliseconds.

- first screen: from starting the process to the first session rows on screen;
- a keystroke's results: with `zebrafish` typed and its messages listed, `x`, until the
  list says nothing matches `zebrafishx`; then Backspace, until the rows of `zebrafish`'s
  messages are on screen again. Each is a search of the whole archive (the browser
  checks the archive index against the files at most every 2 s: a key pressed after a
  pause also waits for that check).

Each is the median of RUNS rounds. The archive is the one of `bench.archive` (an llm
logs.db imported into zerda), at each of its sizes.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from bench.archive import CONVERSATIONS, QUICK_CONVERSATIONS, _prepared
from bench.corpus import NEEDLE, NEEDLE_EVERY
from bench.harness import Row, tool
from bench.llm_export import PER_CONVERSATION
from bench.suites import QUICK, Sizes

RUNS = 7
FIRST_TARGET_MS = 300
KEY_TARGET_MS = 100
POLL = 0.002  # seconds between reads of the screen
NOTHING = "nothing matches"
COMMON = "function"  # the query of an archive too small to hold NEEDLE


class Terminal:
    """One tmux session whose pane runs a command (started again by `start`)."""

    def __init__(self, tmux: str, name: str) -> None:
        self.tmux, self.name = tmux, name
        self._run("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "sleep 600")

    def _run(self, *args: str) -> str:
        done = subprocess.run([self.tmux, *args], capture_output=True, text=True, timeout=30)
        return done.stdout

    def start(self, command: str) -> float:
        """Run `command` in the pane (what ran there is killed); the time it started."""
        started = time.perf_counter()
        self._run("respawn-pane", "-k", "-t", self.name, command)
        return started

    def keys(self, *keys: str) -> float:
        sent = time.perf_counter()
        self._run("send-keys", "-t", self.name, *keys)
        return sent

    def until(self, check: Callable[[list[str]], bool], timeout: float = 30) -> float:
        """When the screen's lines first passed `check` (TimeoutError after `timeout`)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            lines = self._run("capture-pane", "-p", "-t", self.name).splitlines()
            seen = time.perf_counter()
            if check(lines):
                return seen
            time.sleep(POLL)
        raise TimeoutError(f"the screen never showed what was waited for: {lines[:5]}")

    def close(self) -> None:
        self._run("kill-session", "-t", self.name)


def _listed(lines: list[str]) -> list[str]:
    """The list's lines: under the query line and its rule, above the key line."""
    return [line for line in lines[2:-1] if line.strip()]


def _sessions_shown(lines: list[str]) -> bool:
    return any(line.startswith("llm-conv") for line in _listed(lines))


def _nothing(lines: list[str]) -> bool:
    return any(NOTHING in line for line in _listed(lines))


def _hits_of(word: str) -> Callable[[list[str]], bool]:
    """Whether the screen lists the messages of `word`, typed as the query."""

    def shown(lines: list[str]) -> bool:
        typed = bool(lines) and lines[0].rstrip().endswith(word)
        return typed and any(word in line for line in _listed(lines))

    return shown


def browse(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """The browser's rows at each archive size (see the module docstring)."""
    zerda, tmux = tool("zerda"), shutil.which("tmux")
    if zerda is None or tmux is None:
        return [Row("browse", "zerda browse", "ms", None, note="zerda or tmux missing")]
    rows: list[Row] = []
    for count in QUICK_CONVERSATIONS if sizes is QUICK else CONVERSATIONS:
        _, home = _prepared(zerda, count, cache)
        runs = 2 if sizes is QUICK else RUNS
        rows += _one_size(zerda, tmux, home, count, runs)
    return rows


def _one_size(zerda: str, tmux: str, home: Path, count: int, runs: int) -> list[Row]:
    command = f"env ZERDA_HOME={home} TERM=xterm-256color NO_COLOR=1 {zerda} browse"
    terminal = Terminal(tmux, f"zerda-bench-browse-{os.getpid()}")
    word = NEEDLE if 2 * count * PER_CONVERSATION >= NEEDLE_EVERY else COMMON
    hits_shown = _hits_of(word)
    first: list[float] = []
    typed: list[float] = []
    back: list[float] = []
    try:
        for _ in range(runs + 1):  # the first round warms the caches and is not counted
            started = terminal.start(command)
            first.append(terminal.until(_sessions_shown) - started)
            terminal.keys(*word)
            terminal.until(hits_shown)
            sent = terminal.keys("x")
            typed.append(terminal.until(_nothing) - sent)
            sent = terminal.keys("BSpace")
            back.append(terminal.until(hits_shown) - sent)
    finally:
        terminal.close()
    what = f"{count:,} conversations"
    figures = [
        ("first screen (start to session rows)", first[1:], FIRST_TARGET_MS),
        (f"keystroke `x` after `{word}`: nothing matches", typed[1:], KEY_TARGET_MS),
        (f"keystroke Backspace to `{word}`: its messages listed", back[1:], KEY_TARGET_MS),
    ]
    rows = []
    for case, seconds, target in figures:
        ms = 1000 * statistics.median(seconds)
        verdict = "met" if ms <= target else "missed"
        rows.append(
            Row("browse", f"{what}: `zerda browse` {case}", "ms", ms,
                extra={"target": f"<= {target} ms: {verdict}"})
        )  # fmt: skip
    return rows
