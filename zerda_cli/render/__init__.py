"""Output of the `zerda` commands: Rich on a terminal, plain text when piped, JSON on request.

Rich is imported only when the output goes to a terminal (`screens`, what each command
shows there, built from `pieces`, with `pager` for long output); piped output is written
by the plain writers in `formats`. `sanitize` keeps stored text from driving a
terminal, `provenance` labels replies (`models` adds them up per model), `progress`
draws a progress line on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from zerda_cli.render.sanitize import neutralize, one_line, to_json

if TYPE_CHECKING:  # `formats` and what it shows load with the first output that needs them
    from zerda.memory._base import BaseMemory
    from zerda.messages import Message, Session, Summary
    from zerda.store._matching import Matcher
    from zerda.store._overview import SessionOverview
    from zerda.store._stats import SessionStats

# The longest opening words a listing shows of a session without a title.
LABEL_CHARS = 50


def on_terminal() -> bool:
    """True when stdout is a terminal that can take Rich output."""
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def write_lines(lines: Iterable[str]) -> None:
    """Write text chunks to stdout."""
    for line in lines:
        sys.stdout.write(line)


def write_json(data: Any) -> None:
    """`data` as terminal-safe, indented JSON on stdout."""
    sys.stdout.write(to_json(data) + "\n")


MESSAGE_LINES = "message-lines"  # `zerda show --jsonl`: JSON Lines of the messages only


def document(
    fmt: str,
    session: Session,
    summary: Summary | None,
    messages: Iterable[Message],
    entities: bool = False,
) -> Iterator[str]:
    """A session as json, openai, jsonl, MESSAGE_LINES, markdown or (any other `fmt`)
    text, in chunks made as `messages` are read; the human formats name each message's
    entities when asked (the JSON ones carry those the messages hold)."""
    from zerda_cli.render import formats

    if fmt == "json":
        return formats.json_document(session, summary, messages)
    if fmt == "openai":
        return formats.openai_document(messages)
    if fmt == "jsonl":
        return formats.jsonl_lines(session, summary, messages)
    if fmt == MESSAGE_LINES:
        return formats.message_lines(messages)
    text = summary.content if summary else None
    if fmt == "markdown":
        return formats.markdown_lines(session, text, messages, entities)
    return formats.text_lines(session, text, messages, entities)


def transcript(
    session: Session,
    summary: Summary | None,
    messages: Iterable[Message],
    fmt: str | None,
    *,
    page: bool,
    entities: bool = False,
) -> None:
    """`zerda show`: Rich on a terminal unless a format is asked for; streamed either way."""
    if fmt is None and on_terminal():
        from zerda_cli.render import screens

        text = summary.content if summary else None
        screens.transcript(session, text, messages, page=page, entities=entities)
        return
    write_lines(document(fmt or "text", session, summary, messages, entities))


def stats(stats: SessionStats, as_json: bool) -> None:
    """`zerda stats`: the SessionStats fields."""
    from zerda_cli.render import formats

    if as_json:
        write_json(stats.to_dict())
    elif on_terminal():
        from zerda_cli.render import screens

        screens.stats(stats)
    else:
        write_lines(formats.key_value_lines(list(stats.to_dict().items())))


def sessions(overviews: list[SessionOverview], as_json: bool) -> None:
    """`zerda sessions`: one row per session, in the order given; the TITLE column holds
    each session's title, else the start of its first user message."""
    from zerda_cli.render import formats

    if as_json:
        write_json([o.to_dict() for o in overviews])
    elif on_terminal():
        from zerda_cli.render import screens

        screens.sessions(overviews, [session_label(o) for o in overviews])
    else:
        header = ["SESSION", "MESSAGES", "TOKENS", "LAST_ACTIVITY", "TITLE"]
        rows = [
            [
                o.session_id,
                str(o.stats.messages),
                str(o.stats.token_count),
                o.stats.last_activity or "-",
                session_label(o) or "-",
            ]
            for o in overviews
        ]
        write_lines(formats.table_lines(header, rows))


def session_label(overview: SessionOverview) -> str:
    """What a listing calls a session: its title, else the start of its first user
    message cut to LABEL_CHARS; one line, terminal-safe ("" when it has neither)."""
    if overview.title:
        return one_line(overview.title)
    opening = one_line(overview.opening or "")
    return opening if len(opening) <= LABEL_CHARS else opening[: LABEL_CHARS - 1] + "…"


def memory_view(title: str, memory: BaseMemory, json_data: Any) -> None:
    """`zerda window` / `zerda context`: `json_data` as JSON unless None, else Rich or text."""
    if json_data is not None:
        write_json(json_data)
    elif on_terminal():
        from zerda_cli.render import screens

        screens.memory_view(title, memory)
    else:
        history = str(memory.load_memory_variables({})[memory.memory_key])
        sys.stdout.write(neutralize(history) + ("\n" if history else ""))


def search(
    hits: Iterable[tuple[str, Message]],
    matcher: Matcher,
    label: str,
    as_json: bool,
    scores: Sequence[float] | None = None,
) -> int:
    """`zerda search`: each matching message with its session, time and role (`--json`:
    its uuid and the character offsets of each match too, and its score when ranked by
    `scores`, one a hit in order), written as it is found, so a search with many
    hits never holds them all. Returns how many were written."""
    from zerda_cli.render import formats

    counted = _Counted(hits)
    if as_json:
        records = (search_record(sid, m, matcher) for sid, m in counted)
        if scores is not None:
            records = ({**r, "score": round(s, 6)} for r, s in zip(records, scores, strict=False))
        write_lines(formats.json_array(records))
    elif on_terminal():
        from zerda_cli.render import screens

        screens.search(counted, matcher, label)
    else:
        write_lines(_search_lines(counted, matcher))
    if not counted.count and not as_json:
        note(f"no messages match {label}")
    return counted.count


def search_record(sid: str, message: Message, matcher: Matcher) -> dict[str, Any]:
    """A hit as `--json` gives it: the message with its session and match offsets."""
    spans = matcher.spans(message.content)
    return {"session_id": sid, **message.to_dict(), "matches": [list(span) for span in spans]}


class _Counted:
    """The hits, counted as they pass."""

    def __init__(self, hits: Iterable[tuple[str, Message]]) -> None:
        self.hits = hits
        self.count = 0

    def __iter__(self) -> Iterator[tuple[str, Message]]:
        for hit in self.hits:
            self.count += 1
            yield hit


def _search_lines(hits: Iterable[tuple[str, Message]], matcher: Matcher) -> Iterator[str]:
    from zerda_cli.render import formats

    for sid, message in hits:
        first = next(iter(matcher.spans(message.content)), None)
        before, match, after = formats.match_parts(message.content, first)
        where = f"{one_line(sid)}  {formats.stamp(message)}  {one_line(message.role)}"
        yield f"{where}  {before}{match}{after}\n"


def note(text: str) -> None:
    """A one-line remark for people, on stderr (never mixed into piped data)."""
    sys.stderr.write(neutralize(text) + "\n")
