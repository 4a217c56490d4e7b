"""The conversation's own listener: an `assist listen` child, supervised as a voice helper is.

Behaviour 13: `start_conversation` starts the listener on the default microphone into a new
session named `conversation`, with the conversation's end of turn, and waits until it captures.
The process handling is the voice helper's (`helper_process`): its own process group, the
parent-death signal on Linux, SIGKILL to the whole group, a reap. Its stdout carries the
session line and then, with `--events`, the speech signals as NDJSON (`assist.listen.onsets`);
a reader thread hands each to `on_event` at once, so a barge-in waits on no poll. Its stderr is
read by a second thread that passes every line on to the server's stderr and keeps the last
ones, which are the listener's reason when it fails (no microphone, no recogniser).

It is given this server's echo reference socket (`echo_socket`), so it cancels the voice
helper's playing from what it hears before the barge-in gate, on a microphone or on a software
room's FIFO (whose standard input has a capture clock too). It is always
told the turn model (`listen.turn`, `auto` when unset, behaviour 16.1): left to itself, a
listener with no reference (one fed a file, as the demo's and the tests' rooms are) takes
`auto` as a meeting recorder's, the silence rule.

It is captured once its session line has come and the session's native WAV exists (the
recorder writes it from the first block captured). It ends cleanly on `stop`: a `STOP` file in
its session folder (12.2), then SIGINT, then the group is killed. It has crashed when its
output closes, and hung when its native WAV has not grown for `HANG_S`.

Test hooks (environment): `ASSIST_LISTEN_COMMAND` replaces the `assist listen` command line
(split like a shell would), so a fake listener can stand in; `ASSIST_LISTEN_FROM` names a file
or FIFO of 16 kHz mono s16le PCM that becomes the listener's standard input, with `--from -`,
instead of the microphone (a test feeds Piper speech through it; the software room of
`assist demo` feeds its mix).
"""

from __future__ import annotations

import collections
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from assist.app.audio import LISTEN_FROM_VARIABLE
from assist.app.logs import log
from assist.core import environment, json_text
from assist.core.turn_models import AUTO
from assist.mcp.speech.echo_socket import echo_socket
from assist.mcp.speech.helper_process import (
    describe_exit,
    has_exited,
    kill_process,
    spawn_in_own_group,
)

COMMAND_VARIABLE = environment.LISTEN_COMMAND.name
FROM_VARIABLE = LISTEN_FROM_VARIABLE
SESSION_NAME = "conversation"
CAPTURE_WITHIN_S = 10.0
"""13: the listener gets 10 s to capture, then the conversation is refused with its reason."""
STOP_WITHIN_S = 8.0
"""After the STOP file, time to recognise the last turn and write the session's files."""
INTERRUPT_WITHIN_S = 2.0
"""After SIGINT, the last chance to end cleanly before the group is killed."""
SHUTDOWN_WITHIN_S = 0.5
"""When the server exits (3.1 wants it gone fast), the listener gets this long after SIGINT to
close its session; a turn still being recognised then is lost, the lines written stay."""
HANG_S = 10.0
"""A listener whose native WAV has not grown for this long is hung (a session untouched for
10 s is no longer live either, 1.6)."""
REASON_LINES = 6
"""Last lines of the listener's stderr kept as its reason."""
REASON_WITHIN_S = 1.0
"""Once the listener has exited, its stderr is read to its end within this."""
LOOK_S = 0.05

EventSink = Callable[[dict[str, Any]], None]


class ListenerError(Exception):
    """The listener did not capture, or stopped; the message is its reason."""


def listener_command(environ: Mapping[str, str]) -> list[str]:
    """`assist listen` from the running interpreter's environment, or the test hook's."""
    command = environ.get(COMMAND_VARIABLE)
    if command:
        return shlex.split(command)
    folder = Path(sys.executable).parent
    for name in ("assist", "assist.exe"):
        if (folder / name).is_file():
            return [str(folder / name), "listen"]
    return [sys.executable, "-m", "assist.mcp.commands.cli", "listen"]


