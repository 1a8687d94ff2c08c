"""A killed `zerda export -o FILE` leaves a temp file that the next export to FILE removes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from zerda import SessionStore

# Exports to argv[1] through write_private, says so after the first chunk, then waits to die.
STALLED_EXPORT = """
import sys, time
from pathlib import Path
from zerda_cli.options.files import write_private

def chunks():
    yield "first part\\n"
    print("writing", flush=True)
    time.sleep(60)
    yield "never\\n"

write_private(Path(sys.argv[1]), chunks())
"""


def test_the_next_export_removes_a_killed_exports_temp(store: SessionStore, tmp_path: Path) -> None:
    store.append_turn("s", "q", "a")
    target = tmp_path / "out.jsonl"
    stalled = subprocess.Popen(
        [sys.executable, "-c", STALLED_EXPORT, str(target)], stdout=subprocess.PIPE, text=True
    )
    assert stalled.stdout is not None and stalled.stdout.readline() == "writing\n"
    os.kill(stalled.pid, signal.SIGKILL)
    stalled.wait()
    dead_temp = tmp_path / f".out.jsonl.{stalled.pid}.tmp"
    assert dead_temp.exists()
    live_temp = tmp_path / f".out.jsonl.{os.getpid()}.tmp"  # a concurrent export's, still running
    live_temp.write_text("in progress")
    other_target = tmp_path / f".out.jsonl.x.{stalled.pid}.tmp"  # a temp of `out.jsonl.x`
    other_target.write_text("someone else's")
    exported = subprocess.run(
        [sys.executable, "-m", "zerda_cli", "export", "s", "-o", str(target)],
        capture_output=True,
        text=True,
        env={**os.environ, "ZERDA_HOME": str(store.home)},
        timeout=60,
        check=False,
    )
    assert exported.returncode == 0, exported.stderr
    assert '"q"' in target.read_text()
    assert not dead_temp.exists()
    assert live_temp.read_text() == "in progress"
    assert other_target.exists()
