"""Summaries: how few tokens the offline summary takes, and how many planted facts it keeps.

Two conversations, each with FACTS planted in it (a fact is kept when every one of its
key strings is in the summary):

- `chat_turns()`: 40 short hand-written turns (a trip, a project, small talk with
  names and numbers of its own), 12 of them stating a fact. Its compression ratio is
  the one a reader would check by hand.
- `planted_turns(n)`: n turns of the benchmark corpus (bench/corpus.py: prose-like
  word runs, user 40-520 characters, assistant 200-2,000) with the facts spread
  evenly, each inside a user message between corpus text.

Each is saved turn by turn into `ConversationSummaryMemory` (the extractive
summarizer, offline) and into `ConversationBufferMemory` ("none": everything kept);
the rows give the tokens of what each hands a model (`load_memory_variables` text)
and the share of facts there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench.corpus import conversation
from bench.harness import Row
from bench.suites import QUICK, Sizes
from zerda.memory import BaseMemory, ConversationBufferMemory, ConversationSummaryMemory
from zerda.tokens import count_tokens

SECTION = "summaries"
TURNS = (100, 1_000)
QUICK_TURNS = (20, 100)
BOUND = 512  # the summary memory's default max_summary_tokens
KEPT = 0.75  # the share of planted facts a summary should keep ("most")
QUARTER = 0.30  # "about a quarter of the length", with a little slack

# (the sentence, the strings a summary must hold to have kept it)
FACTS: list[tuple[str, tuple[str, ...]]] = [
    ("My daughter Ines turns seven on 3 March.", ("Ines", "3 March")),
    ("We agreed to ship the beta on 14 June.", ("14 June",)),
    ("The staging server lives at 10.0.4.12.", ("10.0.4.12",)),
    ("I'm allergic to peanuts, so no satay for me.", ("peanuts",)),
    ("Our budget for the offsite is 4,200 euros.", ("4,200",)),
    ("Let's use PostgreSQL 16 for the new store.", ("PostgreSQL",)),
    ("Call me Sam, not Samuel.", ("Sam,",)),
    ("The flight to Lisbon leaves at 07:45 on Tuesday.", ("Lisbon", "07:45")),
    ("I decided to drop the Redis cache.", ("Redis",)),
    ("My manager is Dana Whitfield.", ("Dana Whitfield",)),
    ("The API rate limit is 600 requests per minute.", ("600",)),
    ("I prefer tea over coffee in the mornings.", ("tea",)),
]

# 40 turns of small talk; the facts above are said in turns 1, 4, 7, ... (every third).
_SMALL_TALK = [
    ("Good morning! How are you today?", "Good morning. I'm doing well, thanks for asking."),
    ("Can you remind me what we talked about yesterday?", "We went over the release plan."),
    ("What's the weather like in Porto this week?", "Mostly sunny, around 22 degrees."),
    ("Should I bring a jacket?", "A light one for the evenings is a good idea."),
    ("How do I undo my last git commit?", "Use git reset --soft HEAD~1 to keep the changes."),
    ("And if I already pushed it?", "Then git revert is safer, since others may have it."),
    ("Any tips for a long train ride?", "Download a few podcasts and bring snacks."),
    ("What's a good podcast about history?", "Many people like The Rest Is History."),
    ("How long does it take to boil an egg?", "About 7 minutes for a firm yolk."),
    ("Is Python 3.12 faster than 3.11?", "Slightly, in most benchmarks."),
    ("Can you explain what a mutex is?", "A lock that lets one thread at a time into a section."),
    ("Why is the sky blue?", "Shorter wavelengths scatter more in the air."),
    ("Tell me a fun fact.", "Octopuses have three hearts."),
    ("How many hours of sleep do adults need?", "Most need seven to nine hours."),
    ("What's the capital of Australia?", "Canberra, not Sydney."),
    ("How do I center a div?", "Use flexbox with justify-content and align-items."),
    ("Is it worth learning Rust?", "Yes, if you write systems code or care about safety."),
    ("What's a good name for a cat?", "Miso is a popular choice."),
    ("How do I make cold brew?", "Steep coarse coffee in cold water for 12 hours."),
    ("Thanks, that's all for now.", "You're welcome. Talk soon!"),
]


def chat_turns() -> list[tuple[str, str]]:
    """The 40-turn hand-written conversation with the facts in every third turn."""
    facts = iter(FACTS)
    turns: list[tuple[str, str]] = []
    for index in range(40):
        question, answer = _SMALL_TALK[index % len(_SMALL_TALK)]
        if index % 3 == 1:
            fact = next(facts, None)
            if fact is not None:
                question, answer = f"{fact[0]} Can you note that?", "Noted."
        turns.append((question, answer))
    return turns


def planted_turns(count: int) -> list[tuple[str, str]]:
    """`count` corpus turns with the facts spread evenly, each inside a user message."""
    messages = iter(conversation(2 * count, seed=23))
    at = {round((i + 0.5) * count / len(FACTS)): fact for i, (fact, _) in enumerate(FACTS)}
    turns = []
    for index in range(count):
        (_, question), (_, answer) = next(messages), next(messages)
        if index in at:  # a sentence of its own, after the sentence ending past the middle
            middle = question.find(". ", len(question) // 2)
            cut = middle + 2 if middle >= 0 else len(question)
            head = question[:cut].rstrip(" ,")
            head += "" if head.endswith((".", "?", "!")) else "."
            question = f"{head} {at[index]} {question[cut:]}".strip()
        turns.append((question, answer))
    return turns


def kept(text: str) -> int:
    """How many of FACTS `text` holds."""
    return sum(all(key in text for key in keys) for _, keys in FACTS)


def measure(turns: list[tuple[str, str]], memory: BaseMemory) -> dict[str, Any]:
    """Save `turns` into `memory`; the tokens and facts of what it hands a model."""
    started = time.perf_counter()
    for question, answer in turns:
        memory.save_context({"input": question}, {"output": answer})
    seconds = time.perf_counter() - started
    text = memory.load_memory_variables({})[memory.memory_key]
    return {
        "tokens": count_tokens(text),
        "summary_tokens": memory.get_memory_stats().get("summary_tokens"),
        "characters": len(text),
        "facts": kept(text),
        "ms_per_save": 1000 * seconds / max(1, len(turns)),
    }


def summaries(sizes: Sizes) -> list[Row]:
    """Rows: summary tokens and planted-fact recall, offline vs none (the buffer)."""
    count_tokens("load the encoder before anything is timed")
    cases = [("40-turn chat", chat_turns())]
    counts = QUICK_TURNS if sizes == QUICK else TURNS
    cases += [(f"{n:,} corpus turns", planted_turns(n)) for n in counts]
    rows = []
    for label, turns in cases:
        offline = measure(turns, ConversationSummaryMemory())
        buffer = measure(turns, ConversationBufferMemory())
        case = f"{label}, {len(FACTS)} planted facts"
        share = offline["tokens"] / buffer["tokens"]
        rows.append(
            Row(
                SECTION,
                f"{case}: tokens a model gets (offline summary vs none, the buffer)",
                "tokens",
                offline["tokens"],
                buffer["tokens"],
                "buffer",
                extra={"share": share, "offline": offline, "buffer": buffer},
            )
        )
        rows.append(
            Row(
                SECTION,
                f"{case}: facts kept (offline summary)",
                "facts",
                offline["facts"],
                note=f"{offline['facts']}/{len(FACTS)} kept; buffer {buffer['facts']}/"
                f"{len(FACTS)}; summary {share:.1%} of the buffer's tokens, "
                f"{offline['ms_per_save']:.2f} ms a save",
            )
        )
    return rows


def targets(rows: list[Row], check: Callable[[str, str, bool | None], None]) -> None:
    """Each case keeps most facts; the chat's summary is about a quarter of it; the corpus
    summaries stay within the bound."""
    for row in rows:
        if row.section != SECTION or row.zerda is None:
            continue
        if row.unit == "facts":
            share = row.zerda / len(FACTS)
            check(f"{row.case}: at least {KEPT:.0%}", f"{share:.0%}", share >= KEPT)
        elif row.case.startswith("40-turn chat"):
            share = row.extra["share"]
            check(f"{row.case}: at most {QUARTER:.0%}", f"{share:.1%}", share <= QUARTER)
        else:
            summary = row.extra["offline"]["summary_tokens"]
            check(f"{row.case}: summary within {BOUND}", f"{summary}", summary <= BOUND)
