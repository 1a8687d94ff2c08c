"""What the browser shows, from the store, every piece of stored text made terminal-safe:
the list (recent sessions, or sessions and messages matching what is typed) and a
session's transcript as styled lines."""

from __future__ import annotations

from dataclasses import dataclass

from zerda.messages import Message
from zerda.store._matching import Matcher
from zerda.store._overview import SessionOverview
from zerda.store.base import Store
from zerda_cli.render.formats import match_parts, stamp, tokens_label
from zerda_cli.render.provenance import provenance_label
from zerda_cli.render.sanitize import neutralize, one_line

RECENT = 200  # sessions the empty query lists, newest first (a screen shows some 25)
HITS = 100  # messages a query lists, newest first
SEARCH_FROM = 3  # characters typed before messages are searched (the index's trigrams)
Line = list[tuple[str, str]]  # (style, text) pieces of one screen line
ROLE_STYLES = {"user": "ansicyan bold", "assistant": "ansigreen bold", "system": "ansiyellow bold"}


@dataclass(frozen=True)
class Row:
    """One line of the list: a session, or a message of one that matches the query."""

    session_id: str
    text: Line
    message_uuid: str | None = None


def session_row(overview: SessionOverview) -> Row:
    from zerda_cli.render import session_label

    stats = overview.stats
    when = (stats.last_activity or "-")[:16].replace("T", " ")
    text = [
        ("bold", f"{one_line(overview.session_id)[:28]:<28} "),
        ("ansibrightblack", f"{when:<16} {stats.messages:>5} msgs "),
        ("", session_label(overview)),
    ]
    return Row(overview.session_id, text)


def hit_row(session_id: str, message: Message, matcher: Matcher) -> Row:
    spans = matcher.spans(message.content)
    before, match, after = match_parts(message.content, spans[0] if spans else None)
    text = [
        ("bold", f"{one_line(session_id)[:28]:<28} "),
        ("ansibrightblack", f"{stamp(message)[:16].replace('T', ' '):<16} "),
        (ROLE_STYLES.get(message.role_type or "", "bold"), f"{one_line(message.role)[:10]:<10} "),
        ("", before),
        ("reverse", match),
        ("", after),
    ]
    return Row(session_id, text, message.uuid)


def rows_for(store: Store, query: str) -> list[Row]:
    """The list for what is typed: recent sessions when nothing is, else the sessions
    whose id or title holds it, then (from SEARCH_FROM characters) the newest messages
    that do."""
    recent = store.overviews(limit=RECENT)
    if not query.strip():
        return [session_row(o) for o in recent]
    needle = query.casefold()
    named = [
        session_row(o)
        for o in recent
        if needle in o.session_id.casefold() or needle in (o.title or "").casefold()
    ]
    if len(needle) < SEARCH_FROM:  # the index cannot narrow it: every session would be read
        return named
    matcher = Matcher(query)
    hits = [hit_row(sid, m, matcher) for sid, m in store.search(query, limit=HITS)]
    return named + hits


def transcript(store: Store, session_id: str, query: str = "") -> list[Line]:
    """The session as styled lines: a heading, the summary, then each message under a
    line of its role, time, tokens and provenance, the query's matches highlighted."""
    session = store.get_session(session_id)
    matcher = Matcher(query) if query.strip() else None
    title = session.metadata.get("title")
    lines: list[Line] = [[("bold", f"Session {one_line(session_id)}")]]
    if isinstance(title, str) and title:
        lines.append([("", one_line(title))])
    summary = store.get_summary(session_id)
    if summary is not None and summary.content:
        lines += [[("italic", "summary: ")], *_body(summary.content, None), []]
    lines.append([])
    for message in store.iter_messages(session_id):
        made = provenance_label(message)
        lines.append(
            [
                (ROLE_STYLES.get(message.role_type or "", "bold"), one_line(message.role)),
                ("ansibrightblack", f"  {stamp(message)}  {tokens_label(message.token_count)}"),
                ("ansibrightblack", f"  ({made})" if made else ""),
            ]
        )
        lines += [*_body(message.content, matcher), []]
    return lines


def _body(text: str, matcher: Matcher | None) -> list[Line]:
    """`text` indented, one screen line a line, matches of `matcher` highlighted."""
    lines = []
    for raw in text.split("\n"):
        raw = raw.removesuffix("\r")  # a CRLF line end is a line end
        spans = matcher.spans(raw) if matcher else []
        pieces: Line = [("", "  ")]
        at = 0
        for start, end in spans:
            pieces += [("", neutralize(raw[at:start])), ("reverse", neutralize(raw[start:end]))]
            at = end
        pieces.append(("", neutralize(raw[at:])))
        lines.append(pieces)
    return lines
