"""What must hold for session files: concurrent writers, crashes, damage, privacy, hostile
ids, a full disk and interrupted rewrites."""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zerda import (
    CorruptSessionError,
    InvalidSessionIdError,
    Message,
    SessionStore,
    StorageWriteError,
    UnsafePathError,
    ZerdaError,
    ZerdaWarning,
)
from zerda.memory import ConversationBufferMemory
from zerda.messages import Summary


def _text(summary: Summary | None) -> str | None:
    """The text of a stored summary, or None."""
    return summary.content if summary else None


def run_python(code: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


def session_path(store: SessionStore, session_id: str = "s") -> Path:
    return store.sessions_dir / f"{session_id}.jsonl"


def add_turns(store: SessionStore, n: int, session_id: str = "s") -> None:
    for i in range(n):
        store.append_turn(session_id, f"q{i}", f"a{i}")


def strict_contents(home: Path, session_id: str = "s") -> list[str]:
    """Every message's content, read strictly, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZerdaWarning)
        store = SessionStore(home, fsync=False)
        forward = [m.content for m in store.iter_messages(session_id)]
        backward = [m.content for m in store.get_memory(session_id, lastn=10**9).messages]
    assert forward == backward
    return forward


# -- 1. concurrency ------------------------------------------------------------------

WRITER = """
import sys
from zerda import SessionStore
store = SessionStore(sys.argv[1], fsync=False, count_on_write=False)
writer = sys.argv[2]
sys.stdin.readline()  # start together
for i in range(int(sys.argv[3])):
    store.append_turn("shared", f"user {writer} {i}", f"assistant {writer} {i}")
"""


def test_eight_processes_write_one_session(home: Path) -> None:
    writers, turns = 8, 200
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(home), str(w), str(turns)],
            stdin=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.close()
    assert [proc.wait(timeout=120) for proc in procs] == [0] * writers

    contents = strict_contents(home, "shared")
    assert len(contents) == 2 * writers * turns
    next_index = dict.fromkeys(map(str, range(writers)), 0)
    for question, answer in zip(contents[::2], contents[1::2], strict=True):
        role, writer, index = question.split()
        assert role == "user"
        assert answer == f"assistant {writer} {index}"
        assert int(index) == next_index[writer]  # each writer's turns in its own order
        next_index[writer] += 1
    assert set(next_index.values()) == {turns}
    kinds = [json.loads(line)["type"] for line in session_path(SessionStore(home), "shared").open()]
    assert kinds.count("session") == 1 and kinds[0] == "session"


# -- 2. crashes ------------------------------------------------------------------------

ACKING_WRITER = """
import sys
from zerda import SessionStore
store = SessionStore(sys.argv[1], fsync=False, count_on_write=False)
round_ = sys.argv[2]
i = 0
while True:
    store.append_turn("crash", f"q {round_} {i} " + "x" * (i % 300), f"a {round_} {i}")
    print(f"{round_} {i}", flush=True)
    i += 1
"""


def test_sigkill_mid_stream_loses_no_acknowledged_turn(home: Path) -> None:
    rng = random.Random(7)
    acked: list[str] = []
    for round_ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", ACKING_WRITER, str(home), str(round_)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        for _ in range(rng.randint(1, 40)):
            acked.append(proc.stdout.readline().strip())
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        acked.extend(line.strip() for line in proc.stdout)  # acks already in the pipe
        proc.stdout.close()

        store = SessionStore(home, fsync=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZerdaWarning)  # a torn tail is allowed here
            contents = [m.content for m in store.iter_messages("crash")]
        questions = contents[::2]
        held = {" ".join(q.split()[1:3]) for q in questions}
        assert set(acked) <= held
        for question, answer in zip(contents[::2], contents[1::2], strict=False):
            assert answer == "a " + " ".join(question.split()[1:3])
    assert len(acked) >= 20


def test_torn_last_line_is_reported_then_repaired(store: SessionStore) -> None:
    add_turns(store, 3)
    path = session_path(store)
    whole = path.read_bytes()
    record = json.dumps({"type": "message", "role": "user", "content": "never finished"})
    path.write_bytes(whole + record.encode()[:25])
    torn = path.read_bytes()

    with pytest.warns(ZerdaWarning, match="torn"):
        assert [m.content for m in store.iter_messages("s")][-1] == "a2"
    with pytest.warns(ZerdaWarning, match="torn"):
        assert [m.content for m in store.get_memory("s", lastn=2).messages] == ["q2", "a2"]
    assert path.read_bytes() == torn  # reading reports, never rewrites

    with pytest.warns(ZerdaWarning, match="repaired"):
        store.append_turn("s", "q3", "a3")
    assert path.read_bytes().startswith(whole)
    assert b"never finished" not in path.read_bytes()
    assert strict_contents(store.home) == [f"{r}{i}" for i in range(4) for r in "qa"]


def test_torn_line_is_repaired_under_the_lock(store: SessionStore) -> None:
    import fcntl
    import threading

    add_turns(store, 1)
    path = session_path(store)
    path.write_bytes(path.read_bytes() + b'{"type":"mess')
    lock = os.open(store.sessions_dir / ".s.lock", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)  # another process's lock, as far as the store can tell
    writer = threading.Thread(target=store.append_turn, args=("s", "q1", "a1"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)
        writer.start()
        writer.join(timeout=0.3)
        assert writer.is_alive()
        assert path.read_bytes().endswith(b'{"type":"mess')  # untouched while locked out
        os.close(lock)
        writer.join(timeout=30)
    assert strict_contents(store.home) == ["q0", "a0", "q1", "a1"]


# -- 3. corruption ------------------------------------------------------------------------

DAMAGE = [
    b"{this is not json",
    b"[1, 2, 3]",
    b'{"type": "gossip"}',
    b'{"type": "message", "role": "robot", "content": "x", "uuid": "u", "created_at": "2024"}',
    b'{"type": "message", "role": "user", "content": 5, "uuid": "u",'
    b' "created_at": "2024-01-01T00:00:00Z"}',
    b'{"type": "tokens", "counts": [1, 2]}',
    b'{"type": "summary", "content": null}',
    b"\xff\xfe not utf-8",
]


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_middle_line_names_file_and_line(home: Path, damage: bytes) -> None:
    store = SessionStore(home, fsync=False)
    add_turns(store, 10)
    path = session_path(store)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[6] = damage + b"\n"  # line 7: a message in the middle
    path.write_bytes(b"".join(lines))
    before = path.read_bytes()

    reads: list[Callable[[], object]] = [
        lambda: list(store.iter_messages("s")),
        lambda: store.get_memory("s"),
        lambda: store.get_memory("s", lastn=100),
        lambda: store.delete_last_turn("s"),
        lambda: store.clear("s"),
        lambda: store.compact("s"),
        lambda: store.session_stats("s"),  # the line moved the last one: totals not trusted
    ]
    for read in reads:
        with pytest.raises(CorruptSessionError) as caught:
            read()
        assert caught.value.line == 7
        assert caught.value.path == path
        assert f"{path}: line 7:" in str(caught.value)
    assert path.read_bytes() == before

    lenient = SessionStore(home, fsync=False, lenient=True)
    with pytest.warns(ZerdaWarning, match="line 7"):
        forward = [m.content for m in lenient.iter_messages("s")]
    with pytest.warns(ZerdaWarning, match="line 7"):
        backward = [m.content for m in lenient.get_memory("s", lastn=100).messages]
    expected = [f"{r}{i}" for i in range(10) for r in "qa"]
    del expected[5]  # line 7 held a2 (line 1 is the header, then q0 a0 q1 a1 q2 a2)
    assert forward == backward == expected
    with pytest.warns(ZerdaWarning, match="line 7"):
        assert lenient.session_stats("s").messages == len(expected)
    assert path.read_bytes() == before


def test_the_tail_is_still_readable_past_damage(store: SessionStore) -> None:
    add_turns(store, 10)
    path = session_path(store)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = b"garbage\n"
    path.write_bytes(b"".join(lines))
    assert [m.content for m in store.get_memory("s", lastn=4).messages] == ["q8", "a8", "q9", "a9"]
    store.append_turn("s", "q10", "a10")  # appending never reads the middle
    assert lines == path.read_bytes().splitlines(keepends=True)[: len(lines)]


# -- 4. privacy ----------------------------------------------------------------------------


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_private_modes_whatever_the_umask(home: Path, open_umask: None) -> None:
    home.mkdir(mode=0o777)
    os.chmod(home, 0o777)
    store = SessionStore(home, fsync=False)
    add_turns(store, 2)
    store.set_summary("s", "x")
    path = session_path(store)
    assert mode(home) == 0o700
    assert mode(store.sessions_dir) == 0o700
    assert mode(path) == 0o600
    assert mode(store.sessions_dir / ".s.lock") == 0o600
    store.compact("s")
    assert mode(path) == 0o600
    store.clear("s")
    assert mode(path) == 0o600
    store.create_session("other")
    assert mode(session_path(store, "other")) == 0o600


def test_private_modes_in_a_fresh_process_with_umask_zero(tmp_path: Path) -> None:
    result = run_python(
        """
        import os, stat, sys
        os.umask(0)
        from zerda import SessionStore
        store = SessionStore(sys.argv[1])
        store.append_turn("s", "q", "a")
        for p in (store.home, store.sessions_dir, store.sessions_dir / "s.jsonl"):
            print(oct(stat.S_IMODE(os.stat(p).st_mode)))
        """.replace("sys.argv[1]", repr(str(tmp_path / "h")))
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0o700", "0o700", "0o600"]


@pytest.mark.parametrize("link_name", ["s.jsonl", ".s.lock"])
def test_symlink_at_a_session_path_is_refused(store: SessionStore, link_name: str) -> None:
    target = store.home.parent / "target.txt"
    target.write_text("precious\n")
    store.sessions_dir.mkdir(parents=True)
    (store.sessions_dir / link_name).symlink_to(target)
    calls: list[Callable[[], object]] = [
        lambda: store.append_turn("s", "q", "a"),
        lambda: store.create_session("s"),
        lambda: store.set_summary("s", "x"),
    ]
    if link_name == "s.jsonl":
        calls += [
            lambda: store.get_memory("s"),
            lambda: store.get_memory("s", lastn=1),
            lambda: store.clear("s"),
            lambda: store.compact("s"),
            lambda: ConversationBufferMemory(store=store, session_id="s"),
        ]
    for call in calls:
        with pytest.raises(UnsafePathError):
            call()
    assert target.read_text() == "precious\n"
    assert (store.sessions_dir / link_name).is_symlink()


def test_symlinked_sessions_dir_is_refused(store: SessionStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store.home.mkdir()
    store.sessions_dir.symlink_to(elsewhere)
    with pytest.raises(UnsafePathError):
        store.append_turn("s", "q", "a")
    assert list(elsewhere.iterdir()) == []
    SessionStore(elsewhere.parent / "other").append_turn("s", "q", "a")
    (elsewhere / "s.jsonl").write_bytes((elsewhere.parent / "other/sessions/s.jsonl").read_bytes())
    with pytest.raises(UnsafePathError):
        store.get_memory("s")


# -- 5. hostile ids ----------------------------------------------------------------------

HOSTILE = ["../x", "/etc/passwd", "", "a" * 129, "a\x00b", "a\nb", ".hidden", "a/b", "-x", " x"]


@pytest.mark.parametrize("session_id", HOSTILE)
def test_hostile_ids_refused_before_any_path(tmp_path: Path, session_id: str) -> None:
    home = tmp_path / "home"
    store = SessionStore(home, fsync=False)
    calls: list[Callable[[], object]] = [
        lambda: store.append_turn(session_id, "q", "a"),
        lambda: store.add_message(session_id, Message("user", "q")),
        lambda: store.create_session(session_id),
        lambda: store.set_summary(session_id, "x"),
        lambda: store.get_memory(session_id),
        lambda: store.get_memory(session_id, lastn=1),
        lambda: store.get_session(session_id),
        lambda: list(store.iter_messages(session_id)),
        lambda: store.exists(session_id),
        lambda: store.clear(session_id),
        lambda: store.delete_session(session_id),
        lambda: store.delete_last_turn(session_id),
        lambda: ConversationBufferMemory(store=store, session_id=session_id),
    ]
    for call in calls:
        with pytest.raises(InvalidSessionIdError) as caught:
            call()
        assert isinstance(caught.value, ZerdaError)
        assert "\n" not in str(caught.value) and "\x00" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.rglob("*")) == []


def test_longest_id_is_accepted(store: SessionStore) -> None:
    store.append_turn("a" * 128, "q", "a")
    assert store.session_ids() == ["a" * 128]


# -- 6. full disk ---------------------------------------------------------------------------

FSIZE_WRITER = """
import os, resource, signal, sys
from zerda import SessionStore, StorageWriteError, ZerdaError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
store = SessionStore(sys.argv[1])
path = store.sessions_dir / "s.jsonl"
size = path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + int(sys.argv[2]), resource.RLIM_INFINITY))
for attempt in range(3):
    try:
        store.append_turn("s", "big " * 500, "answer " * 500)
    except StorageWriteError as exc:
        assert isinstance(exc, ZerdaError)
        assert path.stat().st_size == size
        print("refused:", exc)
    else:
        print("written")
