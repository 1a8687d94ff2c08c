"""ConversationBufferMemory keeps its documented API, examples and quirks to the letter."""

from __future__ import annotations

import asyncio
import time

from zerda.memory import ConversationBufferMemory


def test_basic_example_text() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "Hi"}, {"output": "Hello!"})
    assert mem.load_memory_variables({})["history"] == "user: Hi\nassistant: Hello!"


def test_turns_joined_by_newline() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "a"}, {"output": "b"})
    mem.save_context({"input": "c"}, {"output": "d"})
    assert (
        mem.load_memory_variables({})["history"] == "user: a\nassistant: b\nuser: c\nassistant: d"
    )


def test_chat_memory_starts_as_plain_list() -> None:
    mem = ConversationBufferMemory()
    assert type(mem.chat_memory) is list
    assert mem.chat_memory == []
    assert mem.load_memory_variables({})["history"] == ""


def test_return_messages_returns_the_list_itself() -> None:
    mem2 = ConversationBufferMemory(return_messages=True)
    before = time.time()
    mem2.save_context({"input": "2+2?"}, {"output": "4"})
    history = mem2.load_memory_variables({})["history"]
    assert history is mem2.chat_memory
    assert [{k: t[k] for k in ("input", "output")} for t in history] == [
        {"input": "2+2?", "output": "4"}
    ]
    assert set(history[0]) == {"input", "output", "timestamp"}
    assert before <= history[0]["timestamp"] <= time.time()
    history.append({"input": "x", "output": "y", "timestamp": 0.0})
    assert mem2.get_messages()[-1]["input"] == "x"


def test_custom_keys() -> None:
    mem3 = ConversationBufferMemory(input_key="question", output_key="answer", memory_key="chat")
    mem3.save_context({"question": "Capital of Italy?"}, {"answer": "Rome"})
    assert mem3.get_messages()[0]["input"] == "Capital of Italy?"
    assert mem3.get_messages()[0]["output"] == "Rome"
    assert mem3.load_memory_variables({}) == {"chat": "user: Capital of Italy?\nassistant: Rome"}


def test_custom_keys_ignore_default_names() -> None:
    mem = ConversationBufferMemory(input_key="question", output_key="answer")
    mem.save_context({"input": "ignored"}, {"output": "ignored too"})
    assert mem.get_messages()[0]["input"] is None
    assert mem.get_messages()[0]["output"] is None


def test_missing_key_stores_none() -> None:
    mem4 = ConversationBufferMemory()
    mem4.save_context({}, {"output": "..."})
    assert mem4.get_messages()[0]["input"] is None
    mem4.save_context({"input": "q"}, {})
    assert mem4.get_messages()[1]["output"] is None
    # The seed's text form: each turn is "user: {input}\nassistant: {output}", None included.
    assert mem4.load_memory_variables({})["history"] == (
        "user: None\nassistant: ...\nuser: q\nassistant: None"
    )


def test_get_messages_limits() -> None:
    mem = ConversationBufferMemory()
    for i in range(5):
        mem.save_context({"input": f"q{i}"}, {"output": f"a{i}"})
    assert [t["input"] for t in mem.get_messages(limit=2)] == ["q3", "q4"]
    assert len(mem.get_messages(limit=0)) == 5
    assert len(mem.get_messages(limit=None)) == 5
    assert len(mem.get_messages()) == 5
    assert len(mem.get_messages(limit=99)) == 5


def test_get_messages_returns_a_copy() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "q"}, {"output": "a"})
    copy = mem.get_messages()
    assert copy is not mem.chat_memory
    copy.clear()
    assert len(mem.chat_memory) == 1


def test_load_memory_variables_ignores_inputs() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "Hi"}, {"output": "Hello!"})
    plain = mem.load_memory_variables({})
    assert mem.load_memory_variables({"input": "other", "history": "x", "k": 1}) == plain


def test_clear_empties() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "Hi"}, {"output": "Hello!"})
    chat = mem.chat_memory
    mem.clear()
    assert chat == [] and mem.chat_memory is chat
    assert mem.load_memory_variables({})["history"] == ""


def test_memory_stats_documented_keys() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "Hi"}, {"output": "Hello!"})
    mem.save_context({}, {"output": "abcdefgh"})
    stats = mem.get_memory_stats()
    chars = len("Hi") + len("Hello!") + len("None") + len("abcdefgh")
    assert stats["type"] == "buffer"
    assert stats["message_count"] == 2
    assert stats["total_characters"] == chars
    assert stats["estimated_tokens"] == chars // 4


def test_production_example_threshold() -> None:
    mem = ConversationBufferMemory()
    mem.save_context({"input": "x" * 6000}, {"output": "y" * 6004})
    stats = mem.get_memory_stats()
    assert stats["estimated_tokens"] == 3001
    assert stats["estimated_tokens"] > 3000


def test_async_twins() -> None:
    mem = ConversationBufferMemory()

    async def run() -> dict[str, object]:
        await mem.asave_context({"input": "Hi"}, {"output": "Hello!"})
        return await mem.aload_memory_variables({})

    assert asyncio.run(run()) == {"history": "user: Hi\nassistant: Hello!"}


def test_async_twins_run_in_a_worker_thread() -> None:
    import threading

    mem = ConversationBufferMemory()
    seen: list[str] = []
    real = mem.save_context

    def spy(inputs: dict[str, object], outputs: dict[str, object]) -> None:
        seen.append(threading.current_thread().name)
        real(inputs, outputs)

    mem.save_context = spy  # type: ignore[method-assign]
    asyncio.run(mem.asave_context({"input": "a"}, {"output": "b"}))
    assert seen and seen[0] != threading.main_thread().name
    assert len(mem.chat_memory) == 1
