"""`zerda serve` under load: 16 concurrent clients on keep-alive connections, each sending
its next request as soon as the last is answered, for a fixed time after a warm-up;
requests/s and p50/p99 latency.

Rows: get-memory (`GET .../memory?lastn=10`) and add-memory (`POST .../memory`, one turn:
two messages a request) on the file store and on PostgreSQL (the bench's own throwaway
server, `bench.postgres`), the session holding 1,000 and 100,000 messages, the server on
2 workers (and on 1 for the file store's get-memory); the same get-memory through
zep-python's own client (`ZepClient.memory.aget_memory`, 16 asyncio tasks, run by the
interpreter that has zep-python: $ZERDA_BENCH_ZEP_PYTHON, $ZERDA_TEST_ZEP_PYTHON or
.venv-zep). get-memory on 2 workers runs in rounds, the sizes in turn (the rate over
every round, the median round's p50/p99); add-memory runs last on each server, and the
session grows by what it adds.

The load client is a Python asyncio client on raw HTTP/1.1 sockets (no HTTP library: one
would be the bottleneck; its own CPU is in each note, and the latencies it records add up
to 16 connections busy all the time). It opens its connections one at a time during the
warm-up, while the first already load the server: uvicorn's workers share one listening
socket and a worker takes every connection pending when it wakes, so 16 connections
opened at once often all land on one worker (a run where one worker did under a fifth of
the work is run again, and the note says so). wrk, when installed, runs once beside it
(file store, 1,000 messages), with one thread: wrk 4.1's latency histogram is not safe
across threads (with -t16 it held more samples than requests, implying 35-230 requests in
flight on 16 connections), and one thread opens its 16 connections at once.

Targets: get-memory p99 at 100,000 messages within 1.5x of that at 1,000 (per store);
at least 1,000 get-memory requests/s from the file store on 2 workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import Row, tool
from bench.suites import QUICK, Sizes, have, zerda_session

SECTION = "serve"
CLIENTS = 16
P99_GROWTH = 1.5  # get-memory p99 at the largest session at most this many times the smallest's
MIN_RATE = 1_000  # get-memory requests/s from the file store on 2 workers, at least
HOST = "127.0.0.1"
LASTN = 10
TURN = json.dumps(
    {
        "messages": [
            {"role": "user", "content": "one more question", "metadata": {"bench": "serve"}},
            {"role": "assistant", "content": "one more answer, a little longer", "metadata": {}},
        ]
    }
).encode()
STARTUP_S = 30.0  # a server not answering by then has failed
STAGGER_S = 0.02  # between one client's connection and the next's, at most
LOPSIDED = 0.2  # a worker doing less than this share of the work: the run is made again
REDRAWS = 2  # times, at most


@dataclass(frozen=True)
class Plan:
    """How long each load runs, after how long a warm-up, on which sessions, and in how
    many rounds (get-memory on 2 workers)."""

    seconds: float
    warmup: float
    sizes: tuple[int, ...]
    rounds: int


FULL_PLAN = Plan(5.0, 1.0, (1_000, 100_000), 3)
QUICK_PLAN = Plan(1.0, 0.3, (100,), 1)


@dataclass(frozen=True)
class Request:
    """One HTTP request, sent again and again."""

    method: str
    path: str
    body: bytes = b""

    def raw(self) -> bytes:
        """The request as sent on a keep-alive connection."""
        head = f"{self.method} {self.path} HTTP/1.1\r\nHost: {HOST}\r\n"
        if self.body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(self.body)}\r\n"
        return (head + "\r\n").encode() + self.body


def get_memory(session_id: str) -> Request:
    return Request("GET", f"/api/v1/sessions/{session_id}/memory?lastn={LASTN}")


def add_memory(session_id: str) -> Request:
    return Request("POST", f"/api/v1/sessions/{session_id}/memory", TURN)


@dataclass
class Load:
    """What one load run (or several rounds of it) measured."""

    client: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    client_cpu: float | None = None  # cores the client used
    server_cpu: list[float] | None = None  # cores each server process used
    busy: float | None = None  # requests in flight on average, by the client's clock
    rounds: int = 1
    redrawn: int = 0
    socket_errors: int = 0
    p99_rounds: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def lopsided(self) -> bool:
        """True when the server's two busiest processes shared the work very unevenly."""
        cpu = sorted(self.server_cpu or [], reverse=True)[:2]
        return len(cpu) == 2 and sum(cpu) > 0 and min(cpu) / sum(cpu) < LOPSIDED

    def note(self) -> str:
        """The row's note: client, latencies, CPU."""
        rounds = f" (median of {self.rounds} rounds)" if self.rounds > 1 else ""
        parts = [self.client, f"p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms{rounds}"]
        if self.server_cpu:
            busy = [c for c in self.server_cpu if c > 0.02]
            total = sum(self.server_cpu)
            split = "/".join(f"{c / total:.0%}" for c in busy) if len(busy) > 1 else ""
            parts.append(f"server {total:.2f} cores" + (f" ({split})" if split else ""))
        if self.client_cpu is not None:
            parts.append(f"client {self.client_cpu:.2f} cores")
        if self.redrawn:
            again = f"connections made again {self.redrawn}x (lopsided on the workers)"
            parts.append(again + (", still lopsided" if self.lopsided() else ""))
        if self.socket_errors:
            parts.append(f"{self.socket_errors} socket errors")
        return "; ".join(parts)

    def extra(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "seconds": self.seconds,
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "p99_ms_rounds": self.p99_rounds or [self.p99_ms],
            "client": self.client,
            "client_cores": self.client_cpu,
            "server_cores": self.server_cpu,
            "in_flight": self.busy,
            "redrawn": self.redrawn,
        }


