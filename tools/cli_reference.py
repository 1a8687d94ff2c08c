"""Write docs/cli-reference.md: what `zerda --help` and every `zerda COMMAND --help` print.

    .venv/bin/python tools/cli_reference.py           # write docs/cli-reference.md
    .venv/bin/python tools/cli_reference.py --check   # exit 1 when it is out of date

The command runs in a fresh interpreter (the one running this script, so the zerda
installed beside it) through `zerda_cli.__main__.main`, the function the `zerda` script
calls, with a fixed environment: 100 columns, a dumb terminal, no colour, a C.UTF-8
locale and an empty temporary home, so the page is the same on every machine and every
run. Every command is listed, groups (`zerda index`, `zerda store`) with their own
commands, in the order `zerda --help` lists them. tests/test_docs.py checks that the page
is current.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli-reference.md"
COMMAND = ".venv/bin/python tools/cli_reference.py"
HEADER = f"""# Command reference

What `zerda --help` and `zerda COMMAND --help` print, for every command (100 columns wide),
generated from the command itself by `{COMMAND}`: do not edit it by
hand. The [command guide](cli.md) explains the commands with examples.
"""


def environment(home: str) -> dict[str, str]:
    """The fixed environment the help is printed in: nothing of the caller's leaks in."""
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.defpath]),
        "HOME": home,
        "ZERDA_HOME": home,
        "COLUMNS": "100",
        "LINES": "50",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
        "_TYPER_FORCE_DISABLE_TERMINAL": "1",
    }


def command_paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """`()` for `zerda`, then each command's words, a group's commands after the group."""
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            yield from command_paths(sub, (*path, name))


def dump() -> None:
    """In the fresh interpreter: print {"zerda ...": help text} as JSON."""
    from typer.main import get_command

    from zerda_cli.__main__ import main
    from zerda_cli.app import app

    helps: dict[str, str] = {}
    for path in command_paths(get_command(app)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([*path, "--help"])
        if code != 0:
            raise SystemExit(f"zerda {' '.join(path)} --help exited {code}")
        helps[" ".join(("zerda", *path))] = out.getvalue()
    json.dump(helps, sys.stdout)


def tidy(text: str) -> str:
    """The help as printed, without the padding Rich adds to the right and around it."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def render() -> str:
    """The page, from the help that a fresh interpreter prints in a fixed environment."""
    with tempfile.TemporaryDirectory(prefix="zerda-cli-reference-") as home:
        result = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--dump"],
            env=environment(home),
            cwd=home,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(f"printing the help failed:\n{result.stderr}")
    helps: dict[str, str] = json.loads(result.stdout)
    contents = [f"- [`{name}`](#{name.replace(' ', '-')})" for name in helps]
    sections = [f"## `{name}`\n\n```text\n{tidy(text)}\n```" for name, text in helps.items()]
    return "\n\n".join([HEADER.strip("\n"), "\n".join(contents), *sections]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dump:
        dump()
        return 0
    page = render()
    if not args.check:
        PAGE.write_text(page, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")
        return 0
    current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    if current == page:
        return 0
    diff = difflib.unified_diff(
        current.splitlines(keepends=True),
        page.splitlines(keepends=True),
        "docs/cli-reference.md",
        "generated",
    )
    sys.stderr.writelines(diff)
    sys.stderr.write(f"docs/cli-reference.md is out of date: run `{COMMAND}`\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
