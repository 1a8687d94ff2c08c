"""The work of `zerda add`, `show`, `stats`, `sessions` and `search`, the commands a shell
runs most (with what `add` checks and counts before it writes).

Nothing here imports Typer: the full commands (`zerda_cli.commands`) and the quick path
(`zerda_cli.quick`) both call these functions, so both give the same output for the
same arguments. Heavy modules load inside the branch that needs them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zerda.errors import ZerdaError
from zerda_cli.options.errors import UsageProblem

if TYPE_CHECKING:
    from zerda.messages import Message, Summary
    from zerda.store._matching import Query
    from zerda.store.base import Store


def check_add_shape(texts: list[str], role: str | None) -> None:
    """A usage error unless `texts` are one CONTENT (with --role) or INPUT and OUTPUT."""
    wanted = 1 if role is not None else 2
    if len(texts) != wanted:
        shape = (
            "CONTENT with --role"
            if role is not None
            else "INPUT and OUTPUT (or --role ROLE CONTENT)"
        )
        raise UsageProblem(f"expected {shape}, got {len(texts)} argument(s)", "add")
    if texts.count("-") > 1:
        raise UsageProblem("only one argument can be '-' (stdin)", "add")


def add(
    session: str,
    texts: list[str],
    role: str | None,
    metadata: dict[str, Any],
    as_json: bool,
    home: Path | None,
    location: str | None,
) -> None:
    """`zerda add`, once its shape, metadata and role are checked: read `-` from stdin,
    write the message or the turn, print it with --json."""
    from zerda_cli.options.inputs import resolve_texts
    from zerda_cli.options.opening import open_store

    values = resolve_texts(texts)
    store = open_store(home, location, count_on_write=False, command="add")
    stored = record(store, session, role, values, metadata)
    if as_json:
        from zerda_cli import render

        render.write_json([m.to_dict() for m in stored])


def check_texts(values: list[str], names: list[str]) -> None:
    """A usage error for an empty text or one over the size limit; nothing is written."""
    from zerda.limits import over_limit, too_large

    for value, name in zip(values, names, strict=True):
        if not value.strip():
            raise UsageProblem(f"{name} is empty; nothing was written", "add")
        if over_limit(value):
            raise UsageProblem(too_large(name), "add")


def counted(messages: list[Message], encoding: str) -> list[Message]:
    """`messages`, those longer than a piece given their token count now (a progress
    line on stderr if counting takes over a second); short ones are left to the store."""
    from zerda.tokens import PIECE, get_counter
    from zerda_cli.render.progress import ProgressLine

    done = []
    for message in messages:
        if len(message.content) > PIECE:
            with ProgressLine(f"counting the tokens of the {message.role} message") as progress:
                count = get_counter(encoding).count(message.content, progress)
            message = replace(message, token_count=count)
        done.append(message)
    return done


def record(
    store: Store, session_id: str, role: str | None, values: list[str], metadata: dict[str, object]
) -> list[Message]:
    """Write one message from `role` or (without one) a user message and its reply, in one
    write; the texts are checked first and long ones counted."""
    from zerda.messages import Memory, Message

    if role is not None:
        check_texts(values, ["CONTENT"])
        messages = [Message(role, values[0], dict(metadata))]
    else:
        check_texts(values, ["INPUT", "OUTPUT"])
        messages = [
            Message("user", values[0], dict(metadata)),
            Message("assistant", values[1], dict(metadata)),
        ]
    return store.add_memory(session_id, Memory(messages=counted(messages, store.encoding)))


def show_format(as_json: bool, jsonl: bool, with_session: bool, fmt: str | None) -> str | None:
    """The rendering `zerda show` was asked for (None: the terminal view or text), or a
    usage error for flags that do not go together."""
    chosen = [name for name, on in [("json", as_json), ("jsonl", jsonl)] if on]
    chosen += [fmt] if fmt else []
    if len(chosen) > 1:
        raise UsageProblem("choose one of --json, --jsonl, --format", "show")
    if with_session and not jsonl:
        raise UsageProblem("--with-session goes with --jsonl", "show")
    if jsonl and not with_session:
        from zerda_cli.render import MESSAGE_LINES

        return MESSAGE_LINES
    return chosen[0] if chosen else None


def show(
    session: str,
    last: int | None,
    rendering: str | None,
    pager: bool,
    since: datetime | None,
    until: datetime | None,
    lenient: bool,
    home: Path | None,
    location: str | None,
    *,
    entities: bool = False,
) -> None:
    """`zerda show`: the transcript, streamed from the store; with `entities`, every
    message carries its entities (those stored, else found now)."""
    from zerda_cli import render
    from zerda_cli.options.opening import open_store

    store = open_store(home, location, lenient=lenient, command="show")
    details = store.get_session(session)
    summary, messages = history(store, session, last, since, until)
    if entities:
        messages = with_entities(messages)
    render.transcript(details, summary, messages, rendering, page=pager, entities=entities)


def with_entities(messages: Iterable[Message]) -> Iterator[Message]:
    """`messages`, each with its entities: those stored, else found now (not stored)."""
    from zerda.entities import stored_entities

    for message in messages:
        if message.entities is None:
            message = replace(message, entities=stored_entities(message.content))
        yield message


def history(
    store: Store,
    session: str,
    last: int | None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> tuple[Summary | None, Iterable[Message]]:
    """The summary and the messages, streamed from the file; only the last `last` if given,
    of those created in [since, until) if either is given."""
    if since is not None or until is not None:
        from zerda_cli.options.spans import messages_within

        kept = messages_within(store.iter_messages(session), since, until)
        return store.get_summary(session), deque(kept, maxlen=last) if last else kept
    if last is None:
        return store.get_summary(session), store.iter_messages(session)
    memory = store.get_memory(session, lastn=last)
    return memory.summary, memory.messages


def stats(
    session: str, as_json: bool, lenient: bool, home: Path | None, location: str | None
) -> None:
    """`zerda stats` without --models: the session's running totals."""
    from zerda_cli import render
    from zerda_cli.options.opening import open_store

    store = open_store(home, location, lenient=lenient, command="stats")
    render.stats(store.session_stats(session), as_json)


