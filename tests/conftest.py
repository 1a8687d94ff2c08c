"""Shared fixtures (a private temporary ZERDA_HOME and a store on it) and the suite's marks.

Every test gets its marks (`slow`, `postgres`, `pty`, `processes`) from tests/markers.py.
A run without options is the fast selection: the tests marked `slow` or `processes` (which
include every `pty` one) are left out. `--all` runs every test; `-m EXPR` chooses by marks
instead (`-m "not slow"` adds the processes back). A file or a test named on the command
line runs whole; the fast selection is for runs over directories (`tests`, the default).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import markers
import pytest
from cli_runner import Runner, in_process, settings

from zerda import SessionStore

ALL = "zerda_all"
LEFT_OUT = pytest.StashKey[int]()  # how many tests the fast selection left out


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        dest=ALL,
        help="run every test: without it (or -m), those marked slow or processes are left out",
    )


@pytest.hookimpl(tryfirst=True)  # before -m chooses by the marks given here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark(items)
    if config.getoption(ALL) or config.getoption("markexpr"):
        return
    named = named_on_the_command_line(config)
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        default = any(item.get_closest_marker(name) for name in markers.LEFT_OUT_BY_DEFAULT)
        if default and not any(names(node_id, item.nodeid) for node_id in named):
            left_out.append(item)
        else:
            kept.append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
        config.stash[LEFT_OUT] = len(left_out)


def mark(items: list[pytest.Item]) -> None:
    """Give each item its marks; stop if tests/markers.py names a test that is gone."""
    modules: dict[str, ModuleType] = {}
    for item in items:
        for name in sorted(markers.marks_for(item)):
            item.add_marker(name)
        if isinstance(item, pytest.Function):
            modules[markers.module_name(item)] = item.module
    for module, defined in modules.items():
        if gone := markers.stale(module, defined):
            raise pytest.UsageError(
                f"tests/markers.py names {', '.join(gone)} in tests/{module}, which has none"
            )


def named_on_the_command_line(config: pytest.Config) -> list[str]:
    """The files and tests the arguments name, as node ids from the rootdir (a directory
    names neither)."""
    found = []
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        full = (config.invocation_params.dir / path).resolve()
        if not (sep or full.is_file()):
            continue
        try:
            node_id = full.relative_to(config.rootpath).as_posix()
        except ValueError:
            continue
        found.append(f"{node_id}::{rest}" if sep else node_id)
    return found


def names(node_id: str, item_id: str) -> bool:
    """True when `node_id` (a file, a test, or a test without its parameters) names the item."""
    return item_id == node_id or item_id.startswith((node_id + "[", node_id + "::"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if left_out := terminalreporter.config.stash.get(LEFT_OUT, 0):
        terminalreporter.write_line(
            f"the fast selection left out {left_out} tests (marked slow or processes);"
            " --all runs every test"
        )


@pytest.fixture(autouse=True)
def no_outside_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test function starts without zerda's settings from the environment it was run
    in (`ZERDA_STORE`, `ZERDA_CONFIG`, `OPENAI_API_KEY`, ...): what a test sets, it sets.
    A fixture of wider scope, set up before this, builds its own environment (as
    tests/serve_helpers.py does for `zerda serve`)."""
    for name in settings(os.environ):
        monkeypatch.delenv(name)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data home, also exported as ZERDA_HOME for code that reads the environment."""
    path = tmp_path / "home"
    monkeypatch.setenv("ZERDA_HOME", str(path))
    return path


@pytest.fixture
def store(home: Path) -> SessionStore:
    """A store on `home`; fsync off, since no test here cuts the power."""
    return SessionStore(home, fsync=False)


@pytest.fixture
def zerda(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Runner:
    """`zerda(*args, stdin=b"", env=None, home=home)`: the command run in this process on
    `home` (tests/cli_runner.py), giving a Result; `cli_runner.process` runs it as a real
    process."""
    return in_process(home, capsys, monkeypatch)
