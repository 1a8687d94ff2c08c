"""The PostgreSQL store side by side with langchain-postgres's PostgresChatMessageHistory,
on one throwaway server of the bench's own (`tools.pgserver`, fsync on).

Rows: append latency (a turn: two messages) and the last 10 turns read at each read size
(1k / 100k / 1M messages), `session_stats`, and a search over every session. The peer
has no last-N read (its `messages` reads the whole session), no stats and no search, so
those rows time what its table allows: the read as its users do it, a count(*) and an
ILIKE over its messages. Sessions are loaded once, straight into the tables (as the file
benchmarks write their files), and kept with the server in the cache directory.
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.corpus import NEEDLE, conversation, stamp
from bench.harness import NOT_INSTALLED, Row, interleaved, median_ms
from bench.suites import Sizes, have

SECTION = "postgres"
PEER = "PostgresChatMessageHistory"
PEER_TABLE = "langchain_history"
CALLS = 10  # appends timed per round and side
LOAD_BATCH = 5_000
# The server's data stays in the cache: loading a million messages takes minutes.
VERSION = "postgres-v1"


def postgres(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """Every row of the section; one row saying why when no server can be started."""
    from tools import pgserver as throwaway
    from zerda.errors import StoreError

    directory = cache / VERSION
    private = not throwaway.reachable(directory)
    if private:  # a cache the server's user cannot reach: a directory of its own, not kept
        directory = Path(tempfile.mkdtemp(prefix="zerda-bench-pg-"))
    try:
        server = _server(directory)
    except (StoreError, OSError) as exc:
        return [Row(SECTION, "not run", "ms", None, note=f"no PostgreSQL server: {exc}")]
    try:
        return _measure(server.url(), sizes)
    finally:
        server.stop()
        if private:
            shutil.rmtree(directory, ignore_errors=True)


def _server(directory: Path) -> Any:
    """The bench's server: made on first use, started again on later runs."""
    from tools import pgserver as throwaway

    if not (directory / "data" / "PG_VERSION").exists():
        return throwaway.started(directory, durable=True)
    bin_dir = throwaway.find_bin()
    if bin_dir is None:
        raise OSError("PostgreSQL is not installed")
    (directory / "data" / "postmaster.pid").unlink(missing_ok=True)  # left by a killed run
    server = throwaway.Throwaway(directory, throwaway.free_port(), bin_dir, durable=True)
    server.start()
    return server


def _measure(url: str, sizes: Sizes) -> list[Row]:
    from zerda import PostgresStore

    store = PostgresStore(url)
    peer = _peer_connection(url)
    rows: list[Row] = []
    try:
        for count in sizes.read_sizes:
            _load(store, peer, count)
        _settle(store)
        rows += _appends(store, peer, sizes.read_sizes, sizes.append_rounds)
        rows += _reads(store, peer, sizes)
        largest = sizes.read_sizes[-1]
        rows += _stats(store, peer, largest, sizes.read_rounds)
        rows += _search(store, peer, sum(sizes.read_sizes), sizes.scan_runs)
    finally:
        store.close()
        if peer is not None:
            peer.close()
    return rows


def _peer_connection(url: str) -> Any:
    """A connection for the peer (None when langchain-postgres is not installed)."""
    if not have("langchain_postgres"):
        return None
    import psycopg
    from langchain_postgres import PostgresChatMessageHistory

    conn = psycopg.connect(url)
    PostgresChatMessageHistory.create_tables(conn, PEER_TABLE)
    return conn


def _peer_session(count: int) -> str:
    """The peer's session id for the session of `count` messages (it takes uuids only)."""
    return str(uuid.UUID(int=count))


# -- loading ------------------------------------------------------------------------


def _load(store: Any, peer: Any, count: int) -> None:
    """Session `m<count>` in zerda's tables and the same messages in the peer's, once."""
    sid = f"m{count}"
    if not store.exists(sid) or store.message_count(sid) < count:
        if store.exists(sid):
            store.delete_session(sid)
        _load_zerda(store, sid, count)
    if peer is not None and _peer_count(peer, count) < count:
        with peer.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {PEER_TABLE} WHERE session_id = %s", (_peer_session(count),)
            )
        _load_peer(peer, count)


def _messages(count: int) -> Iterator[Any]:
    from zerda import Message

    for index, (role, content) in enumerate(conversation(count)):
        yield Message(
            role,
            content,
            uuid=str(uuid.UUID(int=index + 1)),
            created_at=stamp(index),
            token_count=len(content) // 4,  # as the file benchmarks estimate them
        )


def _settle(store: Any) -> None:
    """Vacuum, analyze and checkpoint, so what a load left to do in the background
    (autovacuum, a checkpoint) does not land inside the timings."""
    with store.server.connection() as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")


