"""Rich renderings for a terminal. Stored text is always a `Text`, never markup."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable
from datetime import datetime

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from zerda.messages import Message
from zerda_cli.render.sanitize import CONTROL, visible

ROLE_STYLES = {
    "user": "bold cyan",
    "assistant": "bold green",
    "system": "bold magenta",
    "tool": "bold yellow",
    "summary": "bold blue",
}
ESCAPE_STYLE = "bold red"
DISPLAY_LIMIT = 20_000


def make_console() -> Console:
    """A console on stdout that never interprets markup or emoji codes (NO_COLOR is honoured)."""
    return Console(highlight=False, emoji=False, markup=False)


def safe_text(text: str, style: str = "") -> Text:
    """`text` as a Rich Text; control characters shown as red `\\x1b`-style escapes."""
    out = Text(style=style)
    position = 0
    for match in CONTROL.finditer(text):
        out.append(text[position : match.start()])
        if match.group() == "\r\n":
            out.append("\n")
        else:
            out.append(visible(match.group()), style=ESCAPE_STYLE)
        position = match.end()
    out.append(text[position:])
    return out


def clipped_text(text: str) -> Text:
    """`safe_text`, cut at DISPLAY_LIMIT characters with a note saying how to see it all."""
    if len(text) <= DISPLAY_LIMIT:
        return safe_text(text)
    shown = safe_text(text[:DISPLAY_LIMIT])
    rest = len(text) - DISPLAY_LIMIT
    shown.append(
        f"\n… {rest:,} more characters not shown (--format text prints everything)",
        style="dim italic",
    )
    return shown


def local_time(moment: datetime | None) -> str:
    """A stored UTC time in the local zone, to the second."""
    if moment is None:
        return "-"
    # A time near year 1 or 9999 has no local form: it is shown as stored.
    with contextlib.suppress(OverflowError):
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def message_panel(role: str, content: str, details: list[str]) -> Panel:
    """One message in a box coloured and titled by its role; details go bottom right."""
    style = ROLE_STYLES.get(role, "bold")
    return Panel(
        clipped_text(content),
        title=safe_text(f" {role} ", style=style),
        title_align="left",
        subtitle=Text(" · ".join(details), style="dim") if details else None,
        subtitle_align="right",
        border_style=style.replace("bold ", ""),
        padding=(0, 1),
    )


def stored_message_panel(message: Message) -> Panel:
    """A stored message with its local time and token count (a reply: and how it was made)."""
    from zerda_cli.render.provenance import provenance_label

    tokens = "?" if message.token_count is None else f"{message.token_count:,}"
    details = [local_time(message.created_at), f"{tokens} tok"]
    made = provenance_label(message)
    return message_panel(message.role, message.content, [made, *details] if made else details)


def footer(parts: list[str]) -> Text:
    """A dim summary line joined with middle dots."""
    return safe_text(" · ".join(parts), style="dim")


def heading(title: str, detail: str = "") -> Text:
    """A bold title and a dim detail after it."""
    text = safe_text(title, style="bold")
    if detail:
        text.append("  ")
        text.append(safe_text(detail, style="dim"))
    return text


def print_all(renderables: list[RenderableType]) -> None:
    """Print to stdout."""
    make_console().print(Group(*renderables))  # console.print(a, b) would join Texts on a line


def print_stream(renderables: Iterable[RenderableType], *, page: bool) -> None:
    """Print each renderable as it comes; with `page`, paged when taller than the terminal.

    Once the output no longer fits, the pager starts and the rest is rendered into it as it reads.
    """
    console = make_console()
    if not page:
        for renderable in renderables:
            console.print(renderable)
        return
    rendered = (_captured(console, r) for r in renderables)
    held: list[str] = []
    lines = 0
    for chunk in rendered:
        held.append(chunk)
        lines += chunk.count("\n")
        if lines >= console.height:
            from zerda_cli.render.pager import page_chunks

            page_chunks(itertools.chain(held, rendered))
            return
    console.file.write("".join(held))


def _captured(console: Console, renderable: RenderableType) -> str:
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()
