"""What `zerda chat` shows: turns, the streamed reply, stats and contexts, all on Rich.

Every stored or received text goes through `zerda_cli.render.sanitize` first, so a reply
holding escape sequences cannot drive the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from markdown_it import MarkdownIt
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.padding import Padding
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from zerda.store._stats import SessionStats
from zerda_cli.chat.live_tail import Tail
from zerda_cli.chat.streaming import ReplyTooLarge
from zerda_cli.render.pieces import safe_text
from zerda_cli.render.sanitize import neutralize, one_line

USER_LABEL = "you ›"  # noqa: RUF001
ASSISTANT_LABEL = "assistant ›"  # noqa: RUF001
ROLE_STYLES = {"user": "bold cyan", "assistant": "bold green", "system": "bold magenta"}


class ChatView:
    """Prints the REPL's output on one Rich console; `plain` shows replies as raw text."""

    def __init__(self, console: Console, plain: bool = False) -> None:
        self.console = console
        self.plain = plain

    def note(self, text: str) -> None:
        """A dim line about what happened (not part of the conversation).

        Notes quote stored text (the system prompt, a removed turn), so it is made inert.
        """
        self.console.print(safe_text(text, style="dim"), soft_wrap=True)

    def error(self, text: str) -> None:
        """A one-line error; the REPL goes on."""
        self.console.print(Text.assemble(("error: ", "bold red"), one_line(text)), soft_wrap=True)

    def banner(self, session_id: str, is_new: bool, backend: str, memory: str) -> None:
        """The first lines: where the conversation goes and how to drive the REPL."""
        state = "new session" if is_new else "session"
        self.console.print(
            Text.assemble(
                ("zerda chat", "bold"),
                f" · {state} ",
                safe_text(session_id, style="bold"),
                f" · backend {one_line(backend)} · memory {one_line(memory)}",
            )
        )
        self.note("Enter sends · Alt-Enter (or Esc Enter) adds a line · /help · Ctrl-D leaves")
        if backend == "manual":
            self.note("manual backend: you type the assistant's reply at the second prompt")

    def turn(self, user: str | None, assistant: str | None) -> None:
        """One stored turn: the user's words, then the reply as Markdown."""
        if user is not None:
            self.console.print(Text(USER_LABEL + " ", style=ROLE_STYLES["user"]) + safe_text(user))
        if assistant is not None:
            self.reply(assistant)

    def reply(self, text: str) -> None:
        """A whole reply under the assistant's label, as Markdown (or raw text)."""
        self.console.print(Text(ASSISTANT_LABEL, style=ROLE_STYLES["assistant"]))
        self.console.print(_reply(text, self.plain))

    def turns(self, turns: Iterable[Mapping[str, Any]], earlier: int = 0) -> None:
        """Stored turns, oldest first, after a note of how many came before them."""
        if earlier > 0:
            self.note(f"… {earlier} earlier turn{'s' * (earlier != 1)} (/show N shows more)")
        for turn in turns:
            self.turn(turn["input"], turn["output"])

    def stream(self, pieces: Iterator[str], waiting: str) -> str:
        """Show the reply as Markdown while it arrives; return all of it.

        The live area shows the reply's last screenful and is erased at the end;
        the whole reply is then printed once, so it lands complete in the scrollback
        (unless it grew too large: ReplyTooLarge from `pieces` passes through).
        """
        self.console.print(Text(ASSISTANT_LABEL, style=ROLE_STYLES["assistant"]))
        spinner = Spinner("dots", Text(waiting, style="dim"))
        tail = Tail(spinner, lambda text: _reply(text, self.plain), self.plain)
        try:
            with Live(tail, console=self.console, refresh_per_second=12, transient=True):
                for piece in pieces:
                    tail.pieces.append(piece)
        except ReplyTooLarge:
            tail.pieces.clear()  # not recorded, and too long to print again
            raise
        finally:
            if tail.pieces:
                self.console.print(_reply(tail.text(), self.plain))
        return tail.text()

    def context(self, messages: list[dict[str, str]], tokens: int, title: str) -> None:
        """The messages a request carries, with their token total."""
        self.note(f"{title}: {len(messages)} message{'s' * (len(messages) != 1)}, {tokens} tokens")
        for message in messages:
            style = ROLE_STYLES.get(message["role"], "bold")
            self.console.print(safe_text(message["role"], style=style))
            self.console.print(Padding(safe_text(message["content"]), (0, 0, 0, 2)))

    def stats(self, stats: SessionStats | None, rows: list[tuple[str, str]]) -> None:
        """The session's stats and the REPL's settings, as a two-column table."""
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        if stats is not None:
            table.add_row("messages", str(stats.messages))
            table.add_row("turns", str(stats.turn_count))
            table.add_row("tokens stored", f"{stats.token_count} ({stats.encoding})")
            table.add_row("characters", str(stats.total_characters))
            table.add_row("first activity", stats.first_activity or "-")
            table.add_row("last activity", stats.last_activity or "-")
            table.add_row("file size", f"{stats.file_size} bytes")
        for name, value in rows:
            table.add_row(name, one_line(value))
        self.console.print(table)

    def help(self, commands: Iterable[tuple[str, str]]) -> None:
        """Slash commands and keys."""
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for usage, text in commands:
            table.add_row(usage, text)
        keys = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column()
        for key, text in (
            ("Enter", "send the message"),
            ("Alt-Enter, Esc Enter", "new line inside the message"),
            ("Ctrl-X Ctrl-E", "edit the message in $EDITOR (Enter then sends it)"),
            ("Up / Down, Ctrl-R", "input history; → accepts the grey suggestion"),
            ("Ctrl-C", "clear the line; while a reply arrives, cancel it (nothing recorded)"),
            ("Ctrl-D", "leave (on an empty line)"),
            ("//text", "send a message that starts with /"),
        ):
            keys.add_row(key, text)
        self.console.print(Group(table, Text(""), keys))


class LineBreakMarkdown(Markdown):
    """Markdown in which every line break of the text is kept: a soft break (a single
    newline inside a paragraph) is shown as the hard break it was meant as.

    A model (or a person, or a program printing JSON) means each newline it writes;
    plain Markdown would join the lines of a paragraph into one. Code blocks are
    shown as written either way.
    """

    parser = MarkdownIt().enable("strikethrough").enable("table")

    def __init__(self, markup: str) -> None:
        super().__init__("")
        self.markup = markup
        self.parsed = self.parser.parse(markup)
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"


def _reply(text: str, plain: bool = False) -> Padding:
    """A reply, indented: Markdown keeping its line breaks, or the raw text when `plain`;
    its control characters made inert."""
    shown: RenderableType = Text(neutralize(text)) if plain else LineBreakMarkdown(neutralize(text))
    return Padding(shown, (0, 0, 1, 2))