def merged(loads: list[Load]) -> Load:
    """Rounds of one load as one: every request over every second, the median round's
    latencies, CPU averaged."""
    if len(loads) == 1:
        return loads[0]
    seconds = sum(x.seconds for x in loads)

    def mean(values: list[float | None]) -> float | None:
        return None if None in values else sum(v or 0.0 for v in values) / len(values)

    servers = [x.server_cpu for x in loads]
    server = None
    if all(servers) and len({len(s or []) for s in servers}) == 1:
        server = [statistics.fmean(c) for c in zip(*(s or [] for s in servers), strict=True)]
    return Load(
        loads[0].client,
        sum(x.requests for x in loads),
        seconds,
        statistics.median(x.p50_ms for x in loads),
        statistics.median(x.p99_ms for x in loads),
        mean([x.client_cpu for x in loads]),
        server,
        mean([x.busy for x in loads]),
        len(loads),
        sum(x.redrawn for x in loads),
        sum(x.socket_errors for x in loads),
        [x.p99_ms for x in loads],
    )


def serve(sizes: Sizes, cache: Path, work: Path) -> list[Row]:
    """Every row of the section (see the module docstring); a row saying why when the
    server cannot run."""
    zerda = tool("zerda")
    if zerda is None or not (have("uvicorn") and have("starlette")):
        return [Row(SECTION, "not run", "per s", None, note="zerda[server] not installed")]
    plan = QUICK_PLAN if sizes is QUICK else FULL_PLAN
    rows = _file_rows(zerda, plan, cache, work)
    rows += _postgres_rows(zerda, plan, cache, work)
    return rows + _growth(rows, plan.sizes)


# -- the file store -------------------------------------------------------------------


def _file_rows(zerda: str, plan: Plan, cache: Path, work: Path) -> list[Row]:
    """get-memory on 2 workers (also through zep-python and wrk), on 1 worker, then
    add-memory on 2 workers, over a copy of the cached sessions."""
    home = work / "serve-files"
    sessions = home / "sessions"
    sessions.mkdir(parents=True, exist_ok=True, mode=0o700)
    for count in plan.sizes:
        name = f"m{count}.jsonl"
        shutil.copyfile(zerda_session(cache, count) / "sessions" / name, sessions / name)
    where = ["--home", str(home)]
    rows: list[Row] = []
    with Server(zerda, where, 2, work) as server:
        rows += _gets(server, "file", "m{}", plan, plan.rounds)
        zep = zep_interpreter()
        rows += [_zep_row(server, count, plan, zep) for count in plan.sizes]
        rows.append(_wrk_row(server, plan))
    with Server(zerda, where, 1, work) as server:
        rows += _gets(server, "file", "m{}", plan, 1)
    with Server(zerda, where, 2, work) as server:
        rows += _adds(server, "file", "m{}", plan)
    shutil.rmtree(home, ignore_errors=True)
    return rows


