"""Start-up is part of the product: the commands a shell runs most (`add`, `show`, `stats`,
`sessions`, `search`) take the quick path, load only what they need, and say exactly what the full
command says. The time itself is measured in bench/ (`python -m bench`), never here."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from zerda import SessionStore
from zerda._paths import platform_dir
from zerda_cli.__main__ import main
from zerda_cli.quick import plan

# Loaded by none of the five commands on the file store: another store, the memory
# classes and summarizers, the command framework, the terminal and model libraries.
NOT_NEEDED = (
    "typer",
    "click",
    "rich",
    "prompt_toolkit",
    "tiktoken",
    "pydantic",
    "psycopg",
    "platformdirs",
    "zerda.store.postgres._store",
    "zerda.store.postgres._pool",
    "zerda.memory",
    "zerda.summarizers",
    "zerda.importers",
    "zerda.clients._openai",
    "zerda_cli.app",
    "zerda_cli.chat.config",
)
LOADED = """
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
from zerda_cli.__main__ import main
code = main(json.loads(sys.argv[1]))
print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)
"""


def loaded_modules(args: list[str], home: Path) -> list[str]:
    """The modules a fresh `zerda ARGS` process has loaded when it is done."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZERDA_", "XDG_"))}
    env.update(HOME=str(home.parent), ZERDA_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-c", LOADED, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    code, modules = json.loads(done.stderr.splitlines()[-1])
    assert code == 0, done.stderr
    return list(modules)


@pytest.mark.parametrize(
    "args",
    [
        ["add", "s", "a question", "an answer"],
        ["add", "s", "--role", "system", "be brief", "--meta", "k=v"],
        ["show", "s", "--last", "5"],
        ["show", "s", "--jsonl"],
        ["stats", "s"],
        ["sessions", "--limit", "10"],
        ["search", "hello"],
        ["search", "-w", "hel*", "--rank", "--json", "--role", "assistant", "--limit", "3"],
    ],
    ids=" ".join,
)
def test_the_quick_path_loads_only_what_it_needs(args: list[str], home: Path) -> None:
    SessionStore(home).append_turn("s", "Hi", "Hello!")  # counted: no read needs the encoder
    modules = loaded_modules(args, home)
    unneeded = [m for m in modules if m.split(".")[0] in NOT_NEEDED or m.startswith(NOT_NEEDED)]
    assert unneeded == []
    assert "zerda.store.files._store" in modules


def test_a_help_request_or_an_unknown_option_takes_the_full_command() -> None:
    assert plan(["add", "s", "a", "b"]) is not None
    for argv in (
        ["add", "s", "a", "b", "--help"],
        ["add", "s", "a", "b", "--unknown"],
        ["add", "s", "--", "-a", "b"],
        ["add", "../s", "a", "b"],
        ["add", "s", "a", "b", "--meta", "novalue"],
        ["add", "s", "--role", "", "b"],
        ["add", "s", "--role", "-x", "b"],
        ["show", "s", "--format", "markdown"],
        ["show", "s", "--since", "7d"],
        ["show", "s", "--lenient"],
        ["show", "s", "-n5"],
        ["show", "s", "--json=1"],
        ["stats", "s", "--models"],
        ["sessions", "--until", "1d"],
        ["sessions", "--sort", "size"],
        ["sessions", "extra"],
        ["--version"],
        ["search", "x", "--regex"],
        ["search", "x", "--since", "1d"],
        ["search", "x", "--lenient"],
        ["search", "x", "--session", "../s"],
        ["search", "x", "--limit", "0"],
        ["search", "x", "y"],
        ["search", "-x"],
        ["search"],
    ):
        assert plan(argv) is None, argv


CASES = [
    ["add", "s", "q1", "a1"],
    ["add", "s", "--role", "system", "be brief"],
    ["add", "s", "-r", "Alice", "hello", "--meta", "k=v", "-m", "n=1", "--meta", "k=w"],
    ["add", "s", "q2", "a2", "--json"],
    ["add", "s", "only one"],
    ["add", "s", "", "b"],
    ["add", "s", "-", "-"],
    ["add", "t", "-", "answer"],
    ["add", "s", "q", "a", "--home", "/nonexistent", "--store", "/nonexistent"],
    ["show", "s"],
    ["show", "s", "--last", "2"],
    ["show", "s", "-n", "0"],
    ["show", "s", "--last=1", "--no-pager"],
    ["show", "s", "--jsonl"],
    ["show", "s", "--jsonl", "--with-session", "--last", "2"],
    ["show", "s", "--json"],
    ["show", "s", "--json", "--jsonl"],
    ["show", "s", "--with-session"],
    ["show", "missing"],
    ["stats", "s"],
    ["stats", "s", "--json"],
    ["stats", "missing"],
    ["sessions"],
    ["sessions", "--limit", "1"],
    ["sessions", "--sort", "name", "--reverse"],
    ["sessions", "-r", "--json", "-n", "5"],
    ["sessions", "--sort=messages"],
    ["search", "yo"],
    ["search", "YO", "--json"],
    ["search", "nothing here"],
    ["search", ""],
    ["search", "hi", "--role", "user", "--json"],
    ["search", "hi", "--role", ","],
    ["search", "yo", "-s", "s", "--limit", "1"],
    ["search", "yo", "--session", "missing"],
    ["search", "y*", "-w", "--rank", "--json"],
    ["search", "***", "--words"],
    ["search", "q1", "--words", "--json", "--home", "/nonexistent", "--store", "/nonexistent"],
]


def outcome(argv: list[str], quick: bool, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple:  # type: ignore[no-untyped-def]
    """(exit code, stdout, stderr) of one in-process run, uuids and times blanked."""
    monkeypatch.setenv("ZERDA_QUICK", "1" if quick else "0")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"from stdin\n")))
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, _blanked(captured.out), captured.err