"""


@pytest.mark.parametrize("room", [0, 100])
def test_full_disk_raises_and_keeps_earlier_content(store: SessionStore, room: int) -> None:
    add_turns(store, 5)
    store.set_summary("s", "summary")
    before = session_path(store).read_bytes()
    result = subprocess.run(
        [sys.executable, "-c", FSIZE_WRITER, str(store.home), str(room)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("refused: cannot write") == 3, result.stdout
    assert "Traceback" not in result.stderr
    assert session_path(store).read_bytes() == before
    assert strict_contents(store.home) == [f"{r}{i}" for i in range(5) for r in "qa"]
    assert _text(store.get_summary("s")) == "summary"
    store.append_turn("s", "q5", "a5")
    assert strict_contents(store.home)[-2:] == ["q5", "a5"]


# -- 7. rewrites: temp file, fsync, rename --------------------------------------------------


def rewrite_killed_at(store: SessionStore, action: Callable[[], object], step: int) -> bool:
    """Run `action` in a forked child that SIGKILLs itself at its `step`-th file operation.

    Returns True when the child finished before reaching that step.
    """
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            calls = 0
            real = {name: getattr(os, name) for name in ("write", "fsync", "replace", "open")}

            def counting(name: str) -> Callable[..., Any]:
                def call(*args: Any, **kwargs: Any) -> Any:
                    nonlocal calls
                    calls += 1
                    if calls == step:
                        os.kill(os.getpid(), signal.SIGKILL)
                    return real[name](*args, **kwargs)

                return call

            for name in real:
                setattr(os, name, counting(name))
            action()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status)


@pytest.mark.parametrize("operation", ["clear", "compact", "delete_last_turn"])
def test_rewrite_killed_at_any_step_leaves_old_or_new(home: Path, operation: str) -> None:
    store = SessionStore(home, fsync=False)
    add_turns(store, 30)
    store.set_summary("s", "kept")
    path = session_path(store)
    original = path.read_bytes()
    old = strict_contents(home)
    action = getattr(SessionStore(home), operation)
    expected_new: list[str] | None = None
    finished = False
    step = 0
    while not finished:
        step += 1
        path.write_bytes(original)
        finished = rewrite_killed_at(store, lambda: action("s"), step)
        now = strict_contents(home)
        if path.read_bytes() == original:
            assert now == old
            continue
        if expected_new is None:
            expected_new = {"clear": [], "compact": old, "delete_last_turn": old[:-2]}[operation]
        assert now == expected_new
        assert _text(store.get_summary("s")) == (None if operation == "clear" else "kept")
    assert step > 5  # the kill points did cover the rewrite
    assert expected_new is not None
    leftovers = [p.name for p in store.sessions_dir.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_stale_temp_files_are_cleaned_by_the_next_rewrite(store: SessionStore) -> None:
    add_turns(store, 3)
    path = session_path(store)
    original = path.read_bytes()
    killed_before_rename = False
    for step in range(1, 20):
        path.write_bytes(original)
        rewrite_killed_at(store, lambda: SessionStore(store.home).compact("s"), step)
        if any(p.name.endswith(".tmp") for p in store.sessions_dir.iterdir()):
            killed_before_rename = True
            break
    assert killed_before_rename
    store.compact("s")
    assert [p.name for p in store.sessions_dir.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failed_rename_keeps_original_and_no_temp(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    add_turns(store, 3)
    path = session_path(store)
    original = path.read_bytes()

    def fail(*args: object) -> None:
        raise error

    monkeypatch.setattr(os, "replace", fail)
    expected = StorageWriteError if isinstance(error, OSError) else KeyboardInterrupt
    for operation in (store.clear, store.compact, store.delete_last_turn):
        with pytest.raises(expected):
            operation("s")
        assert path.read_bytes() == original
        assert sorted(p.name for p in store.sessions_dir.iterdir()) == [".s.lock", "s.jsonl"]