def sessions(
    since: datetime | None,
    until: datetime | None,
    limit: int | None,
    sort: str,
    reverse: bool,
    as_json: bool,
    home: Path | None,
    location: str | None,
) -> None:
    """`zerda sessions`: the sessions' overviews, in range, ordered and cut (from the
    archive index where the store keeps one)."""
    from zerda_cli import render
    from zerda_cli.options.opening import open_store
    from zerda_cli.render.progress import ProgressLine

    store = open_store(home, location, command="sessions")
    with ProgressLine("indexing sessions") as progress:
        if hasattr(store, "index_progress"):
            store.index_progress = progress
        found = store.overviews(sort, reverse, limit, since, until)
    render.sessions(found, as_json)


def search_query(query: str, regex: bool, words: bool, rank: bool) -> tuple[Query, str]:
    """What `zerda search` looks for, and how to name it to people; a usage error when
    the query or its flags are bad."""
    if not query:
        raise UsageProblem("the query is empty", "search")
    if regex and (words or rank):
        raise UsageProblem(f"--regex cannot go with {'--words' if words else '--rank'}", "search")
    if regex:
        import re

        try:
            return re.compile(query, re.IGNORECASE), f"/{query}/"
        except re.error as exc:
            raise UsageProblem(f"bad regular expression {query!r}: {exc}", "search") from None
    if not words:
        return query, repr(query)
    from zerda.store._words import Words

    try:
        return Words.parse(query), repr(query)
    except ZerdaError as exc:
        raise UsageProblem(str(exc), "search") from None


def role_names(values: list[str]) -> list[str]:
    """The roles of every `--role` (each may be a comma list); a usage error for an empty one."""
    names = [name.strip() for value in values for name in value.split(",")]
    if any(not name for name in names):
        raise UsageProblem("--role needs a role name (an empty one was given)", "search")
    return names


def search(query: Query, label: str, where: Filters, rank: bool, as_json: bool) -> int:
    """`zerda search`, once its query is made: the matches written as they are found,
    newest (or with `rank`, best) first. Returns how many; exit status 2 for trouble."""
    from zerda.store._matching import Matcher
    from zerda_cli import render
    from zerda_cli.options.errors import ExitStatusError, os_message
    from zerda_cli.options.opening import open_store
    from zerda_cli.render.progress import ProgressLine

    scores: list[float] | None = None
    options: dict[str, Any] = {
        "roles": where.roles, "since": where.since, "until": where.until, "limit": where.limit
    }  # fmt: skip
    try:
        store = open_store(where.home, where.location, lenient=where.lenient, command="search")
        with ProgressLine("indexing sessions") as progress:
            if hasattr(store, "index_progress"):
                store.index_progress = progress
            if rank:
                best = store.ranked(query, where.session, **options)
                scores = [score for _, _, score in best]
                hits: Iterable[tuple[str, Message]] = [(sid, m) for sid, m, _ in best]
            else:
                hits = store.search(query, where.session, **options)
        return render.search(hits, Matcher(query), label, as_json, scores)
    except BrokenPipeError:
        raise  # whoever read the matches stopped: no trouble of the search's
    except UsageProblem:
        raise
    except (ZerdaError, OSError) as exc:
        message = str(exc) if isinstance(exc, ZerdaError) else os_message(exc)
        raise ExitStatusError(message, 2) from exc


@dataclass(frozen=True)
class Filters:
    """Which messages `zerda search` looks at, and where."""

    session: str | None = None
    roles: list[str] = field(default_factory=list)
    since: datetime | None = None
    until: datetime | None = None
    limit: int | None = None
    lenient: bool = False
    home: Path | None = None
    location: str | None = None
