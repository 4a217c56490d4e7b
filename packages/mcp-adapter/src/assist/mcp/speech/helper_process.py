"""One running voice helper: spawning it, reading its events, asking it to speak, ending it.

Behaviour 9.3. The helper runs in its own process group, so killing the group also ends
anything it started. Its stdout is read by a thread that turns each line into a protocol event
and skips whatever is not one; stderr is inherited, so the helper's own diagnostics reach the
server's stderr. Every way this can go wrong is a `HelperError` carrying a chain of texts,
outermost first; what to do about a failure (count it, restart, fall back, give up) is the
supervisor's business, not this module's.

A helper must never outlive the server, however the server ends:
- dropping a `HelperProcess` that still runs kills it (`weakref.finalize`, which also runs at
  interpreter exit), and `kill_all_helpers()` is there for the server's signal handlers;
- on Linux the helper is started with the parent-death signal set to SIGKILL, from one
  long-lived spawner thread, because Linux sends that signal when the *thread* that forked the
  child ends, and the server speaks from short-lived worker threads;
- everywhere else the helper exits on end of input, which it reads when the server is gone.

Exit checks never reap the child (`waitid` with `WNOWAIT`): while it is unreaped its pid, and
so its process group id, cannot be reused, which makes `killpg` safe until the reap in `kill`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import functools
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from assist.app.logs import log
from assist.core.files import READY_WITHIN_S, SAY_WITHIN_S
from assist.core.protocol import (
    Done,
    Error,
    Pause,
    Quit,
    Ready,
    Resume,
    Say,
    Speaking,
    Stop,
    Stopped,
    decode_event,
    encode,
)
from assist.mcp.speech.echo_socket import helper_environment

QUIT_WITHIN_S = 3.0
"""Time a helper gets after `quit` to close its player and exit before it is killed."""
QUIT_POLL_S = 0.02
"""How often to look whether a quitting helper has exited."""
REAP_WITHIN_S = 1.0
"""Time a helper whose output closed gets to finish exiting before it is killed."""
REAP_POLL_S = 0.01
"""How often to look whether a helper whose output closed has exited."""
REAP_LIMIT_S = 5.0
"""Longest wait for a killed process to be reaped; a process stuck in the kernel is left."""

PR_SET_PDEATHSIG = 1
"""prctl option (linux/prctl.h): the signal a child gets when its parent thread ends."""

_CLOSED = object()
"""Queued by the reader thread when the helper's stdout has closed: the helper is gone."""
_TIMED_OUT = object()
"""Returned by `_next_event` when the deadline passed with no event."""


class HelperError(Exception):
    """A helper failed to start, to answer or to stay alive. `chain` is outermost first."""

    def __init__(self, *chain: str, timed_out: bool = False) -> None:
        super().__init__(": ".join(chain))
        self.chain: tuple[str, ...] = chain
        self.timed_out = timed_out


@dataclass(frozen=True)
class SayResult:
    """How a line went: `first_audio_ms` from `speaking` (None if none came), the seconds of
    audio played, and whether a `stop` cut it off."""

    first_audio_ms: int | None
    audio_s: float
    cut_off: bool


_live: weakref.WeakSet[HelperProcess] = weakref.WeakSet()
"""Every helper not yet ended, for `kill_all_helpers`."""


def kill_all_helpers() -> None:
    """Kill every helper this process started and has not ended yet (for the server's exit
    paths: signal handlers, end of input). Safe to call more than once."""
    for helper in list(_live):
        helper.kill()