# -- PostgreSQL ------------------------------------------------------------------------


def _postgres_rows(zerda: str, plan: Plan, cache: Path, work: Path) -> list[Row]:
    """get-memory then add-memory on 2 workers over the bench's PostgreSQL server (sessions
    `serve-m<count>` beside bench.postgres's, put back to their size after)."""
    from bench import postgres
    from tools import pgserver as throwaway
    from zerda.errors import StoreError

    directory = cache / postgres.VERSION
    private = not throwaway.reachable(directory)
    if private:  # as bench.postgres: a directory of its own the server's user can reach
        directory = Path(tempfile.mkdtemp(prefix="zerda-bench-pg-"))
    try:
        database = postgres._server(directory)
    except (StoreError, OSError) as exc:
        return [Row(SECTION, "postgres: not run", "per s", None, note=f"no PostgreSQL: {exc}")]
    try:
        url = database.url()
        _prepare_postgres(url, plan.sizes)
        with Server(zerda, ["--store", url], 2, work) as server:
            rows = _gets(server, "postgres", "serve-m{}", plan, plan.rounds)
            rows += _adds(server, "postgres", "serve-m{}", plan)
        _prepare_postgres(url, plan.sizes)  # what the adds added goes
        return rows
    finally:
        database.stop()
        if private:
            shutil.rmtree(directory, ignore_errors=True)


def _prepare_postgres(url: str, counts: tuple[int, ...]) -> None:
    """Session `serve-m<count>` of each size, loaded once (as bench.postgres loads its
    own) and cut back to `count` messages when a run added to it."""
    from bench import postgres
    from zerda import PostgresStore

    store = PostgresStore(url)
    try:
        for count in counts:
            sid = f"serve-m{count}"
            held = store.message_count(sid) if store.exists(sid) else 0
            if held < count:
                if store.exists(sid):
                    store.delete_session(sid)
                postgres._load_zerda(store, sid, count)
            elif held > count:
                with store.server.connection() as conn:
                    conn.execute(
                        "DELETE FROM zerda_messages WHERE session_id = %s AND seq > %s",
                        (sid, count),
                    )
                    conn.execute("UPDATE zerda_sessions SET seq = %s WHERE id = %s", (count, sid))
                store.compact(sid)
        postgres._settle(store)
    finally:
        store.close()


# -- rows --------------------------------------------------------------------------------


def _case(store: str, count: int, request: Request, workers: int, how: str = "") -> str:
    what = "get-memory lastn=10" if request.method == "GET" else "add-memory (a turn: 2 msgs)"
    case = f"{store}, {count:,} msgs: {what}, {workers} worker" + ("s" if workers > 1 else "")
    return case + (f", {how}" if how else "")


def _gets(server: Server, store: str, sid: str, plan: Plan, rounds: int) -> list[Row]:
    """get-memory of each size, in `rounds` rounds taking the sizes in turn."""
    requests = {count: get_memory(sid.format(count)) for count in plan.sizes}
    loads: dict[int, list[Load]] = {count: [] for count in plan.sizes}
    for _ in range(rounds):
        for count, request in requests.items():
            loads[count].append(measure(server, request, plan))
    rows = []
    for count, request in requests.items():
        load = merged(loads[count])
        extra, note = load.extra(), load.note()
        if store == "file" and server.workers == 2:
            verdict = "met" if load.rate >= MIN_RATE else "missed"
            extra["target"] = f">= {MIN_RATE:,}/s on 2 workers: {verdict}"
            note += f"; target >= {MIN_RATE:,}/s: {verdict}"
        case = _case(store, count, request, server.workers)
        rows.append(Row(SECTION, case, "per s", load.rate, note=note, extra=extra))
    return rows


