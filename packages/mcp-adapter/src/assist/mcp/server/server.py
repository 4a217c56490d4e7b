"""`assist mcp`: the MCP server over stdio (behaviour 3.1).

Built on the official SDK's low-level `Server` (`mcp.server.lowlevel`), not on `MCPServer`:
the high-level server generates input schemas from function signatures and validates arguments
against them, while ours has fixed schemas and watching tools that read arguments leniently.
The SDK's JSON-RPC dispatcher gives what the reference lacked: each request runs in its own
task, so `ping`, `tools/list`, the prompt and the session tools are answered while a wait or a
line is in flight, and `notifications/cancelled` interrupts the request it names. Lines are
screened before the SDK sees them (`wire`, `transport`), so protocol errors keep the codes and
ids of 3.1 where the SDK would drop the line or answer with a generic message.

No input ends the process (3.1): every handler is `guarded`, so an exception no rule foresaw
answers its one request with -32603 and a message (its traceback goes to stderr), and the
transport does the same for an answer it cannot write. A watching tool that fails so answers
an `isError` result instead, which the agent reads as advice rather than as a broken server.

EOF on stdin, SIGTERM, SIGINT and SIGHUP all end the same way: the watch is left (which stops
the voice helper and removes the heartbeat), requests already read are answered, and the
process exits 0. Every helper still running is killed on the way out, whatever happened, and
the process then leaves without the interpreter's finalization (`process_exit`): the goal is to
be gone within 100 ms of the signal when no line plays (3.1).

Options come from the environment (assist-mcp's README lists them): `ASSIST_VOICE_COMMAND`
replaces the helper's command line (`helper_command.helper_program`), and `ASSIST_PACING_SCALE`
multiplies the batching clock (poll 0.5 s, settle 3 s, longest 20 s) for a meeting replayed
faster than it was held: `assist demo` and `assist eval` set it to 1/speed, so the agent sees
the same batches as at speed 1, and tests of the batching rules run in a fraction of the time.
`ASSIST_LISTEN_FROM` and `ASSIST_LISTEN_COMMAND` feed and replace a conversation's listener
(`assist.mcp.speech.listener_process`).
"""

from __future__ import annotations

import functools
import math
import os
import signal
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import anyio
import mcp_types as types
from assist.app.logs import log
from assist.app.store.config import ConfigFile
from assist.app.store.paths import beside_config, config_path, sessions_root, voice_cache_root
from assist.app.store.sessions import SessionStore
from assist.core import environment, refusals
from assist.core.batcher import DEFAULT_PACING, Pacing
from assist.core.settings import VoiceSettings
from assist.mcp.installed import version
from assist.mcp.server import progress, tools, wire
from assist.mcp.server.session_tools import SessionTools
from assist.mcp.server.transport import FLUSH_S, ProtocolStreams, Wire
from assist.mcp.server.watch import Watcher
from assist.mcp.speech.supervisor import Voice, kill_all_helpers

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

SERVER_NAME = "assist"
PACING_VARIABLE = environment.PACING_SCALE.name
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""Each ends the server like EOF does, after the same teardown (ours)."""


P = TypeVar("P")
R = TypeVar("R")
Handler = Callable[[ServerRequestContext[Any], P], Awaitable[R]]


def guarded(method: str, handler: Handler[P, R]) -> Handler[P, R]:
    """`handler` with the last-resort guard of 3.1: an unexpected exception becomes a -32603
    answer naming it, with the traceback on stderr; the server goes on. Protocol errors the
    handler raises on purpose (MCPError) and cancellation pass through unchanged."""

    async def run(ctx: ServerRequestContext[Any], params: P) -> R:
        try:
            return await handler(ctx, params)
        except MCPError:
            raise
        except Exception as error:
            log.warning(f"{method} failed unexpectedly:\n{traceback.format_exc().rstrip()}")
            described = f"{type(error).__name__}: {error}"
            text = refusals.unexpected_failure(method, described)
            raise MCPError(wire.INTERNAL_ERROR, text) from error

    return run


def pacing(environ: Mapping[str, str]) -> Pacing:
    """The batching clock, scaled by `ASSIST_PACING_SCALE` when it is set: a positive number
    (0.25 runs it four times faster); anything else is reported on stderr and ignored."""
    value = environ.get(PACING_VARIABLE, "").strip()
    if not value:
        return DEFAULT_PACING
    try:
        scale = float(value)
    except ValueError:
        scale = math.nan
    if not (math.isfinite(scale) and scale > 0):
        log.warning(
            f"{PACING_VARIABLE}={value!r} is not a positive number; using the normal batching "
            "clock (0.25 runs it four times faster)"
        )
        return DEFAULT_PACING
    return Pacing(
        poll_s=DEFAULT_PACING.poll_s * scale,
        settle_s=DEFAULT_PACING.settle_s * scale,
        longest_s=DEFAULT_PACING.longest_s * scale,
    )


def progress_report(ctx: ServerRequestContext[Any]) -> progress.Report | None:
    """How to send this request's progress, or None when its client asked for none."""
    if ctx.meta is None or ctx.meta.get("progress_token") is None:
        return None
    return ctx.session.report_progress


