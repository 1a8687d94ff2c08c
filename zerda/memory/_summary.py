"""ConversationSummaryMemory and ConversationSummaryBufferMemory: a running summary, bounded.

Turns folded into the summary leave `chat_memory` (a bound memory's session keeps them
on disk), so neither memory grows with the conversation, in RAM or in what it hands a
model. The summary stays within `max_summary_tokens` whatever the summarizer returns.

A stored summary says what it covers in its metadata: `summarizer` (what made it),
`turns` (it covers the session's first `turns` turns), `turn_tokens` (their tokens)
and `through` (a fingerprint of the newest turn it covers). A memory bound to a
session picks up from there: it folds the turns its summary does not cover yet
(written by `zerda add`, another memory, or before the summary existed) when it is
made, and writes the new summary with its next save. A summary covering more turns
than the session holds, or whose newest turn is no longer the one at its place (turns
were undone, and others written), is made again from the session's turns; so is, with
the offline summarizer, one covering the newest turn for the summary-buffer memory,
which holds that turn verbatim (a model's is kept: it is costly to make again).
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Self

from zerda.errors import InvalidArgumentError
from zerda.memory._base import BaseMemory, SavePoint
from zerda.memory._budget import message_tokens
from zerda.memory._token_buffer import ConversationTokenBufferMemory, Cost
from zerda.memory._turns import Turn, iter_turns, last_turns, turn_mark, turns_from_messages
from zerda.messages import TURNS_KEY, Summary, covered_turns
from zerda.store.base import Store
from zerda.summarizers._base import (
    DEFAULT_SUMMARY_TOKENS,
    RATIO,
    Summarizer,
    check_budget,
    describe,
    fold,
    target_tokens,
    turns_tokens,
)
from zerda.tokens import DEFAULT_ENCODING, count_tokens

SUMMARY_INTRO = "Summary of the conversation so far:\n"
SUMMARY_LABEL = "summary: "
CUT_MARK = "…"  # ends a summary cut to fit the budget beside the newest turn
TOKENS_KEY = "turn_tokens"  # Summary.metadata: the tokens of those turns
THROUGH_KEY = "through"  # Summary.metadata: `turn_mark` of the newest turn covered
FOLD_BATCH = 64  # turns handed to the summarizer at once when catching up with a session
TAIL_TURNS = 256  # turns to catch up with this close to the end are read from the end
RECENT_TURNS = 64  # turns an unbound ConversationSummaryMemory keeps for get_messages()


def batches(turns: Iterable[Turn], size: int = FOLD_BATCH) -> Iterator[list[Turn]]:
    """`turns` in lists of at most `size`, read lazily."""
    iterator = iter(turns)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def session_turns(
    store: Store, session_id: str, start: int, stop: int, total: int
) -> Iterable[Turn]:
    """The session's turns `start` to `stop` (0-based, `stop` excluded) of its `total`:
    read from the file's end when they are among its last TAIL_TURNS, else streamed."""
    if stop <= start:
        return []
    if total - start <= TAIL_TURNS:
        return last_turns(store.iter_messages_reversed(session_id), total - start)[: stop - start]
    return itertools.islice(iter_turns(store.iter_messages(session_id)), start, stop)


@dataclass(frozen=True)
class SummaryState:
    """A summary memory's running summary and what it covers: all that folding turns
    changes besides `chat_memory`. Taken before a save (its save point) or before
    `resummarize`, and put back if either fails; the default is the empty summary."""

    summary: str = ""
    turns: int = 0  # how many turns (of the session, from its first) it covers
    turn_tokens: int = 0  # the tokens of those turns
    through: str | None = None  # `turn_mark` of the newest turn it covers
    folded: bool = False  # turns were folded in since it was made or restored

    def restore(self, memory: _SummaryMixin, /) -> None:
        """Put this state back into `memory`."""
        memory._set_state(self)


