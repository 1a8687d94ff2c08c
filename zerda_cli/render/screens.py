"""What each command shows on a terminal, built from the Rich pieces in `pieces`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from zerda.messages import Message, Session
from zerda.store._overview import SessionOverview
from zerda.store._stats import SessionStats
from zerda_cli.render.formats import Totals, entities_label, match_parts
from zerda_cli.render.pieces import (
    ROLE_STYLES,
    footer,
    heading,
    local_time,
    message_panel,
    print_all,
    print_stream,
    safe_text,
    stored_message_panel,
)

if TYPE_CHECKING:
    from zerda.memory._base import BaseMemory
    from zerda.store._matching import Matcher

HIGHLIGHT = "bold reverse"


def plural(count: int, noun: str, nouns: str = "") -> str:
    """`1 turn`, `2 turns`, `1,000 matches`."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def _session_detail(session: Session) -> str:
    parts = [f"user {session.user_id}"] if session.user_id else []
    parts.append(f"created {local_time(session.created_at)}")
    parts += [f"{k}={v}" for k, v in session.metadata.items()]
    return " · ".join(parts)


def transcript(
    session: Session,
    summary: str | None,
    messages: Iterable[Message],
    *,
    page: bool,
    entities: bool = False,
) -> None:
    """Heading, summary, one box per message (with `entities`, a line under it naming
    what it mentions), totals footer; paged when long, streamed."""
    print_stream(_transcript_parts(session, summary, messages, entities), page=page)


def _transcript_parts(
    session: Session, summary: str | None, messages: Iterable[Message], entities: bool
) -> Iterator[RenderableType]:
    yield heading(f"Session {session.id}", _session_detail(session))
    if summary:
        yield message_panel("summary", summary, [])
    totals = Totals()
    for message in totals.counted(messages):
        yield stored_message_panel(message)
        if entities:
            yield footer([f"  entities: {entities_label(message)}"])
    parts = [plural(totals.messages, "message"), plural(totals.tokens, "token")]
    if totals.first and totals.last:
        parts.append(f"{local_time(totals.first.created_at)} → ")
        parts[-1] += local_time(totals.last.created_at)
    yield footer(parts)


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size:,} B"
    if size < 1024 * 1024:
        return f"{size / 1024:,.1f} KiB"
    return f"{size / (1024 * 1024):,.1f} MiB"


def stats(stats: SessionStats) -> None:
    """A two-column grid of the session's numbers."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim")
    grid.add_column()
    rows = [
        ("messages", f"{stats.messages:,} stored, {plural(stats.turn_count, 'turn')}"),
        ("message_count", f"{stats.message_count:,} (turns, as the memory classes count)"),
        ("characters", f"{stats.total_characters:,}"),
        ("estimated_tokens", f"{stats.estimated_tokens:,} (characters / 4)"),
        ("tokens", f"{stats.token_count:,} exact ({stats.encoding})"),
        ("first activity", local_time_text(stats.first_activity)),
        ("last activity", local_time_text(stats.last_activity)),
        ("file size", _human_size(stats.file_size)),
    ]
    for key, value in rows:
        grid.add_row(key, value)
    print_all([heading(f"Session {stats.session_id}"), grid])


def local_time_text(stamp: str | None) -> str:
    """An ISO-8601 stamp from the stats, shown in local time; `-` when unknown or unreadable."""
    from zerda.messages import parse_time

    try:
        return local_time(parse_time(stamp)) if stamp else "-"
    except ValueError:  # a hand-edited tally: no time is better than a crash
        return "-"


def sessions(overviews: list[SessionOverview], labels: list[str]) -> None:
    """A table of sessions in the order given, with their titles (else opening words,
    dimmed): `labels`, one a session."""
    if not overviews:
        print_all([Text("no sessions yet", style="dim")])
        return
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", show_edge=False, pad_edge=False)
    for name, justify in [("Session", "left"), ("Messages", "right"), ("Tokens", "right")]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("Last activity")
    table.add_column("Title")
    for o, text in zip(overviews, labels, strict=True):
        label = safe_text(text, "" if o.title else "dim")
        table.add_row(
            safe_text(o.session_id),
            f"{o.stats.messages:,}",
            f"{o.stats.token_count:,}",
            local_time_text(o.stats.last_activity),
            label,
        )
    print_all([table])


def memory_view(title: str, memory: BaseMemory) -> None:
    """The messages a memory hands a model, with its type, turns and token count."""
    shown: list[RenderableType] = [heading(title)]
    shown += [message_panel(m["role"], m["content"], []) for m in memory.context_messages()]
    numbers = memory.get_memory_stats()
    shown.append(
        footer(
            [
                f"memory {numbers['type']}",
                plural(numbers["message_count"], "turn") + " held",
                f"{numbers['token_count']:,} tokens",
            ]
        )
    )
    print_all(shown)


def search(hits: Iterable[tuple[str, Message]], matcher: Matcher, label: str) -> None:
    """Each hit as it is found: session, local time and role, then the match in context,
    highlighted; a footer counts them."""
    print_stream(_search_parts(hits, matcher, label), page=False)


def _search_parts(
    hits: Iterable[tuple[str, Message]], matcher: Matcher, label: str
) -> Iterator[RenderableType]:
    count = 0
    for sid, message in hits:
        count += 1
        line = safe_text(sid, style="bold")
        line.append(f"  {local_time(message.created_at)}  ", style="dim")
        line.append(safe_text(message.role, style=ROLE_STYLES.get(message.role, "bold")))
        first = next(iter(matcher.spans(message.content)), None)
        before, match, after = match_parts(message.content, first)
        snippet = Text("  ")
        snippet.append(safe_text(before))
        snippet.append(safe_text(match, style=HIGHLIGHT))
        snippet.append(safe_text(after))
        yield line
        yield snippet
    if count:
        yield footer([f"{plural(count, 'match', 'matches')} for {label}"])