class HelperProcess:
    """One `assist-voice` process speaking one engine. Thread-safe: `stop_line` and `kill` may
    be called from any thread while another waits in `wait_ready` or `wait_say`."""

    def __init__(self, command: Sequence[str], engine: str) -> None:
        self.engine = engine
        self._events: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._output_closed = threading.Event()
        self._write_lock = threading.Lock()
        self._next_id = 1
        self._line: int | None = None
        self._ready = False
        try:
            self._process = _spawn(list(command))
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            raise HelperError(
                f"the {engine} voice helper could not be started as {command[0]}", str(error)
            ) from None
        self._finalizer = weakref.finalize(self, kill_process, self._process)
        _live.add(self)
        assert self._process.stdout is not None
        threading.Thread(
            target=_read_events,
            args=(self._process.stdout, self._events, self._output_closed),
            name=f"assist-voice {engine} reader",
            daemon=True,
        ).start()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def running(self) -> bool:
        """True while the helper can still be talked to: not killed, not exited, output open."""
        return (
            self._finalizer.alive
            and not self._output_closed.is_set()
            and not has_exited(self._process)
        )

    def wait_ready(self, within: float = READY_WITHIN_S) -> Ready:
        """Wait up to `within` seconds for the first event, which must be `ready`."""
        event = self._next_event(time.monotonic() + within)
        if event is _TIMED_OUT:
            self.kill()
            raise HelperError(
                f"the {self.engine} voice helper was not ready within {within:g} s "
                "(the start-up limit), so it was stopped",
                timed_out=True,
            )
        if event is _CLOSED:
            status = self._reap_after_close()
            raise HelperError(
                f"the {self.engine} voice helper quit during start-up ({status}); "
                "its error output, above this, has the reason"
            )
        if not isinstance(event, Ready):
            self.kill()
            raise HelperError(
                f"the {self.engine} voice helper sent {_describe(event)} before 'ready', "
                "so it was stopped"
            )
        self._ready = True
        return event

    def send_say(self, text: str, emotion: str) -> int:
        """Send one line to speak; returns its request id for `wait_say`. A failed write kills
        the helper, which can no longer be told anything."""
        with self._write_lock:
            request_id = self._next_id
            self._next_id += 1
            try:
                self._write(Say(request_id, text, emotion))
            except (OSError, ValueError) as error:
                failure = error
            else:
                self._line = request_id
                return request_id
        self.kill()
        raise HelperError(
            f"the {self.engine} voice helper can no longer be reached", _os_error(failure)
        )

    def wait_say(self, request_id: int, within: float = SAY_WITHIN_S) -> SayResult:
        """Wait up to `within` seconds for the last event of say `request_id`; events for
        other ids are stale and skipped."""
        deadline = time.monotonic() + within
        first_audio_ms: int | None = None
        try:
            while True:
                event = self._next_event(deadline)
                if event is _TIMED_OUT:
                    self.kill()
                    raise HelperError(
                        f"the {self.engine} voice helper did not finish the line within "
                        f"{within:g} s (the hang limit), so it was stopped",
                        timed_out=True,
                    )
                if event is _CLOSED:
                    status = self._reap_after_close()
                    raise HelperError(
                        f"the {self.engine} voice helper died while speaking ({status})"
                    )
                if not _is_id(getattr(event, "id", None), request_id):
                    continue
                if isinstance(event, Speaking):
                    first_audio_ms = event.first_audio_ms
                elif isinstance(event, Done):
                    return SayResult(first_audio_ms, event.audio_s, cut_off=False)
                elif isinstance(event, Stopped):
                    return SayResult(first_audio_ms, event.audio_s, cut_off=True)
                elif isinstance(event, Error):
                    raise HelperError(
                        f"the {self.engine} voice could not say the line",
                        event.message or "the helper gave no reason",
                    )
        finally:
            with self._write_lock:
                self._line = None

    def say(self, text: str, emotion: str, within: float = SAY_WITHIN_S) -> SayResult:
        """`send_say` then `wait_say`."""
        return self.wait_say(self.send_say(text, emotion), within)

    def stop_line(self) -> bool:
        """Ask the helper to cut off the line being spoken; False when none is."""
        return self._ask(Stop)

    def pause_line(self) -> bool:
        """Ask the helper to hold the line being spoken where it is (16.3); False when none is."""
        return self._ask(Pause)

    def resume_line(self) -> bool:
        """Ask the helper to go on with a paused line from where it paused; False when none is."""
        return self._ask(Resume)

    def _ask(self, message: type[Stop | Pause | Resume]) -> bool:
        """Send `message` for the line being spoken at once; False when none is."""
        with self._write_lock:
            if self._line is None:
                return False
            try:
                self._write(message(self._line))
            except (OSError, ValueError):
                return False  # the waiting say finds out that the helper is gone
            return True

    def stop(self, within: float = QUIT_WITHIN_S) -> None:
        """Ask the helper to quit, give it `within` seconds, then kill what is left of its
        group. A helper that never became ready is killed at once: it is not reading yet."""
        if self._ready and self.running:
            with self._write_lock:
                try:
                    self._write(Quit())
                    assert self._process.stdin is not None
                    self._process.stdin.close()
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + within
            while not has_exited(self._process) and time.monotonic() < deadline:
                time.sleep(QUIT_POLL_S)
        self.kill()

    def kill(self) -> None:
        """SIGKILL the helper's whole process group, then reap it. Safe to call twice."""
        self._finalizer()
        _live.discard(self)

    @property
    def exit_status(self) -> str:
        """The helper's exit, in words (after `kill`)."""
        return describe_exit(self._process.returncode)

    def _write(self, message: Say | Stop | Pause | Resume | Quit) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write(encode(message).encode("ascii") + b"\n")
        stdin.flush()

    def _next_event(self, deadline: float) -> object:
        if self._output_closed.is_set() and self._events.empty():
            return _CLOSED
        try:
            return self._events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return _TIMED_OUT

    def _reap_after_close(self) -> str:
        deadline = time.monotonic() + REAP_WITHIN_S
        while not has_exited(self._process) and time.monotonic() < deadline:
            time.sleep(REAP_POLL_S)
        exited = has_exited(self._process)
        self.kill()
        if not exited:
            return "it closed its output but did not exit, so it was killed"
        return self.exit_status


