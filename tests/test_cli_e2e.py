"""The installed `zerda` as a real subprocess: stdin, pipes, big input, completions, demo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import ZERDA, environment, process

from zerda import SessionStore

COMPLETIONS = Path(__file__).resolve().parent.parent / "completions"
SHELL_FILES = {"bash": "zerda.bash", "zsh": "_zerda", "fish": "zerda.fish"}


def test_ten_megabyte_message_from_stdin_round_trips(home: Path) -> None:
    big = ("0123456789abcdef" * 655_360)[:10_000_000] + "\nend ü"
    added = process(home, "add", "big", "-", "short answer", stdin=big)
    assert added.code == 0, added.stderr
    shown = process(home, "show", "big", "--jsonl")
    assert json.loads(shown.stdout.splitlines()[0])["content"] == big
    text = process(home, "show", "big").out
    assert big.replace("\n", "\n  ") in text


def test_piped_output_is_plain(home: Path) -> None:
    process(home, "add", "s", "hello", "world")
    for args in (("show", "s"), ("stats", "s"), ("sessions",), ("search", "hello")):
        result = process(home, *args, env={"TERM": "xterm-256color", "FORCE_COLOR": "1"})
        assert result.code == 0 and b"\x1b" not in result.stdout, args
        assert "╭".encode() not in result.stdout


def test_home_option_overrides_the_environment(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert process(home, "add", "s", "a", "b", "--home", str(other)).code == 0
    assert SessionStore(other).exists("s") and not SessionStore(home).exists("s")


def test_broken_pipe_is_quiet(home: Path) -> None:
    store = SessionStore(home, fsync=False)
    for n in range(400):
        store.append_turn("long", f"question {n}", "answer " * 50)
    pipeline = subprocess.run(
        f"'{ZERDA}' show long | head -n 1",
        shell=True,
        capture_output=True,
        env=environment(home),
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
    generated = process(None, env={"_ZERDA_COMPLETE": f"source_{shell}"})
    assert generated.code == 0
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
    result = process(home, env=env)
    assert result.code == 0, result.stderr
    return result.out.split()


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
    result = process(None, "demo", env=env)
    assert result.code == 0, result.stderr
    out = result.out
    for section in ("zerda show demo", "zerda stats demo", "zerda window demo -k 2"):
        assert f"==> {section}" in out
    assert "==> zerda context demo --memory token" in out and "==> zerda search" in out
    assert "RecursionError" in out and b"\x1b" not in result.stdout
    temp_home = out.split("home: ", 1)[1].split(" ", 1)[0]
    assert not Path(temp_home).exists()
    assert not (tmp_path / "data").exists()


def test_demo_with_home_keeps_the_session_and_never_overwrites(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    assert process(None, "demo", "--home", str(kept)).code == 0
    assert process(None, "demo", "--home", str(kept)).code == 0
    assert SessionStore(kept).session_ids() == ["demo", "demo-2"]


def complete(shell: str, words: str) -> list[str]:
    """The values `zerda` offers for the last word of `words` in `shell`'s protocol."""
    if shell == "bash":
        return complete_bash(words, None)
    env = {"_ZERDA_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": words}
    if shell == "fish":
        env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    out = process(None, env=env).out
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
        shown = process(None, command, "--help", env=env).out
        assert "<bool>" not in shown and "<str>" not in shown and "{" not in shown, command
    add = process(None, "add", "--help", env=env).out
    assert "zerda add [OPTIONS] SESSION (INPUT OUTPUT | CONTENT)..." in add
    assert "zerda chat [OPTIONS] [SESSION]" in process(None, "chat", "-h", env=env).out


def test_a_home_that_is_not_a_directory_is_one_error_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    for args in (("sessions",), ("show", "s"), ("add", "s", "q", "a"), ("stats", "s")):
        result = process(None, *args, "--home", str(afile))
        assert result.code == 2, args
        assert result.err == (
            f"error: --home {afile} is not a directory (see 'zerda {args[0]} --help')\n"
        )
    by_environment = process(afile, "sessions")
    assert by_environment.code == 2 and b"ZERDA_HOME" in by_environment.stderr
    assert afile.read_text() == "not a directory"


def test_empty_messages_are_refused_and_nothing_is_written(home: Path) -> None:
    for args, name in [
        (("s", "", ""), "INPUT"),
        (("s", "question", "  "), "OUTPUT"),
        (("s", "--role", "user", ""), "CONTENT"),
    ]:
        result = process(home, "add", *args)
        assert result.code == 2, args
        assert result.err.startswith(f"error: {name} is empty; nothing was written")
    assert not SessionStore(home).exists("s")


def test_fifty_megabytes_from_stdin_are_refused_in_one_line_and_nothing_is_written(
    home: Path,
) -> None:
    big = b"0123456789abcdef" * (50 * 1024 * 1024 // 16)
    result = process(home, "add", "big", "-", "answer", stdin=big)
    assert result.code == 1
    assert result.err == (
        "error: stdin is larger than 16.0 MiB, the limit per message; nothing was written\n"
    )
    assert not SessionStore(home).exists("big")
    just_under = b"x" * (16 * 1024 * 1024)
    assert process(home, "add", "big", "-", "answer", stdin=just_under).code == 0
    stats = process(home, "stats", "big", "--json")
    assert json.loads(stats.stdout)["messages"] == 2


def test_plurals_say_one_message(home: Path) -> None:
    process(home, "add", "one", "--role", "user", "hello")
    cleared = process(home, "clear", "one", "--yes")
    assert cleared.err == "cleared session one: 1 message removed\n"
