"""LangChain chat histories side by side: zerda's against File and SQL (SQLite) ones.

`ZerdaChatMessageHistory` on a `SessionStore` (fsync on, the default), LangChain's
`FileChatMessageHistory` and `SQLChatMessageHistory` on SQLite, each holding the same
corpus of N messages, measured in the same interleaved rounds: one `add_messages` call
with a turn (a question and its answer), and reading `messages` (all N). zerda's
`memory="window:10"` read has no LangChain counterpart and stands alone.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.corpus import conversation
from bench.harness import NOT_INSTALLED, Row, interleaved, median_ms
from bench.suites import QUICK, Sizes, have, langchain_file

SECTION = "langchain history"
FULL_COUNTS = (10_000, 100_000)
QUICK_COUNTS = (100, 400)
PEERS = {"file": "FileChatMessageHistory", "sql": "SQLChatMessageHistory (SQLite)"}
ZERDA_CALLS = 10  # zerda's appends are cheap: this many a round, the peers' one


def langchain_history(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """add_messages and messages at each size, zerda and both peers in the same rounds."""
    if not have("langchain_core"):
        return [Row(SECTION, "ZerdaChatMessageHistory", "ms", None, note=NOT_INSTALLED)]
    quick = sizes == QUICK
    peers = have("langchain_community") and have("sqlalchemy")
    rows: list[Row] = []
    for count in QUICK_COUNTS if quick else FULL_COUNTS:
        histories = {"zerda": _zerda(work, count)}
        if peers:
            histories["file"] = _file(cache, work, count)
            histories["sql"] = _sql(cache, work, count)
        window = _zerda(work, count, memory="window:10", fresh=False)
        read_rounds = 2 if quick or count >= 100_000 else 5
        reads = interleaved(
            {**{n: _reader(h) for n, h in histories.items()}, "window": _reader(window)},
            read_rounds,
        )
        adds = _appends({n: _adder(h) for n, h in histories.items()}, 2 if quick else 5)
        rows += _rows(count, "add_messages (one turn)", adds)
        rows += _rows(count, "messages (every message)", reads)
        rows.append(
            Row(
                SECTION,
                f"{count:,} msgs: messages with memory=window:10",
                "ms",
                median_ms(reads["window"]),
                note="LangChain's histories read every message",
            )
        )
    return rows


def _rows(count: int, case: str, times: dict[str, list[float]]) -> list[Row]:
    zerda = median_ms(times["zerda"])
    if "file" not in times:
        return [Row(SECTION, f"{count:,} msgs: {case}", "ms", zerda, note=NOT_INSTALLED)]
    return [
        Row(
            SECTION,
            f"{count:,} msgs: {case} vs {name}",
            "ms",
            zerda,
            median_ms(times[peer]),
            name,
        )
        for peer, name in PEERS.items()
    ]


def _appends(adders: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds per add_messages call: zerda's side ZERDA_CALLS a round, the peers' one."""
    times: dict[str, list[float]] = {name: [] for name in adders}
    for index in range(rounds + 1):  # round 0 warms up
        for name, add in adders.items():
            for _ in range(ZERDA_CALLS if name == "zerda" else 1):
                start = time.perf_counter()
                add()
                if index:
                    times[name].append(time.perf_counter() - start)
    return times


def _reader(history: Any) -> Callable[[], object]:
    return lambda: history.messages


def _adder(history: Any) -> Callable[[], object]:
    from langchain_core.messages import AIMessage, HumanMessage

    turn = [HumanMessage("one more question"), AIMessage("one more answer")]
    return lambda: history.add_messages(turn)


def _corpus(count: int) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    kinds = {"user": HumanMessage, "assistant": AIMessage}
    return [kinds[role](content) for role, content in conversation(count)]


def _zerda(work: Path, count: int, *, memory: str | None = None, fresh: bool = True) -> Any:
    """A history on session `m<count>` of a home in `work`, written on first use."""
    from zerda import SessionStore
    from zerda.integrations.langchain import ZerdaChatMessageHistory

    home = work / f"langchain-zerda-{count}"
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
        filling = ZerdaChatMessageHistory(f"m{count}", SessionStore(home, fsync=False))
        filling.add_messages(_corpus(count))
    return ZerdaChatMessageHistory(f"m{count}", SessionStore(home), memory=memory)


def _file(cache: Path, work: Path, count: int) -> Any:
    from langchain_community.chat_message_histories import FileChatMessageHistory

    path = work / f"langchain-history-{count}.json"
    shutil.copyfile(langchain_file(cache, count), path)
    return FileChatMessageHistory(str(path))


def _sql(cache: Path, work: Path, count: int) -> Any:
    """An SQLChatMessageHistory on a copy of a SQLite file of the corpus, built once per cache."""
    from langchain_community.chat_message_histories import SQLChatMessageHistory

    built = cache / f"langchain-sql-{count}.sqlite"
    if not built.exists():
        part = built.with_suffix(".part")
        part.unlink(missing_ok=True)
        filling = SQLChatMessageHistory(f"m{count}", connection=f"sqlite:///{part}")
        filling.add_messages(_corpus(count))
        filling.engine.dispose()
        part.rename(built)
    path = work / built.name
    shutil.copyfile(built, path)
    return SQLChatMessageHistory(f"m{count}", connection=f"sqlite:///{path}")
