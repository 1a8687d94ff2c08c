"""Hardening: unfinished writes are unseen and removed whole; links are never written through."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from zerda import (
    Memory,
    Message,
    NotFoundError,
    SessionStore,
    StorageWriteError,
    UnsafePathError,
    ZerdaWarning,
)
from zerda.store.files import _sessionfile as sf

# The next append writes its first line (the user message) whole, then dies by SIGKILL.
DIES_AFTER_FIRST_LINE = """
import os, signal, sys
from zerda import SessionStore
import zerda.store.files._sessionfile as sessionfile

real_write = os.write

def dying_write(fd, data):
    real_write(fd, data[: data.index(b"\\n") + 1])
    os.kill(os.getpid(), signal.SIGKILL)

sessionfile.os.write = dying_write
SessionStore(sys.argv[1], fsync=False).append_turn("s", "doomed question", "doomed answer")
"""

APPEND_TURN = """
import sys
from zerda import SessionStore
SessionStore(sys.argv[1], fsync=False).append_turn("s", sys.argv[2], sys.argv[3])
"""


def python(
    *args: str, fault: str = "", home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`python ARGS` as a real process, with $ZERDA_FAULT (and $ZERDA_HOME) set."""
    env = {**os.environ, "ZERDA_FAULT": fault}
    if home is not None:
        env["ZERDA_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def zerda(home: Path, *args: str, fault: str = "") -> subprocess.CompletedProcess[str]:
    return python("-m", "zerda_cli", *args, fault=fault, home=home)


def contents(store: SessionStore, session_id: str = "s") -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)
        return [m.content for m in store.iter_messages(session_id)]


def shown(stdout: str) -> list[str]:
    """The message contents `zerda show --jsonl` printed."""
    records = [json.loads(line) for line in stdout.splitlines()]
    return [r["content"] for r in records if "role" in r]


def raw_contents(path: Path) -> list[str]:
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    return [r["content"] for r in records if r["type"] == "message"]


# -- 2. a repair killed between its cut and forgetting the note -------------------------------


def leave_half_a_turn(home: Path) -> Path:
    """A kept turn, then a turn whose writer died after its user message line."""
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "kept question", "kept answer")
    died = python("-c", DIES_AFTER_FIRST_LINE, str(home))
    assert died.returncode == -signal.SIGKILL, died.stderr
    path = home / "sessions" / "s.jsonl"
    assert raw_contents(path)[-1] == "doomed question"  # a half turn, ending in a whole line
    return path


