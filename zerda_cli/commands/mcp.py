"""`zerda mcp`: serve the sessions to an assistant over the Model Context Protocol, on
stdin and stdout (see `zerda.mcp`).

stdout carries the protocol alone: warnings and logs go to stderr.
"""

from __future__ import annotations

from zerda.errors import ZerdaError
from zerda_cli.options.params import HomeOpt, StoreOpt, open_store


def mcp(home: HomeOpt = None, location: StoreOpt = None) -> None:
    """Serve the sessions to an MCP client (Claude Desktop, an IDE) on stdin/stdout:
    search, list, read, summarize and add to them."""
    try:
        import anyio

        from zerda.mcp import build_server, serve_stdio
    except ImportError as exc:
        raise ZerdaError(str(exc)) from None
    store = open_store(home, location, extract_entities=True)
    try:
        anyio.run(serve_stdio, build_server(store))
    finally:
        store.close()
