"""`serve_stdio(server)`: run an MCP server on stdin and stdout, answering every request
it read before stdin closed.

The SDK's loop cancels the requests still running when its input ends, so a client that
writes its requests and closes stdin (a shell pipe, a script) lost the answers, and a
write in flight could finish unanswered. Here the end of input is passed on only once
every request read has been answered, or cancelled by the client, or GRACE seconds have
passed (a backstop: zerda's tools are local and quick). A listen request, answered only
when the connection ends, is not waited for.
"""

from __future__ import annotations

from collections import Counter
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

Inbound = SessionMessage | Exception
S = TypeVar("S", ReadStream[Inbound], WriteStream[SessionMessage])
CANCELLED = "notifications/cancelled"  # the client gave a request up: no answer comes
LISTEN = "subscriptions/listen"  # a stream of notifications, answered when the connection ends
GRACE = 30.0  # seconds the requests still open at the end of input have to finish


async def serve_stdio(server: MCPServer) -> None:
    """Serve `server` on stdin/stdout until stdin closes and every request is answered."""
    lowlevel = server._lowlevel_server  # as MCPServer.run_stdio_async: it has no public name
    async with stdio_server() as (read_stream, write_stream):
        requests = OpenRequests()
        await lowlevel.run(
            AnsweredBeforeEnd(read_stream, requests),
            NotingAnswers(write_stream, requests),
            lowlevel.create_initialization_options(),
        )


class OpenRequests:
    """How many requests of each id were read and not yet answered (ids as the SDK matches
    them: "7" and 7 are one; a client may reuse an id)."""

    def __init__(self) -> None:
        self.ids: Counter[Any] = Counter()
        self.none_open = anyio.Event()
        self.none_open.set()

    def read(self, item: Inbound) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest) and message.method != LISTEN:
            self.ids[coerce_request_id(message.id)] += 1
            self.none_open = anyio.Event() if self.none_open.is_set() else self.none_open
        elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
            self.done(cancelled_request_id_from_params(message.params))

    def written(self, item: SessionMessage) -> None:
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self.done(item.message.id)

    def done(self, request_id: Any) -> None:
        if request_id is None:
            return
        key = coerce_request_id(request_id)
        self.ids[key] -= 1
        if self.ids[key] <= 0:
            del self.ids[key]
        if not self.ids:
            self.none_open.set()

    async def all_answered(self) -> None:
        """Return once none is open, or after GRACE seconds."""
        with anyio.move_on_after(GRACE):
            await self.none_open.wait()


class Wrapped(Generic[S]):
    """A stream of the SDK's (`stream`), wrapped to watch what passes; closed as it is."""

    stream: S

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class AnsweredBeforeEnd(Wrapped[ReadStream[Inbound]]):
    """The read stream, whose end waits until every request it gave has been answered."""

    def __init__(self, stream: ReadStream[Inbound], requests: OpenRequests) -> None:
        self.stream = stream
        self.requests = requests

    @property
    def last_context(self) -> Any:
        return getattr(self.stream, "last_context", None)

    async def receive(self) -> Inbound:
        try:
            item = await self.stream.receive()
        except anyio.EndOfStream:
            await self.requests.all_answered()
            raise
        self.requests.read(item)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Inbound:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class NotingAnswers(Wrapped[WriteStream[SessionMessage]]):
    """The write stream, noting each answer it carries."""

    def __init__(self, stream: WriteStream[SessionMessage], requests: OpenRequests) -> None:
        self.stream = stream
        self.requests = requests

    async def send(self, item: SessionMessage, /) -> None:
        await self.stream.send(item)
        self.requests.written(item)