def describe_exit(code: int | None) -> str:
    """A process's return code in words: an exit status or the signal that ended it."""
    if code is None:
        return "its exit status is unknown"
    if code < 0:
        try:
            return f"ended by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"ended by signal {-code}"
    return f"exit status {code}"


def _describe(event: object) -> str:
    name = type(event).__name__.lower()
    if isinstance(event, Error):
        return f"an '{name}' event ({event.message or 'no message'})"
    return f"a '{name}' event"


def _is_id(value: object, request_id: int) -> bool:
    """The helper echoes ids as given; only the same integer is ours (not True, not 1.0)."""
    return type(value) is int and value == request_id


def _os_error(error: BaseException) -> str:
    if isinstance(error, ValueError):  # a write to a pipe already closed on our side
        return "its input is closed"
    return str(error) or type(error).__name__


def _read_events(
    stdout: IO[bytes], events: queue.SimpleQueue[object], closed: threading.Event
) -> None:
    """Reader thread: queue each protocol event on the helper's stdout; skip other lines."""
    try:
        for raw in stdout:
            event = decode_event(raw.decode("utf-8", errors="replace"))
            if event is not None:
                events.put(event)
    except (OSError, ValueError):
        pass
    finally:
        closed.set()
        events.put(_CLOSED)
        stdout.close()


def has_exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, without reaping it (so its pid stays reserved)."""
    if process.returncode is not None:
        return True
    if not hasattr(os, "waitid"):  # Windows: poll, which reaps; no process groups to protect
        return process.poll() is not None
    try:
        return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_process(process: subprocess.Popen[bytes]) -> None:
    """Kill the helper's process group and the helper, then reap it and close our pipe."""
    if process.returncode is None:
        if sys.platform == "win32":
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(process.pid)],
                capture_output=True,
                check=False,
            )
        else:
            # An empty group raises ProcessLookupError; macOS says EPERM for a group of zombies.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=REAP_LIMIT_S)
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()


def _spawn(command: list[str]) -> subprocess.Popen[bytes]:
    log.debug(f"starting the voice helper: {shlex.join(command)}")
    options = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
    return spawn_in_own_group(command, options | {"env": helper_environment(dict(os.environ))})


def spawn_in_own_group(command: list[str], options: dict[str, Any]) -> subprocess.Popen[bytes]:
    """Start `command` (with Popen `options`) in its own process group, dying with the server
    on Linux; the conversation's listener is started the same way as a helper."""
    if sys.platform == "win32":
        options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        return subprocess.Popen(command, **options)
    options["start_new_session"] = True
    if sys.platform.startswith("linux"):
        return _spawner.spawn(command, options)
    return subprocess.Popen(command, **options)


class _Spawner:
    """Forks helpers on Linux from one daemon thread that lives as long as the server, with
    the parent-death signal set, so a helper dies with the server even on SIGKILL."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[
            tuple[list[str], dict[str, Any], concurrent.futures.Future[subprocess.Popen[bytes]]]
        ] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._prctl: Callable[..., int] | None = None

    def spawn(self, command: list[str], options: dict[str, Any]) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._thread is None:
                self._prctl = _find_prctl()
                self._thread = threading.Thread(
                    target=self._serve, name="assist-voice spawner", daemon=True
                )
                self._thread.start()
        future: concurrent.futures.Future[subprocess.Popen[bytes]] = concurrent.futures.Future()
        self._requests.put((command, options, future))
        return future.result()

    def _serve(self) -> None:
        while True:
            command, options, future = self._requests.get()
            if self._prctl is not None:
                options = {
                    **options,
                    "preexec_fn": functools.partial(_die_with_parent, self._prctl, os.getpid()),
                }
            try:
                future.set_result(subprocess.Popen(command, **options))
            except BaseException as error:
                future.set_exception(error)


def _find_prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up before any fork (the child must not load libraries)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _die_with_parent(prctl: Callable[..., int], parent: int) -> None:
    """In the child before exec: die when the server does; give up if it already has."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


_spawner = _Spawner()
