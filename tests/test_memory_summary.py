"""The summary memories: offline default summarizer, custom summarizers, folding."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from zerda import ExtractiveSummarizer
from zerda.memory import ConversationSummaryBufferMemory, ConversationSummaryMemory
from zerda.summarize import OMITTED

TURNS = [
    ("What is the capital of Italy? I forgot.", "Rome. It has been since 1871."),
    ("And of France?", "Paris!"),
]


def summarize_in_fresh_process() -> str:
    code = (
        "from zerda.memory import ConversationSummaryMemory\n"
        "m = ConversationSummaryMemory()\n"
        f"for q, a in {TURNS!r}:\n"
        "    m.save_context({'input': q}, {'output': a})\n"
        "print(m.summary, end='')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "https_proxy": "http://127.0.0.1:9", "no_proxy": ""}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_default_summarizer_is_deterministic_and_offline() -> None:
    first, second = summarize_in_fresh_process(), summarize_in_fresh_process()
    assert first == second
    assert first.splitlines() == [
        "- user: What is the capital of Italy? | assistant: Rome.",
        "- user: And of France? | assistant: Paris!",
    ]


def test_extractive_summarizer_keeps_newest_within_max_chars() -> None:
    summarize = ExtractiveSummarizer(max_chars=120)
    summary = ""
    for i in range(20):
        summary = summarize(summary, [{"input": f"question {i}.", "output": f"answer {i}."}])
    lines = summary.splitlines()
    assert lines[0] == OMITTED
    assert lines[-1] == "- user: question 19. | assistant: answer 19."
    assert len("\n".join(lines[1:])) <= 120


def test_custom_summarizer_gets_previous_summary_and_new_turns() -> None:
    calls: list[tuple[str, list[tuple[Any, Any]]]] = []

    def summarizer(previous: str, new_turns: Sequence[dict[str, Any]]) -> str:
        calls.append((previous, [(t["input"], t["output"]) for t in new_turns]))
        return f"{previous}+{len(new_turns)}"

    mem = ConversationSummaryMemory(summarizer=summarizer)
    mem.save_context({"input": "q1"}, {"output": "a1"})
    mem.save_context({"input": "q2"}, {"output": "a2"})
    assert calls == [("", [("q1", "a1")]), ("+1", [("q2", "a2")])]
    assert mem.summary == "+1+1"
    assert mem.load_memory_variables({})["history"] == "summary: +1+1"
    with_turns = ConversationSummaryMemory(summarizer=summarizer, return_messages=True)
    with_turns.save_context({"input": "q"}, {"output": "a"})
    loaded = with_turns.load_memory_variables({})
    assert loaded["history"] is with_turns.chat_memory and loaded["summary"] == "+1"


def test_summary_buffer_folds_dropped_turns() -> None:
    folded: list[str] = []

    def summarizer(previous: str, new_turns: Sequence[dict[str, Any]]) -> str:
        folded.extend(t["input"] for t in new_turns)
        return " ".join(folded)

    mem = ConversationSummaryBufferMemory(max_token_limit=4, summarizer=summarizer)
    for word in ["one", "two", "three", "four"]:
        mem.save_context({"input": word}, {"output": word})  # 2 tokens a turn
    assert [t["input"] for t in mem.get_messages()] == ["three", "four"]
    assert folded == ["one", "two"]
    assert mem.load_memory_variables({})["history"] == (
        "summary: one two\nuser: three\nassistant: three\nuser: four\nassistant: four"
    )
    context = mem.context_messages()
    assert context[0]["role"] == "system" and "one two" in context[0]["content"]
    assert [m["content"] for m in context[1:]] == ["three", "three", "four", "four"]


def test_summary_buffer_default_summarizer_mentions_dropped_turns() -> None:
    mem = ConversationSummaryBufferMemory(max_token_limit=10)
    mem.save_context({"input": "The sky is blue. Why?"}, {"output": "Rayleigh scattering."})
    mem.save_context({"input": "x " * 20}, {"output": "y"})
    assert mem.summary == "- user: The sky is blue. | assistant: Rayleigh scattering."


def test_clear_forgets_summary() -> None:
    mem = ConversationSummaryMemory()
    mem.save_context({"input": "a"}, {"output": "b"})
    mem.clear()
    assert mem.summary == "" and mem.load_memory_variables({})["history"] == ""
