"""`zerda import` of other tools' exports, as a real subprocess: detection, prefixes,
--dry-run, --strict, the summary line and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zerda import SessionStore

ZERDA = str(Path(sys.executable).parent / "zerda")
FIXTURES = Path(__file__).parent / "fixtures" / "importers"
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
SUMMARY = (
    "imported 4 sessions, 15 messages "
    "(9 skipped: 3 branch, 2 hidden, 2 recipient, 2 thoughts); 0 problems\n"
)


def zerda(home: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZERDA_STORE"}
    env["ZERDA_HOME"] = str(home)
    return subprocess.run(
        [ZERDA, *args], input=stdin.decode(), capture_output=True, text=True, env=env,
        timeout=60, check=False,
    )  # fmt: skip


def files(home: Path) -> dict[str, bytes]:
    folder = home / "sessions"
    found = sorted(folder.glob("*.jsonl")) if folder.exists() else []
    return {p.name: p.read_bytes() for p in found}


def test_an_export_is_detected_imported_once_and_listed_with_titles(home: Path) -> None:
    done = zerda(home, "import", str(CHATGPT))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", SUMMARY)
    before = files(home)
    again = zerda(home, "import", str(CHATGPT))
    assert again.stderr.startswith("imported 0 sessions, 0 messages")
    assert "4 sessions already up to date" in again.stderr
    assert files(home) == before
    listed = zerda(home, "sessions").stdout.splitlines()
    assert listed[0].split()[-1] == "TITLE"
    assert any(line.endswith("Édition — 編集 ✏️") for line in listed)
    titled = json.loads(zerda(home, "sessions", "--json").stdout)
    assert {s.get("title") for s in titled} == {
        "Édition — 編集 ✏️",
        "Tools",
        "A picture",
        "New chat",
    }


def test_session_is_a_prefix_or_the_id_of_a_single_conversation(home: Path, tmp_path: Path) -> None:
    assert zerda(home, "import", "old", str(CHATGPT), "--from", "chatgpt").returncode == 0
    one = tmp_path / "conversations.json"
    one.write_text(json.dumps(json.loads(CHATGPT.read_text())[:1]))
    assert zerda(home, "import", "solo", str(one)).returncode == 0
    ids = SessionStore(home).session_ids()
    assert "solo" in ids and "old-chatgpt-6571a2b3-0000-4000-8000-000000000002" in ids


def test_stdin_with_from(home: Path) -> None:
    done = zerda(home, "import", "-", "--from", "chatgpt", stdin=CHATGPT.read_bytes())
    assert (done.returncode, done.stderr) == (0, SUMMARY)


def test_dry_run_writes_nothing(home: Path) -> None:
    done = zerda(home, "import", str(CHATGPT), "--dry-run")
    assert (done.returncode, done.stderr) == (0, "dry run: would have " + SUMMARY)
    assert files(home) == {}


def _with_bad_item(tmp_path: Path) -> Path:
    items = json.loads(CHATGPT.read_text())
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([items[0], "oops", items[1]]))
    return path


def test_a_bad_conversation_is_reported_and_the_rest_imported(home: Path, tmp_path: Path) -> None:
    done = zerda(home, "import", str(_with_bad_item(tmp_path)))
    lines = done.stderr.splitlines()
    assert done.returncode == 1
    assert lines[0] == f"problem: {tmp_path}/conversations.json: conversation 2: not a JSON object"
    assert lines[1].startswith("imported 2 sessions, 11 messages") and lines[1].endswith(
        "1 problem"
    )
    assert len(files(home)) == 2


def test_strict_stops_at_the_first_bad_conversation(home: Path, tmp_path: Path) -> None:
    done = zerda(home, "import", str(_with_bad_item(tmp_path)), "--strict")
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {tmp_path}/conversations.json: conversation 2: not a JSON object\n"
    )
    assert list(files(home)) == ["chatgpt-6571a2b3-0000-4000-8000-000000000001.jsonl"]


def test_malformed_and_unknown_files_give_one_line(home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "conversations.json"
    broken.write_text('[{"id": "a", "mapping": {}, "current_node": null}, {"id": ')
    done = zerda(home, "import", str(broken), "--from", "chatgpt")
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {broken}: not valid JSON (")
    assert done.stderr.count("\n") == 1
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello")
    done = zerda(home, "import", str(unknown))
    assert (done.returncode, done.stderr) == (
        1, f"error: {unknown}: cannot tell which tool wrote it; name it with --from\n"
    )  # fmt: skip


def test_usage_errors_exit_2(home: Path) -> None:
    bad_format = ["import", "x", str(CHATGPT), "--from", "nope"]
    for args in (["import"], ["import", "a", "b", "c"], bad_format):
        done = zerda(home, *args)
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    needs_session = zerda(home, "import", "-", "--from", "openai")
    assert needs_session.returncode == 2


def test_a_message_file_with_session_keeps_the_one_session_path(home: Path, tmp_path: Path) -> None:
    bare = tmp_path / "chat"  # no extension, as shell_gpt names its cache: still OpenAI here
    bare.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    done = zerda(home, "import", "s", str(bare))
    assert (done.returncode, done.stderr) == (0, "imported 1 messages into session s\n")
    dry = zerda(home, "import", "t", str(bare), "--dry-run")
    assert dry.stderr == "dry run: would import 1 messages into session t\n"
