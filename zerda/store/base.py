"""The store interface: what every session store provides, and what it gets for free.

Everything above the store (memory classes, the command, the REPL) is written against
`Store`. An implementation provides twelve primitives (the abstract methods: sessions
made, read, listed, renamed and deleted; messages added, read in order and replaced;
the summary set and read; a session cleared); everything else has a default built on
them here (`get_memory`, stats, listings, search and ranking, the last turn undone or
replaced, the conditional deletes, forks, the async twins with Zep's client names:
`aadd_memory`, `aget_memory`, ...), which a store overrides when it can answer faster
or in one step. `InMemoryStore` (zerda.store._inmemory) is the primitives alone: the
reference the conformance suite holds every store to.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from zerda.messages import Memory, Message, Session, Summary

if TYPE_CHECKING:
    from zerda.store._checks import Finding, Repair
    from zerda.store._matching import Query
    from zerda.store._overview import SessionOverview
    from zerda.store._ranking import Corpus
    from zerda.store._sources import MessageSource
    from zerda.store._stats import SessionStats


T = TypeVar("T")
Item = TypeVar("Item", Message, Summary)


async def _in_thread(call: Callable[..., T], *args: Any) -> T:
    """`call(*args)` in a worker thread; asyncio loads only when an async twin is used."""
    import asyncio

    return await asyncio.to_thread(call, *args)


class Store(ABC):
    """Sessions of messages with metadata, a running summary and running totals."""

    encoding: str
    count_on_write = True  # count each message's tokens as it is written
    extract_entities = True  # find each message's and summary's entities as it is written

    def _with_entities(self, item: Item) -> Item:
        """`item` with the entities of its text, unless given or the store does not
        extract them."""
        if item.entities is not None or not self.extract_entities:
            return item
        from zerda.entities import stored_entities

        return replace(item, entities=stored_entities(item.content))

    def _stamp(self, message: Message) -> Message:
        """`message` as written: a time (now, unless given), a uuid, its entities and its
        token count (each unless given, or the store finds them later)."""
        message = self._with_entities(message)
        if message.token_count is not None or not self.count_on_write:
            return message.stamped(None)
        from zerda.tokens import get_counter

        return message.stamped(get_counter(self.encoding).count(message.content))

    def _stamp_summary(self, summary: Summary | str | None) -> Summary | None:
        """`summary` as written, stamped and counted like a message."""
        found = Summary.coerce(summary)
        found = self._with_entities(found) if found else None
        if found is None or found.token_count is not None:
            return found.stamped(None) if found else None
        from zerda.tokens import count_tokens

        return found.stamped(count_tokens(found.content, self.encoding))

    # -- sessions ----------------------------------------------------------------

    def _one_step(self) -> AbstractContextManager[object]:
        """Held around the defaults that read and then write (undo, retry, forks): a
        store whose primitives share one lock returns it, so these are one step too."""
        return nullcontext()

    def exists(self, session_id: str) -> bool:
        """True when the session has been written."""
        from zerda.errors import NotFoundError

        try:
            self.get_session(session_id)
        except NotFoundError:
            return False
        return True

    @abstractmethod
    def create_session(
        self,
        session_id: str,
        user_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        created_at: datetime | None = None,
    ) -> Session:
        """Create the session, or update it as `update_session` does if it exists."""

    @abstractmethod
    def update_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """Set the user and merge metadata (None removes a key); NotFoundError if unknown."""

    @abstractmethod
    def get_session(self, session_id: str) -> Session:
        """The session's id, user, metadata and creation time."""

    @abstractmethod
    def session_ids(self) -> list[str]:
        """The ids of all sessions, sorted."""

    def list_sessions(self) -> list[SessionStats]:
        """Stats of every readable session, most recently active first."""
        return [overview.stats for overview in self.list_overviews()]

    def list_overviews(self) -> list[SessionOverview]:
        """Stats, title, creation time and opening words of every readable session, most
        recently active first (a session that cannot be read is skipped with a warning)."""
        from zerda.errors import NotFoundError
        from zerda.store._derived import overview_of

        found = []
        for sid in self.session_ids():
            try:
                found.append(overview_of(self, sid))
            except NotFoundError:
                continue  # gone meanwhile
        return sorted(found, key=lambda o: o.stats.last_activity or "", reverse=True)

    def overviews(
        self,
        sort: str = "activity",
        reverse: bool = False,
        limit: int | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[SessionOverview]:
        """The overviews `zerda sessions` lists: last active in [since, until) if either is
        given, in `sort`'s order (activity, created, messages, tokens: largest first;
        name: A-Z; ties by name), the other way round if `reverse`, at most `limit`.

        Stores with an index answer from it; this default orders `list_overviews()`."""
        from zerda.store._overview import active_within, check_listing, ordered

        check_listing(sort, limit, since, until)
        chosen = [o for o in self.list_overviews() if active_within(o, since, until)]
        return ordered(chosen, sort, reverse)[:limit]

    @abstractmethod
    def delete_session(self, session_id: str) -> None:
        """Remove the session and everything in it."""

    def delete_session_if_empty(self, session_id: str) -> bool:
        """Remove the session if it exists and holds no message and no summary; True when
        it was removed. The stores make the check and the removal one step, so a writer
        that adds a message meanwhile keeps its session."""
        with self._one_step():
            if not self.exists(session_id) or self.message_count(session_id):
                return False
            if self.get_summary(session_id) is not None:
                return False
            self.delete_session(session_id)
        return True

    def delete_session_if_inactive(self, session_id: str, cutoff: datetime) -> bool:
        """Remove the session if it exists and was last active before `cutoff` (its last
        message's time and its creation both are; `overview.last_activity`); True when it
        was removed. The stores make the check and the removal one step, so a writer that
        adds a message meanwhile keeps its session."""
        with self._one_step():
            if not self.exists(session_id) or self._active_since(session_id, cutoff):
                return False
            self.delete_session(session_id)
        return True

    def _active_since(self, session_id: str, cutoff: datetime) -> bool:
        """True when the session was active at or after `cutoff` (naive: local time), or
        when that is unknown."""
        from zerda.store._overview import last_activity

        created = self.get_session(session_id).created_at
        active = last_activity(self.session_stats(session_id), created)
        return active is None or active >= cutoff.astimezone(UTC)

    @abstractmethod
    def rename_session(self, old: str, new: str) -> None:
        """Give session `old` the id `new`, in one step: a reader finds it under one name or
        the other, never both nor neither. SessionExistsError when `new` is taken,
        NotFoundError when `old` is unknown; nothing is changed then.

        A write to `old` waiting while it is renamed goes where its id says once the
        rename is done: into a new session `old` (created by a first write, as ever), or
        NotFoundError for a write that needs the session to exist. No acknowledged
        write is lost, and none lands in `new` after the rename.
        """

    def fork_session(self, source: str, new: str, turns: int | None = None) -> Session:
        """Make session `new` from the first `turns` turns of `source` (None: all of them),
        recording where it came from; see `zerda.store._forking`. Returns the new session."""
        from zerda.store._forking import fork

        return fork(self, source, new, turns)

    # -- messages ----------------------------------------------------------------

    @abstractmethod
    def add_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """Add messages (upserting by uuid) and a summary in one write; returns them stored."""

    def add_message(self, session_id: str, message: Message) -> Message:
        """Add one message."""
        return self.add_memory(session_id, Memory(messages=[message]))[0]

    def append_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        metadata: dict[str, Any] | None = None,
        summary: Summary | str | None = None,
    ) -> tuple[Message, Message]:
        """Append a user message and its reply (and a new summary) in one write."""
        pair = [
            Message("user", user, dict(metadata or {})),
            Message("assistant", assistant, dict(metadata or {})),
        ]
        first, second = self.add_memory(session_id, Memory(messages=pair, summary=summary))
        return first, second

    def import_messages(
        self, session_id: str, source: MessageSource, summary: Summary | str | None = None
    ) -> int:
        """Add every message of `source` (and a summary) in one write, as `add_memory`
        does; returns how many were written. Stores that can, stream them (this gathers
        them first)."""
        messages = [message for _, message in source]
        return len(self.add_memory(session_id, Memory(messages=messages, summary=summary)))

    @abstractmethod
    def set_summary(self, session_id: str, summary: Summary | str) -> Summary:
        """Record the session's running summary (the latest wins); returns it stored."""

    @abstractmethod
    def get_summary(self, session_id: str) -> Summary | None:
        """The latest summary, or None."""

    def get_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        """The messages (the last `lastn`; None or 0: all) and the summary."""
        from zerda.errors import InvalidArgumentError

        if lastn is not None and (type(lastn) is not int or lastn < 0):
            raise InvalidArgumentError(f"lastn must be a non-negative integer, not {lastn!r}")
        kept = deque(self.iter_messages(session_id), maxlen=lastn or None)
        return Memory(messages=list(kept), summary=self.get_summary(session_id))

    @abstractmethod
    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """Every message, oldest first, streamed."""

    def iter_messages_reversed(self, session_id: str) -> Iterator[Message]:
        """Messages newest first, streamed from the end."""
        return reversed(list(self.iter_messages(session_id)))

    def system_messages(self, session_id: str) -> list[Message]:
        """The session's system messages, oldest first."""
        return [m for m in self.iter_messages(session_id) if m.kind == "system"]

    def message_count(self, session_id: str) -> int:
        """How many messages the session holds."""
        return sum(1 for _ in self.iter_messages(session_id))

    def session_stats(self, session_id: str) -> SessionStats:
        """Counts, tokens, characters and activity."""
        from zerda.store._stats import collect_stats

        stats = collect_stats(session_id, self.iter_messages(session_id))
        return replace(stats, encoding=self.encoding)

    def search(
        self,
        query: Query,
        session_id: str | None = None,
        *,
        roles: Collection[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[tuple[str, Message]]:
        """(session id, message) for each message `query` finds, newest first, streamed.

        `query` is a string found in any case (`str.casefold`) or a compiled `re`
        pattern (compile it with `re.IGNORECASE` for any case); `Matcher.spans` says
        where in the content it matches. Only messages of one of `roles` (a role as
        given or a role type), created at or after `since` and before `until`
        (timezone-aware), in `session_id` if given (NotFoundError if it does not exist),
        the newest `limit` (a positive integer) at most. Newest first: by `created_at`,
        whatever order the messages were added in (imports keep their times); equal
        times in session id order, then within a session the one added last first.
        This default reads every message; the stores use their indexes.
        """
        from zerda._paths import validate_session_id
        from zerda.store._derived import found_in
        from zerda.store._matching import Filters, Matcher, check_limit

        check_limit(limit)
        session_id = session_id or None
        if session_id is not None:
            validate_session_id(session_id)
        filters = Filters.of(roles, since, until)
        return islice(found_in(self, Matcher(query), filters, session_id), limit)

    def ranked(
        self,
        query: Query,
        session_id: str | None = None,
        *,
        roles: Collection[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[tuple[str, Message, float]]:
        """(session id, message, score) for each message `search` finds, best first by
        BM25 (see `zerda.store._ranking`), at most `limit`. `query` is a string or
        `Words`; a pattern cannot be ranked (InvalidArgumentError)."""
        from zerda.errors import InvalidArgumentError
        from zerda.store._matching import Matcher, check_limit
        from zerda.store._ranking import best, countable

        check_limit(limit)
        matcher = Matcher(query)
        if matcher.pattern is not None:
            raise InvalidArgumentError("a pattern cannot be ranked: rank a string or words")
        hits = list(self.search(query, session_id, roles=roles, since=since, until=until))
        terms = matcher.needles
        counted = [n for n, texts in enumerate(terms) if countable(texts)]
        corpus = self.corpus([terms[n] for n in counted]).spread(len(terms), counted)
        return best(hits, matcher, corpus, limit)

    def corpus(self, terms: Sequence[Sequence[str]]) -> Corpus:
        """What ranking needs of the whole store: its messages, their characters, and for
        each term (the casefolded texts a match of it holds) how many messages hold them
        all. Stores with an index estimate it there; this default reads every message (a
        session that cannot be read counts for nothing)."""
        from zerda.errors import NotFoundError, StoreError
        from zerda.store._ranking import Corpus

        messages = characters = 0
        holding = [0] * len(terms)
        for sid in self.session_ids():
            try:
                for message in self.iter_messages(sid):
                    messages += 1
                    characters += len(message.content)
                    folded = message.content.casefold()
                    for n, texts in enumerate(terms):
                        holding[n] += all(text in folded for text in texts)
            except (NotFoundError, StoreError):
                continue  # gone meanwhile, or damaged: a search reports it, not ranking
        return Corpus(messages, characters, tuple(holding))

    # -- rewriting ---------------------------------------------------------------

    @abstractmethod
    def clear(self, session_id: str) -> None:
        """Empty the session (messages and summary); the session and its metadata stay."""

    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last turn: the last message that asks (a user, or a speaker of no
        known type; see `Message.part`) and everything after it. Returns what was removed.
        The summary stays; a session where no message asks keeps all its messages."""
        from zerda.store._derived import last_ask

        with self._one_step():
            messages = list(self.iter_messages(session_id))
            cut = last_ask(messages)
            if cut is None:
                return []
            self.replace_messages(session_id, messages[:cut])
        return messages[cut:]

    def replace_last_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        *,
        replaces: str | None = None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> tuple[Message, Message]:
        """Swap the last turn (as `delete_last_turn` finds it) for a new one in one step
        (`reply_metadata` on the reply). `replaces`, when given, is the uuid of the
        message expected to open the last turn; if the session has moved on,
        `SessionChangedError` is raised and nothing is written. A session where no
        message asks gets the turn appended. The summary stays."""
        from zerda.errors import SessionChangedError
        from zerda.store._derived import last_ask

        reply = Message("assistant", assistant, dict(reply_metadata or {}))
        pair = (self._stamp(Message("user", user)), self._stamp(reply))
        with self._one_step():
            messages = list(self.iter_messages(session_id))
            cut = last_ask(messages)
            opened = None if cut is None else messages[cut].uuid
            if replaces is not None and (cut is None or opened != replaces):
                raise SessionChangedError(
                    f"session {session_id} changed since its last turn was read; nothing written"
                )
            self.replace_messages(session_id, [*messages[:cut], *pair])
        return pair

    def compact(self, session_id: str) -> None:
        """Fold what the session's storage holds beyond its messages, summary and facts
        (the file store's updates, token records and old summaries) into a fresh copy;
        NotFoundError if the session does not exist. Stores that keep nothing more have
        nothing to do."""
        self.get_session(session_id)

    @abstractmethod
    def replace_messages(self, session_id: str, messages: list[Message]) -> None:
        """Make the session's messages exactly `messages`, in their order, in one step: a
        failure leaves the old ones. Each keeps its uuid, time and count when given (a
        repeated uuid is stored once, as `add_memory` does); the summary and the session's
        facts stay. NotFoundError if the session does not exist."""

    def fill_entities(self, session_id: str, *, again: bool = False) -> int:
        """Store the entities of the session's messages and summary held without them
        (every one with `again`): history imported, or written with `extract_entities`
        off. Returns how many messages got entities; NotFoundError if the session does
        not exist. Both stores do it under their lock or in their transactions; this
        default rewrites the session with `replace_messages`, in one step where the store's
        primitives share a lock (`_one_step`)."""
        from zerda.entities import stored_entities

        with self._one_step():
            messages = list(self.iter_messages(session_id))
            wanted = [again or m.entities is None for m in messages]
            if any(wanted):
                self.replace_messages(
                    session_id,
                    [
                        replace(m, entities=stored_entities(m.content)) if want else m
                        for m, want in zip(messages, wanted, strict=True)
                    ],
                )
            summary = self.get_summary(session_id)
            if summary is not None and (again or summary.entities is None):
                found = replace(summary, entities=stored_entities(summary.content))
                self.set_summary(session_id, found)
        return sum(wanted)

    def check(self, session_id: str | None = None) -> list[Finding]:
        """What is wrong with the stored sessions (all, or `session_id`'s: NotFoundError
        if it does not exist), one Finding each; nothing is changed. A store keeping
        nothing that can be damaged finds nothing: this default."""
        if session_id is not None:
            self.get_session(session_id)
        return []

    def repair(self, session_id: str | None = None) -> Repair:
        """Fix what `check` finds, losing nothing that can be read (damaged lines are
        saved aside, not dropped); says what was fixed, saved and left."""
        from zerda.store._checks import Repair

        return Repair([], [], self.check(session_id))

    def describe(self, session_id: str) -> str:
        """Where the session is kept, for people (a file's path, a server's URL)."""
        return f"session {session_id}"

    def close(self) -> None:
        """Let go of what the store holds open (a server's connections); a later call
        opens it again."""
        return None  # files hold nothing open between calls

    # -- async twins ---------------------------------------------------------------

    async def aadd_memory(self, session_id: str, memory: Memory) -> list[Message]:
        """`add_memory` in a worker thread."""
        return await _in_thread(self.add_memory, session_id, memory)

    async def aadd_message(self, session_id: str, message: Message) -> Message:
        """`add_message` in a worker thread."""
        return await _in_thread(self.add_message, session_id, message)

    async def aget_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        """`get_memory` in a worker thread."""
        return await _in_thread(self.get_memory, session_id, lastn)

    async def aget_summary(self, session_id: str) -> Summary | None:
        """`get_summary` in a worker thread."""
        return await _in_thread(self.get_summary, session_id)

    async def aset_summary(self, session_id: str, summary: Summary | str) -> Summary:
        """`set_summary` in a worker thread."""
        return await _in_thread(self.set_summary, session_id, summary)

    async def acreate_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """`create_session` in a worker thread."""
        return await _in_thread(self.create_session, session_id, user_id, metadata)

    async def aupdate_session(
        self, session_id: str, user_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> Session:
        """`update_session` in a worker thread."""
        return await _in_thread(self.update_session, session_id, user_id, metadata)

    async def aget_session(self, session_id: str) -> Session:
        """`get_session` in a worker thread."""
        return await _in_thread(self.get_session, session_id)

    async def adelete_session(self, session_id: str) -> None:
        """`delete_session` in a worker thread."""
        await _in_thread(self.delete_session, session_id)

    async def alist_sessions(self) -> list[SessionStats]:
        """`list_sessions` in a worker thread."""
        return await _in_thread(self.list_sessions)

    async def asession_stats(self, session_id: str) -> SessionStats:
        """`session_stats` in a worker thread."""
        return await _in_thread(self.session_stats, session_id)

    async def asearch(
        self, query: Query, session_id: str | None = None, **filters: Any
    ) -> list[tuple[str, Message]]:
        """Every hit of `search` (with its keyword filters), gathered in a worker thread."""
        return await _in_thread(lambda: list(self.search(query, session_id, **filters)))

    async def aclear(self, session_id: str) -> None:
        """`clear` in a worker thread."""
        await _in_thread(self.clear, session_id)


def last_wins(messages: list[Message]) -> list[Message]:
    """`messages` with each repeated uuid kept once: at its first place, its last value."""
    last = {m.uuid: m for m in messages if m.uuid}
    seen: set[str] = set()
    kept = []
    for message in messages:
        if message.uuid:
            if message.uuid in seen:
                continue
            seen.add(message.uuid)
            message = last[message.uuid]
        kept.append(message)
    return kept


def merged_metadata(metadata: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`metadata` with `changes` applied: a key set to None is removed."""
    merged = {**metadata, **changes}
    return {k: v for k, v in merged.items() if v is not None}
