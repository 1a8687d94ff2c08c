"""`zerda chat` end to end: the installed command on a real pty, and with stdin piped."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from chat_server import chat_server
from cli_runner import ZERDA

from zerda.store import SessionStore

PROMPT = "you › "  # noqa: RUF001
REPLY_PROMPT = "assistant › "  # noqa: RUF001
GAP = r"(?:\s|\x1b\[[\d;]*m)+"  # spaces and style codes between a table's columns
TIMEOUT = 30  # generous: CI is a small machine; a passing run waits far less

ASSISTANT = """\
import json, sys, time
content = json.load(sys.stdin)["messages"][-1]["content"]
if content.startswith("slow"):
    print("thinking", flush=True)
    time.sleep(30)
if content.startswith("lines"):
    print("first line")
    print()
    print("last line")
print(f"answer to {content}")
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    names = ("HOME", "PATH", "LANG", "LC_ALL", "SYSTEMROOT")
    base = {k: v for k, v in os.environ.items() if k in names}
    return {
        **base,
        "ZERDA_HOME": str(home),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


@pytest.fixture
def assistant(tmp_path: Path) -> str:
    path = tmp_path / "assistant.py"
    path.write_text(ASSISTANT)
    return f"{sys.executable} {path}"


def spawn(env: dict[str, str], *args: str, ready: bool = True) -> pexpect.spawn:
    """Start `zerda chat`; with `ready`, wait for the prompt (typing earlier races the tty)."""
    child = pexpect.spawn(
        ZERDA, ["chat", *args], env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(40, 120)
    )
    child.expect_exact("Ctrl-D leaves")
    if ready:
        child.expect_exact(PROMPT)
    return child


def leave(child: pexpect.spawn) -> None:
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def stored(env: dict[str, str], session: str) -> list[tuple[str, str]]:
    store = SessionStore(env["ZERDA_HOME"])
    return [(m.role, m.content) for m in store.iter_messages(session)]


def test_manual_turns_stats_undo_and_the_file_holds_what_was_shown(env: dict[str, str]) -> None:
    child = spawn(env, "s1")
    child.send("What is zerda?\r")
    child.expect_exact(REPLY_PROMPT)
    child.send("A **memory**\x1b\rlibrary.\r")  # Esc Enter: a second line in the reply
    child.expect(r"A (?:\x1b\[[\d;]*m)*memory(?:\x1b\[[\d;]*m)*\s+library\.")  # as Markdown
    child.expect_exact(PROMPT)
    child.send("second question\r")
    child.expect_exact(REPLY_PROMPT)
    child.send("second answer\r")
    child.expect_exact(PROMPT)
    child.send("/stats\r")
    child.expect(r"turns" + GAP + "2")
    child.expect(r"tokens stored" + GAP + r"\d+ \(cl100k_base\)")
    child.expect_exact(PROMPT)
    child.send("/undo\r")
    child.expect_exact("removed the last turn: second question")
    child.expect_exact(PROMPT)
    leave(child)
    assert stored(env, "s1") == [
        ("user", "What is zerda?"),
        ("assistant", "A **memory**\nlibrary."),
    ]
    history = Path(env["ZERDA_HOME"]) / "state" / "history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert "What is zerda?" in history.read_text()

    again = spawn(env, "--continue", ready=False)  # reopens s1 and shows where it left off
    again.expect_exact("What is zerda?")
    again.expect_exact("library.")
    again.expect_exact(PROMPT)
    leave(again)


def test_ctrl_c_during_a_slow_reply_records_nothing_and_the_repl_goes_on(
    env: dict[str, str], assistant: str
) -> None:
    child = spawn(env, "s2", "--command", assistant)
    child.send("slow question\r")
    child.expect_exact("thinking")
    child.sendintr()
    child.expect_exact("cancelled: nothing recorded")
    child.expect_exact(PROMPT)
    child.send("quick question\r")
    child.expect_exact("answer to quick question")
    child.expect_exact(PROMPT)
    leave(child)
    assert stored(env, "s2") == [
        ("user", "quick question"),
        ("assistant", "answer to quick question\n"),
    ]


def test_openai_streams_in_the_repl_and_a_server_error_keeps_it_alive(
    env: dict[str, str],
) -> None:
    with chat_server(pause=30) as server:
        failing = spawn(env, "s3", "--backend", "openai", "--base-url", server.url("status-500"))
        failing.send("hello\r")
        failing.expect_exact("HTTP 500 from 127.0.0.1")
        failing.expect_exact("nothing recorded")
        failing.expect_exact(PROMPT)
        failing.send("/exit\r")
        failing.expect(pexpect.EOF)
        assert not SessionStore(env["ZERDA_HOME"]).exists("s3")

        slow = spawn(env, "s3", "--backend", "openai", "--base-url", server.url("slow"))
        slow.send("cut me off\r")
        slow.expect_exact("ech")  # the first piece; the second would come after 30 s
        slow.sendintr()
        slow.expect_exact("cancelled: nothing recorded")
        slow.expect_exact(PROMPT)
        leave(slow)
        assert not SessionStore(env["ZERDA_HOME"]).exists("s3")

        child = spawn(env, "s3", "--backend", "openai", "--base-url", server.url("stream"))
        child.send("/system Answer in echoes.\r")
        child.expect_exact("system prompt set")
        child.send("hello there\r")
        child.expect_exact("echo: hello there")
        child.expect_exact(PROMPT)
        leave(child)
    assert server.requests[-1]["body"]["messages"] == [
        {"role": "system", "content": "Answer in echoes."},
        {"role": "user", "content": "hello there"},
    ]
    assert stored(env, "s3") == [("user", "hello there"), ("assistant", "echo: hello there")]


def run(env: dict[str, str], args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ZERDA, "chat", *args], input=stdin, env=env, capture_output=True, text=True, timeout=60
    )