def test_a_repair_killed_after_its_cut_leaves_no_half_turn(home: Path) -> None:
    path = leave_half_a_turn(home)
    repair = python("-c", APPEND_TURN, str(home), "never", "written", fault="repair-cut")
    assert repair.returncode == -signal.SIGKILL, repair.stderr
    assert "removed an unfinished write" in repair.stderr
    assert raw_contents(path) == ["kept question", "kept answer"]
    store = SessionStore(home, fsync=False)
    assert contents(store) == ["kept question", "kept answer"]
    store.append_turn("s", "next question", "next answer")
    assert raw_contents(path) == ["kept question", "kept answer", "next question", "next answer"]


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_repair_killed_at_its_second_ftruncate_leaves_no_half_turn(home: Path) -> None:
    # The repair's ftruncates are the cut and then forgetting the note; die entering the second.
    path = leave_half_a_turn(home)
    strace = [
        "strace", "-f", "-o", os.devnull, "-e", "trace=ftruncate",
        "-e", "inject=ftruncate:signal=SIGKILL:when=2",
    ]  # fmt: skip
    repair = subprocess.run(
        [*strace, sys.executable, "-c", APPEND_TURN, str(home), "never", "written"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "removed an unfinished write" in repair.stderr
    assert repair.returncode != 0
    assert raw_contents(path) == ["kept question", "kept answer"]
    assert (home / "sessions" / ".s.lock").read_bytes().strip().isdigit()  # the note stayed
    store = SessionStore(home, fsync=False)
    store.append_turn("s", "next question", "next answer")
    assert raw_contents(path) == ["kept question", "kept answer", "next question", "next answer"]


# -- 3. readers never show a write that was not finished ------------------------------------


@pytest.fixture
def killed_import(home: Path, tmp_path: Path) -> Path:
    """Session s: one turn, then a 60,000-message `zerda import` killed halfway through its write.

    The kept turn is counted, so no reader takes the lock (which would cut the write).
    """
    SessionStore(home, fsync=False).append_turn("s", "kept question", "kept answer")
    big = tmp_path / "big.json"
    roles = ("user", "assistant")
    big.write_text(
        json.dumps([{"role": roles[i % 2], "content": f"imported {i}"} for i in range(60_000)])
    )
    killed = zerda(home, "import", "s", str(big), fault="write-half")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    path = home / "sessions" / "s.jsonl"
    assert b"imported 1" in path.read_bytes()  # part of the write is on disk
    return path


def test_the_command_shows_and_counts_none_of_a_killed_import(
    killed_import: Path, home: Path
) -> None:
    before = killed_import.read_bytes()
    result = zerda(home, "show", "s", "--jsonl")
    assert result.returncode == 0, result.stderr
    assert shown(result.stdout) == ["kept question", "kept answer"]
    assert "skipped an unfinished write" in result.stderr
    assert killed_import.read_bytes() == before  # reading never cuts
    last = zerda(home, "show", "s", "--last", "1", "--jsonl")
    assert shown(last.stdout) == ["kept answer"]
    stats = zerda(home, "stats", "s", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["messages"] == 2
    found = zerda(home, "search", "imported 1")
    assert found.returncode == 1, found.stderr  # nothing matches
    assert found.stdout == ""
    assert "no messages match" in found.stderr


def test_library_reads_see_none_of_a_killed_import(killed_import: Path, home: Path) -> None:
    store = SessionStore(home, fsync=False)
    with pytest.warns(ZerdaWarning, match="skipped an unfinished write"):
        assert [m.content for m in store.iter_messages("s")] == ["kept question", "kept answer"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZerdaWarning)
        backward = [m.content for m in store.iter_messages_reversed("s")]
        assert backward == ["kept answer", "kept question"]
        assert [m.content for m in store.get_memory("s", lastn=1).messages] == ["kept answer"]
        assert list(store.search("imported")) == []
        assert store.message_count("s") == 2
        stats = store.session_stats("s")
    assert (stats.messages, stats.turn_count) == (2, 1)
    assert stats.file_size < len(killed_import.read_bytes())
    assert b"imported 1" in killed_import.read_bytes()  # readers hide it, never cut it
    with pytest.warns(ZerdaWarning, match="removed an unfinished write"):
        store.append_turn("s", "next question", "next answer")
    assert raw_contents(killed_import) == [
        "kept question",
        "kept answer",
        "next question",
        "next answer",
    ]


def test_a_killed_first_write_leaves_no_session(home: Path) -> None:
    killed = python("-c", APPEND_TURN, str(home), "q" * 100_000, "a", fault="write-half")
    assert killed.returncode == -signal.SIGKILL
    assert (home / "sessions" / "s.jsonl").stat().st_size > 0
    store = SessionStore(home, fsync=False)
    assert not store.exists("s")
    with pytest.raises(NotFoundError):
        store.get_session("s")
    assert store.list_sessions() == []
    store.append_turn("s", "q", "a")
    assert raw_contents(home / "sessions" / "s.jsonl") == ["q", "a"]


def test_a_write_in_progress_is_not_seen(
    store: SessionStore, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_turn("s", "kept question", "kept answer")
    file = store._file("s")
    seen: list[list[str]] = []

    def render(size: int, last: bytes | None) -> bytes:
        return b'{"type":"message","role":"user","content":"half"}\n'

    real_write = os.write

    def write_then_look(fd: int, data: bytes) -> int:
        written = real_write(fd, data)
        reader = subprocess.run(
            [sys.executable, "-m", "zerda_cli", "show", "s", "--jsonl"],
            capture_output=True, text=True, check=True, env={**os.environ, "ZERDA_HOME": str(home)},
        )  # fmt: skip
        seen.append(shown(reader.stdout))
        assert "unfinished" not in reader.stderr  # a live writer is no cause for a warning
        return written

    monkeypatch.setattr(sf.os, "write", write_then_look)
    with file.locked():
        file.append(render)
    monkeypatch.undo()
    assert seen == [["kept question", "kept answer"]]


# -- 5. hard links and foreign files are never written through ------------------------------


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim"
    path.write_bytes(b"precious bytes\n")
    path.chmod(0o644)
    return path


def untouched(victim: Path) -> bool:
    return victim.read_bytes() == b"precious bytes\n" and victim.stat().st_mode & 0o777 == 0o644


def test_a_hard_link_at_the_lock_path_is_refused(store: SessionStore, victim: Path) -> None:
    store.sessions_dir.mkdir(parents=True)
    os.link(victim, store.sessions_dir / ".s.lock")
    with pytest.raises(UnsafePathError, match="hard link"):
        store.add_message("s", Message("user", "hi"))
    assert untouched(victim)
    assert not (store.sessions_dir / "s.jsonl").exists()


@pytest.mark.parametrize("operation", ["add", "clear", "delete", "import", "read"])
def test_a_hard_link_at_an_existing_sessions_lock_is_refused(
    home: Path, victim: Path, tmp_path: Path, operation: str
) -> None:
    store = SessionStore(home, fsync=False, count_on_write=False)
    store.append_turn("s", "question", "answer")  # stored uncounted: a reader records counts
    lock = home / "sessions" / ".s.lock"
    lock.unlink(missing_ok=True)
    os.link(victim, lock)
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps({"role": "user", "content": "more"}) + "\n")
    args = {
        "add": ["add", "s", "more", "reply"],
        "clear": ["clear", "s", "--yes"],
        "delete": ["delete", "s", "--yes"],
        "import": ["import", "s", str(export)],
        "read": ["show", "s"],
    }[operation]
    result = zerda(home, *args)
    assert untouched(victim)
    if operation == "read":
        assert result.returncode == 0, result.stderr  # counting is skipped, the reading is not
        assert "answer" in result.stdout
    else:
        assert result.returncode != 0
        assert "hard link" in result.stderr
        assert raw_contents(home / "sessions" / "s.jsonl") == ["question", "answer"]


def test_a_hard_link_at_the_session_path_is_not_appended_to(
    store: SessionStore, victim: Path
) -> None:
    store.sessions_dir.mkdir(parents=True)
    os.link(victim, store.sessions_dir / "s.jsonl")
    with pytest.raises(UnsafePathError, match="hard link"):
        store.append_turn("s", "q", "a")
    assert untouched(victim)


def test_a_file_owned_by_someone_else_is_not_written(store: SessionStore) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file away")
    store.append_turn("s", "q", "a")
    path = store.sessions_dir / "s.jsonl"
    before = path.read_bytes()
    os.chown(path, 65534, 65534)
    with pytest.raises(UnsafePathError, match="owner"):
        store.append_turn("s", "q2", "a2")
    assert path.read_bytes() == before
    assert path.stat().st_uid == 65534


# -- 9. backward reads of long lines ----------------------------------------------------------


def test_long_last_lines_read_back_whole(store: SessionStore) -> None:
    long = "".join(f"{i:07d}" for i in range(600_000))  # 4.2 MB: 64 blocks of a backward read
    counted = [Message("user", "short"), Message("assistant", long, token_count=1)]
    store.add_memory("s", Memory(messages=counted))  # counted: no encoder run on 4 MB
    store.add_message("s", Message("user", long[::-1], token_count=1))
    assert [m.content for m in store.get_memory("s", lastn=2).messages] == [long, long[::-1]]
    assert [m.content for m in store.iter_messages_reversed("s")] == [long[::-1], long, "short"]
    assert [m.content for m in store.iter_messages("s")] == ["short", long, long[::-1]]
    path = store.sessions_dir / "s.jsonl"
    with path.open("ab") as out:
        out.write(b"x" * 3_000_000)  # a torn tail longer than a chunk
    with pytest.warns(ZerdaWarning, match="torn"):
        assert next(store.iter_messages_reversed("s")).content == long[::-1]
    with pytest.warns(ZerdaWarning, match="torn"):
        assert [m.content for m in store.iter_messages("s")][-1] == long[::-1]
    with pytest.warns(ZerdaWarning, match="torn"):
        assert store.session_stats("s").messages == 3


def test_lines_read_back_whole_at_any_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [b"", b"a" * 50, b"b", b"", b"c" * 17, b"d" * 200]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    file = sf.SessionFile(path, tmp_path / ".s.lock")
    data = path.read_bytes()
    for block in (1, 2, 3, 16, 49, 50, 51, 1000):
        monkeypatch.setattr(sf, "BLOCK", block)
        monkeypatch.setattr(sf, "CHUNK", block)
        backward = list(file.lines_reversed())
        assert [line for _, line in backward] == lines[::-1]
        assert all(data[at : at + len(line) + 1] == line + b"\n" for at, line in backward)
        assert b"".join(chunk for _, chunk in file.chunks()) == data


# -- 10. smaller ones --------------------------------------------------------------------------


def no_space(*args: object) -> int:
    raise OSError(28, "No space left on device")


def test_a_failed_first_write_leaves_no_file(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sf.os, "write", no_space)
    with pytest.raises(StorageWriteError, match="No space left on device"):
        store.append_turn("s", "q", "a")
    monkeypatch.undo()
    assert sorted(p.name for p in store.sessions_dir.iterdir()) == []
    assert store.session_ids() == []


def test_a_full_disk_after_a_short_write_names_the_cause(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_turn("s", "q", "a")
    before = (store.sessions_dir / "s.jsonl").read_bytes()
    real_write = os.write
    calls = []

    def short_then_full(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return real_write(fd, data[:10])

    monkeypatch.setattr(sf.os, "write", short_then_full)
    with pytest.raises(StorageWriteError, match="No space left on device") as caught:
        store.append_turn("s", "q2", "a2")
    assert "short write" not in str(caught.value)
    monkeypatch.undo()
    assert (store.sessions_dir / "s.jsonl").read_bytes() == before


def test_a_full_disk_while_noting_the_write_is_a_storage_error(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_turn("s", "q", "a")
    monkeypatch.setattr(sf.os, "pwrite", no_space)
    with pytest.raises(StorageWriteError, match="No space left on device"):
        store.append_turn("s", "q2", "a2")
    monkeypatch.undo()
    assert contents(store) == ["q", "a"]


@pytest.mark.parametrize("content", [b"", b'{"type":"message","role":"us'])
def test_an_empty_or_headerless_file_is_no_session(store: SessionStore, content: bytes) -> None:
    store.sessions_dir.mkdir(parents=True)
    (store.sessions_dir / "s.jsonl").write_bytes(content)
    assert not store.exists("s")
    with pytest.raises(NotFoundError):
        store.get_session("s")
    assert store.list_sessions() == []
    store.append_turn("s", "q", "a")
    first = store.get_session("s").created_at
    assert store.get_session("s").created_at == first
    assert contents(store) == ["q", "a"]


def test_every_directory_made_is_private_under_umask_0(tmp_path: Path) -> None:
    home = tmp_path / "a" / "b" / "home"
    tmp_path.chmod(0o755)
    script = "import os\nos.umask(0)\n" + APPEND_TURN
    assert python("-c", script, str(home), "q", "a").returncode == 0
    for directory in (tmp_path / "a", tmp_path / "a" / "b", home, home / "sessions"):
        assert directory.stat().st_mode & 0o777 == 0o700, directory
    assert tmp_path.stat().st_mode & 0o777 == 0o755  # a parent that was there keeps its mode


@pytest.mark.parametrize("linked", ["home", "sessions"])
def test_a_symlinked_directory_is_refused_for_reads_and_writes(tmp_path: Path, linked: str) -> None:
    real = SessionStore(tmp_path / "real", fsync=False)
    real.append_turn("s", "q", "a")
    if linked == "home":
        (tmp_path / "link").symlink_to(tmp_path / "real")
        store = SessionStore(tmp_path / "link", fsync=False)
    else:
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "sessions").symlink_to(tmp_path / "real" / "sessions")
        store = SessionStore(tmp_path / "other", fsync=False)
    for read in (store.get_memory, store.session_stats, store.get_session, store.iter_messages):
        with pytest.raises(UnsafePathError, match="symlink"):
            read("s")
    with pytest.raises(UnsafePathError, match="symlink"):
        store.append_turn("s", "q2", "a2")
    assert contents(real) == ["q", "a"]


def test_a_session_deleted_before_it_is_opened_is_not_found(store: SessionStore) -> None:
    store.append_turn("s", "q", "a")
    messages = store.iter_messages("s")  # found; the file is opened on the first read
    assert zerda(store.home, "delete", "s", "--yes").returncode == 0
    with pytest.raises(NotFoundError):
        list(messages)


# Holds the session's lock, says so, then deletes the session once a reader waits for the
# lock (a blocked flock on the lock file's inode in /proc/locks; at most a minute).
DELETES_UNDER_THE_LOCK = """
import os, sys, time
from zerda import SessionStore
file = SessionStore(sys.argv[1])._file("s")
with file.locked():
    print("locked", flush=True)
    inode = f":{os.stat(file.lock_path).st_ino} "
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open("/proc/locks") as locks:
            if any("->" in line and inode in line for line in locks):
                break
        time.sleep(0.01)
    file.remove()
"""


def test_a_reader_waiting_on_a_delete_leaves_no_lock_file(home: Path) -> None:
    store = SessionStore(home, fsync=False, count_on_write=False)
    store.append_turn("s", "q", "a")  # uncounted: the reader records counts under the lock
    deleter = subprocess.Popen(
        [sys.executable, "-c", DELETES_UNDER_THE_LOCK, str(home)], stdout=subprocess.PIPE, text=True
    )
    assert deleter.stdout is not None and deleter.stdout.readline() == "locked\n"
    assert [m.content for m in store.iter_messages("s")] == ["q", "a"]
    assert deleter.wait(timeout=60) == 0
    assert sorted(p.name for p in (home / "sessions").iterdir()) == []


def test_a_store_memory_round_trip_still_works(store: SessionStore) -> None:
    store.add_memory("s", Memory(messages=[Message("user", "q"), Message("assistant", "a")]))
    assert contents(store) == ["q", "a"]
    assert sorted(p.name for p in store.sessions_dir.iterdir()) == [".s.lock", "s.jsonl"]
