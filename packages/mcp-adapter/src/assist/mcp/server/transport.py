"""Stdio for `assist mcp`: one JSON-RPC message per line in, one per line out (behaviour 3.1).

Replaces the SDK's `stdio_server` for two reasons. Its reader drops lines it cannot parse
without an answer, where we must answer -32700/-32600/-32602 with exact ids (`wire.screen`
decides). And on EOF it cancels requests already read, so a client that writes its requests
and closes stdin loses answers; ours finishes them (bounded by `DRAIN_S`) after the watch
is left.

Stdout discipline: the protocol gets a private duplicate of fd 1, and fd 1 itself is
pointed at stderr, so nothing else in the process (a stray print, a native library, a child
that inherits fd 1) can write into the protocol. Fd 0 is likewise kept privately and pointed
at the null device. The reader is a daemon thread, so a stdin that never closes cannot keep
the process alive after a signal.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from assist.app.logs import log
from assist.mcp.server import wire

from mcp.shared.message import SessionMessage

DRAIN_S = 5.0
"""After EOF, how long requests already read may take to be answered before the SDK loop
stops; the watch is left first, so an open wait ends at once and only quick calls remain."""
FLUSH_S = 2.0
"""After the SDK loop ends, how long the last answers may take to reach stdout; a client that
stopped reading never takes them, and must not keep the process alive."""


class ProtocolStreams:
    """The private protocol descriptors; fd 0 and 1 are diverted while they are held."""

    def __init__(self, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
        self.input: BinaryIO = os.fdopen(_private_copy(stdin_fd), "rb")
        self.output_fd = _private_copy(stdout_fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, stdin_fd)
        os.close(null)
        os.dup2(2, stdout_fd)
        sys.stdout = sys.stderr


def _private_copy(fd: int) -> int:
    """A close-on-exec duplicate above the standard range, so no child inherits it."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


