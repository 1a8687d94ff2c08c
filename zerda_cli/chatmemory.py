"""The memory a `zerda chat` session uses: the class a spec names, bound to the session file.

The library's `zerda.memory.spec.bind_memory`, so `zerda chat --memory` and
`ZerdaChatMessageHistory(memory=...)` build the same context.
"""

from __future__ import annotations

from zerda.memory.spec import bind_memory

__all__ = ["bind_memory"]