def build_server(watcher: Watcher, session_tools: SessionTools) -> Server[Any]:
    """The SDK server with our tools, prompt and handlers."""
    watching = {
        "watch_meeting": watcher.watch_meeting,
        "start_conversation": watcher.start_conversation,
        "speak": watcher.speak,
        "stop_watching": watcher.stop_watching,
    }
    listening = {"wait_for_transcript": watcher.wait_for_transcript, "confirm": watcher.confirm}
    """The calls that may wait two minutes, so report progress when the client asks (14.1)."""

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.tool_list())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name in tools.SESSION_TOOLS:
            return await session_tools.call(params.name, arguments)
        handler = watching.get(params.name)
        if params.name in listening:
            handler = functools.partial(listening[params.name], report=progress_report(ctx))
        if handler is None:  # `wire` screens names first; kept so the table holds regardless
            names = ", ".join(tools.TOOL_NAMES)
            raise MCPError(
                wire.INVALID_PARAMS, f"there is no tool {params.name!r}; the tools are {names}"
            )
        try:
            return await handler(arguments)
        except Exception as error:  # a bug or an unforeseen OS error: the agent hears of it
            log.warning(f"{params.name} failed unexpectedly:\n{traceback.format_exc().rstrip()}")
            described = f"{type(error).__name__}: {error}"
            return tools.refusal(refusals.unexpected_failure(params.name, described))

    async def list_prompts(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=tools.prompt_list())

    async def get_prompt(
        _ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        settings = await anyio.to_thread.run_sync(watcher.load_settings)
        focus = (params.arguments or {}).get("focus")
        return tools.get_prompt(params.name, settings.assistant.name, focus)

    return Server(
        SERVER_NAME,
        version=version(),
        on_list_tools=guarded("tools/list", list_tools),
        on_call_tool=guarded("tools/call", call_tool),
        on_list_prompts=guarded("prompts/list", list_prompts),
        on_get_prompt=guarded("prompts/get", get_prompt),
    )


def build_watcher(
    environ: Mapping[str, str], *, no_play: bool, save_audio: str | None
) -> tuple[Watcher, SessionTools]:
    """Resolve the files once (1.1: a running server never moves its sessions root) and wire
    the watch and the session tools to them."""
    location = config_path(environ)
    config = ConfigFile.at(location, environ)
    store = SessionStore(sessions_root(environ, config.load(), location))
    folder = beside_config(location)
    cache_root = str(voice_cache_root(environ))

    def voice(settings: VoiceSettings, *, own_lines: str | None = None) -> Voice:
        return Voice(
            settings,
            no_play=no_play,
            save_dir=save_audio,
            config_dir=folder,
            cache_root=cache_root,
            environ=environ,
            own_lines=own_lines,
        )

    watcher = Watcher(
        config=config,
        store=store,
        folder=folder,
        voice_factory=voice,
        pid=os.getpid(),
        pacing=pacing(environ),
        environ=environ,
    )
    return watcher, SessionTools(store)


async def serve(server: Server[Any], watcher: Watcher, channel: Wire) -> None:
    """Serve until EOF or a signal, then leave the watch.

    The signals stay caught until the teardown is over: a client that follows SIGINT with
    SIGTERM 0.1 s later (Claude Code does) must not kill the process half way through it, so
    a second signal is received and left unread. Once the SDK loop ends the wire has
    `FLUSH_S` to write the last answers, so a client that stopped reading cannot hold the exit."""
    with anyio.open_signal_receiver(*SIGNALS) as received:
        async with anyio.create_task_group() as outer:
            watcher.run_teardowns_in(outer)

            async def on_signal() -> None:
                async for number in received:
                    name = signal.Signals(number).name
                    log.warning(f"{name} received; leaving the watch and exiting")
                    await watcher.shutdown()
                    outer.cancel_scope.cancel()
                    return

            outer.start_soon(on_signal)
            outer.start_soon(watcher.tend)
            async with anyio.create_task_group() as inner:
                inner.start_soon(channel.run, watcher.shutdown)
                await server.run(
                    channel.sdk_read, channel.sdk_write, server.create_initialization_options()
                )
                inner.cancel_scope.deadline = anyio.current_time() + FLUSH_S
            outer.cancel_scope.cancel()
        with anyio.CancelScope(shield=True):
            await watcher.shutdown()


def run(*, no_play: bool = False, save_audio: str | None = None) -> int:
    """`assist mcp`: serve on stdin and stdout until EOF or a signal; exit status 0."""
    streams = ProtocolStreams()
    log.debug(f"serving on stdio (pid {os.getpid()}, no_play={no_play}, save_audio={save_audio})")
    try:
        watcher, session_tools = build_watcher(os.environ, no_play=no_play, save_audio=save_audio)
        server = build_server(watcher, session_tools)
        channel = Wire(streams, tools.TOOL_NAMES)
        anyio.run(serve, server, watcher, channel)
    finally:
        kill_all_helpers()
    return 0