class Wire:
    """Feeds screened lines to the SDK and writes its replies (and ours) one per line."""

    def __init__(self, streams: ProtocolStreams, tools: Sequence[str]) -> None:
        self._streams = streams
        self._tools = tuple(tools)
        self._to_sdk: MemoryObjectSendStream[SessionMessage | Exception]
        self.sdk_read: MemoryObjectReceiveStream[SessionMessage | Exception]
        self._to_sdk, self.sdk_read = anyio.create_memory_object_stream(64)
        self.sdk_write: MemoryObjectSendStream[SessionMessage]
        self._from_sdk: MemoryObjectReceiveStream[SessionMessage]
        self.sdk_write, self._from_sdk = anyio.create_memory_object_stream(64)
        self._out_send: MemoryObjectSendStream[bytes]
        self._out_receive: MemoryObjectReceiveStream[bytes]
        self._out_send, self._out_receive = anyio.create_memory_object_stream(256)
        self._open_requests: set[str | int] = set()
        self._drained = anyio.Event()
        self.eof = anyio.Event()

    async def run(self, on_eof: Callable[[], Awaitable[None]]) -> None:
        """Read, screen and write until stdin closes; then `on_eof`, drain, close the SDK side."""
        token = anyio.lowlevel.current_token()
        async with anyio.create_task_group() as group:
            group.start_soon(self._relay_sdk_replies)
            group.start_soon(self._write_lines)
            reader = threading.Thread(target=self._read_lines, args=(token,), daemon=True)
            reader.start()
            await self.eof.wait()
            await on_eof()
            with anyio.move_on_after(DRAIN_S):
                if self._open_requests:
                    await self._drained.wait()
            await self._to_sdk.aclose()
            # The SDK closes `sdk_write` when its loop ends; the relay then closes the output.

    def _read_lines(self, token: Any) -> None:
        """Daemon thread: each line of stdin to the event loop, then EOF."""
        try:
            for raw in self._streams.input:
                anyio.from_thread.run(self._take, raw, token=token)
        except Exception as error:  # the loop is gone, or stdin broke
            log.warning(f"stopped reading stdin: {error}")
        with contextlib.suppress(Exception):  # the loop is gone already
            anyio.from_thread.run_sync(self.eof.set, token=token)

    async def _take(self, raw: bytes) -> None:
        """One line of stdin: screened, then answered or forwarded. Whatever goes wrong with
        one line, the stream goes on (3.1)."""
        if self.eof.is_set():
            return
        try:
            await self._screen_and_forward(raw)
        except Exception as error:  # a bug: the line is lost, the server is not
            log.warning(f"a line from the client could not be handled and was dropped ({error!r})")

    async def _screen_and_forward(self, raw: bytes) -> None:
        decided = wire.screen(raw, self._tools)
        if isinstance(decided, wire.Skip):
            return
        if isinstance(decided, wire.Answer):
            await self._send_line(decided.response())
            return
        try:
            message = types.jsonrpc_message_adapter.validate_python(decided.message, by_name=False)
        except Exception as error:
            if decided.request_id is not None:
                answer = wire.Answer(
                    decided.request_id, wire.INVALID_REQUEST, f"malformed message: {error}"
                )
                await self._send_line(answer.response())
            return
        if decided.request_id is not None:
            self._open_requests.add(decided.request_id)
        if decided.message.get("method") == "notifications/cancelled":
            params = decided.message.get("params")
            cancelled = wire.usable_id(
                params.get("requestId") if isinstance(params, dict) else None
            )
            if cancelled is not None:  # anything else names no request of ours
                self._forget(cancelled)
        await self._to_sdk.send(SessionMessage(message))

    async def _relay_sdk_replies(self) -> None:
        async with self._from_sdk, self._out_send:
            async for item in self._from_sdk:
                reply = item.message
                if isinstance(reply, types.JSONRPCResponse | types.JSONRPCError):
                    self._forget(reply.id)
                line = reply_line(reply)
                if line is not None:
                    await self._out_send.send(line)

    def _forget(self, request_id: Any) -> None:
        """A request was answered or cancelled; after EOF, the last one lets the drain end."""
        self._open_requests.discard(request_id)
        if self.eof.is_set() and not self._open_requests:
            self._drained.set()

    async def _send_line(self, response: dict[str, Any]) -> None:
        await self._out_send.send(wire.encode_line(response))

    async def _write_lines(self) -> None:
        """Each line to stdout from a worker thread. A client that stops reading fills the
        pipe and blocks that thread for ever, so the write is abandoned on cancellation: the
        teardown goes on and the process leaves without waiting for it (`process_exit`)."""
        async with self._out_receive:
            async for line in self._out_receive:
                try:
                    await anyio.to_thread.run_sync(
                        _write_all, self._streams.output_fd, line, abandon_on_cancel=True
                    )
                except OSError as error:
                    log.warning(f"cannot write to stdout any more: {error}")
                    return


def reply_line(reply: types.JSONRPCMessage) -> bytes | None:
    """The line for one message from the SDK. Strings pass through `wire.encode_line` (the
    SDK's own serializer raises on a lone surrogate). The last resort of 3.1: an error the
    SDK made of an unexpected exception (code 0) goes out as -32603, and a reply that cannot
    be written at all is answered with -32603 in its place, so the request is never left
    unanswered and the server goes on. None for a notification that cannot be written."""
    try:
        message = reply.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if isinstance(reply, types.JSONRPCError) and reply.error.code == 0:
            message["error"]["code"] = wire.INTERNAL_ERROR
        return wire.encode_line(message)
    except Exception as error:  # a bug: this request gets an error, the others go on
        log.warning(f"a message to the client could not be written ({error!r})")
        if not isinstance(reply, types.JSONRPCResponse | types.JSONRPCError):
            return None
        failed = wire.Answer(
            wire.usable_id(reply.id),
            wire.INTERNAL_ERROR,
            f"the server could not write its answer ({type(error).__name__}); "
            "try the request again, and report it if it keeps failing",
        )
        return wire.encode_line(failed.response())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
