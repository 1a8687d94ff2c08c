"""The slash commands of `zerda chat`: their table, parsing and tab completion."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from zerda_cli.chat.config import MEMORY_KINDS

# name -> (usage, what it does); the order is the order /help shows.
COMMANDS: dict[str, tuple[str, str]] = {
    "help": ("/help", "this list"),
    "show": ("/show [N]", "the last N turns of the session (default 10)"),
    "stats": ("/stats", "counts, tokens and file size of the session; the REPL's settings"),
    "window": ("/window [K]", "the context the next request carries, or that of the last K turns"),
    "memory": (
        "/memory buffer|window K|token N|summary [N]",
        "choose which history goes into the context",
    ),
    "system": ("/system [TEXT|-]", "show, set or (with -) remove the session's system prompt"),
    "undo": ("/undo", "remove the last turn (a summary memory re-summarizes the turns left)"),
    "retry": (
        "/retry",
        "after a failed turn, send its message again; after a recorded turn, ask again "
        "for its reply (the new one replaces it in one write)",
    ),
    "edit": ("/edit [TEXT]", "write the next message in $EDITOR (also Ctrl-X Ctrl-E)"),
    "clear": ("/clear", "remove every turn of the session (asks first)"),
    "session": ("/session ID", "switch to another session (new if it does not exist)"),
    "fork": ("/fork NEW", "copy this session as it stands into NEW and go on there"),
    "exit": ("/exit", "leave (also /quit, Ctrl-D)"),
}
ALIASES = {"quit": "exit", "q": "exit", "h": "help", "?": "help"}


def is_command(line: str) -> bool:
    """True for `/name ...`; `//text` is a message that starts with a slash."""
    return line.startswith("/") and not line.startswith("//")


def parse(line: str) -> tuple[str, str]:
    """`(name, argument)` of a slash command line; the name is "" when unknown."""
    head, _, argument = line[1:].strip().partition(" ")
    name = ALIASES.get(head.lower(), head.lower())
    return (name if name in COMMANDS else "", argument.strip())


def unescape(line: str) -> str:
    """The message a `//text` line sends."""
    return line[1:] if line.startswith("//") else line


class SlashCompleter(Completer):
    """Completes command names after `/`, memory kinds after `/memory`, ids after `/session`."""

    def __init__(self, session_ids: Callable[[], Iterable[str]]) -> None:
        self.session_ids = session_ids

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterator[Completion]:
        """Completions for the text before the cursor (none for ordinary messages)."""
        text = document.text_before_cursor
        if not is_command(text) or "\n" in text:
            return
        head, space, rest = text[1:].partition(" ")
        if not space:
            for name, (usage, meaning) in COMMANDS.items():
                if name.startswith(head.lower()):
                    yield Completion("/" + name, -len(text), display=usage, display_meta=meaning)
            return
        if " " in rest:
            return
        if head == "memory":
            choices: Iterable[str] = MEMORY_KINDS
        elif head == "session":
            choices = self.session_ids()
        else:
            return
        for choice in choices:
            if choice.startswith(rest):
                yield Completion(choice, -len(rest))
