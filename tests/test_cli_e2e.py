"""The installed `zerda` as a real subprocess: stdin, pipes, big input, completions, demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zerda import SessionStore

ZERDA = str(Path(sys.executable).parent / "zerda")
COMPLETIONS = Path(__file__).resolve().parent.parent / "completions"
SHELL_FILES = {"bash": "zerda.bash", "zsh": "_zerda", "fish": "zerda.fish"}


def run(
    *args: str, home: Path | None, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`zerda ARGS` with ZERDA_HOME=home (unset when None), stdin piped, no terminal anywhere."""
    full = {k: v for k, v in os.environ.items() if k != "ZERDA_HOME"}
    full.update(env or {})
    if home is not None:
        full["ZERDA_HOME"] = str(home)
    return subprocess.run(
        [ZERDA, *args], input=stdin, capture_output=True, env=full, timeout=60, check=False
    )


def test_ten_megabyte_message_from_stdin_round_trips(home: Path) -> None:
    big = ("0123456789abcdef" * 655_360)[:10_000_000] + "\nend ü"
    added = run("add", "big", "-", "short answer", home=home, stdin=big.encode())
    assert added.returncode == 0, added.stderr
    shown = run("show", "big", "--jsonl", home=home)
    assert json.loads(shown.stdout.splitlines()[1])["content"] == big
    text = run("show", "big", home=home).stdout.decode()
    assert big.replace("\n", "\n  ") in text


def test_piped_output_is_plain(home: Path) -> None:
    run("add", "s", "hello", "world", home=home)
    for args in (("show", "s"), ("stats", "s"), ("sessions",), ("search", "hello")):
        result = run(*args, home=home, env={"TERM": "xterm-256color", "FORCE_COLOR": "1"})
        assert result.returncode == 0 and b"\x1b" not in result.stdout, args
        assert "╭".encode() not in result.stdout


def test_home_option_overrides_the_environment(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert run("add", "s", "a", "b", "--home", str(other), home=home).returncode == 0
    assert SessionStore(other).exists("s") and not SessionStore(home).exists("s")


def test_broken_pipe_is_quiet(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    for n in range(400):
        store.append_turn("long", f"question {n}", "answer " * 50)
    pipeline = subprocess.run(
        f"'{ZERDA}' show long | head -n 1",
        shell=True,
        capture_output=True,
        env={**os.environ, "ZERDA_HOME": str(home)},
        timeout=60,
        check=False,
    )
    assert pipeline.stdout.startswith(b"user  ")
    assert b"Traceback" not in pipeline.stderr and b"Exception" not in pipeline.stderr


def test_python_dash_m_runs_the_command(home: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zerda_cli", "--version"], capture_output=True, check=False
    )
    assert result.returncode == 0 and result.stdout.startswith(b"zerda ")


@pytest.mark.parametrize("shell", sorted(SHELL_FILES))
def test_completion_scripts_are_current(shell: str) -> None:
    generated = run(home=None, env={"_ZERDA_COMPLETE": f"source_{shell}"})
    assert generated.returncode == 0
    assert generated.stdout == (COMPLETIONS / SHELL_FILES[shell]).read_bytes(), (
        f"regenerate: _ZERDA_COMPLETE=source_{shell} zerda > completions/{SHELL_FILES[shell]}"
    )


def complete_bash(words: str, home: Path | None) -> list[str]:
    """Ask `zerda` for bash completions of the last word of `words`."""
    parts = words.split(" ")
    env = {
        "_ZERDA_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
    }
    result = run(home=home, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode().split()


def test_session_arguments_complete_existing_sessions(home: Path, tmp_path: Path) -> None:
    store = SessionStore(home, fsync=False)
    for name in ("alpha", "alps", "beta"):
        store.append_turn(name, "q", "a")
    assert complete_bash("zerda show al", home) == ["alpha", "alps"]
    assert complete_bash("zerda export ", home) == ["alpha", "alps", "beta"]
    assert complete_bash("zerda search x --session b", home) == ["beta"]
    elsewhere = tmp_path / "elsewhere"
    SessionStore(elsewhere, fsync=False).append_turn("gamma", "q", "a")
    assert complete_bash(f"zerda stats --home {elsewhere} ", home) == ["gamma"]
    assert "show" in complete_bash("zerda sh", home)


def test_demo_runs_without_configuration_or_terminal(tmp_path: Path) -> None:
    env = {"CI": "true", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = run("demo", home=None, env=env)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    for section in ("zerda show demo", "zerda stats demo", "zerda window demo -k 2"):
        assert f"==> {section}" in out
    assert "==> zerda context demo --memory token" in out and "==> zerda search" in out
    assert "RecursionError" in out and b"\x1b" not in result.stdout
    temp_home = out.split("home: ", 1)[1].split(" ", 1)[0]
    assert not Path(temp_home).exists()
    assert not (tmp_path / "data").exists()


def test_demo_with_home_keeps_the_session_and_never_overwrites(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    assert run("demo", "--home", str(kept), home=None).returncode == 0
    assert run("demo", "--home", str(kept), home=None).returncode == 0
    assert SessionStore(kept).session_ids() == ["demo", "demo-2"]
