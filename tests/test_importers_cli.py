"""`zerda import` of other tools' exports, as a real subprocess: detection, prefixes,
--dry-run, --strict, the summary line and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import process

from zerda import SessionStore

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
SUMMARY = (
    "imported 4 sessions, 15 messages "
    "(9 skipped: 3 branch, 2 hidden, 2 recipient, 2 thoughts); 0 problems\n"
)


def files(home: Path) -> dict[str, bytes]:
    folder = home / "sessions"
    found = sorted(folder.glob("*.jsonl")) if folder.exists() else []
    return {p.name: p.read_bytes() for p in found}


def test_an_export_is_detected_imported_once_and_listed_with_titles(home: Path) -> None:
    done = process(home, "import", str(CHATGPT))
    assert (done.code, done.out, done.err) == (0, "", SUMMARY)
    before = files(home)
    again = process(home, "import", str(CHATGPT))
    assert again.err.startswith("imported 0 sessions, 0 messages")
    assert "4 sessions already up to date" in again.err
    assert files(home) == before
    listed = process(home, "sessions").out.splitlines()
    assert listed[0].split()[-1] == "TITLE"
    assert any(line.endswith("Édition — 編集 ✏️") for line in listed)
    titled = json.loads(process(home, "sessions", "--json").out)
    assert {s.get("title") for s in titled} == {
        "Édition — 編集 ✏️",
        "Tools",
        "A picture",
        "New chat",
    }


def test_session_is_a_prefix_or_the_id_of_a_single_conversation(home: Path, tmp_path: Path) -> None:
    assert process(home, "import", "old", str(CHATGPT), "--from", "chatgpt").code == 0
    one = tmp_path / "conversations.json"
    one.write_text(json.dumps(json.loads(CHATGPT.read_text())[:1]))
    assert process(home, "import", "solo", str(one)).code == 0
    ids = SessionStore(home).session_ids()
    assert "solo" in ids and "old-chatgpt-6571a2b3-0000-4000-8000-000000000002" in ids


def test_stdin_with_from(home: Path) -> None:
    done = process(home, "import", "-", "--from", "chatgpt", stdin=CHATGPT.read_bytes())
    assert (done.code, done.err) == (0, SUMMARY)


def test_dry_run_writes_nothing(home: Path) -> None:
    done = process(home, "import", str(CHATGPT), "--dry-run")
    assert (done.code, done.err) == (0, "dry run: would have " + SUMMARY)
    assert files(home) == {}


def _with_bad_item(tmp_path: Path) -> Path:
    items = json.loads(CHATGPT.read_text())
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([items[0], "oops", items[1]]))
    return path


def test_a_bad_conversation_is_reported_and_the_rest_imported(home: Path, tmp_path: Path) -> None:
    done = process(home, "import", str(_with_bad_item(tmp_path)))
    lines = done.err.splitlines()
    assert done.code == 1
    assert lines[0] == f"problem: {tmp_path}/conversations.json: conversation 2: not a JSON object"
    assert lines[1].startswith("imported 2 sessions, 11 messages") and lines[1].endswith(
        "1 problem"
    )
    assert len(files(home)) == 2


def test_strict_stops_at_the_first_bad_conversation(home: Path, tmp_path: Path) -> None:
    done = process(home, "import", str(_with_bad_item(tmp_path)), "--strict")
    assert done.code == 1
    assert done.err == (
        f"error: {tmp_path}/conversations.json: conversation 2: not a JSON object\n"
    )
    assert list(files(home)) == ["chatgpt-6571a2b3-0000-4000-8000-000000000001.jsonl"]


def test_malformed_and_unknown_files_give_one_line(home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "conversations.json"
    broken.write_text('[{"id": "a", "mapping": {}, "current_node": null}, {"id": ')
    done = process(home, "import", str(broken), "--from", "chatgpt")
    assert done.code == 1
    assert done.err.startswith(f"error: {broken}: not valid JSON (")
    assert done.one_error_line()
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello")
    done = process(home, "import", str(unknown))
    assert (done.code, done.err) == (
        1, f"error: {unknown}: cannot tell which tool wrote it; name it with --from\n"
    )  # fmt: skip


def test_usage_errors_exit_2(home: Path) -> None:
    bad_format = ["import", "x", str(CHATGPT), "--from", "nope"]
    for args in (["import"], ["import", "a", "b", "c"], bad_format):
        done = process(home, *args)
        assert done.code == 2, args
        assert done.one_error_line() and done.err.startswith("error: ")
    needs_session = process(home, "import", "-", "--from", "openai")
    assert needs_session.code == 2


def test_a_message_file_with_session_keeps_the_one_session_path(home: Path, tmp_path: Path) -> None:
    bare = tmp_path / "chat"  # no extension, as shell_gpt names its cache: still OpenAI here
    bare.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    done = process(home, "import", "s", str(bare))
    assert (done.code, done.err) == (0, "imported 1 messages into session s\n")
    dry = process(home, "import", "t", str(bare), "--dry-run")
    assert dry.err == "dry run: would import 1 messages into session t\n"
