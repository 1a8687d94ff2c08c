"""The `zerda` commands: each validates its input, calls the library and hands over to `render`.

Heavy modules (Rich, the memory classes, the token encoder) are imported inside the
commands that need them, so `zerda add` starts fast.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer

from zerda.errors import CorruptSessionError, SkippedLineWarning
from zerda.messages import ROLE_TYPE_OF
from zerda.store.base import Store
from zerda_cli import basics, render
from zerda_cli.browse.command import browse
from zerda_cli.chat.command import chat
from zerda_cli.commands.copy import copy
from zerda_cli.commands.doctor import doctor
from zerda_cli.commands.entities import entities
from zerda_cli.commands.imports import ImportFormat, import_history
from zerda_cli.commands.index import index_app
from zerda_cli.commands.manage import fork, rename, title
from zerda_cli.commands.mcp import mcp
from zerda_cli.commands.prune import prune
from zerda_cli.commands.search import search
from zerda_cli.commands.serve import serve
from zerda_cli.commands.sessions import sessions
from zerda_cli.commands.store import store_app
from zerda_cli.commands.summarize import summarize
from zerda_cli.params import (
    ExportFormat,
    HomeOpt,
    JsonOpt,
    LenientOpt,
    MemoryKind,
    SessionArg,
    ShowFormat,
    StoreOpt,
    YesOpt,
    check_role_option,
    confirm,
    open_store,
    parse_meta,
)
from zerda_cli.spans import SinceOpt, UntilOpt

app = typer.Typer(
    name="zerda",
    help="Chat history from the shell: record, show, search, trim, export and reuse it.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from zerda import __version__

        typer.echo(f"zerda {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Chat history from the shell: record, show, search, trim, export and reuse it."""


