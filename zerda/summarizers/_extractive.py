"""The offline summarizer: the conversation's best sentences, in order, within a token budget.

Deterministic and model-free. The previous summary and the new turns are cut into
sentences; each sentence is scored by

- centrality: the cosine of its TF-IDF vector with the centroid of all of them
  (what the conversation keeps coming back to),
- novelty: the share of its content words not seen in an earlier sentence,
- what a reader must not lose: names (capitalised words inside a sentence, words
  with inner capitals), numbers (any word holding a digit) and decisions or personal
  facts (`decided`, `agreed`, `let's`, `we'll`, `booked`, `deadline`, `prefer`,
  `my name is`, `I live`, ...),

with questions and sentences of fewer than three content words weighed down. The
best sentences per token are kept until the budget is full, skipping any whose
content words mostly repeat a kept one (Jaccard >= 0.6) or whose text is a kept one
again; the survivors are written in their original order, one line per side of a
turn: `- user: …` / `- assistant: …`.

The budget is what the caller gives (`summarize(previous, turns, max_tokens)`; the
memories give a quarter of the tokens the summary covers, see `target_tokens`),
never more than `max_summary_tokens`. The previous summary's sentences compete with
the new ones, so what is kept is the best of the whole conversation that fits, not
the oldest or the newest.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from zerda.summarizers._base import (
    DEFAULT_SUMMARY_TOKENS,
    FLOOR_TOKENS,
    RATIO,
    TurnLike,
    check_budget,
    side_text,
)
from zerda.tokens import DEFAULT_ENCODING, count_tokens, get_counter

MAX_SENTENCE_WORDS = 40
NEAR_DUPLICATE = 0.6
SPEAKERS = ("user", "assistant")
SIDES = ("input", "output")

_CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)", re.S)
_ABBREVIATIONS = re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof|St|vs|etc|e\.g|i\.e|approx|No)\.\s", re.I)
_PROTECTED_DOT = "\u2024"  # ONE DOT LEADER: stands in for an abbreviation's dot while splitting
_CLOSERS = "\"'\u201d\u2019)]"  # quotes and brackets that may follow a sentence's end
_SENTENCE_END = re.compile(rf"(?<=[.!?…])[{re.escape(_CLOSERS)}]*\s+")
_ENDED = re.compile(rf"[.!?…][{re.escape(_CLOSERS)}]*$")
_LIST_MARK = re.compile(r"^\s*(?:[-*•>]+|\d{1,3}[.)])\s+")
_BULLET = re.compile(r"^- (?:(user|assistant): )?(.*)$")
_WORD = re.compile(r"[^\W_]+(?:['\u2019.,:/-][^\W_]+)*")
_DECISION = re.compile(
    r"\b(?:decid(?:e|ed|es|ing)|agree(?:d|s)?|let'?s|we'?ll|we will|i'?ll|i will"
    r"|going with|going to|settled?|chose|choose|chosen|picked|booked|scheduled|confirmed"
    r"|deadline|due (?:on|by)|remember|prefer(?:s|red)?|instead|my name is|call me"
    r"|i live|i work|we live|we work|i'?m|i am|we'?re|my|our)\b"
)
_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not now of off on once
    only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves also yes ok okay sure thanks thank please
    hi hello hey well oh really just like get got one much many may might must shall let
    lets us i'm it's don't can't that's there's you're i've i'd i'll we'll we're
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_PRONOUN_I = frozenset({"I", "I'm", "I'll", "I've", "I'd", "I\u2019m"})


@dataclass
class _Sentence:
    """One candidate sentence and what the scoring needs to know about it."""

    order: int  # position in the conversation (previous summary first)
    speaker: str | None
    text: str
    terms: list[str] = field(default_factory=list)
    names: float = 0.0
    numbers: int = 0
    cues: int = 0
    tokens: int = 0
    score: float = 0.0


class ExtractiveSummarizer:
    """Deterministic, offline: the best sentences of the conversation within a token budget.

    `max_summary_tokens` bounds the summary (tokens under `encoding`); `ratio` is the
    share of each new batch's tokens the summary may grow by.
    """

    name = "extractive"
    cheap = True  # made again from a session's turns rather than kept when in doubt

    def __init__(
        self,
        max_summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
        *,
        ratio: float = RATIO,
        encoding: str = DEFAULT_ENCODING,
    ) -> None:
        self.max_summary_tokens = check_budget(max_summary_tokens)
        if not 0 < ratio <= 1:
            from zerda.errors import InvalidArgumentError

            raise InvalidArgumentError(f"ratio must be in (0, 1], not {ratio!r}")
        self.ratio = ratio
        self.encoding = encoding

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer(max_summary_tokens={self.max_summary_tokens})"

    def describe(self) -> dict[str, Any]:
        """`{"summarizer": "extractive"}` for the stored summary's metadata."""
        return {"summarizer": self.name}

    def __call__(self, previous_summary: str, new_turns: Sequence[TurnLike]) -> str:
        """Fold `new_turns` into `previous_summary`, growing it by `ratio` of their tokens.

        Called on its own it knows only the previous summary, not what it covers; the
        memories call `summarize` with the budget of all the turns covered.
        """
        count = get_counter(self.encoding).count
        grown = count(previous_summary.strip()) + math.ceil(
            self.ratio * sum(count(side_text(t, k)) for t in new_turns for k in SIDES)
        )
        return self.summarize(previous_summary, new_turns, max(FLOOR_TOKENS, grown))

    def summarize(
        self, previous_summary: str, new_turns: Sequence[TurnLike], max_tokens: int
    ) -> str:
        """The best sentences of the previous summary and the new turns within
        `max_tokens` (and never more than `max_summary_tokens`)."""
        old = list(_summary_sentences(previous_summary))
        new = list(_turn_sentences(new_turns, start=len(old)))
        sentences = old + new
        if not sentences:
            return ""
        for sentence in sentences:
            sentence.tokens = count_tokens(sentence.text, self.encoding)
        _score(sentences)
        return self._select(sentences, min(max_tokens, self.max_summary_tokens))

    def _select(self, sentences: list[_Sentence], budget: int) -> str:
        """The best sentences per token that fit `budget`, written in their order."""
        count = get_counter(self.encoding).count
        ranked = sorted(sentences, key=lambda s: (-s.score / math.sqrt(s.tokens + 4), s.order))
        kept: list[_Sentence] = []
        seen_texts: set[str] = set()
        used = 0
        for sentence in ranked:
            cost = sentence.tokens + 4  # the sentence, a space, and maybe a new `- user:` line
            if used + cost > budget + 4 or _repeats(sentence, kept, seen_texts):
                continue
            kept.append(sentence)
            seen_texts.add(_plain(sentence.text))
            used += cost
        text = _render(kept)
        while kept and count(text) > budget:  # the estimate above is close; make it exact
            kept.remove(min(kept, key=lambda s: (s.score / math.sqrt(s.tokens + 4), -s.order)))
            text = _render(kept)
        return text