class ListenerProcess:
    """One running `assist listen --events` for one conversation."""

    def __init__(
        self,
        root: Path,
        end_silence_ms: int,
        on_event: EventSink,
        environ: Mapping[str, str] | None = None,
        turn: str | None = None,
    ) -> None:
        environ = os.environ if environ is None else environ
        source = environ.get(FROM_VARIABLE)
        arguments = ["--into", str(root), "--name", SESSION_NAME, "--quiet", "--events"]
        arguments += ["--end-silence-ms", str(end_silence_ms), "--turn", turn or AUTO]
        arguments += ["--echo-reference", str(echo_socket())]  # what the voice plays (14.2)
        stdin: Any = subprocess.DEVNULL
        if source:
            arguments += ["--from", "-"]
            try:
                stdin = open(source, "rb")  # noqa: SIM115 (the child keeps it; closed below)
            except OSError as error:
                raise ListenerError(f"cannot open {FROM_VARIABLE}={source}: {error}") from None
        self.command = [*listener_command(environ), *arguments]
        self._on_event = on_event
        self._reason: collections.deque[str] = collections.deque(maxlen=REASON_LINES)
        self._session = threading.Event()
        self._closed = threading.Event()
        self.session_id: str | None = None
        self.folder: Path | None = None
        self.stopping = False
        try:
            self._process = spawn_in_own_group(
                self.command, {"stdin": stdin, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
            )
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            raise ListenerError(f"the listener could not be started: {error}") from None
        finally:
            if stdin is not subprocess.DEVNULL:
                stdin.close()
        self._finalizer = weakref.finalize(self, kill_process, self._process)
        assert self._process.stdout is not None and self._process.stderr is not None
        threading.Thread(
            target=self._read_stdout, args=(self._process.stdout,), daemon=True
        ).start()
        self._errors = threading.Thread(
            target=self._read_stderr, args=(self._process.stderr,), daemon=True
        )
        self._errors.start()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._finalizer.alive and not self._closed.is_set() and not has_exited(self._process)

    def wait_capturing(self, within: float = CAPTURE_WITHIN_S) -> None:
        """Return once the listener captures; else kill it and raise with its reason."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self._session.is_set() and self.folder is not None and self._native().exists():
                return
            if not self.running:
                self._exited()
                raise ListenerError(self.reason(f"it exited ({self.exit_status})"))
            time.sleep(LOOK_S)
        self.kill()
        raise ListenerError(
            self.reason(f"it did not start capturing within {within:g} s, so it was stopped")
        )

    def hung(self, now_wall: float) -> bool:
        """Alive, but its native WAV has not grown for HANG_S (a stalled capture)."""
        if not self.running or self.folder is None:
            return False
        try:
            mtime = self._native().stat().st_mtime
        except OSError:
            return False  # the session is ending: the WAV goes last
        return now_wall - mtime >= HANG_S

    def failure(self) -> str:
        """Why a listener that stopped by itself did, in words."""
        if self.running:
            return "it stopped capturing and was killed"
        self._exited()
        return self.reason(f"it exited ({self.exit_status})")

    def stop(self) -> None:
        """End the session cleanly: the STOP file, then SIGINT, then kill the group."""
        self.stopping = True
        if self.running and self.folder is not None:
            try:
                (self.folder / "STOP").touch()
            except OSError as error:
                log.warning(f"could not leave a STOP file for the listener ({error})")
            if self._wait_exit(STOP_WITHIN_S):
                self.kill()
                return
        self.interrupt(INTERRUPT_WITHIN_S)

    def interrupt(self, within: float = SHUTDOWN_WITHIN_S) -> None:
        """End the session at once (the server is exiting): SIGINT, which the listener takes as
        its end (12.2), `within` seconds to write its files, then kill the group."""
        self.stopping = True
        if self.running:
            with contextlib.suppress(OSError):
                os.killpg(self._process.pid, signal.SIGINT)
            self._wait_exit(within)
        self.kill()

    def kill(self) -> None:
        """SIGKILL the listener's process group and reap it; safe to call twice."""
        self.stopping = True
        self._finalizer()

    @property
    def exit_status(self) -> str:
        return describe_exit(self._process.returncode)

    def reason(self, fallback: str) -> str:
        """The listener's last words on stderr, else `fallback`."""
        said = " ".join(line.removeprefix("assist listen: ") for line in self._reason)
        return f"{fallback}: {said}" if said else fallback

    def _native(self) -> Path:
        assert self.folder is not None
        return self.folder / "audio" / "room.native.wav"

    def _wait_exit(self, within: float) -> bool:
        deadline = time.monotonic() + within
        while not has_exited(self._process) and time.monotonic() < deadline:
            time.sleep(LOOK_S)
        return has_exited(self._process)

    def _exited(self) -> None:
        """Reap a listener that exited, so its status is known (it is then killed: no-op),
        and let its last words on stderr be read: on a busy machine the reader thread can be
        behind the exit, and the reason would go without them."""
        self._wait_exit(1.0)
        self.kill()
        self._errors.join(timeout=REASON_WITHIN_S)

    def _read_stdout(self, stdout: IO[bytes]) -> None:
        try:
            for raw in stdout:
                line = raw.decode("utf-8", errors="replace").strip()
                if not self._session.is_set():
                    words = line.split(" in ", 1)
                    if line.startswith("session ") and len(words) == 2:
                        self.session_id = words[0].removeprefix("session ").strip()
                        self.folder = Path(words[1].strip())
                        self._session.set()
                    continue
                try:
                    event = json_text.parse(line)
                except json_text.Unreadable:  # not an event; too deep a line is none either
                    continue
                if isinstance(event, dict):
                    try:
                        self._on_event(event)
                    except Exception as error:  # the conversation's bug must not end listening
                        log.warning(f"a listener event could not be handled: {error!r}")
        except (OSError, ValueError):
            pass
        finally:
            self._closed.set()
            stdout.close()

    def _read_stderr(self, stderr: IO[bytes]) -> None:
        try:
            for raw in stderr:
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    self._reason.append(line)
                    print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        finally:
            stderr.close()
