"""Entities through the command: `zerda show --entities`, `zerda entities` for history kept
without them, and every path that gives messages back (export, --json) carrying them.
Real subprocesses, piped output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import Result, process

from zerda import SessionStore
from zerda.entities import stored_entities
from zerda.messages import Message

MET = "Ada Lovelace met Charles Babbage in London on June 3, 1833."


def zerda(home: Path, *args: str) -> Result:
    """`zerda ARGS` on `home` as a real process, colour off."""
    return process(home, *args, env={"NO_COLOR": "1"})


def shown(home: Path, session: str) -> list[dict[str, Any]]:
    done = zerda(home, "show", session, "--jsonl")
    assert done.code == 0, done.err
    return [json.loads(line) for line in done.out.splitlines()]


def test_added_history_gets_its_entities_from_zerda_entities(home: Path) -> None:
    assert zerda(home, "add", "s", MET, "Noted: ada@example.com").code == 0
    assert [("entities" in m) for m in shown(home, "s")] == [False, False]
    done = zerda(home, "entities", "s")
    assert (done.code, done.out) == (0, "")
    assert done.err == "stored the entities of 2 messages in 1 sessions\n"
    found = shown(home, "s")
    assert [m["entities"] for m in found] == [
        [e.to_dict() for e in stored_entities(m["content"])] for m in found
    ]
    assert found[0]["entities"][0]["name"] == "Ada Lovelace"
    again = zerda(home, "entities", "--all", "--json")
    assert json.loads(again.out) == {"sessions": 1, "messages": 0}
    every = zerda(home, "entities", "--all", "--again", "--json")
    assert json.loads(every.out) == {"sessions": 1, "messages": 2}


def test_show_entities_names_what_each_message_mentions(home: Path) -> None:
    zerda(home, "add", "s", MET, "nothing to name")
    done = zerda(home, "show", "s", "--entities")
    assert done.code == 0, done.err
    lines = [line.strip() for line in done.out.splitlines()]
    named = "PERSON Ada Lovelace · PERSON Charles Babbage · GPE London · DATE June 3, 1833"
    assert lines.count(f"entities: {named}") == 1
    assert lines.count("entities: none") == 1
    assert [("entities" in m) for m in shown(home, "s")] == [False, False]  # shown, not stored
    as_json = json.loads(zerda(home, "show", "s", "--entities", "--json").out)
    assert as_json["messages"][0]["entities"][1]["name"] == "Charles Babbage"
    markdown = zerda(home, "show", "s", "-e", "--format", "markdown").out
    assert "*Entities:* PERSON Ada Lovelace · PERSON Charles Babbage" in markdown


def test_stored_entities_come_back_from_export_and_show(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    stored = store.add_message("s", Message("user", MET))
    assert stored.entities
    [message] = shown(home, "s")
    assert Message.from_dict(message) == stored
    exported = zerda(home, "export", "s", "--format", "jsonl").out.splitlines()
    records = [json.loads(line) for line in exported]
    assert [Message.from_dict(r) for r in records[1:]] == [stored]  # after the session line
    copy = zerda(home, "copy", "s", "--from", str(home), "--to", str(home / "other"))
    assert copy.code == 0, copy.err
    other = SessionStore(home / "other")
    assert other.get_memory("s").messages == [stored]


def test_entity_names_cannot_drive_the_terminal(home: Path) -> None:
    text = "run `\x1b]0;owned\x07rm -rf` in London, see https://ex.com/\x1b[2Jx"
    assert any("\x1b" in e.name for e in stored_entities(text))  # names do carry escapes
    zerda(home, "add", "s", "-r", "user", text)
    for flags in (["--entities"], ["--entities", "--format", "markdown"]):
        done = zerda(home, "show", "s", *flags)
        assert done.code == 0, done.err
        assert "\x1b" not in done.out and "\x07" not in done.out
        assert "GPE London" in done.out and "CODE " in done.out


def test_zerda_entities_says_what_it_needs(home: Path) -> None:
    zerda(home, "add", "s", "-r", "user", MET)
    nothing = zerda(home, "entities")
    both = zerda(home, "entities", "s", "--all")
    missing = zerda(home, "entities", "s", "nope")
    bad = zerda(home, "entities", "../x")
    assert (nothing.code, both.code, missing.code) == (2, 2, 1)
    assert bad.code == 2 and "is not a session id" in bad.err
    assert "name the sessions, or give --all" in nothing.err
    assert missing.one_error_line() and "nope" in missing.err
    assert "Traceback" not in nothing.err + both.err + missing.err
    assert "entities" not in shown(home, "s")[0]  # nothing written when one is missing


def test_import_stores_entities_only_when_asked(home: Path, tmp_path: Path) -> None:
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "content": MET}]))
    plain = zerda(home, "import", "plain", str(messages))
    asked = zerda(home, "import", "asked", str(messages), "--entities")
    assert (plain.code, asked.code) == (0, 0), plain.err + asked.err
    assert "entities" not in shown(home, "plain")[0]
    [message] = shown(home, "asked")
    assert message["entities"] == [e.to_dict() for e in stored_entities(MET)]


def test_each_session_named_is_filled_once(home: Path) -> None:
    zerda(home, "add", "s", MET, "ok")
    done = zerda(home, "entities", "s", "s", "--json")
    assert json.loads(done.out) == {"sessions": 1, "messages": 2}


def test_a_dry_run_import_touches_no_store(home: Path, tmp_path: Path) -> None:
    messages = tmp_path / "m.jsonl"
    messages.write_text(json.dumps({"role": "user", "content": MET}) + "\n")
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    done = zerda(not_a_directory, "import", "s", str(messages), "--from", "zerda", "--dry-run")
    assert (done.code, done.err) == (
        0,
        "dry run: would import 1 messages into session s\n",
    )


def test_an_export_with_damaged_entities_imports_with_them_found_again(
    home: Path, tmp_path: Path
) -> None:
    store = SessionStore(home, fsync=False)
    store.add_message("s", Message("user", MET))
    store.set_summary("s", "Ada Lovelace wrote to Babbage.")
    lines = zerda(home, "export", "s", "--format", "jsonl").out.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r.get("type") for r in records] == ["session", "summary", None]
    for record in records[1:]:
        record["entities"] = 5
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = zerda(home, "import", "copy", str(damaged))
    assert done.code == 0, done.err
    memory = store.get_memory("copy")
    assert memory.summary is not None and memory.summary.entities is None
    assert [m.entities for m in memory.messages] == [None]
    assert memory.messages[0].extra == {"entities": 5}  # another shape: kept as given
    assert zerda(home, "entities", "copy").code == 0
    assert store.get_summary("copy").entities == stored_entities(  # type: ignore[union-attr]
        "Ada Lovelace wrote to Babbage."
    )