def _summary_sentences(summary: str) -> Iterator[_Sentence]:
    """The sentences of a previous summary: ours (`- user: …` lines) or any other text."""
    order = 0
    for line in summary.splitlines():
        line = line.strip()
        if not line or line == "(earlier turns omitted)":
            continue
        bullet = _BULLET.match(line)
        speaker, text = (bullet.group(1), bullet.group(2)) if bullet else (None, line)
        for text_part in _split(text):
            yield _Sentence(order, speaker, text_part)
            order += 1


def _turn_sentences(turns: Sequence[TurnLike], start: int) -> Iterator[_Sentence]:
    """The sentences of new turns, the user's side of each turn first."""
    order = start
    for turn in turns:
        for speaker, key in zip(SPEAKERS, SIDES, strict=True):
            for text in _split(side_text(turn, key)):
                yield _Sentence(order, speaker, text)
                order += 1


def _split(text: str) -> Iterator[str]:
    """Sentences of `text` on one line each: code blocks left out, list marks dropped,
    sentences longer than MAX_SENTENCE_WORDS cut into pieces."""
    text = _CODE_BLOCK.sub("\n", text)
    text = _ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", _PROTECTED_DOT), text)
    for line in text.splitlines():
        line = _LIST_MARK.sub("", line)
        for sentence in _SENTENCE_END.split(line):
            words = sentence.replace(_PROTECTED_DOT, ".").split()
            for at in range(0, len(words), MAX_SENTENCE_WORDS):
                piece = " ".join(words[at : at + MAX_SENTENCE_WORDS])
                if any(c.isalnum() for c in piece):
                    yield piece