def _adds(server: Server, store: str, sid: str, plan: Plan) -> list[Row]:
    """add-memory to the session of each size (which grows by what is added)."""
    rows = []
    for count in plan.sizes:
        request = add_memory(sid.format(count))
        load = measure(server, request, plan)
        note = load.note() + f"; the session grew by {2 * load.requests:,} msgs"
        case = _case(store, count, request, server.workers)
        rows.append(Row(SECTION, case, "per s", load.rate, note=note, extra=load.extra()))
    return rows


def _zep_row(server: Server, count: int, plan: Plan, zep: str | None) -> Row:
    """get-memory through zep-python's client, in its own interpreter."""
    case = _case("file", count, get_memory(""), server.workers, "zep-python client")
    if zep is None:
        return Row(SECTION, case, "per s", None, note="zep-python not installed")
    load = zep_load(zep, server, f"m{count}", plan)
    return Row(SECTION, case, "per s", load.rate, note=load.note(), extra=load.extra())


def _wrk_row(server: Server, plan: Plan) -> Row:
    """get-memory of the smallest session from wrk, beside the Python client's."""
    count = plan.sizes[0]
    request = get_memory(f"m{count}")
    case = _case("file", count, request, server.workers, "wrk (cross-check)")
    wrk = shutil.which("wrk")
    if wrk is None:
        return Row(SECTION, case, "per s", None, note="wrk not installed")
    load = measure(server, request, plan, lambda seconds: wrk_load(wrk, server, request, seconds))
    return Row(SECTION, case, "per s", load.rate, note=load.note(), extra=load.extra())


def _growth(rows: list[Row], sizes: tuple[int, ...]) -> list[Row]:
    """Per store: get-memory p99 on the largest session / on the smallest (2 workers)."""
    if len(sizes) < 2:
        return []
    found = []
    for store in ("file", "postgres"):
        p99: dict[int, float] = {}
        for count in sizes:
            case = _case(store, count, get_memory(""), 2)
            row = next((r for r in rows if r.case == case and r.zerda is not None), None)
            if row is not None:
                p99[count] = row.extra["p99_ms"]
        if len(p99) < 2:
            continue
        first, last = p99[sizes[0]], p99[sizes[-1]]
        growth = last / first
        target = f"<= {P99_GROWTH}x: {'met' if growth <= P99_GROWTH else 'missed'}"
        found.append(
            Row(
                SECTION,
                f"{store}: get-memory p99 at {sizes[-1]:,} / at {sizes[0]:,} msgs, 2 workers",
                "x",
                growth,
                note=f"{first:.1f} -> {last:.1f} ms; target {target}",
                extra={"target": target, "p99_ms": [first, last]},
            )
        )
    return found


# -- the server --------------------------------------------------------------------------


