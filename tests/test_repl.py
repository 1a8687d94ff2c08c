"""The `zerda chat` loop and its slash commands, driven line by line on a real store."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from test_store_faults import rewrite_killed_at

from zerda.clients._command import CommandClient
from zerda.memory._budget import chat_tokens
from zerda.messages import Summary
from zerda.store import SessionStore
from zerda_cli.chat.backends import ManualBackend
from zerda_cli.chat.config import ChatConfig
from zerda_cli.chat.piped import reply_writer, run_piped, turn_writer
from zerda_cli.chat.prompts import history_file
from zerda_cli.chat.repl import Chat
from zerda_cli.chat.view import ChatView


def _text(summary: Summary | None) -> str | None:
    """The text of a stored summary, or None."""
    return summary.content if summary else None


class Screen:
    """A Chat whose output goes to a string, with the manual backend fed from a list."""

    def __init__(self, store: SessionStore, replies: list[str], **settings: object) -> None:
        self.out = io.StringIO()
        self.replies: Iterator[str] = iter(replies)
        backend = ManualBackend(ask=lambda: next(self.replies))
        view = ChatView(Console(file=self.out, width=100, color_system=None))
        config = ChatConfig(**settings)  # type: ignore[arg-type]
        self.chat = Chat(store, "s", config, view, backend)

    def type(self, *lines: str) -> str:
        start = self.out.tell()
        for line in lines:
            assert self.chat.handle(line)
        return self.out.getvalue()[start:]


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "home", fsync=False)


def contents(store: SessionStore, session: str = "s") -> list[str]:
    return [m.content for m in store.iter_messages(session)]


def test_each_turn_is_recorded_when_its_reply_is_complete(store: SessionStore) -> None:
    screen = Screen(store, ["one back", "two back"])
    screen.type("one", "two")
    assert contents(store) == ["one", "one back", "two", "two back"]
    assert screen.chat.turn_count == 2
    assert "s · 2 turns" in screen.chat.toolbar()


def test_a_typed_reply_is_shown_as_markdown_like_any_reply(store: SessionStore) -> None:
    screen = Screen(store, ["A **bold** claim:\n\n- one\n- two"])
    output = screen.type("question")
    assert "assistant ›" in output  # noqa: RUF001
    assert "A bold claim:" in output and "• one" in output and "**" not in output


def test_context_is_system_then_memory_then_the_new_message(store: SessionStore) -> None:
    for n in range(4):
        store.append_turn("s", f"q{n}", f"a{n}")
    screen = Screen(store, [], memory="window 2", system="Be brief.")
    assert screen.chat.context("next") == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
        {"role": "user", "content": "q3"},
        {"role": "assistant", "content": "a3"},
        {"role": "user", "content": "next"},
    ]
    screen.type("/memory token 1")
    assert [m["content"] for m in screen.chat.context(None)] == ["Be brief.", "q3", "a3"]
    assert "token 1" in screen.chat.toolbar()


def test_system_prompt_is_kept_in_the_session_and_wins_over_the_default(
    store: SessionStore,
) -> None:
    screen = Screen(store, [], system="default")
    screen.type("/system Answer in French.")
    assert store.get_session("s").metadata["system"] == "Answer in French."
    reopened = Screen(store, [], system="default")
    assert reopened.chat.context(None)[0]["content"] == "Answer in French."
    reopened.type("/system -")
    assert reopened.chat.context(None)[0]["content"] == "default"


def test_an_empty_or_cancelled_reply_records_nothing(store: SessionStore) -> None:
    def cancel() -> str:
        raise KeyboardInterrupt

    screen = Screen(store, [""])
    assert "empty reply: nothing recorded" in screen.type("hello")
    screen.chat.backend = ManualBackend(ask=cancel)
    assert "cancelled: nothing recorded" in screen.type("hello")
    assert not store.exists("s")


def test_retry_replaces_the_last_reply_only_when_the_new_one_is_complete(
    store: SessionStore, tmp_path: Path
) -> None:
    screen = Screen(store, ["first try", "second try"])
    screen.type("question")
    failing = tmp_path / "fail.py"
    failing.write_text("import sys\nprint('down', file=sys.stderr)\nsys.exit(1)\n")
    manual = screen.chat.backend
    screen.chat.backend = CommandClient(f"{sys.executable} {failing}")
    output = screen.type("/retry")
    assert "exited with status 1: down; nothing recorded" in output
    assert "the previous reply stays" in output
    assert contents(store) == ["question", "first try"]
    screen.chat.backend = manual
    screen.type("/retry")
    assert contents(store) == ["question", "second try"]
    assert screen.chat.turn_count == 1


def test_retry_killed_at_any_step_keeps_the_old_turn_or_the_new_one(
    store: SessionStore,
) -> None:
    screen = Screen(store, ["first reply", "old reply", "new reply"])
    screen.type("first", "question")
    path = store.sessions_dir / "s.jsonl"
    original = path.read_bytes()
    old = contents(store)
    new = [*old[:-1], "new reply"]
    outcomes = set()
    finished = False
    step = 0
    while not finished:
        step += 1
        path.write_bytes(original)
        finished = rewrite_killed_at(store, lambda: screen.chat.handle("/retry"), step)
        now = contents(SessionStore(store.home))
        assert now in (old, new), f"killed at step {step}"
        outcomes.add("new" if now == new else "old")
    assert outcomes == {"old", "new"}


def test_undo_with_a_summary_memory_takes_the_turn_out_of_the_summary(
    store: SessionStore,
) -> None:
    # A budget too small for two of these turns: one is held beside a summary of the rest.
    screen = Screen(store, ["Alpha reply.", "Beta reply.", "Gamma reply."], memory="summary 30")
    screen.type("Alpha question.", "Beta question.", "Gamma question.")
    memory = screen.chat.memory
    assert memory.summary_turns == 2  # type: ignore[attr-defined]  # Alpha and Beta
    assert "Alpha" in memory.summary and "Gamma" not in memory.summary  # type: ignore[attr-defined]

    screen.type("/undo")
    context = [m["content"] for m in screen.chat.context(None)]
    assert "Beta" not in context[0] and context[1:] == ["Beta question.", "Beta reply."]
    screen.type("/undo")
    context = [m["content"] for m in screen.chat.context(None)]
    assert context == ["Alpha question.", "Alpha reply."]
    assert "Beta" not in (_text(store.get_summary("s")) or "")
    reopened = Screen(store, [], memory="summary 30")
    assert [m["content"] for m in reopened.chat.context(None)] == context


def test_a_summary_memory_over_a_session_without_one_folds_its_older_turns(
    store: SessionStore,
) -> None:
    for n in range(3):
        store.append_turn("s", f"Question {n}.", f"Answer {n}.")
    screen = Screen(store, [], memory="summary 30")  # one turn beside the summary
    context = screen.chat.context(None)
    assert screen.chat.memory.summary_turns == 2  # type: ignore[attr-defined]
    assert "Question 0" in (_text(store.get_summary("s")) or "")
    # Beside the newest turn the summary is cut to what the budget leaves.
    assert chat_tokens(context) <= 30
    assert [m["content"] for m in context][-2:] == ["Question 2.", "Answer 2."]


def test_piped_turns_as_json_lines_match_the_stored_messages(store: SessionStore) -> None:
    screen = Screen(store, ["two\nlines", "one line"])
    out = io.StringIO()
    code = run_piped(screen.chat, [b"first\n", b"\n", b"second\n"], turn_writer(out, "s"))
    assert code == 0
    lines = out.getvalue().splitlines()
    turns = [json.loads(line) for line in lines]
    messages = list(store.iter_messages("s"))
    assert len(lines) == 2
    for turn, user, assistant in zip(turns, messages[::2], messages[1::2], strict=True):
        assert turn == {
            "session": "s",
            "line": turn["line"],
            "input": user.content,
            "output": assistant.content,
            "user_uuid": user.uuid,
            "assistant_uuid": assistant.uuid,
            "created_at": assistant.to_dict()["created_at"],
            "input_tokens": user.token_count,
            "output_tokens": assistant.token_count,
        }
    assert [t["line"] for t in turns] == [1, 3]
    assert turns[0]["output"] == "two\nlines" and turns[0]["output_tokens"] > 0
    plain = io.StringIO()
    run_piped(Screen(store, ["again"]).chat, [b"third\n"], reply_writer(plain))
    assert plain.getvalue() == "again\n"


def test_undo_and_clear(store: SessionStore) -> None:
    screen = Screen(store, ["a1", "a2"])
    screen.type("q1", "q2")
    assert "removed the last turn: q2" in screen.type("/undo")
    assert contents(store) == ["q1", "a1"]
    answers = iter([False, True])
    screen.chat.confirm = lambda question: next(answers)
    assert "kept" in screen.type("/clear")
    assert contents(store) == ["q1", "a1"]
    assert "session cleared" in screen.type("/clear")
    assert contents(store) == []
    assert "nothing to undo" in screen.type("/undo")


def test_session_switch_show_window_and_stats(store: SessionStore) -> None:
    store.append_turn("other", "old question", "old **answer**")
    screen = Screen(store, ["hi back"])
    screen.type("hi")
    switched = screen.type("/session other")
    assert "old question" in switched and "old answer" in switched
    assert screen.chat.session_id == "other"
    assert "old question" in screen.type("/show 1")
    window = screen.type("/window 1")
    assert "window of the last 1 turn: 2 messages" in window
    stats = screen.type("/stats")
    assert re.search(r"turns +1\b", stats) and re.search(r"session +other\b", stats)
    assert "invalid session id" in screen.type("/session ../x")


def test_fork_copies_the_session_and_goes_on_in_the_copy(store: SessionStore) -> None:
    screen = Screen(store, ["first back", "second back", "third back"])
    assert "nothing to fork yet" in screen.type("/fork early")
    screen.type("first", "second")
    said = screen.type("/fork branch")
    assert "forked session s into branch" in said and screen.chat.session_id == "branch"
    screen.type("third")
    assert contents(store) == ["first", "first back", "second", "second back"]
    assert contents(store, "branch") == [*contents(store), "third", "third back"]
    assert store.get_session("branch").metadata["forked_from"]["turn"] == 2
    assert "session already exists: s" in screen.type("/fork s")
    assert "/fork NEW" in screen.type("/fork") and "/fork NEW" in screen.type("/help")
    assert screen.chat.session_id == "branch"


def test_slash_escapes_help_and_unknown_commands(store: SessionStore) -> None:
    screen = Screen(store, ["ok"])
    assert "unknown command /nope" in screen.type("/nope")
    screen.type("//not a command")
    assert contents(store) == ["/not a command", "ok"]
    assert "/memory buffer|window K|token N|summary [N]" in screen.type("/help")
    assert "expected a whole number" in screen.type("/show many")
    assert screen.chat.handle("/exit") is False


def test_stored_escape_sequences_are_shown_inert(store: SessionStore) -> None:
    store.append_turn("s", "\x1b]0;pwned\x07title", "\x1b[2Jcleared?")
    screen = Screen(store, [])
    output = screen.type("/show")
    assert "\x1b" not in output
    assert "\\x1b]0;pwned" in output


def test_input_history_file_is_private_and_never_a_symlink(tmp_path: Path) -> None:
    state = tmp_path / "state"
    path = history_file(state)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    path.unlink()
    target = tmp_path / "elsewhere"
    target.write_text("")
    path.symlink_to(target)
    with pytest.raises(OSError):
        history_file(state)


def test_a_stored_system_prompt_with_escape_sequences_is_shown_inert(
    store: SessionStore,
) -> None:
    screen = Screen(store, [])
    screen.type("/system \x1b[2J\x1b]0;pwned\x07\x9b31m")
    output = screen.type("/system")
    assert "\x1b" not in output and "\x9b" not in output and "\x07" not in output
    assert "\\x1b]0;pwned\\x07\\x9b31m" in output
