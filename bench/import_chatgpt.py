"""Import of a ChatGPT export: `zerda import` of a generated export
(bench/chatgpt_export.py) as a real process under `/usr/bin/time` (time and peak
memory), and the same for reading it alone (`zerda.importers.read`, nothing stored).

No peer to compare with: llm has no ChatGPT importer (its issue #8, "import ChatGPT
history", is open), nor do shell_gpt, aichat or LangChain.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.chatgpt_export import write_export
from bench.harness import Command, Row, run_once, tool
from bench.suites import QUICK, Sizes

FULL_MB = 500
QUICK_MB = 2
NO_PEER = "no peer imports ChatGPT exports (llm #8 is open)"
READ_ONLY = (
    "from pathlib import Path; from zerda.importers import read; "
    "print(sum(1 for _ in read(Path({path!r}), 'chatgpt')))"
)


def chatgpt_import(sizes: Sizes, work: Path) -> list[Row]:
    """Time and peak memory of importing, and of reading, a generated ChatGPT export."""
    zerda = tool("zerda")
    if zerda is None:
        return [Row("import", "ChatGPT export", "s", None, note="zerda CLI not installed")]
    megabytes = QUICK_MB if sizes is QUICK else FULL_MB
    path = work / "chatgpt-export" / "conversations.json"
    conversations, messages = write_export(path, megabytes << 20)
    home = work / "import-chatgpt"
    what = f"{megabytes} MB ChatGPT export ({conversations:,} conversations, {messages:,} msgs)"
    seconds, peak = run_once(Command([zerda, "import", str(path)], {"ZERDA_HOME": str(home)}))
    reading = Command([sys.executable, "-c", READ_ONLY.format(path=str(path))])
    read_seconds, read_peak = run_once(reading)
    path.unlink()
    rate = f"{megabytes / seconds:.1f} MB/s; " if seconds else ""
    case = f"`zerda import` of a {what}"
    return [
        Row("import", f"{case} time", "s", seconds, note=rate + NO_PEER),
        Row("import", f"{case} peak memory", "MB", peak, note=NO_PEER),
        Row(
            "import", "the same export read alone (`zerda.importers.read`) time", "s", read_seconds
        ),
        Row("import", "the same export read alone peak memory", "MB", read_peak),
    ]
