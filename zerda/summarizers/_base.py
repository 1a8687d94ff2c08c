"""What a summarizer is, and the rules it is held to: a bounded summary, clean failures.

A summarizer is any callable `(previous_summary, new_turns) -> str`: it folds turns
(a memory's `Turn` dicts, see `zerda.memory._turns`; oldest first) into the summary so
far and returns the new summary. zerda's summarizers read only a turn's `input` and
`output`, so they take any `TurnLike` mapping (a bare `{"input", "output"}` dict too),
and also a budget for one fold (`summarize(previous_summary, new_turns, max_tokens)`).
The memories and `zerda summarize` call either through `fold`: it asks for a quarter
of the tokens the summary covers (`target_tokens`), keeps the result within
`max_summary_tokens` whatever the summarizer returned, and turns any failure into a
`SummarizerError` before anything is changed or written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from zerda.errors import SummarizerError, ZerdaError
from zerda.tokens import DEFAULT_ENCODING, get_counter

if TYPE_CHECKING:  # a type only: zerda.memory imports this module when it loads
    from zerda.memory._turns import Turn

# What a memory calls: the turns it folds are its own `Turn` dicts.
Summarizer = Callable[[str, Sequence["Turn"]], str]
# What zerda's summarizers read of a turn: its `input` and `output`, either of which may
# be missing or None. A memory's `Turn` is one; so is a bare `{"input", "output"}` dict.
TurnLike = Mapping[str, Any]

DEFAULT_SUMMARY_TOKENS = 512
# A summary aims at this share of the tokens of the turns it covers...
RATIO = 0.25
# ...but keeps this many tokens whatever the share: a quarter of one short exchange
# would be nothing.
FLOOR_TOKENS = 64
ELLIPSIS = "…"
# A prefix this many characters per token holds `max_tokens` tokens in any text a
# model writes; cutting there first keeps `fit` fast on a runaway reply.
_CHARS_PER_TOKEN_CEILING = 32


def check_budget(max_summary_tokens: object) -> int:
    """`max_summary_tokens` if it is a whole number >= 1; else InvalidArgumentError."""
    from zerda.errors import InvalidArgumentError

    if type(max_summary_tokens) is not int or max_summary_tokens < 1:
        raise InvalidArgumentError(
            f"max_summary_tokens must be an integer >= 1, not {max_summary_tokens!r}"
        )
    return max_summary_tokens


def describe(summarizer: Summarizer) -> dict[str, Any]:
    """What made a summary, for `Summary.metadata`: `{"summarizer": name, ...}`.

    zerda's summarizers say it themselves (`describe()`: their name and, for a model,
    which one); any other callable is named by its qualified name.
    """
    own = getattr(summarizer, "describe", None)
    if callable(own):
        found = own()
        if isinstance(found, dict):
            return dict(found)
    name = getattr(summarizer, "__qualname__", None) or type(summarizer).__qualname__
    return {"summarizer": str(name)}


def target_tokens(covered_tokens: int, max_summary_tokens: int) -> int:
    """The budget of a summary of turns holding `covered_tokens` tokens: a quarter of
    them, at least FLOOR_TOKENS, at most `max_summary_tokens`."""
    return min(max_summary_tokens, max(FLOOR_TOKENS, math.ceil(RATIO * covered_tokens)))


def turns_tokens(turns: Sequence[TurnLike], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens of the text of both sides of `turns`: what a summary of them covers."""
    count = get_counter(encoding).count
    return sum(count(side_text(t, side)) for t in turns for side in ("input", "output"))


def fold(
    summarizer: Summarizer,
    previous: str,
    turns: Sequence[Turn],
    *,
    max_summary_tokens: int,
    covered_tokens: int,
    encoding: str = DEFAULT_ENCODING,
) -> str:
    """The new summary of `previous` and `turns`, within `max_summary_tokens`.

    `covered_tokens` is what the new summary covers (see `turns_tokens`); a summarizer
    with `summarize` is asked for `target_tokens` of it and held to that, any other is
    called as `summarizer(previous, turns)` and held to `max_summary_tokens`. A
    summarizer that raises, or returns something other than text, raises
    SummarizerError (another ZerdaError passes as it is; zerda's model summarizers
    raise SummarizerError with the client's error as its cause): the caller
    still holds `previous`, so a failure never leaves half a summary.
    """
    budgeted = getattr(summarizer, "summarize", None)
    bound = max_summary_tokens
    try:
        if callable(budgeted):
            bound = target_tokens(covered_tokens, max_summary_tokens)
            text = budgeted(previous, turns, bound)
        else:
            text = summarizer(previous, turns)
    except ZerdaError:
        raise
    except Exception as exc:
        raise SummarizerError(
            f"the summarizer failed: {type(exc).__name__}: {exc}; the summary is unchanged"
        ) from exc
    if not isinstance(text, str):
        raise SummarizerError(
            f"the summarizer returned {type(text).__name__}, not text; the summary is unchanged"
        )
    return fit(text, bound, encoding)


def fit(text: str, max_tokens: int, encoding: str = DEFAULT_ENCODING) -> str:
    """`text` (stripped) within `max_tokens` tokens: whole lines while they fit, then as
    many whole words of the next line as fit, with an ellipsis when there is room."""
    count = get_counter(encoding).count
    text = text.strip()
    if count(text) <= max_tokens:
        return text
    text = text[: max_tokens * _CHARS_PER_TOKEN_CEILING]
    kept: list[str] = []
    lines = text.splitlines()
    for line in lines:
        if count("\n".join([*kept, line])) > max_tokens:
            break
        kept.append(line)
    if len(kept) == len(lines):
        return "\n".join(kept)
    head = "\n".join(kept)
    words = lines[len(kept)].split(" ")

    def candidate(n: int) -> str:
        part = " ".join(words[:n]).rstrip().rstrip(ELLIPSIS)
        return "\n".join(p for p in (head, part + ELLIPSIS if part else "") if p)

    low, high = 0, len(words)
    while low < high:  # the most words whose candidate fits
        middle = (low + high + 1) // 2
        if count(candidate(middle)) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    best = candidate(low)
    while low > 0 and count(best) > max_tokens:  # counts of prefixes are nearly monotone
        low -= 1
        best = candidate(low)
    if low > 0:
        return best.strip()
    return head or _cut(lines[len(kept)], max_tokens, count)


def _cut(text: str, max_tokens: int, count: Callable[[str], int]) -> str:
    """The longest start of `text` within `max_tokens` (a word cut, no ellipsis)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count(text[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    while low > 0 and count(text[:low]) > max_tokens:
        low -= 1
    return text[:low].strip()


def side_text(turn: TurnLike, side: str) -> str:
    """The text of one side (`input` or `output`) of a turn: empty when it is missing
    or None, else its `str` (as `zerda.memory._turns.turn_text` gives a side's value)."""
    value = turn.get(side)
    return "" if value is None else str(value)


def turns_as_lines(turns: Sequence[TurnLike]) -> str:
    """`user: …` and `assistant: …` lines for each turn; a side that is None has none."""
    lines = []
    for turn in turns:
        if turn.get("input") is not None:
            lines.append(f"user: {side_text(turn, 'input')}")
        if turn.get("output") is not None:
            lines.append(f"assistant: {side_text(turn, 'output')}")
    return "\n".join(lines)