class _SummaryMixin(BaseMemory):
    """A running summary kept beside the turns; bound sessions persist it."""

    summary: str
    summarizer: Summarizer
    max_summary_tokens: int
    summary_turns: int  # how many turns (of the session, from its first) the summary covers
    summary_turn_tokens: int  # the tokens of those turns
    summary_through: str | None  # `turn_mark` of the newest turn it covers
    summary_folded: bool  # turns were folded in since it was made or restored

    def _init_summary(
        self, summarizer: Summarizer | None, max_summary_tokens: int | None, kwargs: dict[str, Any]
    ) -> None:
        from zerda.summarizers._extractive import ExtractiveSummarizer

        bound = max_summary_tokens
        if bound is None:
            own = getattr(summarizer, "max_summary_tokens", None)
            bound = own if type(own) is int else self._default_summary_tokens()
        self.max_summary_tokens = check_budget(bound)
        encoding = kwargs.get("encoding", DEFAULT_ENCODING)
        self.summarizer = summarizer or ExtractiveSummarizer(bound, encoding=encoding)
        self._set_state(SummaryState())

    def _default_summary_tokens(self) -> int:
        return DEFAULT_SUMMARY_TOKENS

    # -- folding -----------------------------------------------------------------

    def _fold(self, turns: list[Turn]) -> Summary | None:
        """Fold `turns` into the summary; the new summary, or None when there were none.

        A summarizer failure raises SummarizerError with the summary unchanged.
        """
        if not turns:
            return None
        covered = self.summary_turn_tokens + turns_tokens(turns, self.encoding)
        self.summary = fold(
            self.summarizer,
            self.summary,
            turns,
            max_summary_tokens=self.max_summary_tokens,
            covered_tokens=covered,
            encoding=self.encoding,
        )
        self.summary_turns += len(turns)
        self.summary_turn_tokens = covered
        self.summary_through = turn_mark(turns[-1])
        self.summary_folded = True
        return self.summary_value()

    def _made_by_us(self, stored: Summary) -> bool:
        """True when `stored` was made by this memory's kind of summarizer."""
        name = describe(self.summarizer).get("summarizer")
        return bool(name) and stored.metadata.get("summarizer") == name

    def summary_value(self) -> Summary:
        """The summary as stored: its text and what made it and covers (`metadata`)."""
        with self._lock:
            metadata = {
                **describe(self.summarizer),
                TURNS_KEY: self.summary_turns,
                TOKENS_KEY: self.summary_turn_tokens,
            }
            if self.summary_through:
                metadata[THROUGH_KEY] = self.summary_through
            return Summary(self.summary, metadata=metadata)

    def _state(self) -> SummaryState:
        """The summary and what it covers, as they are now."""
        return SummaryState(
            self.summary,
            self.summary_turns,
            self.summary_turn_tokens,
            self.summary_through,
            self.summary_folded,
        )

    def _set_state(self, state: SummaryState) -> None:
        self.summary = state.summary
        self.summary_turns = state.turns
        self.summary_turn_tokens = state.turn_tokens
        self.summary_through = state.through
        self.summary_folded = state.folded

    def _save_point(self) -> SummaryState:
        return self._state()

    # -- restoring ---------------------------------------------------------------

    def _adopt(
        self, stored: Summary | None, covered: int, total: int, mark_at: Callable[[int], str]
    ) -> None:
        """Take the stored summary as covering the session's first `covered` turns; one
        covering more turns than the session holds, or whose newest turn is not the one
        at its place now (`mark_at(i)`: the `turn_mark` of the session's turn i), is
        dropped: turns it covers were undone."""
        if stored is None or covered > total or not stored.content:
            return
        through = stored.metadata.get(THROUGH_KEY)
        if isinstance(through, str) and covered and mark_at(covered - 1) != through:
            return
        self.summary = stored.content
        self.summary_turns = covered
        self.summary_through = through if isinstance(through, str) else None
        tokens = stored.metadata.get(TOKENS_KEY)
        if type(tokens) is not int or tokens < 0:  # a summary that does not say: as if a quarter
            tokens = math.ceil(count_tokens(stored.content, self.encoding) / RATIO)
        self.summary_turn_tokens = tokens
        if count_tokens(self.summary, self.encoding) > self.max_summary_tokens:
            # Made under a larger bound: brought within this one (the extractive summarizer
            # picks its best sentences again; any other is cut).
            self.summary = fold(
                self.summarizer,
                self.summary,
                [],
                max_summary_tokens=self.max_summary_tokens,
                covered_tokens=tokens,
                encoding=self.encoding,
            )

    def _mark_reader(self, store: Store, session_id: str, total: int) -> Callable[[int], str]:
        """`mark_at` for `_adopt`: the mark of the session's turn i, read from its end."""

        def mark_at(index: int) -> str:
            found = list(session_turns(store, session_id, index, index + 1, total))
            return turn_mark(found[0]) if found else ""

        return mark_at

    def _catch_up(self, store: Store, session_id: str, stop: int, total: int) -> None:
        """Fold the session's turns from the first the summary does not cover to `stop`."""
        for batch in batches(session_turns(store, session_id, self.summary_turns, stop, total)):
            self._fold(batch)

    def resummarize(self) -> Summary | None:
        """Make the summary again from the bound session: from its first turn up to
        the turns held verbatim, and store it if it changed; None when unbound.

        For when turns the summary covers were rewritten (undone, retried): their
        count alone does not show it. A failure leaves summary and store as they were.
        """
        with self._lock:
            store, session_id = self.store, self.session_id
            if store is None or session_id is None or not store.exists(session_id):
                return None
            stored = store.get_summary(session_id)
            if stored is not None and not self._made_by_us(stored):
                return stored  # imported, or made by a model: never replaced by a read
            total = store.session_stats(session_id).turn_count
            state = self._state()
            self._set_state(SummaryState())
            try:
                self._catch_up(store, session_id, total - len(self.chat_memory), total)
                return self._stored_if_new(store, session_id, stored)
            except BaseException:
                self._set_state(state)
                raise

    def store_summary(self) -> Summary | None:
        """Store the summary if this memory folded turns into it since it was made or
        restored (binding may have caught up with turns the stored one did not cover),
        and it is not what the session holds; None when there was nothing to store."""
        with self._lock:
            store, session_id = self.store, self.session_id
            if store is None or session_id is None or not self.summary_folded:
                return None
            if not store.exists(session_id):
                return None
            return self._stored_if_new(store, session_id, store.get_summary(session_id))

    def _stored_if_new(self, store: Store, session_id: str, stored: Summary | None) -> Summary:
        value = self.summary_value()
        current = None if stored is None else (stored.content, stored.metadata)
        if value.content and current != (value.content, value.metadata):
            store.set_summary(session_id, value)
        return value

    # -- what it hands a model ---------------------------------------------------

    def _shown_summary(self) -> str:
        """The summary as the context hands it out (here: whole)."""
        return self.summary

    def _summary_line(self) -> str:
        shown = self._shown_summary()
        return f"{SUMMARY_LABEL}{shown}" if shown else ""

    def _summary_messages(self) -> list[dict[str, Any]]:
        """The summary as one system message; none while there is no summary."""
        shown = self._shown_summary()
        return [{"role": "system", "content": f"{SUMMARY_INTRO}{shown}"}] if shown else []

    def _prefix_text(self) -> str:
        """The text before the turns: the system lines, then the summary line."""
        return "\n".join(p for p in (self._system_text(), self._summary_line()) if p)

    def _prefix_messages(self) -> list[dict[str, Any]]:
        """The messages before the turns: the system messages, then the summary."""
        from zerda.formats.openai import to_openai

        return [to_openai(m) for m in self.system_messages] + self._summary_messages()

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Text: the system lines, the summary, then any turns held verbatim;
        `return_messages`: `chat_memory` itself plus key `summary`."""
        with self._lock:
            if self.return_messages:
                return {self.memory_key: self.chat_memory, "summary": self.summary}
            parts = (self._prefix_text(), self._turns_text())
            return {self.memory_key: "\n".join(p for p in parts if p)}

    def context_messages(self) -> list[dict[str, Any]]:
        """The system messages, the summary as a system message, then the verbatim turns."""
        with self._lock:
            messages = super().context_messages()
            at = len(self.system_messages)
            return messages[:at] + self._summary_messages() + messages[at:]

    def clear(self) -> None:
        """Forget turns and summary."""
        with self._lock:
            self.summary = ""
            self.summary_turns = 0
            self.summary_turn_tokens = 0
            super().clear()

    def get_memory_stats(self) -> dict[str, Any]:
        """The base stats plus the summary's size, bound and coverage."""
        stats = super().get_memory_stats()
        with self._lock:
            stats["summary_characters"] = len(self.summary)
            stats["summary_tokens"] = count_tokens(self.summary, self.encoding)
            stats["max_summary_tokens"] = self.max_summary_tokens
            stats["summary_turns"] = self.summary_turns
        return stats


