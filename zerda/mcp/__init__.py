"""zerda over the Model Context Protocol: `build_server(store)` gives an MCP server whose
tools search, list, read, summarize and add to the store's sessions (`zerda mcp` runs it
on stdio). Needs the `mcp` package (`pip install 'zerda[mcp]'`), loaded only here."""

try:
    import mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError("zerda.mcp needs the mcp package: pip install 'zerda[mcp]'") from exc

from zerda.mcp._server import build_server

__all__ = ["build_server"]