def _blanked(text: str) -> str:
    import re

    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", "U", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "T", text)
    return re.sub(r"(file_size\"?:?\s+)\d+", r"\1N", text)  # times are written in varying widths


def stored(home: Path) -> Iterator[tuple[str, list[tuple[str, str, dict[str, object]]]]]:
    store = SessionStore(home)
    for sid in sorted(store.session_ids()):
        yield sid, [(m.role, m.content, m.metadata) for m in store.iter_messages(sid)]


def test_the_quick_path_says_what_the_full_command_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    homes = {quick: tmp_path / f"home-{quick}" for quick in (True, False)}
    for home in homes.values():
        SessionStore(home).append_turn("s", "Hi", "Yo")
    for argv in CASES:
        results = []
        for quick, home in homes.items():
            monkeypatch.setenv("ZERDA_HOME", str(home))
            results.append(outcome(argv, quick, monkeypatch, capsys))
        assert results[0] == results[1], argv
    assert list(stored(homes[True])) == list(stored(homes[False]))
    assert [sid for sid, _ in stored(homes[True])] == ["s", "t"]


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/config"},
        {"XDG_CACHE_HOME": "relative/cache", "XDG_STATE_HOME": " /x/state"},
        {"XDG_DATA_HOME": "", "HOME": "/elsewhere"},
        {"HOME": "relative-home"},
    ],
)
def test_platform_dirs_are_platformdirs_own(env: dict[str, str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    for kind in ("data", "cache", "config", "state"):
        expected = getattr(platformdirs, f"user_{kind}_dir")("zerda")
        assert str(platform_dir(kind)) == expected, kind


def test_the_provenance_key_is_the_clients_own() -> None:
    from zerda.clients._base import PROVENANCE_KEY as CLIENTS
    from zerda_cli.render.provenance import PROVENANCE_KEY as RENDER

    assert RENDER == CLIENTS