@app.command()
def add(
    session: SessionArg,
    texts: Annotated[
        list[str],
        typer.Argument(metavar="INPUT OUTPUT | CONTENT", help="'-' reads one of them from stdin."),
    ],
    role: Annotated[
        str | None,
        typer.Option(
            "--role",
            "-r",
            metavar="ROLE",
            help="Record one message from ROLE, kept as given (user, assistant, system, tool, "
            "human, ai, or any name such as Alice).",
            autocompletion=lambda: list(ROLE_TYPE_OF),
        ),
    ] = None,
    meta: Annotated[
        list[str] | None,
        typer.Option("--meta", "-m", metavar="KEY=VALUE", help="Message metadata (repeatable)."),
    ] = None,
    as_json: JsonOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Record a turn (the user's INPUT, the assistant's OUTPUT) or, with --role, one message."""
    basics.check_add_shape(texts, role)
    metadata = parse_meta(meta or [])
    if role is not None:
        check_role_option(role)
    basics.add(session, texts, role, metadata, as_json, home, location)


@app.command()
def show(
    session: SessionArg,
    last: Annotated[
        int | None, typer.Option("--last", "-n", min=0, help="Only the last N messages.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document.")] = False,
    jsonl: Annotated[
        bool, typer.Option("--jsonl", help="One JSON message a line, nothing else.")
    ] = False,
    with_session: Annotated[
        bool,
        typer.Option(
            "--with-session",
            help="With --jsonl: the session record and the summary record first, as export "
            "writes them.",
        ),
    ] = False,
    fmt: Annotated[
        ShowFormat | None, typer.Option("--format", "-f", help="Another rendering.")
    ] = None,
    pager: Annotated[
        bool, typer.Option("--pager/--no-pager", help="Page long transcripts on a terminal.")
    ] = True,
    entities: Annotated[
        bool,
        typer.Option(
            "--entities",
            "-e",
            help="Each message's entities (people, places, dates, ...): those stored, else "
            "found now.",
        ),
    ] = False,
    since: SinceOpt = None,
    until: UntilOpt = None,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """The transcript: who said what, when, and how many tokens it took.

    --since/--until keep the messages created in that range (the last N of them with
    --last); the summary is shown as ever.
    """
    rendering = basics.show_format(as_json, jsonl, with_session, fmt.value if fmt else None)
    where = (lenient, home, location)
    basics.show(session, last, rendering, pager, since, until, *where, entities=entities)


@app.command()
def stats(
    session: SessionArg,
    models: Annotated[
        bool,
        typer.Option(
            "--models", help="Replies and tokens per backend and model (reads the whole session)."
        ),
    ] = False,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Counts, characters, exact tokens, activity and file size of a session."""
    if not models:
        basics.stats(session, as_json, lenient, home, location)
        return
    from zerda_cli.render.provenance import show_models

    show_models(open_store(home, location, lenient=lenient), session, as_json)


@app.command()
def window(
    session: SessionArg,
    k: Annotated[int, typer.Option("-k", "--k", min=0, help="How many turns.")] = 5,
    as_json: JsonOpt = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Exactly what ConversationBufferWindowMemory(k=K) loads from the session."""
    from zerda_cli.contexts import load_memory

    store = open_store(home, location, lenient=lenient)
    memory = load_memory(store, session, "window", k=k, max_tokens=0)
    data = None
    if as_json:
        history = memory.load_memory_variables({})[memory.memory_key]
        data = {"session_id": session, "k": k, "turns": memory.get_messages(), "history": history}
    render.memory_view(f"Session {session}: window, k={k}", memory, data)


@app.command()
def context(
    session: SessionArg,
    memory_kind: Annotated[
        MemoryKind, typer.Option("--memory", "-m", help="Which memory class picks the history.")
    ] = MemoryKind.buffer,
    k: Annotated[int, typer.Option("-k", "--k", min=0, help="Turns, for window.")] = 5,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=0, help="Budget, for token and summary-buffer.")
    ] = 2000,
    as_json: Annotated[
        bool, typer.Option("--json", help="OpenAI-style [{role, content}] messages.")
    ] = False,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """The history a memory class would hand a model: text, or --json messages."""
    from zerda_cli.contexts import load_memory

    kind = memory_kind.value
    store = open_store(home, location, lenient=lenient)
    memory = load_memory(store, session, kind, k=k, max_tokens=max_tokens)
    title = f"Session {session}: context from the {kind} memory"
    render.memory_view(title, memory, memory.context_messages() if as_json else None)


@app.command()
def clear(
    session: SessionArg, yes: YesOpt = False, home: HomeOpt = None, location: StoreOpt = None
) -> None:
    """Remove every message of a session (the session and its metadata stay)."""
    store = open_store(home, location)
    count = store.message_count(session)
    confirm(f"Remove {_all_messages(count)} of session {session}?", yes)
    store.clear(session)
    render.note(f"cleared session {session}: {_messages(count)} removed")


@app.command()
def delete(
    session: SessionArg, yes: YesOpt = False, home: HomeOpt = None, location: StoreOpt = None
) -> None:
    """Delete a session and its file (a damaged one too)."""
    store = open_store(home, location)
    confirm(f"Delete session {session} and its {_readable_messages(store, session)}?", yes)
    store.delete_session(session)
    render.note(f"deleted session {session}")


def _messages(count: int) -> str:
    return f"{count:,} message{'s' * (count != 1)}"


def _readable_messages(store: Store, session: str) -> str:
    """`5 messages`, counted leniently: a damaged file can still be deleted."""
    try:
        return _messages(store.message_count(session))
    except CorruptSessionError:
        from zerda.store.files.store import SessionStore

        if not isinstance(store, SessionStore):  # only session files hold damaged lines
            raise
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedLineWarning)
            count = SessionStore(store.home, lenient=True).message_count(session)
        return f"{_messages(count)} that can be read (the file is damaged)"


def _all_messages(count: int) -> str:
    """`the only message`, `both messages`, `all 3 messages`."""
    return {1: "the only message", 2: "both messages"}.get(count, f"all {_messages(count)}")


app.command()(sessions)
app.command()(rename)
app.command()(fork)
app.command()(title)
app.command()(prune)


@app.command()
def export(
    session: SessionArg,
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f")] = ExportFormat.jsonl,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write here.")
    ] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    lenient: LenientOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Write a session as JSON Lines (what import reads), JSON, OpenAI messages or Markdown.

    --since/--until write only the messages created in that range.
    """
    store = open_store(home, location, lenient=lenient)
    details = store.get_session(session)
    chunks = render.document(
        fmt.value, details, *basics.history(store, session, None, since, until)
    )
    if output is None or str(output) == "-":
        render.write_lines(chunks)
        return
    from zerda_cli.files import write_private

    write_private(output, chunks)
    render.note(f"exported session {session} to {output}")


@app.command("import")
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


app.command()(search)
app.command()(doctor)


@app.command()
def demo(
    home: Annotated[
        Path | None,
        typer.Option("--home", metavar="PATH", help="Keep the demo session here."),
    ] = None,
) -> None:
    """Record a short conversation in a temporary home and show what zerda does with it."""
    from zerda_cli.demo import run_demo

    run_demo(home)


app.command()(chat)
app.command()(copy)
app.add_typer(store_app)
app.add_typer(index_app)
app.command()(browse)
app.command()(summarize)
app.command()(entities)
app.command()(serve)
app.command()(mcp)
