"""Model summarizers against a real HTTP server on 127.0.0.1 and a real local command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import chat_server, free_port

from zerda import SessionStore
from zerda.errors import ClientError, SummarizerError, ZerdaError
from zerda.memory import ConversationSummaryBufferMemory, ConversationSummaryMemory
from zerda.summarizers import CommandSummarizer, OpenAISummarizer
from zerda.tokens import count_tokens

KEY = "sk-test-0123456789abcdef"


def turns(count: int) -> list[dict[str, Any]]:
    return [
        {"input": f"Question {n}: what is {n} times 7?", "output": f"{n} times 7 is {n * 7}."}
        for n in range(count)
    ]


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ZERDA_API_KEY", KEY)
    return KEY


def program(tmp_path: Path, body: str, name: str = "summarize") -> str:
    """A Python script at `tmp_path/name` run as a command; `body` sees `request`."""
    path = tmp_path / name
    path.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "raw = sys.stdin.read()\n"
        "request = json.loads(raw) if raw.startswith('{') else raw\n" + body
    )
    path.chmod(0o755)
    return str(path)


# -- OpenAI-compatible ---------------------------------------------------------------


def test_openai_summarizer_asks_the_server_and_keeps_the_bound(api_key: str) -> None:
    with chat_server() as server:
        summarizer = OpenAISummarizer(server.url("stream"), "m", max_summary_tokens=40)
        summary = summarizer("", turns(3))
    [request] = server.requests
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    body = request["body"]
    assert body["model"] == "m" and body["messages"][0]["role"] == "system"
    assert "at most 30 words" in body["messages"][0]["content"]
    assert "user: Question 2: what is 2 times 7?" in body["messages"][1]["content"]
    assert summary.startswith("echo: Summary so far:")  # the server echoes the request
    assert count_tokens(summary) <= 40
    assert summarizer.describe() == {"summarizer": "openai", "model": "m"}


@pytest.mark.parametrize("count", [1, 10, 100, 1000, 5000])
def test_openai_summarizer_is_bounded_in_batches(api_key: str, count: int) -> None:
    with chat_server() as server:
        summarizer = OpenAISummarizer(
            server.url("plain"), "m", max_summary_tokens=64, batch_tokens=2000
        )
        summary = summarizer("", turns(count))
    assert count_tokens(summary) <= 64
    tokens = sum(count_tokens(m["content"]) for r in server.requests for m in r["body"]["messages"])
    assert all(
        count_tokens(r["body"]["messages"][1]["content"]) <= 2000 + 64 + 20 for r in server.requests
    )
    assert len(server.requests) >= count * 20 // 2000 and tokens > 0


def test_a_summary_memory_on_a_model_stores_what_made_it(api_key: str, store: SessionStore) -> None:
    with chat_server() as server:
        summarizer = OpenAISummarizer(server.url("stream"), "gpt-test", max_summary_tokens=50)
        memory = ConversationSummaryMemory(summarizer, store=store, session_id="s")
        for turn in turns(3):
            memory.save_context({"input": turn["input"]}, {"output": turn["output"]})
    stored = store.get_summary("s")
    assert stored is not None and stored.content == memory.summary
    assert stored.metadata == {
        "summarizer": "openai",
        "model": "gpt-test",
        "turns": 3,
        "turn_tokens": memory.summary_turn_tokens,
        "through": memory.summary_through,
    }
    assert count_tokens(stored.content) <= 50


@pytest.mark.parametrize("mode", ["status-500", "cut", "echo-key"])
def test_a_failing_server_keeps_the_old_summary_and_writes_nothing(
    api_key: str, store: SessionStore, mode: str
) -> None:
    with chat_server() as server:
        good = OpenAISummarizer(server.url("stream"), "m")
        memory = ConversationSummaryBufferMemory(60, good, store=store, session_id="s")
        for turn in turns(6):
            memory.save_context({"input": turn["input"]}, {"output": turn["output"]})
        before = (memory.summary, memory.summary_turns, list(memory.chat_memory))
        assert memory.summary_turns > 0
        file = store.sessions_dir / "s.jsonl"
        on_disk = file.read_bytes()
        memory.summarizer = OpenAISummarizer(server.url(mode), "m")
        with pytest.raises(SummarizerError) as caught:
            memory.save_context({"input": "One more question?"}, {"output": "One more answer."})
    assert isinstance(caught.value.__cause__, ClientError)
    assert isinstance(caught.value, ZerdaError)
    assert KEY not in str(caught.value)
    assert (memory.summary, memory.summary_turns, list(memory.chat_memory)) == before
    assert file.read_bytes() == on_disk


def test_nothing_listening_is_a_summarizer_error(api_key: str) -> None:
    summarizer = OpenAISummarizer(f"http://127.0.0.1:{free_port()}/v1", "m")
    with pytest.raises(SummarizerError, match="connection refused") as caught:
        summarizer("", turns(1))
    assert isinstance(caught.value.__cause__, ClientError)


def test_the_key_is_read_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZERDA_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-variable")
    with chat_server() as server:
        OpenAISummarizer(server.url("stream"), "m")("", turns(1))
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-from-openai-variable"
    with pytest.raises(TypeError):
        OpenAISummarizer(server.url("stream"), "m", api_key="sk-x")  # type: ignore[call-arg]


# -- a command --------------------------------------------------------------------------


def test_command_summarizer_runs_the_program_per_batch(tmp_path: Path, store: SessionStore) -> None:
    script = program(
        tmp_path,
        "lines = request['messages'][1]['content'].split('New lines of the conversation:\\n')[1]\n"
        "kept = [line for line in lines.splitlines() if 'times 7 is' in line]\n"
        "print('Facts: ' + ' '.join(line.split(': ', 1)[1] for line in kept))\n",
    )
    summarizer = CommandSummarizer(script, max_summary_tokens=30)
    memory = ConversationSummaryMemory(summarizer, store=store, session_id="s")
    for turn in turns(4):
        memory.save_context({"input": turn["input"]}, {"output": turn["output"]})
    assert memory.summary.startswith("Facts: 3 times 7 is 21.")
    assert count_tokens(memory.summary) <= 30
    stored = store.get_summary("s")
    assert stored is not None and stored.metadata["summarizer"] == "command"
    assert stored.metadata["model"].endswith("summarize")


def test_command_summarizer_text_format(tmp_path: Path) -> None:
    script = program(tmp_path, "print(request.splitlines()[0][:30])\n")
    summary = CommandSummarizer(script, text_format=True)("", turns(1))
    assert summary == "system: You keep a running sum"


@pytest.mark.parametrize("count", [1, 100, 5000])
def test_command_summarizer_is_bounded(tmp_path: Path, count: int) -> None:
    script = program(tmp_path, "print('blah ' * 100000)\n")
    summary = CommandSummarizer(script, max_summary_tokens=25, batch_tokens=100_000)(
        "", turns(count)
    )
    assert 0 < count_tokens(summary) <= 25


@pytest.mark.parametrize(
    "body,error",
    [
        ("sys.stderr.write('model exploded\\n'); sys.exit(2)", SummarizerError),
        ("print('   ')", SummarizerError),
    ],
)
def test_a_failing_command_keeps_the_old_summary(
    tmp_path: Path, store: SessionStore, body: str, error: type[Exception]
) -> None:
    memory = ConversationSummaryMemory(store=store, session_id="s")
    for turn in turns(3):
        memory.save_context({"input": turn["input"]}, {"output": turn["output"]})
    before = memory.summary
    on_disk = (store.sessions_dir / "s.jsonl").read_bytes()
    memory.summarizer = CommandSummarizer(program(tmp_path, body + "\n"))
    with pytest.raises(error):
        memory.save_context({"input": "q"}, {"output": "a"})
    assert memory.summary == before
    assert (store.sessions_dir / "s.jsonl").read_bytes() == on_disk


def test_a_missing_program_is_refused_when_made() -> None:
    with pytest.raises(ClientError, match="command not found"):
        CommandSummarizer("/no/such/summarizer")


def test_the_command_gets_the_request_as_json(tmp_path: Path) -> None:
    out = tmp_path / "request.json"
    script = program(tmp_path, f"open({str(out)!r}, 'w').write(raw)\nprint('ok')\n")
    CommandSummarizer(script)("Earlier: a greeting.", turns(1))
    request = json.loads(out.read_text())
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert request["messages"][1]["content"].startswith("Summary so far:\nEarlier: a greeting.")