class ConversationSummaryMemory(_SummaryMixin):
    """Folds every turn into a running summary; the summary is what it hands a model.

    Each save folds its turn into the summary at once, so `chat_memory` holds no
    turns between saves and `return_messages=True` gives that empty list plus key
    `summary`. The summary stays within `max_summary_tokens` (default: the
    summarizer's own bound, else DEFAULT_SUMMARY_TOKENS).

    `get_messages(limit)` gives the turns the summary was made from, never an empty
    answer where turns exist: bound to a session, the session's turns (the last
    `limit` read from the file's end); unbound, the `recent_turns` it folded last
    (RAM stays bounded).
    """

    memory_type = "summary"

    def __init__(
        self,
        summarizer: Summarizer | None = None,
        *args: Any,
        max_summary_tokens: int | None = None,
        recent_turns: int = RECENT_TURNS,
        **kwargs: Any,
    ) -> None:
        if type(recent_turns) is not int or recent_turns < 0:
            raise InvalidArgumentError(
                f"recent_turns must be an integer >= 0, not {recent_turns!r}"
            )
        self._init_summary(summarizer, max_summary_tokens, kwargs)
        self.recent: deque[Turn] = deque(maxlen=recent_turns)
        super().__init__(*args, **kwargs)

    def _trim(self) -> list[Turn]:
        dropped = self.chat_memory[:]
        del self.chat_memory[:]
        return dropped

    def _absorb(self, turn: Turn, dropped: list[Turn]) -> Summary | None:
        summary = self._fold(dropped)
        self.recent.extend(dropped)
        return summary

    def _forget_save(self, dropped: list[Turn], point: SavePoint[Self]) -> None:
        for turn in reversed(dropped):
            if not self.recent or self.recent[-1] is not turn:
                break
            self.recent.pop()
        super()._forget_save(dropped, point)

    def get_messages(self, limit: int | None = None) -> list[Turn]:
        """The last `limit` turns the summary was made from, or all of them when limit
        is None, 0 or falsy: the bound session's, else the `recent_turns` folded last."""
        with self._lock:
            store, session_id = self.store, self.session_id
            if store is None or session_id is None:
                turns = list(self.recent)
                return turns[-limit:] if limit else turns
            if not store.exists(session_id):
                return []
            if limit and limit > 0:
                return last_turns(store.iter_messages_reversed(session_id), limit)
            turns = turns_from_messages(store.iter_messages(session_id))
            return turns[-limit:] if limit else turns  # a negative limit slices as a list does

    def clear(self) -> None:
        """Forget turns, summary and the recent turns."""
        with self._lock:
            self.recent.clear()
            super().clear()

    def _restore(self, store: Store, session_id: str) -> None:
        stored = store.get_summary(session_id)
        total = store.session_stats(session_id).turn_count
        covered = covered_turns(stored)
        marks = self._mark_reader(store, session_id, total)
        self._adopt(stored, total if covered is None else covered, total, marks)
        self._catch_up(store, session_id, total, total)


