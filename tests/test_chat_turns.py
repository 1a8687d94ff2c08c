"""What `zerda chat` records, against a real server on 127.0.0.1 and real programs:
a reply counts only when its stream ends as the protocol says, a reply cut short by
the model is kept and marked, every reply records where it came from, /retry resends
a failed message, and replies keep their line breaks on screen."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from chat_server import chat_server
from cli_runner import process
from rich.console import Console
from rich.text import Text

from zerda.clients import ClientError, CommandClient, OpenAIClient
from zerda.clients._base import PROVENANCE_KEY, TRUNCATED_KEY
from zerda.store import SessionStore
from zerda_cli.chat.backends import Backend, ManualBackend
from zerda_cli.chat.config import ChatConfig
from zerda_cli.chat.piped import reply_writer, run_piped, stdin_lines
from zerda_cli.chat.repl import Chat
from zerda_cli.chat.view import ChatView
from zerda_cli.render.progress import ProgressLine

CONTEXT = [{"role": "user", "content": "Hello there"}]


class Screen:
    """A Chat on a real store, its output in a string."""

    def __init__(
        self, store: SessionStore, backend: Backend, plain: bool = False, width: int = 100
    ) -> None:
        self.out = io.StringIO()
        view = ChatView(Console(file=self.out, width=width, color_system=None), plain=plain)
        self.chat = Chat(store, "s", ChatConfig(), view, backend)

    def type(self, *lines: str) -> str:
        start = self.out.tell()
        for line in lines:
            assert self.chat.handle(line)
        return self.out.getvalue()[start:]


def replies(store: SessionStore) -> list[tuple[str, dict[str, object]]]:
    return [(m.content, m.metadata) for m in store.iter_messages("s") if m.role == "assistant"]


# -- how a stream ends -------------------------------------------------------------------


def test_a_stream_the_server_stops_mid_reply_is_an_error_and_records_nothing(
    store: SessionStore,
) -> None:
    with chat_server() as server:
        client = OpenAIClient(server.url("cut"), "m", None, timeout=10)
        with pytest.raises(ClientError, match=r"cut off: the stream ended without \[DONE\]"):
            client.reply(CONTEXT).read()
        output = Screen(store, client).type("Hello there")
    assert "echo: Hel" in output  # what arrived was shown as it came ...
    assert "error: the reply from 127.0.0.1" in output and "nothing recorded" in output
    assert output.count("nothing recorded") == 1
    assert not store.exists("s")  # ... and none of it was taken for a reply


def test_a_finish_reason_ends_a_reply_even_when_no_done_follows(store: SessionStore) -> None:
    with chat_server() as server:
        Screen(store, OpenAIClient(server.url("finish-then-close"), "m", None, 10)).type("hi")
    assert [text for text, _ in replies(store)] == ["echo: hi"]


@pytest.mark.parametrize(
    "reason,said",
    [("length", "its length limit"), ("content_filter", "its content filter stopped it")],
)
def test_a_reply_cut_short_by_the_model_is_recorded_marked_and_said(
    store: SessionStore, reason: str, said: str
) -> None:
    with chat_server() as server:
        output = Screen(store, OpenAIClient(server.url(reason), "m", None, 10)).type("hi")
    assert f"{said} (finish_reason {reason})" in output
    assert "marked truncated" in output
    [(text, metadata)] = replies(store)
    assert text == "echo: hi"
    assert metadata[TRUNCATED_KEY] == reason
    assert metadata[PROVENANCE_KEY]["finish_reason"] == reason  # type: ignore[index]


def test_a_program_killed_mid_reply_records_nothing(store: SessionStore, tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text(
        "import os, signal\nprint('half a rep', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    output = Screen(store, CommandClient([sys.executable, str(script)])).type("question")
    assert "killed by signal 9; nothing recorded" in output
    assert not store.exists("s")


# -- provenance ------------------------------------------------------------------------------


def test_every_reply_records_backend_model_finish_reason_latency_and_usage(
    store: SessionStore, tmp_path: Path
) -> None:
    with chat_server() as server:
        Screen(store, OpenAIClient(server.url("usage"), "asked-m", None, 10)).type("one")
        Screen(store, OpenAIClient(server.url("stream"), "asked-m", None, 10)).type("two")
        request = server.requests[0]["body"]
    assert request["stream_options"] == {"include_usage": True}
    script = tmp_path / "answer.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('three')\n")
    Screen(store, CommandClient([sys.executable, str(script)], model="answer-bot")).type("3")
    Screen(store, ManualBackend(ask=lambda: "typed")).type("four")
    made = [metadata[PROVENANCE_KEY] for _, metadata in replies(store)]
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert {k: made[0][k] for k in ("backend", "model", "finish_reason", "usage")} == {  # type: ignore[index]
        "backend": "openai",
        "model": "served-m",  # what the server says answered
        "finish_reason": "stop",
        "usage": usage,
    }
    assert made[1] | {"first_byte_ms": 0, "total_ms": 0} == {
        "backend": "openai",
        "model": "asked-m",
        "first_byte_ms": 0,
        "total_ms": 0,
    }
    assert made[2]["model"] == "answer-bot" and made[2]["finish_reason"] == "stop"  # type: ignore[index]
    assert made[3]["backend"] == "manual"  # type: ignore[index]
    for entry in made:
        assert 0 <= entry["first_byte_ms"] <= entry["total_ms"]  # type: ignore[index]


# -- /retry ----------------------------------------------------------------------------------


def test_retry_after_a_failed_turn_sends_that_message_again(store: SessionStore) -> None:
    with chat_server() as server:
        screen = Screen(store, ManualBackend(ask=lambda: "first reply"))
        screen.type("first question")
        screen.chat.backend = OpenAIClient(server.url("flaky"), "m", None, 10)
        failed = screen.type("second question")
        assert "HTTP 500" in failed and "nothing recorded · /retry sends it again" in failed
        help_text = " ".join(screen.type("/help").split())
        assert "now: sends your failed message again (second question)" in help_text
        screen.type("/retry")
        sent = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert sent == ["second question", "second question"]
    assert [m.content for m in store.iter_messages("s")] == [
        "first question",
        "first reply",
        "second question",
        "echo: second question",
    ]
    assert "now: asks again for the last recorded reply" in " ".join(screen.type("/help").split())


def test_retry_after_a_recorded_turn_replaces_its_reply_with_provenance(
    store: SessionStore,
) -> None:
    with chat_server() as server:
        screen = Screen(store, ManualBackend(ask=lambda: "typed reply"))
        screen.type("question")
        screen.chat.backend = OpenAIClient(server.url("usage"), "m", None, 10)
        screen.type("/retry")
    [(text, metadata)] = replies(store)
    assert text == "echo: question"
    assert metadata[PROVENANCE_KEY]["usage"]["total_tokens"] == 5  # type: ignore[index]


def test_piped_failures_never_mention_retry(store: SessionStore) -> None:
    errors = io.StringIO()
    out = io.StringIO()
    with chat_server() as server:
        backend = OpenAIClient(server.url("status-500"), "m", None, 10)
        chat = Chat(store, "s", ChatConfig(), ChatView(Console(file=errors)), backend)
        assert run_piped(chat, [b"hello\n"], reply_writer(out)) == 1
    assert "HTTP 500" in errors.getvalue() and "retry" not in errors.getvalue().lower()


# -- how replies look ------------------------------------------------------------------------


def test_replies_keep_their_line_breaks_and_code_blocks(store: SessionStore) -> None:
    text = "one\ntwo\nthree\n\n```\ncode  line\n    indented\n```"
    output = Screen(store, ManualBackend(ask=lambda: text)).type("q")
    lines = [line.strip() for line in output.splitlines()]
    assert lines[lines.index("one") : lines.index("one") + 3] == ["one", "two", "three"]
    assert "code  line" in output and "    indented" in output


def test_plain_shows_the_raw_text(store: SessionStore) -> None:
    output = Screen(store, ManualBackend(ask=lambda: "**bold**\n- item"), plain=True).type("q")
    assert "**bold**" in output and "- item" in output


# -- size ------------------------------------------------------------------------------------


WIDE = 1_000_000  # columns: the 16 MiB reply below on 17 lines


def test_a_message_or_reply_over_the_size_limit_is_refused(store: SessionStore) -> None:
    """The manual backend's reply is shown before it is refused. On a screen WIDE columns
    wide that takes a second or two; at 100 it took minutes, as laying out a text takes
    time growing with the square of its lines (168,000 of them there)."""
    big = "x" * (16 * 1024 * 1024 + 1)
    screen = Screen(store, ManualBackend(ask=lambda: "fine"), width=WIDE)
    output = screen.type(big[:100] + big)
    assert "error: your message is larger than 16.0 MiB" in output
    screen.chat.backend = ManualBackend(ask=lambda: big)
    assert "error: the reply is larger than 16.0 MiB" in screen.type("small")
    assert not store.exists("s")


def test_a_piped_line_over_the_limit_is_refused_without_being_held_whole(
    store: SessionStore,
) -> None:
    data = io.BytesIO(b"x" * (40 * 1024 * 1024) + b"\nafter\n")
    lines = list(stdin_lines(data))
    assert [len(line) for line in lines] == [16 * 1024 * 1024 + 1, len(b"after\n")]
    errors = io.StringIO()
    chat = Chat(
        store, "s", ChatConfig(), ChatView(Console(file=errors)), ManualBackend(ask=lambda: "ok")
    )
    assert run_piped(chat, lines, reply_writer(io.StringIO())) == 1
    assert "line 1: the message is larger than 16.0 MiB" in errors.getvalue()
    assert [m.content for m in store.iter_messages("s")] == ["after", "ok"]


# A reply of 48 MiB, its pid in a file first, and a file written once all of it was
# taken: a reader that stops at the limit ends the program before that.
ENDLESS = """import os, pathlib, sys
pathlib.Path(sys.argv[1] + ".pid").write_text(str(os.getpid()))
sys.stdin.read()
for _ in range(768):
    sys.stdout.write("y" * 65536)
