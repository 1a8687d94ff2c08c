"""`zerda chat --summarizer model`: summary memory's summary written by the chat's own model.

Real `zerda chat` processes, piped, with a command backend: a small program that
answers turns and, asked for a summary (the summarizer's instructions as system
prompt), writes one, or fails when told to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from cli_runner import ZERDA

from zerda import SessionStore

MODEL = textwrap.dedent(
    """
    import json, os, sys
    request = json.load(sys.stdin)
    messages = request["messages"]
    with open(os.environ["MODEL_LOG"], "a") as log:
        log.write(json.dumps(messages) + "\\n")
    first = messages[0]["content"] if messages else ""
    if "running summary" in first:
        if os.path.exists(os.environ["MODEL_FAILS"]):
            sys.exit("the summary model is down")
        print("SUMMARY of " + str(len(messages[-1]["content"].splitlines())) + " lines")
    else:
        print("reply to " + messages[-1]["content"] + ": " + "words " * 30)
    """
)


def chat(home: Path, tmp: Path, lines: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    script = tmp / "model.py"
    script.write_text(MODEL)
    env = {
        **os.environ,
        "MODEL_LOG": str(tmp / "requests.jsonl"),
        "MODEL_FAILS": str(tmp / "fail"),
        "ZERDA_CONFIG": str(tmp / "no-config.toml"),
    }
    command = [ZERDA, "chat", "s", "--home", str(home), "--backend", "command"]
    command += ["--command", f"{sys.executable} {script}", *extra]
    return subprocess.run(
        command,
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def requests(tmp: Path) -> list[list[dict[str, str]]]:
    log = tmp / "requests.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def questions(count: int, start: int = 0) -> list[str]:
    return [f"question {i} about planet {i}" for i in range(start, start + count)]


PROMPT = "you \u203a "
MODEL_SUMMARY = ("--memory", "summary:200", "--summarizer", "model")


def test_the_chat_model_writes_the_summary(home: Path, tmp_path: Path) -> None:
    result = chat(home, tmp_path, questions(8), *MODEL_SUMMARY)
    assert result.returncode == 0, result.stderr
    store = SessionStore(home)
    assert store.session_stats("s").turn_count == 8
    summary = store.get_summary("s")
    assert summary is not None and summary.content.startswith("SUMMARY of ")
    assert summary.metadata["summarizer"] == "command"
    assert 0 < summary.metadata["turns"] < 8
    turns = [r for r in requests(tmp_path) if "running summary" not in r[0]["content"]]
    last = turns[-1]
    assert any(m["role"] == "system" and summary.content in m["content"] for m in last)
    assert last[-1] == {"role": "user", "content": "question 7 about planet 7"}


def test_the_offline_summarizer_asks_no_model(home: Path, tmp_path: Path) -> None:
    result = chat(home, tmp_path, questions(8), "--memory", "summary:200")
    assert result.returncode == 0, result.stderr
    summary = SessionStore(home).get_summary("s")
    assert summary is not None and summary.metadata["summarizer"] == "extractive"
    assert all("running summary" not in r[0]["content"] for r in requests(tmp_path))


def test_a_failing_summarizer_loses_no_turn(home: Path, tmp_path: Path) -> None:
    (tmp_path / "fail").touch()
    result = chat(home, tmp_path, questions(8), *MODEL_SUMMARY)
    store = SessionStore(home)
    assert store.session_stats("s").turn_count == 8
    assert [m.content for m in store.iter_messages("s")][::2] == questions(8)
    assert store.get_summary("s") is None
    assert "summary not updated" in result.stderr
    assert "the summary model is down" in result.stderr
    assert "Traceback" not in result.stderr
    # Once the model works again, the next turn brings the summary up to date.
    (tmp_path / "fail").unlink()
    again = chat(home, tmp_path, questions(1, start=8), *MODEL_SUMMARY)
    assert again.returncode == 0, again.stderr
    assert store.session_stats("s").turn_count == 9
    summary = store.get_summary("s")
    assert summary is not None and summary.content.startswith("SUMMARY of ")


def test_the_model_summarizer_needs_a_model(home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "ZERDA_CONFIG": str(tmp_path / "none.toml")}
    for extra, message in (
        (["--summarizer", "model"], "the model summarizer asks the chat's model"),
        (["--summarizer", "magic", "--backend", "command", "--command", "cat"], "magic"),
    ):
        result = subprocess.run(
            [ZERDA, "chat", "s", "--home", str(home), *extra],
            input="hi\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2
        assert message in result.stderr and len(result.stderr.splitlines()) == 1
    assert not SessionStore(home).exists("s")


HANGING = textwrap.dedent(
    """
    import json, os, sys, time
    messages = json.load(sys.stdin)["messages"]
    if "running summary" in messages[0]["content"]:
        if os.path.exists(os.environ["MODEL_HANGS"]):
            open(os.environ["MODEL_HANGS"] + ".now", "w").close()  # hanging from here on
            time.sleep(60)
        print("SUMMARY")
    else:
        print("reply " + "words " * 40)
    """
)


def test_ctrl_c_cancels_a_hanging_summary_and_keeps_the_turn(home: Path, tmp_path: Path) -> None:
    import pexpect

    script = tmp_path / "model.py"
    script.write_text(HANGING)
    env = {
        **os.environ,
        "MODEL_HANGS": str(tmp_path / "hang"),
        "ZERDA_CONFIG": str(tmp_path / "none.toml"),
        "TERM": "xterm-256color",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    args = ["chat", "s", "--home", str(home), "--backend", "command", "--no-input-history"]
    args += ["--command", f"{sys.executable} {script}", "--memory", "summary:120"]
    child = pexpect.spawn(
        ZERDA,
        [*args, "--summarizer", "model"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )
    (tmp_path / "hang").touch()  # every summary request hangs
    child.expect_exact(PROMPT)
    hanging = tmp_path / "hang.now"
    sent = 0
    while not hanging.exists() and sent < 12:
        child.sendline(f"question {sent}")
        sent += 1
        child.expect_exact("reply words")
        # The prompt back, or a summary request that hangs (the model says so in a file).
        deadline = time.monotonic() + 60
        while not hanging.exists() and time.monotonic() < deadline:
            if child.expect_exact([PROMPT, pexpect.TIMEOUT], timeout=0.2) == 0:
                break
    assert hanging.exists(), "no save folded older turns into the summary"
    child.sendintr()  # while the turn's save waits for the summary
    child.expect_exact("summary not updated", timeout=15)  # not the minute the model takes
    child.expect_exact("cancelled (Ctrl-C)")
    child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    store = SessionStore(home)
    assert store.session_stats("s").turn_count == sent