def summary_buffer_bound(max_token_limit: int) -> int:
    """The default bound of ConversationSummaryBufferMemory's summary: a quarter of the
    budget, at most DEFAULT_SUMMARY_TOKENS."""
    limit = max_token_limit if type(max_token_limit) is int else 0
    return max(1, min(DEFAULT_SUMMARY_TOKENS, limit // 4))


class ConversationSummaryBufferMemory(_SummaryMixin, ConversationTokenBufferMemory):
    """Recent turns verbatim, older ones folded into a summary, all within `max_token_limit`.

    The budget bounds the whole context, summary included, as for
    ConversationTokenBufferMemory. While everything fits, nothing is folded; when a
    save goes over, the oldest turns are folded, enough of them to leave room for
    the summary at its largest (a quarter of what it covers, at most
    `max_summary_tokens`; default a quarter of the budget, at most
    DEFAULT_SUMMARY_TOKENS). `chat_memory` holds the verbatim turns only. The newest
    turn always stays, even when it is over the budget with the summary.
    """

    memory_type = "summary_buffer"

    def __init__(
        self,
        max_token_limit: int = 2000,
        summarizer: Summarizer | None = None,
        *args: Any,
        max_summary_tokens: int | None = None,
        **kwargs: Any,
    ) -> None:
        self.max_token_limit = max_token_limit  # the default summary bound depends on it
        self._cut_cache: tuple[tuple[Any, ...], str] | None = None
        self._init_summary(summarizer, max_summary_tokens, kwargs)
        super().__init__(max_token_limit, *args, **kwargs)

    def _default_summary_tokens(self) -> int:
        return summary_buffer_bound(self.max_token_limit)

    def _summary_reserve(self, folding: list[Turn]) -> Cost:
        """What the summary may cost once `folding` is folded, less what it costs now.

        At most its bound (for zerda's summarizers, the target for what it will cover),
        and no more than the summary and the folded text together: an estimate, which
        `_fold_within_budget` makes good if a summarizer writes more.
        """
        folded = turns_tokens(folding, self.encoding)
        covered = self.summary_turn_tokens + folded
        bound = self.max_summary_tokens
        if callable(getattr(self.summarizer, "summarize", None)):
            bound = target_tokens(covered, bound)
        largest = min(bound, count_tokens(self.summary, self.encoding) + folded + 4 * len(folding))
        intro = {"role": "system", "content": SUMMARY_INTRO}
        text = count_tokens(SUMMARY_LABEL, self.encoding) + largest + 1
        chat = message_tokens(intro, self.encoding) + largest
        now = self._summary_cost()
        return text - now[0], chat - now[1]

    def _summary_cost(self) -> Cost:
        if not self.summary:
            return 0, 0
        text = count_tokens("\n" + self._summary_line(), self.encoding)
        return text, sum(message_tokens(m, self.encoding) for m in self._summary_messages())

    def _trim(self) -> list[Turn]:
        """Nothing while the context fits; else the oldest turns, enough to leave room
        for the summary they will make."""
        if len(self.chat_memory) < 2 or self._within_budget():
            return []
        drop = 1
        while True:  # folding a turn frees its cost and grows the summary by less
            reserve = self._summary_reserve(self.chat_memory[:drop])
            wanted = max(drop, self._drop_count(reserve))
            if wanted == drop:
                return self._drop(drop)
            drop = wanted

    def _shown_summary(self) -> str:
        """The summary, cut to the room the lone newest turn (or, with no turn held, the
        system messages) leaves when the whole summary would go over the budget (to
        nothing when the turn alone is): the budget gives way to the newest turn only,
        never to the summary."""
        held = self.chat_memory
        if not self.summary or len(held) > 1:
            return self.summary
        key = (
            self.summary,
            tuple((t["input"], t["output"], repr(t.get("messages"))) for t in held),
            tuple((m.role, m.content) for m in self.system_messages),
            self.max_token_limit,
            self.encoding,
        )
        if self._cut_cache is None or self._cut_cache[0] != key:
            whole = self._fits_with(self.summary)
            self._cut_cache = (key, self.summary if whole else self._cut_summary())
        return self._cut_cache[1]

    def _cut_summary(self) -> str:
        """The longest start of the summary (ended by CUT_MARK) that fits, or ""."""
        low, high = 0, len(self.summary)  # fits with `low` characters; not with `high`
        while high - low > 1:
            middle = (low + high) // 2
            if self._fits_with(self.summary[:middle].rstrip() + CUT_MARK):
                low = middle
            else:
                high = middle
        cut = self.summary[:low].rstrip()
        return cut + CUT_MARK if cut and self._fits_with(cut + CUT_MARK) else ""

    def _fits_with(self, summary: str) -> bool:
        """Whether the context, with `summary` as its summary, fits the budget in both forms."""
        from zerda.memory._budget import chat_tokens

        line = f"{SUMMARY_LABEL}{summary}"
        text = "\n".join(p for p in (self._system_text(), line, self._turns_text()) if p)
        if count_tokens(text, self.encoding) > self.max_token_limit:
            return False
        messages = BaseMemory.context_messages(self)
        at = len(self.system_messages)
        messages.insert(at, {"role": "system", "content": f"{SUMMARY_INTRO}{summary}"})
        return chat_tokens(messages, self.encoding) <= self.max_token_limit

    def _within_budget(self) -> bool:
        """Whether the context fits as it is (the chat count adds up exactly)."""
        return self._drop_count() == 0 and self._text_fits()

    def _absorb(self, turn: Turn, dropped: list[Turn]) -> Summary | None:
        return self._fold_within_budget(dropped)

    def _fold_within_budget(self, dropped: list[Turn]) -> Summary | None:
        """Fold the dropped turns; should the exact context still be over the budget
        (the pieces' counts fell a little short of the whole), fold more."""
        summary = self._fold(dropped)
        while len(self.chat_memory) > 1 and not self._within_budget():
            more = self._drop(1)
            dropped.extend(more)
            summary = self._fold(more)
        return summary

    def _restore(self, store: Store, session_id: str) -> None:
        stored = store.get_summary(session_id)
        total = store.session_stats(session_id).turn_count
        held = self._newest_turns(store, session_id)
        covered = covered_turns(stored)
        if covered is None:  # a summary that does not say covers what is not held
            covered = total - len(held)
        if covered >= total > 0 and getattr(self.summarizer, "cheap", False):
            stored = None  # it covers the newest turn, held verbatim: made again
        self._adopt(stored, covered, total, self._mark_reader(store, session_id, total))
        uncovered = total - self.summary_turns
        held = held[len(held) - min(len(held), uncovered) :]
        self._catch_up(store, session_id, total - len(held), total)
        self.chat_memory.extend(held)
        self._fold_within_budget(self._trim())


def summarize_session(
    store: Store,
    session_id: str,
    summarizer: Summarizer | None = None,
    *,
    max_summary_tokens: int | None = None,
) -> Summary:
    """A new summary of every turn of the session, made as ConversationSummaryMemory
    makes it (in batches, so memory stays flat), with what made it and what it covers
    in its metadata. The stored summary is neither used nor replaced: store the
    result with `store.set_summary`. A summarizer failure raises SummarizerError.
    """
    memory = ConversationSummaryMemory(
        summarizer, max_summary_tokens=max_summary_tokens, encoding=store.encoding
    )
    for batch in batches(iter_turns(store.iter_messages(session_id))):
        memory._fold(batch)
    return memory.summary_value()
