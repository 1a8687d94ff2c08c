"""zerda over the Model Context Protocol: `build_server(store)` gives an MCP server whose
tools search, list, read, summarize and add to the store's sessions; `serve_stdio(server)`
runs it on stdin/stdout (`zerda mcp`), answering every request read before stdin closes.
Needs the `mcp` package (`pip install 'zerda[mcp]'`), loaded only here."""

try:
    import mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError("zerda.mcp needs the mcp package: pip install 'zerda[mcp]'") from exc

from zerda.mcp._server import build_server
from zerda.mcp._stdio import serve_stdio

__all__ = ["build_server", "serve_stdio"]
