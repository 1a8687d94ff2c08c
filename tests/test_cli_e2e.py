"""The installed `zerda` as a real subprocess: stdin, pipes, big input, completions, demo."""

from __future__ import annotations

import json
import os
import shutil
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
    assert json.loads(shown.stdout.splitlines()[0])["content"] == big
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


def complete(shell: str, words: str) -> list[str]:
    """The values `zerda` offers for the last word of `words` in `shell`'s protocol."""
    if shell == "bash":
        return complete_bash(words, None)
    env = {"_ZERDA_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": words}
    if shell == "fish":
        env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    out = run(home=None, env=env).stdout.decode()
    if shell == "fish":
        return [line.split("\t")[0] for line in out.splitlines()]
    assert out.startswith("_arguments '*: :((") and out.rstrip().endswith("))'"), out
    items = out.rstrip()[18:-3].splitlines()
    return [item.split('":"')[0].strip('"').replace("\\\\:", ":") for item in items]


@pytest.mark.parametrize("shell", sorted(SHELL_FILES))
def test_options_with_fixed_values_complete_those_values(shell: str) -> None:
    assert complete(shell, "zerda chat --backend ") == ["manual", "command", "openai"]
    assert complete(shell, "zerda chat --command-format ") == ["json", "text"]
    assert complete(shell, "zerda chat --memory ") == [
        "buffer",
        "window:10",
        "token:2000",
        "summary:2000",
    ]
    assert complete(shell, "zerda chat --memory to") == ["token:2000"]
    assert complete(shell, "zerda export s --format ") == [
        "jsonl",
        "json",
        "openai",
        "markdown",
        "text",
    ]


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed")
def test_zsh_completion_descriptions_keep_their_apostrophes() -> None:
    """What zsh's `_arguments` receives, with the completion script's own `eval`."""
    script = (
        '_arguments() { printf "%s\\n" "$@"; }; '
        f'eval $(env _TYPER_COMPLETE_ARGS="zerda " _ZERDA_COMPLETE=complete_zsh {ZERDA})'
    )
    result = subprocess.run(["zsh", "-c", script], capture_output=True, text=True, check=True)
    assert "(the user's INPUT" in result.stdout and "zerda's JSONL" in result.stdout


def test_help_shows_no_type_after_flags_and_arguments_by_name() -> None:
    env = {"COLUMNS": "120", "TERM": "dumb"}
    for command in ("chat", "add", "show", "stats", "export"):
        shown = run(command, "--help", home=None, env=env).stdout.decode()
        assert "<bool>" not in shown and "<str>" not in shown and "{" not in shown, command
    add = run("add", "--help", home=None, env=env).stdout.decode()
    assert "zerda add [OPTIONS] SESSION (INPUT OUTPUT | CONTENT)..." in add
    assert "zerda chat [OPTIONS] [SESSION]" in run("chat", "-h", home=None, env=env).stdout.decode()


def test_a_home_that_is_not_a_directory_is_one_error_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    for args in (("sessions",), ("show", "s"), ("add", "s", "q", "a"), ("stats", "s")):
        result = run(*args, "--home", str(afile), home=None)
        assert result.returncode == 2, args
        assert result.stderr.decode() == (
            f"error: --home {afile} is not a directory (see 'zerda {args[0]} --help')\n"
        )
    by_environment = run("sessions", home=afile)
    assert by_environment.returncode == 2 and b"ZERDA_HOME" in by_environment.stderr
    assert afile.read_text() == "not a directory"


def test_empty_messages_are_refused_and_nothing_is_written(home: Path) -> None:
    for args, name in [
        (("s", "", ""), "INPUT"),
        (("s", "question", "  "), "OUTPUT"),
        (("s", "--role", "user", ""), "CONTENT"),
    ]:
        result = run("add", *args, home=home)
        assert result.returncode == 2, args
        assert result.stderr.decode().startswith(f"error: {name} is empty; nothing was written")
    assert not SessionStore(home).exists("s")


def test_fifty_megabytes_from_stdin_are_refused_in_one_line_and_nothing_is_written(
    home: Path,
) -> None:
    big = b"0123456789abcdef" * (50 * 1024 * 1024 // 16)
    result = run("add", "big", "-", "answer", home=home, stdin=big)
    assert result.returncode == 1
    assert result.stderr.decode() == (
        "error: stdin is larger than 16.0 MiB, the limit per message; nothing was written\n"
    )
    assert not SessionStore(home).exists("big")
    just_under = b"x" * (16 * 1024 * 1024)
    assert run("add", "big", "-", "answer", home=home, stdin=just_under).returncode == 0
    stats = run("stats", "big", "--json", home=home)
    assert json.loads(stats.stdout)["messages"] == 2


def test_plurals_say_one_message(home: Path) -> None:
    run("add", "one", "--role", "user", "hello", home=home)
    cleared = run("clear", "one", "--yes", home=home)
    assert cleared.stderr.decode() == "cleared session one: 1 message removed\n"
