"""`zerda serve`: Zep's v1 memory API (`/api/v1/sessions/...`) over a `Store`, so the
zep-python client (1.5) works against zerda unchanged.

A thin adapter: each endpoint parses the request, calls the store and shapes the answer
as Zep did (`zerda.server._zep`). Starlette and uvicorn (`pip install 'zerda[server]'`)
load with `create_app` and `serve`, not with this package: `zerda.server._settings`
checks a server's settings without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zerda.server._app import create_app
    from zerda.server._running import serve
    from zerda.server._settings import Settings

__all__ = ["Settings", "create_app", "serve"]
_LAZY = {
    "Settings": "zerda.server._settings",
    "create_app": "zerda.server._app",
    "serve": "zerda.server._running",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'zerda.server' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