sys.stdout.flush()
pathlib.Path(sys.argv[1]).touch()
"""


def test_a_streamed_reply_is_stopped_at_the_size_limit(store: SessionStore, tmp_path: Path) -> None:
    """A program writing a reply too large to record is ended once it passes 16 MiB: the
    reply is neither recorded nor printed again whole, and the next turn works."""
    script, finished = tmp_path / "endless.py", tmp_path / "finished"
    script.write_text(ENDLESS)
    screen = Screen(store, CommandClient([sys.executable, str(script), str(finished)]))
    output = screen.type("tell me everything")
    assert "error: the reply is larger than 16.0 MiB" in output
    assert len(output) < 1024 * 1024  # the 16 MiB that arrived are not printed again
    assert not store.exists("s") and not finished.exists()
    assert_ended(tmp_path / "finished.pid")
    screen.chat.backend = ManualBackend(ask=lambda: "short")
    screen.type("again")
    assert [m.content for m in store.iter_messages("s")] == ["again", "short"]


def test_a_piped_reply_is_stopped_at_the_size_limit(store: SessionStore, tmp_path: Path) -> None:
    script, finished = tmp_path / "endless.py", tmp_path / "finished"
    script.write_text(ENDLESS)
    errors = io.StringIO()
    backend = CommandClient([sys.executable, str(script), str(finished)])
    chat = Chat(store, "s", ChatConfig(), ChatView(Console(file=errors)), backend)
    assert run_piped(chat, [b"tell me everything\n"], reply_writer(io.StringIO())) == 1
    assert "line 1: the reply is larger than 16.0 MiB" in errors.getvalue()
    assert not store.exists("s") and not finished.exists()
    assert_ended(tmp_path / "finished.pid")


def assert_ended(pid_file: Path) -> None:
    """The program whose pid `pid_file` holds has ended (and was reaped)."""
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def tail_screen(text: str, height: int = 24, drawn_every: int = 0) -> list[str]:
    """What the live area shows of a reply streaming in 7-character pieces, on a terminal
    `height` lines tall; drawn also after every `drawn_every` pieces, as Rich's refresh
    thread draws it meanwhile."""
    from zerda_cli.chat.live_tail import Tail
    from zerda_cli.chat.view import _reply

    tail = Tail(Text("waiting"), _reply, plain=False)
    console = Console(width=60, height=height, color_system=None, file=io.StringIO())
    for n, start in enumerate(range(0, len(text), 7), start=1):
        tail.pieces.append(text[start : start + 7])
        if drawn_every and n % drawn_every == 0:
            console.render_lines(tail, console.options)
    drawn = console.render_lines(tail, console.options, pad=False)
    return ["".join(segment.text for segment in line).rstrip() for line in drawn]


PROSE = "".join(f"prose line {n} with **bold**\n" for n in range(3000))
CODE = "".join(f"code line {n} **kept**\n" for n in range(3000))


@pytest.mark.parametrize("drawn_every", [0, 1000])
def test_the_live_area_shows_the_last_lines_of_a_long_reply(drawn_every: int) -> None:
    """Only the bottom of a long reply is drawn while it streams (so drawing does not slow
    down as the reply grows), rendered as it would be in the whole reply."""
    shown = tail_screen(PROSE + "```\n" + CODE, drawn_every=drawn_every)
    assert shown[0] == "  … more lines above" and len(shown) == 20
    drawn = [line.strip() for line in shown[1:] if line.strip()]
    assert drawn[-1] == "code line 2999 **kept**"  # a code block open at the cut stays code
    assert all(line.startswith("code line") for line in drawn)
    assert tail_screen(PROSE, drawn_every=drawn_every)[-2].strip() == "prose line 2999 with bold"
    after = "".join(f"prose line {n} with **bold**\n" for n in range(30))
    closed = tail_screen("~~~~\n" + CODE + "```\n~~~~\n" + after, drawn_every=drawn_every)
    assert closed[-2].strip().endswith("with bold")  # a ``` does not close a ~~~~ block
    assert "```" not in "".join(closed)
    rows = "".join(f"| {n} | x |\n" for n in range(300))
    table = tail_screen("| n | what |\n|---|---|\n" + rows, drawn_every=drawn_every)
    assert "| 299 |" not in "".join(table) and any("299" in line for line in table)


def test_the_live_area_keeps_the_last_lines_and_what_they_leave_open() -> None:
    from zerda_cli.chat.live_tail import Above, Tail
    from zerda_cli.chat.view import _reply

    text = "".join(f"l{n}\n" for n in range(100)) + "partial"
    tail = Tail(Text("waiting"), _reply, plain=False)
    for start in range(0, len(text), 3):  # drawn after every piece
        tail.pieces.append(text[start : start + 3])
        tail.advance(10)
    assert tail.window == "".join(f"l{n}\n" for n in range(91, 100)) + "partial"  # 10 lines
    assert tail.text() == text

    def left_open(*lines: str) -> str | None:
        above = Above()
        for line in lines:
            above.take(line)
        return above.fence

    assert left_open("````", "```") == "````"  # a shorter fence does not close a block
    assert left_open("```", "``` x") == "```"  # nor a fence with more on its line
    assert left_open("~~~", "```") == "~~~" and left_open("~~~", "~~~~") is None
    assert left_open("    ```") is None  # indented four spaces: code, not a fence
    assert left_open("```sql``` is a code span") is None
    last = "".join(f"code line {n} **kept**\n" for n in range(2991, 3000))  # and ""
    for plain, opened in ((False, "```\n"), (True, "")):
        each = Tail(Text("waiting"), _reply, plain=plain)
        each.pieces.append("```\n" + CODE)
        assert each.advance(10) == opened + last  # plain text needs no fence
    wide = Tail(Text("waiting"), _reply, plain=False)
    wide.pieces.append("prose\n```\n" + "".join(f"{n} **b** {'x' * 2000}\n" for n in range(38)))
    assert wide.advance(40).startswith("```\n") and wide.cut  # cut by characters


def test_the_live_area_of_a_short_reply_is_all_of_it() -> None:
    short = tail_screen("one **two**\nthree\n")
    assert [line.strip() for line in short if line.strip()] == ["one two", "three"]
    counted = tail_screen("".join(f"line {n}\n" for n in range(30)))
    assert counted[0] == "  … 12 more lines above" and counted[-2] == "  line 29"


# -- provenance on the command line -----------------------------------------------------------


def test_show_and_stats_models_say_where_replies_came_from(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('beep')\n")
    with chat_server() as server:
        url = server.url("usage")
        chatted = process(
            home, "chat", "pm", "--backend", "openai", "--base-url", url, stdin="a\nb\n"
        )
        cut = process(
            home,
            "chat",
            "pm",
            "--backend",
            "openai",
            "--base-url",
            server.url("length"),
            stdin="c\n",
        )
    assert chatted.code == 0, chatted.err
    assert cut.code == 0 and "the reply was cut short" in cut.err
    assert (
        process(home, "chat", "pm", "--command", f"{sys.executable} {script}", stdin="d\n").code
        == 0
    )
    assert process(home, "add", "pm", "typed question", "typed answer").code == 0

    shown = process(home, "show", "pm").out
    assert "(served-m (openai) · first byte " in shown and " · 3 in, 2 out)" in shown
    assert "cut short: length" in shown
    assert "beep" in shown and "bot.py (command)" in shown

    table = process(home, "stats", "pm", "--models").out.splitlines()
    assert table[0].split() == [
        "BACKEND",
        "MODEL",
        "REPLIES",
        "TOKENS",
        "TRUNCATED",
        "SERVER_IN",
        "SERVER_OUT",
    ]
    assert table[1].split() == ["openai", "served-m", "3", "9", "1", "9", "6"]
    figures = json.loads(process(home, "stats", "pm", "--models", "--json").out)["models"]
    assert [(f["backend"], f["replies"]) for f in figures] == [
        ("openai", 3),
        ("-", 1),
        ("command", 1),
    ]
    assert figures[0]["usage_reported"] == 3 and figures[0]["completion_tokens"] == 6


def test_a_long_count_shows_progress_on_a_terminal_and_erases_it() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    ticks = iter([0.0, 0.5, 1.5, 2.0])
    screen = Terminal()
    with ProgressLine("counting", screen, clock=lambda: next(ticks)) as progress:
        progress(10, 100)  # half a second in: nothing yet
        progress(50, 100)
        progress(100, 100)
    assert screen.getvalue() == "\rcounting: 50%\rcounting: 100%\r\x1b[K"
    quiet = io.StringIO()  # not a terminal: never shown
    with ProgressLine("counting", quiet, after=0.0) as progress:
        progress(1, 2)
    assert quiet.getvalue() == ""
