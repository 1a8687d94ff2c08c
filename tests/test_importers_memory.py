"""A big ChatGPT export is read as a stream: memory stays far below the file's size.
(Real speed and peak memory at 500 MB are in the benchmark's import section.)"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

from zerda.importers import Conversation, read

ROOT = Path(__file__).resolve().parent.parent
MEGABYTES = 20


def test_a_20_mb_export_parses_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    made = subprocess.run(
        [sys.executable, "-m", "bench.chatgpt_export", str(path), str(MEGABYTES)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    conversations, messages = map(int, made.stdout.split())
    size = path.stat().st_size
    assert size > MEGABYTES << 20
    tracemalloc.start()
    try:
        found = [len(c.messages) for c in read(path, "chatgpt") if isinstance(c, Conversation)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (len(found), sum(found)) == (conversations, messages)
    assert peak < size // 10, f"peak {peak:,} bytes for a {size:,}-byte export"