def test_piped_stdin_is_one_message_a_line_with_replies_on_stdout(
    env: dict[str, str], assistant: str
) -> None:
    result = run(env, ["p1", "--command", assistant], "first\n\nsecond\n")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "answer to first\nanswer to second\n"
    assert stored(env, "p1") == [
        ("user", "first"),
        ("assistant", "answer to first\n"),
        ("user", "second"),
        ("assistant", "answer to second\n"),
    ]


def test_piped_jsonl_is_one_object_per_recorded_turn(env: dict[str, str], assistant: str) -> None:
    result = run(env, ["p5", "--command", assistant, "--jsonl"], "lines please\nsecond\n")
    assert (result.returncode, result.stderr) == (0, "")
    turns = [json.loads(line) for line in result.stdout.splitlines()]
    messages = list(SessionStore(env["ZERDA_HOME"]).iter_messages("p5"))
    assert [(t["input"], t["output"]) for t in turns] == [
        ("lines please", "first line\n\nlast line\nanswer to lines please\n"),
        ("second", "answer to second\n"),
    ]
    assert [t["user_uuid"] for t in turns] == [m.uuid for m in messages[::2]]
    assert [t["assistant_uuid"] for t in turns] == [m.uuid for m in messages[1::2]]
    assert {t["session"] for t in turns} == {"p5"}


def test_jsonl_or_a_piped_stdout_on_a_terminal_is_a_one_line_error(env: dict[str, str]) -> None:
    jsonl = pexpect.spawn(ZERDA, ["chat", "t1", "--jsonl"], env=env, encoding="utf-8")
    jsonl.expect(pexpect.EOF, timeout=TIMEOUT)
    jsonl.close()
    assert jsonl.exitstatus == 2
    assert jsonl.before.strip() == (
        "error: --jsonl is for piped stdin (one message a line); stdin is a terminal"
    )
    piped = pexpect.spawn(
        "/bin/sh", ["-c", f"{shlex.quote(ZERDA)} chat t1 | cat"], env=env, encoding="utf-8"
    )
    piped.expect(pexpect.EOF, timeout=TIMEOUT)
    piped.close()
    assert piped.exitstatus == 0  # the status of `cat`; zerda's went to the error line
    assert piped.before.strip().startswith("error: stdout is not a terminal")
    assert piped.before.strip().count("\n") == 0
    assert not SessionStore(env["ZERDA_HOME"]).exists("t1")


