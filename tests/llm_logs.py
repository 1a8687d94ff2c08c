"""llm logs databases for the importer tests: written by the real `llm` (its echo model),
or in llm's older schema, built by llm's own migrations and filled as llm 0.26-0.31 did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

LLM = Path(sys.executable).with_name("llm")


def run_llm(home: Path, *args: str) -> None:
    """Run the installed `llm` with its logs in `home` (echo model: no network)."""
    env = {**os.environ, "LLM_USER_PATH": str(home)}
    subprocess.run([str(LLM), *args], env=env, check=True, capture_output=True, timeout=60)


def legacy_db(path: Path, last_migration: str = "m022_response_reasoning") -> Any:
    """An llm database holding llm's migrations up to `last_migration` (the tables
    before the 0.32 message store), as a sqlite_utils Database."""
    import sqlite_utils
    from llm.migrations import MIGRATIONS, ensure_migrations_table

    db = sqlite_utils.Database(path)
    ensure_migrations_table(db)  # type: ignore[no-untyped-call]
    for migration in MIGRATIONS:
        migration(db)
        db.table("_llm_migrations").insert({"name": migration.__name__, "applied_at": "2025-01-01"})
        if migration.__name__ == last_migration:
            break
    return db


def fill_legacy(db: Any) -> None:
    """Two conversations and a response without one, as older llm logged them."""
    db["conversations"].insert_all(
        [
            {"id": "01conv-a", "name": "Ask about Zürich", "model": "gpt-4o-mini"},
            {"id": "01conv-b", "name": "tools", "model": "gpt-4.1"},
        ]
    )
    responses = [
        _response("01r1", "01conv-a", "Wetter in Zürich?", "Sei kurz.", "Regen, 18 °C."),
        _response("01r2", "01conv-a", "Und morgen? 🌦", "Sei kurz.", "Sonne."),
        _response("01r3", "01conv-a", "English now", "Be brief.", "Sure."),
        _response("01r4", "01conv-b", "What version?", None, ""),
        _response("01r5", "01conv-b", "", None, "llm 0.26 is installed."),
        _response("01r6", None, "no conversation", None, "answer"),
    ]
    responses[0] |= {"datetime_utc": "2024-05-01T10:00:00.000001", "reasoning": "Look it up."}
    responses[3] |= {"datetime_utc": "2025-06-01T12:00:00+00:00"}
    db["responses"].insert_all(responses)
    db["tools"].insert({"id": 1, "hash": "h", "name": "llm_version", "description": "v"})
    db["tool_calls"].insert(
        {"id": 1, "response_id": "01r4", "tool_id": 1, "name": "llm_version",
         "arguments": "{}", "tool_call_id": "call_9"}
    )  # fmt: skip
    db["tool_results"].insert(
        {"id": 1, "response_id": "01r5", "tool_id": 1, "name": "llm_version",
         "output": "0.26", "tool_call_id": "call_9", "exception": None}
    )  # fmt: skip


def _response(
    rid: str, conversation: str | None, prompt: str, system: str | None, text: str
) -> dict[str, Any]:
    return {
        "id": rid,
        "model": "gpt-4o-mini",
        "resolved_model": "gpt-4o-mini-2024-07-18",
        "prompt": prompt,
        "system": system,
        "prompt_json": None,
        "options_json": '{"temperature": 0.5}',
        "response": text,
        "response_json": None,
        "conversation_id": conversation,
        "duration_ms": 812,
        "datetime_utc": "2024-05-01T10:00:0" + rid[-1] + ".250000",
        "input_tokens": 9,
        "output_tokens": 4,
        "token_details": '{"cached_tokens": 2}',
    }