def _load_zerda(store: Any, sid: str, count: int) -> None:
    """COPY the messages into zerda_messages (rows as the store makes them), then count
    the session's running totals once (`compact`)."""
    from zerda.store.postgres import _rows as rows
    from zerda.store.postgres._schema import SEARCH_INDEX

    store.create_session(sid, created_at=stamp(0))
    columns = ("session_id", "seq", *rows.MESSAGE_COLUMNS.split(", "), "part", "folded")
    names = ", ".join(columns)
    with store.server.connection() as conn, conn.transaction():
        # Built once after the rows are in, as an index is fastest made.
        conn.execute("DROP INDEX zerda_messages_search")
        conn.execute("SET LOCAL synchronous_commit = off")
        conn.execute("SET LOCAL maintenance_work_mem = '1GB'")
        with conn.cursor().copy(f"COPY zerda_messages ({names}) FROM STDIN") as copy:
            for seq, message in enumerate(_messages(count), 1):
                values = rows.message_params(message)
                copy.write_row((sid, seq, *(values[c] for c in columns[2:])))
        conn.execute("UPDATE zerda_sessions SET seq = %s WHERE id = %s", (count, sid))
        conn.execute(SEARCH_INDEX)
    store.compact(sid)
    with store.server.connection() as conn:
        conn.execute("ANALYZE zerda_messages")


def _load_peer(peer: Any, count: int) -> None:
    """COPY what PostgresChatMessageHistory.add_messages would have written."""
    from langchain_core.messages import AIMessage, HumanMessage, message_to_dict

    kinds = {"user": HumanMessage, "assistant": AIMessage}
    session = _peer_session(count)
    with peer.cursor() as cursor:
        with cursor.copy(f"COPY {PEER_TABLE} (session_id, message) FROM STDIN") as copy:
            for role, content in conversation(count):
                copy.write_row((session, json.dumps(message_to_dict(kinds[role](content)))))
        cursor.execute(f"ANALYZE {PEER_TABLE}")
    peer.commit()


def _peer_count(peer: Any, count: int) -> int:
    with peer.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM {PEER_TABLE} WHERE session_id = %s", (_peer_session(count),)
        )
        found = cursor.fetchone()
    peer.commit()
    return int(found[0]) if found else 0


# -- measuring ------------------------------------------------------------------------


def _appends(store: Any, peer: Any, counts: tuple[int, ...], rounds: int) -> list[Row]:
    """A turn appended to the session of each size, all sizes and both sides in the same
    rounds (so a drift of the machine's disk lands on all alike); the turns go after."""
    sides: dict[str, Callable[[], object]] = {}
    for count in counts:
        sid = f"m{count}"
        sides[f"zerda {count}"] = functools.partial(
            store.append_turn, sid, "one more question", "one more answer"
        )
        if peer is not None:
            sides[f"peer {count}"] = _peer_adder(peer, count)
    times = _rounds(sides, rounds)
    for count in counts:
        _trim(store, peer, count, rounds)
    return [
        Row(
            SECTION,
            f"{count:,} msgs: append a turn (append_turn vs add_messages)",
            "ms",
            median_ms(times[f"zerda {count}"]),
            median_ms(times[f"peer {count}"]) if peer is not None else None,
            PEER if peer is not None else "",
            "" if peer is not None else NOT_INSTALLED,
        )
        for count in counts
    ]


def _rounds(sides: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in sides}
    for index in range(rounds + 1):  # round 0 warms up
        for name, call in sides.items():
            for _ in range(CALLS):
                start = time.perf_counter()
                call()
                if index:
                    times[name].append(time.perf_counter() - start)
    return times


def _peer_adder(peer: Any, count: int) -> Callable[[], object]:
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_postgres import PostgresChatMessageHistory

    history = PostgresChatMessageHistory(PEER_TABLE, _peer_session(count), sync_connection=peer)
    turn = [HumanMessage("one more question"), AIMessage("one more answer")]
    return lambda: history.add_messages(turn)


def _trim(store: Any, peer: Any, count: int, rounds: int) -> None:
    """Put the sessions back to `count` messages (what the appends added goes)."""
    sid = f"m{count}"
    with store.server.connection() as conn:
        conn.execute("DELETE FROM zerda_messages WHERE session_id = %s AND seq > %s", (sid, count))
        conn.execute("UPDATE zerda_sessions SET seq = %s WHERE id = %s", (count, sid))
    store.compact(sid)
    if peer is not None:
        with peer.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {PEER_TABLE} WHERE id IN (SELECT id FROM {PEER_TABLE} "
                "WHERE session_id = %s ORDER BY id DESC LIMIT %s)",
                (_peer_session(count), (rounds + 1) * CALLS * 2),
            )
        peer.commit()