def test_piped_stdin_with_the_manual_backend_is_refused(env: dict[str, str]) -> None:
    result = run(env, ["p2"], "hello\n")
    assert result.returncode == 2
    assert result.stderr.startswith("error: stdin is not a terminal")
    assert "--backend command" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not SessionStore(env["ZERDA_HOME"]).exists("p2")


def test_piped_failures_are_one_line_each_and_not_recorded(env: dict[str, str]) -> None:
    with chat_server() as server:
        result = run(
            env, ["p3", "--backend", "openai", "--base-url", server.url("status-429")], "a\n"
        )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: line 1: HTTP 429 from 127.0.0.1:")
    assert result.stderr.count("\n") == 1
    assert not SessionStore(env["ZERDA_HOME"]).exists("p3")


def test_bad_settings_are_one_line_usage_errors(env: dict[str, str], tmp_path: Path) -> None:
    bad_memory = run(env, ["p4", "--memory", "forever"], "")
    assert bad_memory.returncode == 2
    assert bad_memory.stderr == (
        "error: bad memory 'forever': use buffer, window:K, token:N or summary:N\n"
    )
    for args, error in [
        (["--memory", "token:abc"], "bad size 'abc' for memory token"),
        (["--timeout", "-1"], "-1 is not a number of seconds above 0"),
        (["--timeout", "0"], "0 is not a number of seconds above 0"),
        (["--backend", "bogus"], "unknown backend 'bogus'"),
    ]:
        result = run(env, ["p4", "--command", "cat", *args], "hi\n")
        assert (result.returncode, result.stderr.count("\n")) == (2, 1), args
        assert error in result.stderr and "Traceback" not in result.stderr
    config = tmp_path / "config.toml"
    config.write_text("[chat]\nbackend = 3\n")
    bad_file = run({**env, "ZERDA_CONFIG": str(config)}, ["p4", "--command", "cat"], "hi\n")
    assert bad_file.returncode == 2 and bad_file.stderr.endswith("backend must be a string\n")
    assert not SessionStore(env["ZERDA_HOME"]).exists("p4")
    both = run(env, ["p4", "--continue"], "")
    assert (both.returncode, both.stderr.count("\n")) == (2, 1)
    bad_id = run(env, ["../etc", "--command", "cat"], "")
    assert (bad_id.returncode, bad_id.stderr.count("\n")) == (2, 1)
    assert "'../etc' is not a session id" in bad_id.stderr


# -- how streams end, /retry, line breaks, the editor ------------------------------------


def test_a_reply_cut_off_mid_stream_is_not_recorded_and_retry_sends_a_failed_message_again(
    env: dict[str, str],
) -> None:
    with chat_server() as server:
        cut = spawn(env, "r1", "--backend", "openai", "--base-url", server.url("cut"))
        cut.send("tell me everything\r")
        cut.expect_exact("cut off: the stream ended without [DONE] or a finish_reason")
        cut.expect_exact("nothing recorded · /retry sends it again")
        cut.expect_exact(PROMPT)
        leave(cut)
        assert not SessionStore(env["ZERDA_HOME"]).exists("r1")

        flaky = spawn(env, "r1", "--backend", "openai", "--base-url", server.url("flaky"))
        flaky.send("are you there?\r")
        flaky.expect_exact("HTTP 500 from 127.0.0.1")
        flaky.expect_exact("/retry sends it again")
        flaky.expect_exact(PROMPT)
        flaky.send("/retry\r")
        flaky.expect_exact("echo: are you there?")
        flaky.expect_exact(PROMPT)
        leave(flaky)
    assert stored(env, "r1") == [("user", "are you there?"), ("assistant", "echo: are you there?")]
    sent = [r["body"]["messages"][-1]["content"] for r in server.requests[1:]]
    assert sent == ["are you there?", "are you there?"]


