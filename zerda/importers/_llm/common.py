"""What both generations of llm's tables share: times, usage and message ids."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from zerda.errors import ImportFailed, InvalidMessageError
from zerda.importers._base import Problem, stable_uuid

SOURCE = "llm"


class Unreadable(ImportFailed):
    """A conversation of the database cannot be read (its Problem says why); caught
    within the importer, which reports the Problem and goes on."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@contextmanager
def conversation_at(where: str) -> Iterator[None]:
    """Turn what a malformed conversation raises into Unreadable, naming `where`."""
    try:
        yield
    except (InvalidMessageError, ValueError, KeyError, TypeError, RecursionError) as exc:
        reason = (
            str(exc) if isinstance(exc, InvalidMessageError) else f"{type(exc).__name__}: {exc}"
        )
        raise Unreadable(Problem(where, reason)) from None


def message_uuid(conversation_id: str, *parts: str) -> str:
    return stable_uuid(SOURCE, conversation_id, *parts)


def utc_time(text: Any) -> datetime | None:
    """llm's times: ISO-8601, naive ones in UTC (`datetime.utcnow().isoformat()`)."""
    if not isinstance(text, str) or not text:
        return None
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def call_metadata(row: sqlite3.Row) -> dict[str, Any]:
    """What one model call recorded (model, duration, options, token usage), without blanks."""
    keys = set(row.keys())
    usage = {
        "input_tokens": row["input_tokens"] if "input_tokens" in keys else None,
        "output_tokens": row["output_tokens"] if "output_tokens" in keys else None,
        "details": json_value(row["token_details"] if "token_details" in keys else None),
    }
    found = {
        "model": row["model"],
        "resolved_model": row["resolved_model"] if "resolved_model" in keys else None,
        "duration_ms": row["duration_ms"],
        "options": json_value(row["options_json"]) or None,
        "usage": {k: v for k, v in usage.items() if v is not None} or None,
    }
    return {key: value for key, value in found.items() if value is not None}


def json_value(text: Any) -> Any:
    """A JSON column's value: decoded, or the text itself when it is not JSON."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return text


def openai_tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """A tool call in OpenAI's shape (arguments as JSON text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
