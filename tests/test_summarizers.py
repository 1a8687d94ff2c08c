"""The summarizers: the offline one compresses and keeps what matters; every one is bounded."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.corpus import conversation
from bench.summaries import FACTS, chat_turns, kept, planted_turns
from zerda import SummarizerError, ZerdaError
from zerda.summarizers import ExtractiveSummarizer, describe, fit, fold
from zerda.summarizers._base import FLOOR_TOKENS, target_tokens, turns_tokens
from zerda.tokens import count_tokens

Turn = dict[str, Any]


def as_turns(pairs: Sequence[tuple[str, str]]) -> list[Turn]:
    return [{"input": q, "output": a} for q, a in pairs]


def corpus_turns(count: int) -> list[Turn]:
    messages = iter(conversation(2 * count, seed=5))
    return [{"input": next(messages)[1], "output": next(messages)[1]} for _ in range(count)]


def fold_one_by_one(turns: list[Turn], max_summary_tokens: int = 512) -> str:
    """As ConversationSummaryMemory folds: one turn at a time, budget from what is covered."""
    summarizer = ExtractiveSummarizer(max_summary_tokens)
    summary, covered = "", 0
    for turn in turns:
        covered += turns_tokens([turn])
        summary = fold(
            summarizer,
            summary,
            [turn],
            max_summary_tokens=max_summary_tokens,
            covered_tokens=covered,
        )
    return summary


# -- the offline summarizer ------------------------------------------------------


def summarize_in_fresh_process() -> str:
    code = (
        "from zerda.summarizers import ExtractiveSummarizer\n"
        "turns = [{'input': 'What is the capital of Italy? I forgot.',"
        " 'output': 'Rome. It has been since 1871.'},"
        " {'input': 'And of France?', 'output': 'Paris!'}]\n"
        "print(ExtractiveSummarizer()('', turns), end='')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "https_proxy": "http://127.0.0.1:9", "no_proxy": ""}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_extractive_is_deterministic_and_offline() -> None:
    first, second = summarize_in_fresh_process(), summarize_in_fresh_process()
    assert first == second
    # Short enough to keep whole: every sentence, in order, one line per side.
    assert first.splitlines() == [
        "- user: What is the capital of Italy? I forgot.",
        "- assistant: Rome. It has been since 1871.",
        "- user: And of France?",
        "- assistant: Paris!",
    ]


def test_extractive_compresses_to_about_a_quarter_and_keeps_most_facts() -> None:
    turns = as_turns(chat_turns())
    summary = fold_one_by_one(turns)
    text = "\n".join(f"user: {t['input']}\nassistant: {t['output']}" for t in turns)
    ratio = count_tokens(summary) / count_tokens(text)
    assert 0.1 < ratio <= 0.3, ratio
    assert kept(summary) >= 0.75 * len(FACTS), summary


@pytest.mark.parametrize("count", [100, 1000])
def test_extractive_keeps_planted_facts_in_a_long_conversation(count: int) -> None:
    summary = fold_one_by_one(as_turns(planted_turns(count)))
    assert count_tokens(summary) <= 512
    assert kept(summary) >= 0.75 * len(FACTS), summary


def test_extractive_writes_kept_sentences_in_their_order() -> None:
    turns = as_turns(planted_turns(100))
    summary = fold_one_by_one(turns)
    facts = [fact for fact, keys in FACTS if all(k in summary for k in keys)]
    assert sorted(facts, key=summary.index) == facts  # FACTS is in conversation order


def test_extractive_drops_repeats_and_near_repeats() -> None:
    said = "The deploy window is Thursday at 14:00 in Berlin."
    turns = as_turns(
        [
            (said, "Got it."),
            (said, "Yes, I know."),
            ("So the deploy window is Thursday at 14:00, in Berlin.", "Right."),
        ]
    )
    summary = ExtractiveSummarizer()("", turns)
    assert summary.count("deploy window") == 1


def test_extractive_prefers_names_numbers_and_decisions_to_chatter() -> None:
    chatter = [("Hello there, how are you doing today?", "I am fine, how are things going?")] * 3
    facts = [
        ("We decided to move the launch to 12 May.", "Noted, the launch moves to 12 May."),
        ("Ask Priya Natarajan about the contract.", "Will do."),
    ]
    turns = as_turns(chatter + facts + chatter)
    summary = ExtractiveSummarizer(max_summary_tokens=40)("", turns)
    assert "12 May" in summary and "Priya Natarajan" in summary


def test_extractive_folds_a_summary_written_by_something_else() -> None:
    previous = "The user is planning a trip to Kyoto in April.\nThey have a budget of 3,000 USD."
    summary = ExtractiveSummarizer()(previous, as_turns([("Book the ryokan.", "Booked.")]))
    assert "Kyoto" in summary and "3,000" in summary and "ryokan" in summary


def test_extractive_leaves_code_blocks_out() -> None:
    code = "```python\nfor i in range(3):\n    print(i)\n```"
    answer = f"Use a loop.\n\n{code}\n\nThat prints 0 to 2."
    summary = ExtractiveSummarizer()("", as_turns([("How do I print 0 to 2?", answer)]))
    assert "range" not in summary and "That prints 0 to 2." in summary


# -- every summarizer is bounded ---------------------------------------------------


@pytest.mark.parametrize("count", [1, 10, 100, 1000, 5000])
@pytest.mark.parametrize("bound", [40, 512])
def test_extractive_stays_within_its_bound(count: int, bound: int) -> None:
    summarizer = ExtractiveSummarizer(max_summary_tokens=bound)
    turns = corpus_turns(count)
    at_once = summarizer("", turns)
    assert count_tokens(at_once) <= bound
    folded = fold(
        summarizer, "", turns, max_summary_tokens=bound, covered_tokens=turns_tokens(turns)
    )
    assert count_tokens(folded) <= target_tokens(turns_tokens(turns), bound) <= bound


def test_the_target_is_a_quarter_of_what_is_covered_within_floor_and_bound() -> None:
    assert target_tokens(0, 512) == FLOOR_TOKENS
    assert target_tokens(1000, 512) == 250
    assert target_tokens(10**6, 512) == 512
    assert target_tokens(10**6, 20) == 20


@pytest.mark.parametrize("reply", ["word " * 5000, "line\n" * 5000, "x" * 50_000, "日本語" * 3000])
def test_fold_cuts_any_summarizer_to_the_bound(reply: str) -> None:
    def wordy(previous: str, new_turns: Sequence[Turn]) -> str:
        return reply

    summary = fold(wordy, "", as_turns([("q", "a")]), max_summary_tokens=50, covered_tokens=2)
    assert 0 < count_tokens(summary) <= 50
    assert reply.strip().startswith(summary.rstrip("…").strip())


@settings(max_examples=80, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=400),
    bound=st.integers(1, 60),
)
def test_fit_is_within_the_bound_and_keeps_what_fits(text: str, bound: int) -> None:
    cut = fit(text, bound)
    assert count_tokens(cut) <= bound
    if count_tokens(text.strip()) <= bound:
        assert cut == text.strip()


def test_a_failing_summarizer_is_a_summarizer_error() -> None:
    def broken(previous: str, new_turns: Sequence[Turn]) -> str:
        raise RuntimeError("model on fire")

    def not_text(previous: str, new_turns: Sequence[Turn]) -> Any:
        return 42

    for summarizer in (broken, not_text):
        with pytest.raises(SummarizerError) as caught:
            fold(summarizer, "old", [], max_summary_tokens=10, covered_tokens=0)
        assert isinstance(caught.value, ZerdaError)
        assert "unchanged" in str(caught.value)


def test_describe_names_the_summarizer() -> None:
    def mine(previous: str, new_turns: Sequence[Turn]) -> str:
        return previous

    assert describe(ExtractiveSummarizer()) == {"summarizer": "extractive"}
    assert describe(mine) == {"summarizer": "test_describe_names_the_summarizer.<locals>.mine"}