def test_a_three_line_reply_is_shown_on_three_lines(env: dict[str, str]) -> None:
    with chat_server() as server:
        child = spawn(env, "r2", "--backend", "openai", "--base-url", server.url("lines"))
        child.send("three lines please\r")
        child.expect(r"first line\s*\r\n\s*second line\s*\r\n\s*third line")
        child.expect_exact(PROMPT)
        leave(child)
    assert stored(env, "r2")[1] == ("assistant", "first line\nsecond line\nthird line")


def test_llm_echo_as_a_command_backend_keeps_its_json_lines(
    env: dict[str, str], tmp_path: Path
) -> None:
    llm = Path(sys.executable).with_name("llm")
    if not llm.exists():
        pytest.skip("the llm-echo plugin is not installed")
    env = {**env, "LLM_USER_PATH": str(tmp_path / "llm")}
    child = spawn(env, "r3", "--command", f"{llm} -m echo --no-log", "--command-format", "text")
    child.send("hello llm\r")
    child.expect(r'\{\s*\r\n\s*"prompt": ')  # the JSON's first two lines stay two lines
    child.expect_exact(PROMPT)
    leave(child)
    [(_, question), (_, reply)] = stored(env, "r3")
    assert question == "hello llm" and '"prompt": "user: hello llm' in reply
    message = next(
        m for m in SessionStore(env["ZERDA_HOME"]).iter_messages("r3") if m.role == "assistant"
    )
    made = message.metadata["zerda.provenance"]
    assert made["backend"] == "command" and made["model"].endswith("-m echo --no-log")


def test_a_truncated_reply_is_said_and_marked(env: dict[str, str]) -> None:
    with chat_server() as server:
        child = spawn(env, "r4", "--backend", "openai", "--base-url", server.url("length"))
        child.send("go on\r")
        child.expect_exact("the reply was cut short")
        child.expect_exact(PROMPT)
        leave(child)
    [_, reply] = list(SessionStore(env["ZERDA_HOME"]).iter_messages("r4"))
    assert reply.metadata["zerda.truncated"] == "length"


def test_edit_and_ctrl_x_ctrl_e_write_the_message_in_the_editor(
    env: dict[str, str], tmp_path: Path
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "text = open(path).read()\n"
        "open(path, 'w').write((text or 'written') + ' in the editor\\n')\n"
    )
    env = {**env, "EDITOR": f"{sys.executable} {editor}", "VISUAL": ""}
    child = spawn(env, "r5")
    child.send("/edit\r")
    child.expect_exact("written in the editor")  # back at the prompt, not yet sent
    child.send("\r")
    child.expect_exact(REPLY_PROMPT)
    child.send("first reply\r")
    child.expect_exact(PROMPT)
    child.send("draft")
    child.sendcontrol("x")
    child.sendcontrol("e")
    child.expect_exact("in the editor")  # the prompt redraws only what changed
    child.send("\r")
    child.expect_exact(REPLY_PROMPT)
    child.send("second reply\r")
    child.expect_exact(PROMPT)
    leave(child)
    assert [text for role, text in stored(env, "r5") if role == "user"] == [
        "written in the editor",
        "draft in the editor",
    ]


def test_leaving_a_new_chat_without_a_turn_says_no_session_was_made(env: dict[str, str]) -> None:
    child = spawn(env, "r6")
    child.sendcontrol("d")
    child.expect_exact("no turns recorded: session r6 was not created")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "zerda show r6" not in child.before


def test_a_command_that_does_not_exist_is_refused_at_the_start(env: dict[str, str]) -> None:
    result = run(env, ["r7", "--command", "no-such-zerda-program --flag"], "hello\n")
    assert result.returncode == 2
    assert result.stderr == "error: command not found: no-such-zerda-program (not on PATH)\n"
    child = pexpect.spawn(
        ZERDA, ["chat", "r7", "--command", "no-such-zerda-program"], env=env, encoding="utf-8"
    )
    child.expect(pexpect.EOF, timeout=TIMEOUT)
    child.close()
    assert child.exitstatus == 2 and "command not found" in child.before
    assert "zerda chat" not in child.before  # refused before the banner
