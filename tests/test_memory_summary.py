"""The summary memories: offline default summarizer, custom summarizers, folding."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from zerda.memory import ConversationSummaryBufferMemory, ConversationSummaryMemory

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
    assert first.splitlines() == [  # short enough to keep whole, one line a side
        "- user: What is the capital of Italy? I forgot.",
        "- assistant: Rome. It has been since 1871.",
        "- user: And of France?",
        "- assistant: Paris!",
    ]


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

    words = ["one", "two", "three", "four", "five", "six"]
    mem = ConversationSummaryBufferMemory(
        max_token_limit=60, summarizer=summarizer, max_summary_tokens=8
    )
    for word in words:
        mem.save_context({"input": word}, {"output": word})  # 15 tokens a turn, as messages
    held = [t["input"] for t in mem.get_messages()]
    assert folded + held == words and len(held) >= 2
    assert mem.summary == " ".join(folded)
    assert mem.load_memory_variables({})["history"] == "\n".join(
        [f"summary: {mem.summary}", *(f"user: {w}\nassistant: {w}" for w in held)]
    )
    context = mem.context_messages()
    assert context[0]["role"] == "system" and mem.summary in context[0]["content"]
    assert [m["content"] for m in context[1:]] == [w for w in held for _ in range(2)]


def test_summary_buffer_default_summarizer_mentions_dropped_turns() -> None:
    mem = ConversationSummaryBufferMemory(max_token_limit=200)
    mem.save_context({"input": "The sky is blue. Why?"}, {"output": "Rayleigh scattering."})
    mem.save_context({"input": "Go on. " * 60}, {"output": "y"})
    assert "Rayleigh scattering." in mem.summary and mem.summary_turns == 1


def test_clear_forgets_summary() -> None:
    mem = ConversationSummaryMemory()
    mem.save_context({"input": "a"}, {"output": "b"})
    mem.clear()
    assert mem.summary == "" and mem.load_memory_variables({})["history"] == ""
