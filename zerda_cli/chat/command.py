"""`zerda chat`: the Typer command function, registered by `zerda_cli.app`. Heavy modules
load only once the REPL starts."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from zerda.errors import ZerdaError
from zerda_cli.chat.options import (
    BackendOpt,
    BaseUrlOpt,
    ChatSessionArg,
    CommandFormatOpt,
    CommandOpt,
    ContinueOpt,
    JsonlOpt,
    MemoryOpt,
    ModelOpt,
    NoInputHistoryOpt,
    PlainOpt,
    ShowOpt,
    SummarizerOpt,
    SystemOpt,
    TimeoutOpt,
)
from zerda_cli.options.params import HomeOpt, StoreOpt, open_store
from zerda_cli.render.sanitize import one_line

if TYPE_CHECKING:
    from zerda.store.base import Store
    from zerda_cli.chat.backends import Backend
    from zerda_cli.chat.config import ChatConfig


def new_session_id() -> str:
    """A fresh, sortable session id: `chat-YYYYMMDD-HHMMSS-xxxx`."""
    import secrets  # here, not at the top: every command imports this module

    return f"chat-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def _fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


def _pick_session(
    home: Path | None, location: str | None, session: str | None, resume: bool
) -> str:
    """The session to open: the one named (checked by its argument's callback), the most
    recently active one, or a new one."""
    if session and resume:
        _fail("give a SESSION or --continue, not both", 2)
    if session:
        return session
    if resume:
        recent = open_store(home, location).list_sessions()
        if not recent:
            _fail("no session to continue yet; start one with `zerda chat`")
        return recent[0].session_id
    return new_session_id()


def chat(
    session: ChatSessionArg = None,
    resume: ContinueOpt = False,
    backend: BackendOpt = None,
    command: CommandOpt = None,
    command_format: CommandFormatOpt = None,
    base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    timeout: TimeoutOpt = None,
    memory: MemoryOpt = None,
    summarizer: SummarizerOpt = None,
    system: SystemOpt = None,
    show: ShowOpt = None,
    no_input_history: NoInputHistoryOpt = False,
    plain: PlainOpt = False,
    jsonl: JsonlOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Chat in a session; every complete turn is recorded as it happens.

    Piped stdin: one message a line, replies on stdout (needs a command or openai backend).
    """
    from zerda_cli.chat.config import ConfigError, load_config

    flags = {
        "backend": backend,
        "command": command,
        "command_format": command_format,
        "base_url": base_url,
        "model": model,
        "timeout": timeout,
        "memory": memory,
        "summarizer": summarizer,
        "system": system,
        "show": show,
        "input_history": False if no_input_history else None,
        "plain": True if plain else None,
    }
    try:
        config = load_config(home, flags)
        session_id = _pick_session(home, location, session, resume)
        interactive = sys.stdin.isatty()
        if interactive:
            _check_terminal(jsonl)
        else:
            _check_piped(config)
        store = open_store(home, location, extract_entities=True)
        _run(
            config, home, store, session_id, interactive, named=bool(session or resume), jsonl=jsonl
        )
    except ConfigError as exc:
        _fail(str(exc), 2)
    except ZerdaError as exc:
        _fail(str(exc))


def _check_terminal(jsonl: bool) -> None:
    """The REPL draws on a terminal: refuse a piped stdout, and --jsonl, before drawing."""
    if jsonl:
        _fail("--jsonl is for piped stdin (one message a line); stdin is a terminal", 2)
    if not sys.stdout.isatty():
        _fail(
            "stdout is not a terminal, and the chat REPL draws on one; "
            "to script a chat, pipe its messages into stdin as well",
            2,
        )


def _check_piped(config: ChatConfig) -> None:
    """Piped stdin leaves nobody to type replies: refuse the manual backend."""
    if config.backend_name == "manual":
        _fail(
            "stdin is not a terminal, so nobody can type the replies of the manual backend; "
            "use --backend command --command CMD or --backend openai",
            2,
        )


def _run(
    config: ChatConfig,
    home: Path | None,
    store: Store,
    session_id: str,
    interactive: bool,
    named: bool,
    jsonl: bool,
) -> None:
    """Start the REPL on a terminal, or the line-per-message loop for scripts."""
    from zerda_cli.chat.backends import BackendError, make_backend

    try:
        backend = make_backend(config, session_id)
    except BackendError as exc:
        _fail(str(exc), 2)
    if not interactive:
        raise typer.Exit(_run_piped(store, session_id, config, backend, named=named, jsonl=jsonl))
    _run_terminal(store, session_id, config, backend, home)


def _run_piped(
    store: Store,
    session_id: str,
    config: ChatConfig,
    backend: Backend,
    named: bool,
    jsonl: bool,
) -> int:
    """The line-per-message loop: notes and errors on stderr, replies on stdout; its exit code."""
    from rich.console import Console

    from zerda_cli.chat.piped import reply_writer, run_piped, stdin_lines, turn_writer
    from zerda_cli.chat.repl import Chat
    from zerda_cli.chat.view import ChatView

    view = ChatView(Console(stderr=True, highlight=False, emoji=False, markup=False))
    if not named:
        view.note(f"new session {session_id}")
    piped_chat = Chat(store, session_id, config, view, backend)
    try:
        emit = turn_writer(sys.stdout, session_id) if jsonl else reply_writer(sys.stdout)
        return run_piped(piped_chat, stdin_lines(), emit)
    except KeyboardInterrupt:
        return 130


def _run_terminal(
    store: Store, session_id: str, config: ChatConfig, backend: Backend, home: Path | None
) -> None:
    """The REPL, with an input history file unless it is turned off or cannot be made."""
    from zerda_cli.chat.prompts import history_file, run_terminal
    from zerda_cli.chat.repl import Chat
    from zerda_cli.chat.view import ChatView
    from zerda_cli.options.paths import state_dir
    from zerda_cli.render.pieces import make_console

    history = None
    view = ChatView(make_console(), plain=config.plain)
    if config.input_history:
        try:
            history = history_file(state_dir(home))
        except (OSError, ZerdaError) as exc:
            view.error(f"no input history this time: {exc}")
    run_terminal(Chat(store, session_id, config, view, backend), history)
