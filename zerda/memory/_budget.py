"""What a memory's context costs a model, in tokens: as text and as chat messages.

A budget (`max_token_limit`) bounds both forms a memory hands out:

- the text of `load_memory_variables`: the tokens of that exact string;
- `context_messages()`, counted as the chat API counts a request (OpenAI's rule for
  its chat models): each message costs 3 tokens of framing plus the tokens of its
  role and of its content, a `name` its tokens plus 1, and the request 3 more (the
  reply is primed with the assistant's role). Fields beyond those (an assistant's
  `tool_calls`, a tool's `tool_call_id`) cost the tokens of their compact JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from zerda.tokens import DEFAULT_ENCODING, count_tokens

TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
_COUNTED = ("role", "content", "name")


def message_tokens(message: dict[str, Any], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens one chat message costs in a request (see the module docstring)."""
    from zerda.formats.openai import content_text

    total = TOKENS_PER_MESSAGE + count_tokens(str(message.get("role", "")), encoding)
    total += count_tokens(content_text(message.get("content")), encoding)
    name = message.get("name")
    if name:
        total += TOKENS_PER_NAME + count_tokens(str(name), encoding)
    rest = {key: value for key, value in message.items() if key not in _COUNTED}
    if rest:
        text = json.dumps(rest, ensure_ascii=False, separators=(",", ":"), default=str)
        total += count_tokens(text, encoding)
    return total


def chat_tokens(messages: Iterable[dict[str, Any]], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens a request carrying `messages` costs: theirs plus the reply's priming."""
    return REPLY_PRIMING + sum(message_tokens(m, encoding) for m in messages)
