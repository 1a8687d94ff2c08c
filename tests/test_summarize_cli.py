"""`zerda summarize SESSION`: makes and stores a summary that `zerda show` shows first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import chat_server
from cli_runner import ZERDA

from bench.summaries import FACTS, kept, planted_turns
from zerda import SessionStore
from zerda.tokens import count_tokens


@pytest.fixture
def session(store: SessionStore) -> str:
    for question, answer in planted_turns(100):
        store.append_turn("s", question, answer)
    return "s"


def test_summarize_stores_an_extractive_summary(zerda: Any, store: SessionStore, session: str):
    result = zerda("summarize", session, "--max-tokens", "300")
    assert result.code == 0, result.err
    stored = store.get_summary(session)
    assert stored is not None
    assert stored.metadata == {
        "summarizer": "extractive",
        "turns": 100,
        "turn_tokens": stored.metadata["turn_tokens"],
        "through": stored.metadata["through"],
    }
    assert stored.token_count == count_tokens(stored.content) <= 300
    assert kept(stored.content) >= len(FACTS) // 2
    assert result.err == (
        f"summarized session s: 100 turns into {stored.token_count} tokens (extractive)\n"
    )


def test_show_puts_the_summary_first(zerda: Any, session: str, store: SessionStore) -> None:
    assert zerda("summarize", session).code == 0
    shown = zerda("show", session, "--no-pager")
    stored = store.get_summary(session)
    assert stored is not None
    first_line = stored.content.splitlines()[0]
    assert shown.out.index(first_line) < shown.out.index("user")
    assert shown.out.index("summary") < shown.out.index(first_line)


def test_summarize_json_prints_the_stored_summary(zerda: Any, session: str) -> None:
    result = zerda("summarize", session, "--json", "--max-tokens", "50")
    data = json.loads(result.out)
    assert set(data) == {"uuid", "created_at", "content", "token_count", "metadata", "entities"}
    assert data["token_count"] <= 50 and data["metadata"]["turns"] == 100


def test_summarize_with_a_model_over_http(
    zerda: Any, session: str, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERDA_API_KEY", "sk-cli-test")
    with chat_server() as server:
        result = zerda(
            "summarize", session, "--summarizer", "openai", "--base-url", server.url("stream"),
            "--model", "summarizer-model", "--max-tokens", "80",
        )  # fmt: skip
    assert result.code == 0, result.err
    assert server.requests and all(
        r["headers"]["Authorization"] == "Bearer sk-cli-test" for r in server.requests
    )
    assert {r["body"]["model"] for r in server.requests} == {"summarizer-model"}
    stored = store.get_summary(session)
    assert stored is not None and stored.content.startswith("echo: Summary so far:")
    assert stored.token_count is not None and stored.token_count <= 80
    assert stored.metadata["summarizer"] == "openai"
    assert stored.metadata["model"] == "summarizer-model"
    assert stored.metadata["turns"] == 100


def test_summarize_with_a_command(
    zerda: Any, session: str, store: SessionStore, tmp_path: Path
) -> None:
    script = tmp_path / "brief"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nprint('All good.')\n")
    script.chmod(0o755)
    result = zerda("summarize", session, "--summarizer", "command", "--command", str(script))
    assert result.code == 0, result.err
    stored = store.get_summary(session)
    assert stored is not None and stored.content == "All good."
    assert stored.metadata["summarizer"] == "command"


@pytest.mark.parametrize("mode", ["status-500", "cut"])
def test_a_failing_model_stores_nothing(
    zerda: Any,
    session: str,
    store: SessionStore,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    assert zerda("summarize", session).code == 0
    before = store.get_summary(session)
    file = store.sessions_dir / "s.jsonl"
    on_disk = file.read_bytes()
    monkeypatch.setenv("ZERDA_API_KEY", "sk-secret-value")
    with chat_server() as server:
        args = ["--summarizer", "openai", "--base-url", server.url(mode), "--model", "m"]
        result = zerda("summarize", session, *args)
    assert result.code == 1
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert "sk-secret-value" not in result.err
    assert store.get_summary(session) == before
    assert file.read_bytes() == on_disk


def test_a_failing_command_stores_nothing(
    zerda: Any, session: str, store: SessionStore, tmp_path: Path
) -> None:
    script = tmp_path / "broken"
    script.write_text("#!/bin/sh\necho 'out of credits' >&2\nexit 4\n")
    script.chmod(0o755)
    result = zerda("summarize", session, "--summarizer", "command", "--command", str(script))
    assert result.code == 1
    assert "out of credits" in result.err
    assert store.get_summary(session) is None


def test_summarize_works_on_the_store_named(zerda: Any, tmp_path: Path) -> None:
    other = SessionStore(tmp_path / "elsewhere", fsync=False)
    other.append_turn("t", "We moved to Lyon in 2021.", "Noted.")
    assert zerda("summarize", "t", "--store", str(tmp_path / "elsewhere")).code == 0
    stored = other.get_summary("t")
    assert stored is not None and "Lyon" in stored.content


def test_usage_and_missing_sessions(zerda: Any, session: str) -> None:
    assert zerda("summarize", "nope").code == 1
    assert zerda("summarize", session, "--summarizer", "command").code == 2
    assert zerda("summarize", session, "--max-tokens", "0").code == 2
    assert zerda("summarize", session, "--summarizer", "psychic").code == 2


def test_the_installed_command_summarizes(home: Path, store: SessionStore, session: str) -> None:
    env = {"ZERDA_HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [ZERDA, "summarize", session, "--max-tokens", "120"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = subprocess.run(
        [ZERDA, "show", session, "--format", "text"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    assert shown.startswith("summary\n") or "\nsummary\n" in shown.split("user", 1)[0]
