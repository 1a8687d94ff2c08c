"""The six comparisons: start-up, appends, last-10 reads, stats/search, disk, token counting."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpus import (
    NEEDLE,
    NEEDLE_EVERY,
    conversation,
    write_langchain_file,
    write_llm_logs,
    write_zerda_session,
)
from bench.harness import NOT_INSTALLED, Command, Row, interleaved, median_ms, time_commands, tool


@dataclass(frozen=True)
class Sizes:
    """How big each benchmark goes; `--quick` shrinks everything."""

    startup_runs: int
    append_sizes: tuple[int, ...]
    append_rounds: int
    read_sizes: tuple[int, ...]
    peer_read_limit: int
    read_rounds: int
    scan_size: int
    scan_runs: int
    token_messages: int


FULL = Sizes(
    10, (1_000, 10_000, 50_000), 5, (1_000, 100_000, 1_000_000), 100_000, 7, 1_000_000, 3, 2_000
)
QUICK = Sizes(3, (100, 400), 2, (100, 1_000), 1_000, 2, 2_000, 1, 100)


def have(module: str) -> bool:
    """True when `module` can be imported (the peers are optional)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def zerda_session(cache: Path, count: int) -> Path:
    """A zerda home holding session `m<count>`, built once per cache."""
    home = cache / f"zerda-v4-{count}"  # v4: sealed running totals
    path = home / "sessions" / f"m{count}.jsonl"
    if not path.exists():
        tmp = path.with_name(f"m{count}.jsonl.part")
        write_zerda_session(tmp, count, f"m{count}")
        tmp.rename(path)
    return home


def langchain_file(cache: Path, count: int) -> Path:
    """A FileChatMessageHistory JSON file of `count` messages, built once per cache."""
    path = cache / f"langchain-{count}.json"
    if not path.exists():
        write_langchain_file(path.with_suffix(".part"), count)
        path.with_suffix(".part").rename(path)
    return path


def llm_db(cache: Path, count: int) -> Path:
    """An llm logs.db of `count` messages (count/2 prompt/response rows), built once."""
    path = cache / f"llm-{count}" / "logs.db"
    if not path.exists():
        from llm.migrations import migrate

        part = path.with_name("logs.db.part")
        write_llm_logs(part, count, migrate)
        part.rename(path)
    return path


# -- 1. start-up -------------------------------------------------------------------


STARTUP_TARGET = 2.5  # each quick command at most this many times `python -c pass`
QUICK_COMMANDS = ("zerda add", "zerda show --last 5", "zerda stats", "zerda sessions --limit 10")


def startup(sizes: Sizes, work: Path) -> list[Row]:
    """Whole-command wall time and peak memory of short zerda commands vs llm's, and of
    the quick-path commands against the floor (`python -c pass`), in one interleaved run.

    `add` writes to a store of its own; the others read a small store of ten sessions
    whose messages were counted when written, as a store is after its first read."""
    zerda = tool("zerda")
    llm = tool("llm")
    home = work / "startup-home"
    env = {"ZERDA_HOME": str(home), "NO_COLOR": "1"}
    commands = {"python -c pass": Command([sys.executable, "-c", "pass"])}
    if zerda:
        _compiled()
        _small_store(home)
        adding = {**env, "ZERDA_HOME": str(work / "startup-add")}  # the reads' store stays still
        commands["zerda add"] = Command(
            [zerda, "add", "s", "what is a window?", "the last k turns"], adding
        )
        commands["zerda show --last 5"] = Command([zerda, "show", "r0", "--last", "5"], env)
        commands["zerda stats"] = Command([zerda, "stats", "r0"], env)
        commands["zerda sessions --limit 10"] = Command([zerda, "sessions", "--limit", "10"], env)
        commands["zerda window"] = Command([zerda, "window", "r0", "-k", "3"], env)
    if llm:
        user_path = work / "llm-user"
        user_path.mkdir(parents=True, exist_ok=True)
        llm_db_small = llm_db(work, 20)
        (user_path / "logs.db").write_bytes(llm_db_small.read_bytes())
        commands["llm logs -n 1"] = Command(
            [llm, "logs", "-n", "1"], {"LLM_USER_PATH": str(user_path)}
        )
    timed = time_commands(commands, sizes.startup_runs)
    base_ms, base_mb = timed["python -c pass"]
    peer_ms, peer_mb = timed.get("llm logs -n 1", (None, None))
    rows = [Row("start-up", "python -c pass (floor)", "ms", base_ms, extra={"peak_mb": base_mb})]
    if not zerda:
        return [
            *rows,
            Row("start-up", "zerda commands", "ms", None, note="zerda CLI not installed"),
        ]
    for name in ("zerda add", "zerda stats", "zerda window"):
        ms, mb = timed[name]
        rows.append(
            Row(
                "start-up",
                f"`{name}` vs `llm logs -n 1`",
                "ms",
                ms,
                peer_ms,
                "llm" if peer_ms else "",
                "" if peer_ms else NOT_INSTALLED,
                {"peak_mb": mb, "peer_peak_mb": peer_mb, "x_python": ms / base_ms},
            )
        )
    for name in QUICK_COMMANDS:
        ms, mb = timed[name]
        target = f"target <= {STARTUP_TARGET}x"
        rows.append(
            Row(
                "start-up",
                f"`{name}` / `python -c pass` ({ms:.0f} / {base_ms:.0f} ms)",
                "x",
                ms / base_ms,
                note=f"{target}: {'met' if ms / base_ms <= STARTUP_TARGET else 'missed'}",
                extra={"ms": ms, "floor_ms": base_ms, "peak_mb": mb},
            )
        )
    return rows