class Server:
    """`zerda serve` on a free port with `workers` workers, its log in `work`; ready once
    every worker has started, stopped (SIGTERM, then its whole group killed) on exit."""

    def __init__(self, zerda: str, where: list[str], workers: int, work: Path) -> None:
        from tools.pgserver import free_port

        self.port = free_port()
        self.workers = workers
        self.log = work / f"serve-{self.port}.log"
        self.argv = [zerda, "serve", "--host", HOST, "--port", str(self.port), "--no-auth"]
        self.argv += ["--workers", str(workers), *where]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> Server:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its workers in a group of their own
            )
        deadline = time.monotonic() + STARTUP_S
        while self.log.read_text(errors="replace").count("startup complete") < self.workers:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"zerda serve did not start: {self.tail()}")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def tail(self) -> str:
        """The end of the server's log."""
        return self.log.read_text(errors="replace")[-600:]

    def cpu(self) -> list[float]:
        """CPU seconds used so far by the server's process and each of its children
        (Linux's /proc; empty elsewhere)."""
        if self.proc is None:
            return []
        pids = [self.proc.pid, *_children(self.proc.pid)]
        return [_cpu_seconds(pid) for pid in pids]


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _cpu_seconds(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cores(before: list[float], after: list[float], wall: float) -> list[float] | None:
    """Cores each server process used between two `Server.cpu` readings `wall` apart."""
    if not before or len(after) != len(before) or wall <= 0:
        return None
    return [(a - b) / wall for a, b in zip(after, before, strict=True)]


# -- load clients ----------------------------------------------------------------------


def measure(
    server: Server,
    request: Request,
    plan: Plan,
    client: Callable[[float], Load] | None = None,
) -> Load:
    """`request` from CLIENTS clients for `plan.seconds` after a warm-up; made again (new
    connections) when the workers shared it lopsidedly. `client`: another load client
    (called with the seconds to run; the Python client warms up before it)."""
    redrawn = 0
    while True:
        if client is None:
            load = python_load(server, request, plan.warmup, plan.seconds)
        else:
            python_load(server, request, plan.warmup, 0.0)
            before, started = server.cpu(), time.perf_counter()
            load = client(plan.seconds)
            load.server_cpu = _cores(before, server.cpu(), time.perf_counter() - started)
        if server.workers < 2 or not load.lopsided() or redrawn == REDRAWS:
            load.redrawn = redrawn
            return load
        redrawn += 1


def python_load(server: Server, request: Request, warmup: float, seconds: float) -> Load:
    """The Python client: CLIENTS connections, opened one at a time during the warm-up,
    sending `request` for `warmup` seconds, then for `seconds` measured."""
    return asyncio.run(_python_load(server, request.raw(), warmup, seconds))


async def _python_load(server: Server, raw: bytes, warmup: float, seconds: float) -> Load:
    latencies: list[float] = []
    start = time.perf_counter()
    measured_from, deadline = start + warmup, start + warmup + seconds
    writers: list[asyncio.StreamWriter] = []

    async def client(delay: float) -> None:
        # Opened one by one while the others already load the server: a worker busy
        # with them leaves the next connection to an idle one.
        await asyncio.sleep(delay)
        reader, writer = await asyncio.open_connection(HOST, server.port)
        writers.append(writer)
        while (sent := time.perf_counter()) < deadline:
            await _exchange(reader, writer, raw)
            if sent >= measured_from:
                latencies.append(time.perf_counter() - sent)

    async def clock() -> tuple[float, float, list[float]]:
        await asyncio.sleep(max(0.0, measured_from - time.perf_counter()))
        return time.perf_counter(), time.process_time(), server.cpu()

    stagger = min(STAGGER_S, warmup / 2 / CLIENTS)
    clients = [asyncio.create_task(client(i * stagger)) for i in range(CLIENTS)]
    try:
        wall0, cpu0, server0 = await clock()
        await asyncio.gather(*clients)
    finally:
        for writer in writers:
            writer.close()
    wall = max(time.perf_counter() - wall0, 1e-9)
    p50, p99 = _percentiles(latencies)
    load = Load("Python asyncio client", len(latencies), wall, p50, p99)
    load.client_cpu = (time.process_time() - cpu0) / wall
    load.server_cpu = _cores(server0, server.cpu(), wall)
    load.busy = sum(latencies) / wall
    return load


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> None:
    """Send the request, read the whole answer; a failure status raises."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length)
    if status >= 300:
        raise RuntimeError(f"HTTP {status}: {body[:200]!r}")


def _percentiles(latencies: list[float]) -> tuple[float, float]:
    """p50 and p99 of `latencies` (seconds), in milliseconds."""
    if len(latencies) < 2:
        return (latencies[0] * 1000,) * 2 if latencies else (0.0, 0.0)
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000


WRK_REPORT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests": %d, "us": %d, "socket_errors": %d, "status_errors": %d, '
    .. '"p50_us": %d, "p99_us": %d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout,
    e.status, latency:percentile(50), latency:percentile(99)))
end
"""


def wrk_load(wrk: str, server: Server, request: Request, seconds: float) -> Load:
    """wrk, one thread of CLIENTS connections, for `seconds` (whole seconds, one at least)."""
    script = server.log.with_name(f"wrk-{request.method.lower()}.lua")
    setup = ""
    if request.body:
        setup = (
            f'wrk.method = "{request.method}"\n'
            'wrk.headers["Content-Type"] = "application/json"\n'
            f"wrk.body = [[{request.body.decode()}]]\n"
        )
    script.write_text(setup + WRK_REPORT)
    argv = [wrk, "-t1", f"-c{CLIENTS}", f"-d{max(1, round(seconds))}s", "--timeout", "10s"]
    argv += ["-s", str(script), server.url + request.path]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    out = proc.stdout.read().decode(errors="replace")
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    line = next((x for x in out.splitlines() if x.startswith("WRK ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {out[-400:]}")
    found = json.loads(line[4:])
    if found["status_errors"]:
        raise RuntimeError(f"{found['status_errors']} requests failed: {server.tail()}")
    wall = found["us"] / 1e6
    p50, p99 = found["p50_us"] / 1000, found["p99_us"] / 1000
    load = Load(f"wrk -t1 -c{CLIENTS}", found["requests"], wall, p50, p99)
    load.client_cpu = (usage.ru_utime + usage.ru_stime) / wall
    load.socket_errors = found["socket_errors"]
    return load


# -- zep-python --------------------------------------------------------------------------


ZEP_LOAD = """
import asyncio, json, sys, time
from zep_python import ZepClient

url, sid, clients, warmup, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(
    float, sys.argv[4:6])


async def main():
    zep = ZepClient(url)
    latencies = []
    start = time.perf_counter()
    measured_from, deadline = start + warmup, start + warmup + seconds

    async def client(delay):
        await asyncio.sleep(delay)  # connections opened one at a time
        while (sent := time.perf_counter()) < deadline:
            await zep.memory.aget_memory(sid, lastn=10)
            if sent >= measured_from:
                latencies.append(time.perf_counter() - sent)

    async def clock():
        await asyncio.sleep(max(0.0, measured_from - time.perf_counter()))
        print("measuring", flush=True)
        return time.perf_counter(), time.process_time()

    stagger = min(0.02, warmup / 2 / clients)
    tasks = [asyncio.create_task(client(i * stagger)) for i in range(clients)]
    wall0, cpu0 = await clock()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    await zep.aclose()
    print(json.dumps({"latencies": latencies, "wall": wall, "cpu": cpu}))


asyncio.run(main())
"""


def zep_interpreter() -> str | None:
    """A Python that has zep-python: $ZERDA_BENCH_ZEP_PYTHON, $ZERDA_TEST_ZEP_PYTHON,
    the project's .venv-zep, or this one."""
    for variable in ("ZERDA_BENCH_ZEP_PYTHON", "ZERDA_TEST_ZEP_PYTHON"):
        found = os.environ.get(variable)
        if found and Path(found).exists():
            return found
    beside = Path(__file__).resolve().parent.parent / ".venv-zep" / "bin" / "python"
    if beside.exists():
        return str(beside)
    return sys.executable if have("zep_python") else None


def zep_load(python: str, server: Server, sid: str, plan: Plan) -> Load:
    """get-memory from CLIENTS asyncio tasks sharing one ZepClient (the server's CPU
    from the script's "measuring" line to its figures)."""
    argv = [python, "-c", ZEP_LOAD, server.url, sid, str(CLIENTS)]
    argv += [str(plan.warmup), str(plan.seconds)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    before: list[float] = []
    lines = []
    started = time.perf_counter()
    for line in proc.stdout:
        if line.strip() == "measuring":
            before, started = server.cpu(), time.perf_counter()
        else:
            lines.append(line)
    server_cpu = _cores(before, server.cpu(), time.perf_counter() - started)
    error = proc.stderr.read()
    if proc.wait() != 0 or not lines:
        raise RuntimeError(f"the zep-python load failed: {error[-400:]}")
    found = json.loads(lines[-1])
    latencies: list[float] = found["latencies"]
    p50, p99 = _percentiles(latencies)
    wall = max(float(found["wall"]), 1e-9)
    load = Load("zep-python 1.5 (httpx)", len(latencies), wall, p50, p99)
    load.client_cpu = float(found["cpu"]) / wall
    load.server_cpu = server_cpu
    load.busy = sum(latencies) / wall
    return load