def _score(sentences: list[_Sentence]) -> None:
    """Fill in each sentence's features and score (see the module docstring)."""
    proper = {w for s in sentences for w in _analysis(s.text).inner_capitals}
    for sentence in sentences:
        _features(sentence, proper)
    frequency: Counter[str] = Counter()
    for sentence in sentences:
        frequency.update(set(sentence.terms))
    total = len(sentences)
    idf = {term: math.log((total + 1) / (df + 1)) + 1 for term, df in frequency.items()}
    centroid: Counter[str] = Counter()
    vectors = []
    for sentence in sentences:
        vector = {t: n * idf[t] for t, n in Counter(sentence.terms).items()}
        vectors.append(vector)
        centroid.update(vector)
    centroid_norm = math.sqrt(sum(v * v for v in centroid.values())) or 1.0
    top_idf = max(idf.values(), default=1.0)
    seen: set[str] = set()
    for sentence, vector in zip(sentences, vectors, strict=True):
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        centrality = sum(v * centroid[t] for t, v in vector.items()) / (norm * centroid_norm)
        terms = set(sentence.terms)
        novelty = len(terms - seen) / len(terms) if terms else 0.0
        specificity = sum(idf[t] for t in terms) / (len(terms) * top_idf) if terms else 0.0
        seen |= terms
        score = (
            0.2
            + 1.0 * centrality
            + 0.6 * novelty
            + 0.8 * specificity
            + 0.7 * min(sentence.names, 3.0)
            + 0.9 * min(sentence.numbers, 3)
            + 0.8 * min(sentence.cues, 2)
        )
        if sentence.text.rstrip(_CLOSERS).endswith("?"):
            score *= 0.6
        if len(terms) < 3 and sentence.names < 1 and not sentence.numbers:
            score *= 0.5
        sentence.score = score


@dataclass(frozen=True)
class _Analysis:
    """What scoring reads from a sentence's text alone (kept per text: a summary's
    sentences are scored again at every fold)."""

    terms: tuple[str, ...]
    numbers: int
    cues: int
    names: float  # names inside the sentence and written with inner capitals
    first: str | None  # a capitalised first word: a name if the conversation says so
    inner_capitals: frozenset[str]  # capitalised words inside it, which mark names


@functools.lru_cache(maxsize=8192)
def _analysis(text: str) -> _Analysis:
    words = _WORD.findall(text)
    names = 0.0
    first = None
    for index, word in enumerate(words):
        if word in _PRONOUN_I or word.lower() in STOPWORDS or any(c.isdigit() for c in word):
            continue
        if any(c.isupper() for c in word[1:]):
            names += 1  # PostgreSQL, NASA, iPhone
        elif word[0].isupper():
            if index:
                names += 1
            else:
                first = word
    return _Analysis(
        terms=tuple(_stem(w.lower()) for w in words if _is_term(w)),
        numbers=sum(1 for w in words if any(c.isdigit() for c in w)),
        cues=len(_DECISION.findall(text.lower())),
        names=names,
        first=first,
        inner_capitals=frozenset(w for w in words[1:] if w[0].isupper()),
    )


def _features(sentence: _Sentence, proper: set[str]) -> None:
    """Terms, names, numbers and cues of `sentence`; `proper` holds the words written
    with a capital inside some sentence, the only ones a capital at a start marks."""
    found = _analysis(sentence.text)
    sentence.terms = list(found.terms)
    sentence.numbers = found.numbers
    sentence.cues = found.cues
    sentence.names = found.names + (1 if found.first in proper else 0)


def _is_term(word: str) -> bool:
    low = word.lower()
    return low not in STOPWORDS and (len(low) > 1 or low.isdigit())


def _stem(word: str) -> str:
    """A crude plural fold, so `planets` and `planet` count as one term."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _repeats(sentence: _Sentence, kept: list[_Sentence], seen_texts: set[str]) -> bool:
    """True when `sentence` says again what a kept sentence says (same words, or most
    of the same content words)."""
    if _plain(sentence.text) in seen_texts:
        return True
    terms = set(sentence.terms)
    if not terms:
        return False
    for other in kept:
        theirs = set(other.terms)
        if theirs and len(terms & theirs) / len(terms | theirs) >= NEAR_DUPLICATE:
            return True
    return False


def _render(kept: list[_Sentence]) -> str:
    """Kept sentences in their order; a run of one speaker's sentences on one line (a
    sentence without an end mark closes its line, so it is read back as it was)."""
    lines: list[str] = []
    current: str | None = ""
    for sentence in sorted(kept, key=lambda s: s.order):
        if lines and sentence.speaker == current and _ENDED.search(lines[-1]):
            lines[-1] += " " + sentence.text
            continue
        current = sentence.speaker
        prefix = f"- {sentence.speaker}: " if sentence.speaker else "- "
        lines.append(prefix + sentence.text)
    return "\n".join(lines)
