"""The read-only session tools `sessions`, `transcript` and `status` (behaviour 3.3).

Unlike the watching tools these read their arguments strictly, but, as MCP 2025-11-25 asks
(SEP-1303), a missing or wrong-typed argument is a tool result with `isError` naming the
argument, the type expected and what it was, so the model can correct itself (3.1); so is a
session that cannot be read (no such session, not a session id, a symlink). The reading is done by
`SessionStore`, in a worker thread so a long transcript never holds up other requests; one
lock keeps the store's cached transcript readers to one thread at a time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from assist.app.store.session_files import SessionRefusal
from assist.app.store.sessions import SessionStore
from assist.core import refusals
from assist.mcp.server import tools, wire


class SessionTools:
    """Answers the three session tools from one sessions root."""

    def __init__(self, store: SessionStore, wall: Callable[[], float] = time.time) -> None:
        self._store = store
        self._wall = wall
        self._lock = threading.Lock()

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name == "sessions":
            return await self._read(lambda now: self._store.rows(now))
        if name == "status":
            return await self._read(lambda now: self._store.status(now))
        checked = transcript_arguments(arguments)
        if isinstance(checked, str):
            return tools.refusal(checked)
        session, since, verbatim = checked
        return await self._read(
            lambda now: self._store.transcript(session, since, now, verbatim=verbatim)
        )

    async def _read(self, read: Callable[[float], Any]) -> types.CallToolResult:
        def locked() -> Any:
            with self._lock:
                return read(self._wall())

        try:
            return tools.result(await anyio.to_thread.run_sync(locked))
        except SessionRefusal as refusal:
            return tools.refusal(str(refusal))
        except OSError as error:
            return tools.refusal(refusals.sessions_unreadable(str(error)))


def transcript_arguments(arguments: dict[str, Any]) -> tuple[str, int, bool] | str:
    """`session` (required string), `since` (unsigned integer, 0), `verbatim` (boolean,
    false); or the refusal naming the first argument that is not usable.

    An optional argument given as null counts as left out: clients that fill every property
    send null for the ones they do not use, and Ambient's typed arguments read it that way.
    """
    session = arguments.get("session")
    if not isinstance(session, str):
        given = "missing" if "session" not in arguments else wire.kind(session)
        return refusals.wrong_argument("transcript", "session", given)
    since = arguments.get("since")
    since = 0 if since is None else since  # null reads as left out, as serde's Option does
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        return refusals.wrong_argument("transcript", "since", wire.kind(since))
    verbatim = arguments.get("verbatim")
    verbatim = False if verbatim is None else verbatim
    if not isinstance(verbatim, bool):
        return refusals.wrong_argument("transcript", "verbatim", wire.kind(verbatim))
    return session, since, verbatim
