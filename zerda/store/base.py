"""The store interface: what every session store provides, and what it gets for free.

Everything above the store (memory classes, the command, the REPL) is written against
`Store`. An implementation provides the abstract methods; `add_message`,
`append_turn` and the async twins (Zep's client names: `aadd_memory`,
`aget_memory`, ...) come from here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from zerda.messages import Memory, Message, Session, Summary

if TYPE_CHECKING:
    from zerda.store.checks import Finding, Repair
    from zerda.store.matching import Query
    from zerda.store.overview import SessionOverview
    from zerda.store.ranking import Corpus
    from zerda.store.sources import MessageSource
    from zerda.store.stats import SessionStats


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

    @abstractmethod
    def exists(self, session_id: str) -> bool:
        """True when the session has been written."""

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

    @abstractmethod
    def list_sessions(self) -> list[SessionStats]:
        """Stats of every readable session, most recently active first."""

    @abstractmethod
    def list_overviews(self) -> list[SessionOverview]:
        """Stats, title, creation time and opening words of every readable session, most
        recently active first (a session that cannot be read is skipped with a warning)."""

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
        from zerda.store.overview import active_within, check_listing, ordered

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
        if not self.exists(session_id) or self._active_since(session_id, cutoff):
            return False
        self.delete_session(session_id)
        return True

    def _active_since(self, session_id: str, cutoff: datetime) -> bool:
        """True when the session was active at or after `cutoff` (naive: local time), or
        when that is unknown."""
        from zerda.store.overview import last_activity

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
        recording where it came from; see `zerda.store.forking`. Returns the new session."""
        from zerda.store.forking import fork

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

    @abstractmethod
    def get_memory(self, session_id: str, lastn: int | None = None) -> Memory:
        """The messages (the last `lastn`; None or 0: all) and the summary."""

    @abstractmethod
    def iter_messages(self, session_id: str) -> Iterator[Message]:
        """Every message, oldest first, streamed."""

    @abstractmethod
    def iter_messages_reversed(self, session_id: str) -> Iterator[Message]:
        """Messages newest first, streamed from the end."""

    @abstractmethod
    def system_messages(self, session_id: str) -> list[Message]:
        """The session's system messages, oldest first."""

    @abstractmethod
    def message_count(self, session_id: str) -> int:
        """How many messages the session holds."""

    @abstractmethod
    def session_stats(self, session_id: str) -> SessionStats:
        """Counts, tokens, characters and activity."""

    @abstractmethod
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
        """

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
        BM25 (see `zerda.store.ranking`), at most `limit`. `query` is a string or
        `Words`; a pattern cannot be ranked (InvalidArgumentError)."""
        from zerda.errors import InvalidArgumentError
        from zerda.store.matching import Matcher, check_limit
        from zerda.store.ranking import best, countable

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
        from zerda.store.ranking import Corpus

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

    @abstractmethod
    def delete_last_turn(self, session_id: str) -> list[Message]:
        """Remove the last user message and everything after it; returns what was removed."""

    @abstractmethod
    def replace_last_turn(
        self,
        session_id: str,
        user: str,
        assistant: str,
        *,
        replaces: str | None = None,
        reply_metadata: dict[str, Any] | None = None,
    ) -> tuple[Message, Message]:
        """Swap the last turn for a new one in one step (`reply_metadata` on the reply)."""

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
        default rewrites the session with `replace_messages`, for a store used by one
        writer."""
        from zerda.entities import stored_entities

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
            self.set_summary(
                session_id, replace(summary, entities=stored_entities(summary.content))
            )
        return sum(wanted)

    @abstractmethod
    def check(self, session_id: str | None = None) -> list[Finding]:
        """What is wrong with the stored sessions (all, or `session_id`'s: NotFoundError
        if it does not exist), one Finding each; nothing is changed."""

    @abstractmethod
    def repair(self, session_id: str | None = None) -> Repair:
        """Fix what `check` finds, losing nothing that can be read (damaged lines are
        saved aside, not dropped); says what was fixed, saved and left."""

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
