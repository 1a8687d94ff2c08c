"""Model clients shared by `zerda chat` and the model-backed summarizers.

`OpenAIClient` (an OpenAI-compatible HTTP API, streamed) and `CommandClient` (a
program run per reply) both return a `Reply`: its text in pieces, then its
`Provenance`. `import zerda` does not load this package, and this package loads
each client's module only when that client is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.clients._base import (
    ChatClient,
    ClientError,
    Messages,
    Provenance,
    Reply,
)

if TYPE_CHECKING:
    from zerda.clients._command import CommandClient
    from zerda.clients._openai import OpenAIClient

_LAZY = {
    "CommandClient": "zerda.clients._command",
    "OpenAIClient": "zerda.clients._openai",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ChatClient",
    "ClientError",
    "CommandClient",
    "Messages",
    "OpenAIClient",
    "Provenance",
    "Reply",
]
