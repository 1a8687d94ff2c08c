"""How tests run `zerda`: in the test's own process (the `zerda` fixture of
tests/conftest.py, built on `in_process`) or as a real process of the installed command
(`process`). Both take the same arguments and give the same `Result`.

In-process is the default and the fast one: `main(argv)` with stdin from bytes, stdout and
stderr captured, no terminal. A real process is for what only a process shows: the
installed entry point, signals and kills, a closed pipe, memory bounds, the environment a
shell gives, several commands at once.

Both run in the test's environment, which tests/conftest.py starts without the variables
that would choose a store, a backend, a configuration or a model for zerda (`ZERDA_*` and
`OPENAI_*` but the suite's own `ZERDA_TEST_*` and the encoder cache; see `settings`), with
`ZERDA_HOME` set to the `home` given (unset when None) and `env` applied last (a value of
None unsets the name).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pytest

# The installed `zerda`, beside the Python running the tests.
ZERDA = str(Path(sys.executable).parent / "zerda")
KEPT = ("ZERDA_TEST_", "ZERDA_CACHE_DIR")  # what the suite and the encoder cache need
Env = Mapping[str, "str | None"]


@dataclass(frozen=True)
class Result:
    """Exit code, stdout and stderr of one run of `zerda`."""

    code: int
    stdout: bytes
    stderr: bytes

    @property
    def out(self) -> str:
        """stdout as text (output that is not UTF-8 fails the test here)."""
        return self.stdout.decode("utf-8")

    @property
    def err(self) -> str:
        """stderr as text (output that is not UTF-8 fails the test here)."""
        return self.stderr.decode("utf-8")

    def one_error_line(self) -> bool:
        """stderr is one line ending in a newline, with no other line break (CR included)."""
        return self.err.endswith("\n") and len(self.err.splitlines()) == 1

    def json(self) -> Any:
        return json.loads(self.stdout)

    def jsonl(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines()]


class Runner(Protocol):
    """The `zerda` fixture: `zerda(*args, stdin=b"", env=None, home=...)`."""

    def __call__(
        self, *args: str, stdin: bytes | str = b"", env: Env | None = None, home: Path | None = ...
    ) -> Result: ...


def settings(environ: Mapping[str, str]) -> list[str]:
    """The names in `environ` that would set zerda up from outside the test."""
    return [
        name
        for name in environ
        if name.startswith(("ZERDA_", "OPENAI_")) and not name.startswith(KEPT)
    ]


def environment(home: Path | None, env: Env | None = None) -> dict[str, str]:
    """The environment a run of `zerda` gets (see the module's docstring)."""
    full = dict(os.environ)
    full.pop("ZERDA_HOME", None)
    if home is not None:
        full["ZERDA_HOME"] = str(home)
    for name, value in (env or {}).items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    return full


def process(
    home: Path | None,
    *args: str,
    stdin: bytes | str = b"",
    env: Env | None = None,
    timeout: float = 120,
) -> Result:
    """`zerda ARGS` as a real process of the installed command, stdin piped."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [ZERDA, *args],
        input=data,
        capture_output=True,
        env=environment(home, env),
        timeout=timeout,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def in_process(
    home: Path | None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Runner:
    """A runner calling `zerda_cli`'s `main` in this process on `home` (the default of
    each call's `home`), its environment set as `process` sets it and put back after."""
    from zerda_cli.__main__ import main

    # The command sets its own warning display; the test's is put back after.
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    default = home

    def run(
        *args: str, stdin: bytes | str = b"", env: Env | None = None, home: Path | None = default
    ) -> Result:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        capsys.readouterr()  # what the test printed before is not the command's
        with environ(monkeypatch, environment(home, env)):
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, encoded(captured.out), encoded(captured.err))

    return run


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


@contextmanager
def environ(monkeypatch: pytest.MonkeyPatch, wanted: Mapping[str, str]) -> Iterator[None]:
    """`os.environ` as `wanted` for the block, as it was after."""
    with monkeypatch.context() as patch:
        for name in set(os.environ) - set(wanted):
            patch.delenv(name)
        for name, value in wanted.items():
            if os.environ.get(name) != value:
                patch.setenv(name, value)
        yield
