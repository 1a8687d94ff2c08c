"""`zerda import [SESSION] FILE|-`: other tools' exports as sessions, or one session's
messages from zerda's own export or an OpenAI array.

The format is told from the file (`zerda.importers.detect`) unless `--from` names it.
With SESSION, a file of one session's messages (zerda's export, OpenAI messages,
stdin) is read by `zerda.importers._native` into session SESSION, as always; an export of
many conversations gets SESSION as the prefix of their session ids (`SESSION-<id>`),
or as the session id when it holds one conversation.
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from zerda_cli import render
from zerda_cli.options.errors import InputError
from zerda_cli.options.params import HomeOpt, StoreOpt, check_session, open_store, usage_error
from zerda_cli.render.progress import AFTER

if TYPE_CHECKING:
    from zerda.importers import Report
    from zerda.store.base import Store


class ImportFormat(StrEnum):
    """What `zerda import --from` reads."""

    chatgpt = "chatgpt"
    claude = "claude"
    llm = "llm"
    aichat = "aichat"
    sgpt = "sgpt"
    langchain = "langchain"
    zerda = "zerda"
    openai = "openai"


def import_(
    args: Annotated[
        list[str],
        typer.Argument(metavar="[SESSION] FILE|-", help="'-' reads stdin.", show_default=False),
    ],
    source_format: Annotated[
        ImportFormat | None, typer.Option("--from", help="The format (else told from FILE).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be imported; write nothing.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first conversation that cannot be read.")
    ] = False,
    entities: Annotated[
        bool,
        typer.Option(
            "--entities",
            help="Store each message's entities as it goes (slower; else later "
            "with zerda entities).",
        ),
    ] = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Add zerda's JSONL/JSON export or an OpenAI messages array to SESSION, or import
    another tool's history (ChatGPT, Claude, llm, aichat, shell_gpt, LangChain), a
    session per conversation (SESSION, if given, their prefix).

    Importing again adds only what is new: messages keep ids derived from the source.
    """
    import_history(
        args,
        source_format,
        dry_run=dry_run,
        strict=strict,
        entities=entities,
        home=home,
        location=location,
    )


def import_history(
    args: list[str],
    fmt: ImportFormat | None,
    *,
    dry_run: bool,
    strict: bool,
    entities: bool = False,
    home: Path | None,
    location: str | None,
) -> None:
    """The work of `zerda import`: entities are stored as messages go in only with
    `entities` (else `zerda entities` stores them later)."""
    session, source = _split(args)
    chosen = fmt.value if fmt else _detected(source, session)
    if chosen in ("zerda", "openai"):
        if session is None:
            raise usage_error(f"SESSION is needed to import {chosen} messages from {source}")
        opening = partial(open_store, home, location, extract_entities=entities)
        _one_session(session, source, dry_run=dry_run, store=opening)
        return
    from zerda.importers import import_conversations, read

    with _local(source) as path, _Progress() as progress:
        store = open_store(home, location, extract_entities=entities)
        found = read(path, chosen)
        report = import_conversations(
            store, found, dry_run=dry_run, strict=strict, prefix=session, progress=progress
        )
    for problem in report.problems:
        render.note(f"problem: {problem}")
    render.note(("dry run: would have " if dry_run else "") + report.summary())
    if report.problems:
        raise typer.Exit(1)


def _split(args: list[str]) -> tuple[str | None, str]:
    """(SESSION or None, FILE) of the command's one or two arguments."""
    if len(args) not in (1, 2):
        raise usage_error("give FILE, or SESSION and FILE")
    if len(args) == 1:
        return None, args[0]
    try:
        return check_session(args[0]), args[1]
    except typer.BadParameter as exc:
        exc.param_hint = "'SESSION'"
        raise


def _detected(source: str, session: str | None) -> str:
    """The format of `source`. With SESSION, whatever is not another tool's export
    (stdin, a missing file, a file of messages) goes to the one-session path, as before."""
    from zerda.importers import ImportFailed, detect

    path = Path(source).expanduser()
    if source == "-" or not (path.is_file() or path.is_dir()):
        if session is not None:
            return "zerda"
        if source != "-" and not path.exists():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), source)
        what = "stdin" if source == "-" else source
        raise InputError(f"cannot tell the format of {what}; name it with --from")
    try:
        found = detect(path)
    except ImportFailed:
        if session is None:
            raise
        return "zerda"
    return "openai" if session is not None and found == "sgpt" and path.is_file() else found


@contextmanager
def _local(source: str) -> Iterator[Path]:
    """`source` as a path; stdin is first copied to a private temp file."""
    if source != "-":
        yield Path(source).expanduser()
        return
    with tempfile.TemporaryDirectory() as folder:  # mode 0700: the copy is private
        path = Path(folder) / "stdin"
        with path.open("wb") as copy:
            while chunk := sys.stdin.buffer.read(1 << 20):
                copy.write(chunk)
        yield path


def _one_session(session: str, source: str, *, dry_run: bool, store: Callable[[], Store]) -> None:
    """zerda's JSONL/JSON export or an OpenAI messages array into session SESSION."""
    from zerda.importers._native import check_import, import_file, opened

    with opened(source) as (fd, name):
        found = check_import(fd, name)
        if dry_run:
            render.note(f"dry run: would import {found.messages} messages into session {session}")
            return
        # Counted now: loading the encoder is small beside a bulk import, and counts left
        # for the first reader sit in a record at the end, which streaming readers wait for.
        count = import_file(store(), session, found)
    render.note(f"imported {count} messages into session {session}")


class _Progress:
    """Sessions and messages imported so far, on stderr when it is a terminal, after
    a second of work; erased at the end."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, report: Report) -> None:
        if time.monotonic() - self.started < AFTER or not sys.stderr.isatty():
            return
        sys.stderr.write(f"\rimporting: {report.sessions} sessions, {report.messages} messages")
        sys.stderr.flush()
        self.shown = True

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