def _reads(store: Any, peer: Any, sizes: Sizes) -> list[Row]:
    """The last 10 turns: zerda's window memory and get_memory vs the peer's messages.

    zerda's reads of every size run in the same rounds; the peer's, thousands of times
    slower, run in rounds of their own after, so the garbage of a 100,000-message read
    is never collected inside one of zerda's.
    """
    sides: dict[str, Callable[[], object]] = {}
    for count in sizes.read_sizes:
        sides[f"window {count}"] = functools.partial(_window, store, f"m{count}")
        sides[f"get_memory {count}"] = functools.partial(store.get_memory, f"m{count}", lastn=20)
    times = interleaved(sides, sizes.read_rounds)
    if peer is not None:
        readers = {
            f"peer {count}": _peer_reader(peer, count)
            for count in sizes.read_sizes
            if count <= sizes.peer_read_limit
        }
        times.update(interleaved(readers, sizes.read_rounds))
    rows = []
    for count in sizes.read_sizes:
        peer_ms = median_ms(times[f"peer {count}"]) if f"peer {count}" in times else None
        note = NOT_INSTALLED if peer is None else ("" if peer_ms else "not run: reads every row")
        rows += [
            Row(
                SECTION,
                f"{count:,} msgs: last 10 turns, {label}",
                "ms",
                median_ms(times[f"{name} {count}"]),
                peer_ms,
                f"{PEER}.messages[-20:]" if peer_ms else "",
                note,
            )
            for name, label in (
                ("window", "window memory k=10"),
                ("get_memory", "get_memory(lastn=20)"),
            )
        ]
    return rows


def _window(store: Any, session_id: str) -> object:
    from zerda.memory import ConversationBufferWindowMemory

    memory = ConversationBufferWindowMemory(k=10, store=store, session_id=session_id)
    return memory.load_memory_variables({})


def _peer_reader(peer: Any, count: int) -> Callable[[], object]:
    from langchain_postgres import PostgresChatMessageHistory

    history = PostgresChatMessageHistory(PEER_TABLE, _peer_session(count), sync_connection=peer)
    return lambda: history.messages[-20:]


def _stats(store: Any, peer: Any, count: int, rounds: int) -> list[Row]:
    """Stats of the biggest session: zerda's one row vs a count(*) over the peer's rows."""
    sid = f"m{count}"
    sides: dict[str, Callable[[], object]] = {"zerda": lambda: store.session_stats(sid)}
    if peer is not None:
        sides["peer"] = lambda: _peer_count(peer, count)
    times = interleaved(sides, rounds)
    return [
        Row(
            SECTION,
            f"{count:,} msgs: session_stats (counts, tokens, activity)",
            "ms",
            median_ms(times["zerda"]),
            median_ms(times["peer"]) if peer is not None else None,
            "count(*) of its rows; it keeps no stats" if peer is not None else "",
            "" if peer is not None else NOT_INSTALLED,
        )
    ]


def _search(store: Any, peer: Any, total: int, rounds: int) -> list[Row]:
    """Every message holding NEEDLE, any case, over all sessions: zerda's trigram index
    vs an ILIKE over the peer's messages (it has no search)."""
    sides: dict[str, Callable[[], object]] = {"zerda": lambda: list(store.search(NEEDLE))}
    if peer is not None:
        sides["peer"] = lambda: _peer_search(peer)
    times = interleaved(sides, rounds)
    return [
        Row(
            SECTION,
            f"{total:,} msgs in all: search {NEEDLE!r}",
            "ms",
            median_ms(times["zerda"]),
            median_ms(times["peer"]) if peer is not None else None,
            "ILIKE over its messages; it has no search" if peer is not None else "",
            "" if peer is not None else NOT_INSTALLED,
        )
    ]


def _peer_search(peer: Any) -> list[Any]:
    with peer.cursor() as cursor:
        cursor.execute(
            f"SELECT message FROM {PEER_TABLE} WHERE message->'data'->>'content' ILIKE %s "
            "ORDER BY id",
            (f"%{NEEDLE}%",),
        )
        found = cursor.fetchall()
    peer.commit()
    return found


def targets(rows: list[Row], check: Callable[[str, str, bool | None], None]) -> None:
    """The section's targets: last 10 turns at the largest size within 2x of the smallest;
    appends flat (largest within 1.3x of smallest)."""
    mine = [r for r in rows if r.section == SECTION and r.zerda is not None]
    for label in ("window memory", "get_memory"):
        reads = [r for r in mine if label in r.case]
        if len(reads) >= 2 and reads[0].zerda and reads[-1].zerda:
            growth = reads[-1].zerda / reads[0].zerda
            check(
                f"PostgreSQL last 10 turns ({label}): largest within 2x of smallest",
                f"{growth:.2f}x ({reads[0].zerda:.2f} -> {reads[-1].zerda:.2f} ms)",
                growth <= 2,
            )
    appends = [r for r in mine if "append a turn" in r.case]
    if len(appends) >= 2 and appends[0].zerda and appends[-1].zerda:
        growth = appends[-1].zerda / appends[0].zerda
        check(
            "PostgreSQL appends flat: largest session within 1.3x of the smallest",
            f"{growth:.2f}x ({appends[0].zerda:.2f} -> {appends[-1].zerda:.2f} ms)",
            growth <= 1.3,
        )
