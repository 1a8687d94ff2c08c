"""Any command line, any stdin: exit 0, 1 or 2 with at most a one-line error, never a crash."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerda import SessionStore
from zerda_cli.__main__ import main

COMMANDS = [
    "add", "show", "stats", "window", "context", "clear", "delete",
    "sessions", "export", "import", "search",
]  # fmt: skip
OPTIONS = [
    "--json", "--jsonl", "--last", "-k", "--max-tokens", "--memory", "--format", "--role",
    "--meta", "--session", "--yes", "--no-pager", "--help",
]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(["s", "t", "-", "0", "-1", "3", "99999999999999999999", "", "buffer",
                     "window", "token", "summary", "json", "openai", "markdown", "x=y", "=",
                     "../x", ".hidden", "a" * 129, "[bold red]x[/]", "\x1b[31m", "user"]),
    st.text(max_size=12),
)  # fmt: skip
ARGS = st.lists(st.one_of(st.sampled_from(OPTIONS), VALUES), max_size=6)
STDIN = st.one_of(st.binary(max_size=40), st.just(b'[{"role": "user", "content": "hi"}]'))


class Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    store = SessionStore(path, fsync=False)
    for n in range(3):
        store.append_turn("s", f"question {n}", f"answer {n}")
    monkeypatch.setenv("ZERDA_HOME", str(path))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)  # a stray relative path lands here, not in the checkout
    return path


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=st.sampled_from(COMMANDS), args=ARGS, stdin=STDIN)
def test_no_crash_for_any_input(
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    args: list[str],
    stdin: bytes,
) -> None:
    if "-o" in args:
        return
    monkeypatch.setattr(sys, "stdin", Stdin(io.BytesIO(stdin), encoding="utf-8"))
    before = (home / "sessions" / "s.jsonl").read_bytes()
    code = main([command, *args])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (command, args, err)
    assert "Traceback" not in err and "error: unexpected " not in err, (command, args, err)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) <= 1, err
    # search exits 1 when nothing matched, as grep: a note says so, or --json prints []
    quiet = "no messages match" in err or out.strip() == "[]"
    nothing_found = command == "search" and code == 1 and quiet
    if code != 0 and not nothing_found:  # search exits 1 when nothing matched, as grep
        assert errors, (command, args, err)
    after_path = home / "sessions" / "s.jsonl"
    if after_path.exists() and command not in ("add", "import", "clear"):
        assert after_path.read_bytes()[: len(before)] == before  # nothing stored was lost


DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_DOCUMENTS = [
    DEEP,
    '[{"role": "user", "content": "x", "metadata": {"deep": ' + DEEP + "}}]",
    '[{"role": "user", "content": "x", "token_count": ' + "9" * 5_000 + "}]",
    '[{"role": "user", "content": "x", "token_count": 1e400}]',
    '[{"role": "user", "content": "x", "created_at": 1e400}]',
    '[{"role": "user", "content": "x", "created_at": "' + "9" * 5_000 + '"}]',
    '{"role": "user", "content": "x", "token_count": ' + "9" * 5_000 + "}\n",
    '{"role": "user", "content": "' + "\\ud800" + '"}\n',
    '{"session": {"id": "x", "created_at": 1e400}, "summary": 5, "messages": []}',
    '{"session": "no", "summary": {"content": '
    + DEEP
    + '}, "messages": [{"role": "a", "content": "b"}]}',
]


@pytest.mark.parametrize("document", HOSTILE_DOCUMENTS, ids=range(len(HOSTILE_DOCUMENTS)))
def test_hostile_imports_are_one_error_and_write_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, document: str
) -> None:
    monkeypatch.setattr(sys, "stdin", Stdin(io.BytesIO(document.encode()), encoding="utf-8"))
    before = (home / "sessions" / "s.jsonl").read_bytes()
    code = main(["import", "s", "-"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "unexpected" not in err, err
    assert (home / "sessions" / "s.jsonl").read_bytes() == before


@pytest.mark.parametrize("line", [DEEP, '{"type":"message","n":' + "9" * 5_000 + "}"])
@pytest.mark.parametrize("command", [["show", "s"], ["export", "s"], ["window", "s"]])
def test_hostile_lines_in_a_session_file_are_one_error(
    home: Path, capsys: pytest.CaptureFixture[str], line: str, command: list[str]
) -> None:
    path = home / "sessions" / "s.jsonl"
    data = path.read_bytes()
    first = data.index(b"\n") + 1
    path.write_bytes(data[:first] + line.encode() + b"\n" + data[first:])
    code = main(command)
    err = capsys.readouterr().err
    assert code == 1 and "line 2" in err and "unexpected" not in err, err