def _compiled() -> None:
    """Byte-compile zerda's packages, as an install does, so that no timed run compiles
    them (with PYTHONDONTWRITEBYTECODE set, an edited module would be compiled each time)."""
    import compileall

    import zerda
    import zerda_cli

    for package in (zerda, zerda_cli):
        compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)


def _small_store(home: Path) -> None:
    """Ten sessions of ten counted turns each, for the read commands to start on."""
    from zerda import SessionStore

    store = SessionStore(home, fsync=False)
    for n in range(10):
        for turn in range(10):
            store.append_turn(f"r{n}", f"question {turn} of session {n}", f"answer {turn}")


# -- 2. appends --------------------------------------------------------------------


def appends(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """Cost of one more turn on sessions already holding N messages."""
    from zerda import SessionStore
    from zerda.memory import ConversationBufferMemory

    peer = have("langchain_community")
    rows = []
    for count in sizes.append_sizes:
        source = zerda_session(cache, count) / "sessions" / f"m{count}.jsonl"
        sides: dict[str, Any] = {}
        for fsync in (True, False):
            home = work / f"append-{count}-{fsync}"
            (home / "sessions").mkdir(parents=True, exist_ok=True, mode=0o700)
            (home / "sessions" / source.name).write_bytes(source.read_bytes())
            store = SessionStore(home, fsync=fsync)
            memory = ConversationBufferMemory(store=store, session_id=source.stem)
            sides[f"memory fsync={fsync}"] = _saver(memory)
            sides[f"append_turn fsync={fsync}"] = _appender(store, source.stem)
        if peer:
            sides["peer"] = _peer_appender(cache, work, count)
        times = _rounds(sides, sizes.append_rounds)
        peer_ms = median_ms(times["peer"]) if peer else None
        for name in sides:
            if name == "peer":
                continue
            rows.append(
                Row(
                    "appends",
                    f"{count:,} msgs: {name.replace('memory', 'save_context')}",
                    "ms",
                    median_ms(times[name]),
                    peer_ms,
                    "FileChatMessageHistory" if peer else "",
                    "" if peer else NOT_INSTALLED,
                )
            )
    return rows


def _rounds(sides: dict[str, Any], rounds: int) -> dict[str, list[float]]:
    """zerda's sides run 10 calls a round (they are cheap), the peer one."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for index in range(rounds + 1):
        for name, call in sides.items():
            for _ in range(1 if name == "peer" else 10):
                start = time.perf_counter()
                call()
                if index:
                    times[name].append(time.perf_counter() - start)
    return times


def _saver(memory: Any) -> Any:
    return lambda: memory.save_context(
        {"input": "one more question"}, {"output": "one more answer"}
    )


def _appender(store: Any, session_id: str) -> Any:
    return lambda: store.append_turn(session_id, "one more question", "one more answer")


def _peer_appender(cache: Path, work: Path, count: int) -> Any:
    from langchain_community.chat_message_histories import FileChatMessageHistory
    from langchain_core.messages import AIMessage, HumanMessage

    path = work / f"langchain-append-{count}.json"
    path.write_bytes(langchain_file(cache, count).read_bytes())
    history = FileChatMessageHistory(str(path))
    turn = [HumanMessage("one more question"), AIMessage("one more answer")]
    return lambda: history.add_messages(turn)


# -- 3. last-10 reads ----------------------------------------------------------------


def reads(sizes: Sizes, cache: Path) -> list[Row]:
    """Loading the last 10 turns of big sessions: zerda's window memory vs LangChain's."""
    from zerda import SessionStore

    peer = have("langchain_classic") and have("langchain_community")
    rows = []
    for count in sizes.read_sizes:
        home = zerda_session(cache, count)
        store = SessionStore(home)
        sid = f"m{count}"
        sides: dict[str, Any] = {
            "window": functools.partial(_zerda_window, store, sid),
            "get_memory": functools.partial(store.get_memory, sid, lastn=20),
        }
        peer_here = peer and count <= sizes.peer_read_limit
        if peer_here:
            sides["peer"] = _peer_window(langchain_file(cache, count))
        times = interleaved(sides, sizes.read_rounds if count < 1_000_000 else 3)
        peer_ms = median_ms(times["peer"]) if peer_here else None
        note = NOT_INSTALLED if not peer else ("" if peer_here else "not run: ~1 GB JSON file")
        for name, label in (
            ("window", "window memory k=10"),
            ("get_memory", "get_memory(lastn=20)"),
        ):
            rows.append(
                Row(
                    "last-10 read",
                    f"{count:,} msgs: {label}",
                    "ms",
                    median_ms(times[name]),
                    peer_ms,
                    "ConversationBufferWindowMemory+File" if peer_ms else "",
                    note,
                )
            )
    return rows


def _zerda_window(store: Any, session_id: str) -> object:
    from zerda.memory import ConversationBufferWindowMemory

    memory = ConversationBufferWindowMemory(k=10, store=store, session_id=session_id)
    return memory.load_memory_variables({})


def _peer_window(path: Path) -> Any:
    from langchain_classic.memory import ConversationBufferWindowMemory
    from langchain_community.chat_message_histories import FileChatMessageHistory

    def load() -> object:
        memory = ConversationBufferWindowMemory(k=10, chat_memory=FileChatMessageHistory(str(path)))
        return memory.load_memory_variables({})

    return load


# -- 4 and 5. stats, search, disk -------------------------------------------------------


# Stats the way files without running totals get them: every message read.
FULL_SCAN = (
    "from zerda.store._stats import collect_stats; "
    "assert collect_stats('{sid}', s.iter_messages('{sid}')).messages"
)
LABELS = {
    "lib stats": "python -c SessionStore.session_stats",
    "lib full scan": "python -c collect_stats (a file without running totals)",
    "lib search": "python -c SessionStore.search",
}


def scans(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """`zerda stats` / `zerda search` over one big session vs `llm logs -q`; disk per text byte."""
    count = sizes.scan_size
    home = zerda_session(cache, count)
    sid = f"m{count}"
    zerda = tool("zerda")
    llm = tool("llm")
    env = {"ZERDA_HOME": str(home), "NO_COLOR": "1"}
    lib = "from zerda import SessionStore; s = SessionStore(); "
    commands = {
        "lib stats": Command([sys.executable, "-c", lib + f"s.session_stats('{sid}')"], env),
        "lib full scan": Command([sys.executable, "-c", lib + FULL_SCAN.format(sid=sid)], env),
        "lib search": Command(
            [sys.executable, "-c", lib + f"print(sum(1 for _ in s.search('{NEEDLE}')))"], env
        ),
    }
    if zerda:
        commands["zerda stats"] = Command([zerda, "stats", sid], env)
        search = [zerda, "search", NEEDLE, "--session", sid]
        # A session smaller than NEEDLE_EVERY (--quick) holds no match: exit status 1.
        exits = (0,) if count >= NEEDLE_EVERY else (1,)
        commands["zerda search"] = Command(search, env, exits)
        commands["zerda search --limit 10"] = Command([*search, "--limit", "10"], env, exits)
    db = None
    if llm and have("llm"):
        db = llm_db(cache, count)
        user_path = work / "llm-scan"
        user_path.mkdir(parents=True, exist_ok=True)
        commands["llm logs -q"] = Command(
            [llm, "logs", "-q", NEEDLE, "-n", "0", "-d", str(db)], {"LLM_USER_PATH": str(user_path)}
        )
    timed = time_commands(commands, sizes.scan_runs)
    peer_ms, peer_mb = timed.get("llm logs -q", (None, None))
    rows = []
    names = ("lib stats", "lib full scan", "lib search", "zerda stats", "zerda search")
    for name in (*names, "zerda search --limit 10"):
        if name not in timed:
            rows.append(
                Row(
                    "stats/search",
                    f"{count:,} msgs: `{name}`",
                    "s",
                    None,
                    note="zerda CLI not installed",
                )
            )
            continue
        ms, mb = timed[name]
        label = LABELS.get(name, name)
        # --limit 10 has no peer figure: `llm logs -q -n 0` lists every match.
        comparable = "search" in name and "--limit" not in name
        holding = f" ({count // NEEDLE_EVERY:,} hold {NEEDLE!r})" if "search" in name else ""
        rows.append(
            Row(
                "stats/search",
                f"{count:,} msgs{holding}: `{label}`"
                + (" vs `llm logs -q -n 0`" if comparable else ""),
                "s",
                ms / 1000,
                peer_ms / 1000 if comparable and peer_ms else None,
                "llm, FTS5 index" if comparable and peer_ms else "",
                "" if peer_ms or not comparable else NOT_INSTALLED,
                {"peak_mb": mb, "peer_peak_mb": peer_mb if comparable else None},
            )
        )
        rows.append(
            Row(
                "stats/search",
                f"{count:,} msgs{holding}: `{label}` peak memory",
                "MB",
                mb,
                peer_mb if comparable else None,
                "llm" if comparable and peer_mb else "",
            )
        )
    return rows + _disk(count, home / "sessions" / f"{sid}.jsonl", db)


def _disk(count: int, session: Path, db: Path | None) -> list[Row]:
    text = sum(len(content.encode()) for _, content in conversation(count))
    zerda = session.stat().st_size / text
    peer = db.stat().st_size / text if db is not None else None
    return [
        Row(
            "disk",
            f"bytes on disk per byte of message text ({count:,} msgs)",
            "x",
            zerda,
            peer,
            "llm logs.db" if peer else "",
            "" if peer else NOT_INSTALLED,
            {"text_bytes": text},
        )
    ]


# -- 6. token counting -----------------------------------------------------------------


def tokens(sizes: Sizes) -> list[Row]:
    """Exact token counts per second through zerda vs tiktoken itself."""
    import tiktoken

    from zerda.tokens import get_counter, offline_name

    counter = get_counter()
    name = offline_name("cl100k_base")
    raw = tiktoken.get_encoding(name) if name else None
    texts = [content for _, content in conversation(sizes.token_messages)]
    if raw is None or not counter.exact:
        return [Row("tokens", "exact counts", "per s", None, note="no offline encoder")]
    sides = {
        "zerda": lambda: [counter.count(t) for t in texts],
        "tiktoken": lambda: [len(raw.encode(t, disallowed_special=())) for t in texts],
    }
    times = interleaved(sides, 5)
    per_s = {k: len(texts) / (median_ms(v) / 1000) for k, v in times.items()}
    return [
        Row(
            "tokens",
            f"exact counts of chat messages, messages/s ({len(texts):,} msgs)",
            "per s",
            per_s["zerda"],
            per_s["tiktoken"],
            "raw tiktoken",
            extra={"zerda_overhead": per_s["tiktoken"] / per_s["zerda"] - 1},
        )
    ]


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import os
    import platform

    return {
        "date": time.strftime("%Y-%m-%d"),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def dump(path: Path, data: Any) -> None:
    """Write JSON."""
    path.write_text(json.dumps(data, indent=2) + "\n")
