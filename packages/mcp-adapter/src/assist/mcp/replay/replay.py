"""`assist replay`: play a scripted meeting into a new session folder, as a recorder would.

The session is written exactly as behaviour 1.2-1.6 describes a recording: a new folder
claimed with one atomic mkdir, `raw.jsonl` lines appended at their times (scaled by
`--speed`), and `audio/room.native.wav` growing every 200 ms while the meeting runs, so the
session is live; at the end `session.json` is written and the WAV removed, so it ends.

`--echo` adds the echo feeder (`echo_feeder`): each line the assistant speaks comes back into
the room track 3 s (scaled) after it ended, as loudspeakers feed the microphone. The echo's
`start_ms`/`end_ms` are on the room track's clock; it has no speaker, as a recogniser would
not know one. `--after-join` (ours, for the demo) holds the meeting's first line until an
assistant has joined the session and said its notice (its WAV is in `--audio DIR`), so a
meeting replayed at speed does not run ahead of a voice that is still loading; the tracks'
clocks start when the meeting does.

`Replay` reports what happens (`session`, `started`, `line`, `echo`, `ended`) to a callback;
the command line (`replay.command`) prints them, as JSON lines with `--events`.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from assist.app.store.native_wav import RATE_HZ, GrowingWav
from assist.app.store.new_session import create_session
from assist.core.files import AUDIO_FOLDER, LOG_FILE, RAW_FILE, REPLY_GLOB, ROOM_WAV, SESSION_FILE
from assist.core.lines import RawLine, encode_raw_line, line_view
from assist.core.meeting_log import read_events
from assist.mcp.replay.echo_feeder import ECHO_DELAY_S, Echo, EchoFeeder
from assist.mcp.replay.meeting_files import Meeting

TICK_S = 0.2
"""The recorder's capture tick: the room WAV grows this often (behaviour 1.6)."""
FEEDER_POLL_S = 0.1
"""How often the echo feeder looks at the log; an echo is due seconds later, so 0.1 s is
plenty and costs a stat and a short read."""
JOIN_WAIT_S = 120.0
"""With --after-join, the meeting starts anyway after this long, with a note on stderr
(the longest a voice may take to load before the notice, behaviour 9.3, is far shorter)."""
ECHO_TAIL_S = 20.0
"""With --echo, the recording runs on past the meeting's end (at most this long) until every
line the assistant began has come back, as a recorder left running a little longer would
hear it; otherwise a remark near the end would never be fed back."""
ECHO_HEARD_S = 1.0
"""After an echo written past the end, the recording runs on this long so a reader polling
every 0.5 s reads it before the session ends."""
ECHO_CONFIDENCE = 0.8
"""Recognition confidence written on echo lines (any value will do; readers ignore it)."""
SESSION_MODEL = "assist replay"
"""The `model` of session.json: what produced the transcript."""

Report = Callable[[dict[str, Any]], None]


class Replay:
    """One replay of `meeting` into a new session under `root`."""

    def __init__(
        self,
        meeting: Meeting,
        root: Path,
        *,
        speed: float = 1.0,
        echo: str | None = None,
        audio_dir: Path | None = None,
        after_join: bool = False,
        report: Report = lambda event: None,
        stop: threading.Event | None = None,
    ) -> None:
        self.meeting = meeting
        self.root = root
        self.speed = speed
        self.echo = echo
        self.audio_dir = audio_dir
        self.after_join = after_join
        self.report = report
        self.stop = stop or threading.Event()
        self.lines_written = 0
        self.echoes_written = 0
        self._raw: int | None = None
        self._start_wall = 0.0
        self._last_echo = 0.0

    def run(self) -> Path:
        """Replay the whole meeting (or until `stop` is set); returns the session folder."""
        started = datetime.now().astimezone()
        folder = create_session(self.root, started, self.meeting.name)
        (folder / AUDIO_FOLDER).mkdir()
        wav = GrowingWav(folder / AUDIO_FOLDER / ROOM_WAV)
        self._raw = os.open(folder / RAW_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        feeder = self._feeder(folder)
        self.report({"event": "session", "id": folder.name, "dir": str(folder), "at": time.time()})
        try:
            ticker = _Ticker(wav)
            if self.after_join:
                self._wait_for_join(folder, ticker)
            self._play(ticker, feeder)
        finally:
            os.close(self._raw)
            if feeder is not None:
                for missed in feeder.given_up:
                    print(f"assist replay: no echo written for: {missed}", file=sys.stderr)
                feeder.close()
            ended = datetime.now().astimezone()
            _write_session_json(folder, self.meeting, started, ended)
            wav.remove()
            self.report(
                {
                    "event": "ended",
                    "at": time.time(),
                    "lines": self.lines_written,
                    "echoes": self.echoes_written,
                    "stopped_early": self.stop.is_set(),
                }
            )
        return folder

    def _feeder(self, folder: Path) -> EchoFeeder | None:
        if self.echo is None:
            return None
        transcribe = None
        if self.echo == "asr":
            from assist.mcp.replay.audio import transcribe_wav

            transcribe = transcribe_wav
        return EchoFeeder(
            folder,
            self.echo,
            delay_s=ECHO_DELAY_S / self.speed,
            audio_dir=self.audio_dir,
            transcribe=transcribe,
        )

    def _wait_for_join(self, folder: Path, ticker: _Ticker) -> None:
        """Until an assistant has joined and, when its save folder is known, its notice has
        been said (the notice's WAV is there): the room hears the notice before it talks."""
        log = folder / LOG_FILE
        before = _reply_wavs(self.audio_dir)
        deadline = time.monotonic() + JOIN_WAIT_S
        while not self.stop.is_set():
            if _has_joined(log) and (
                self.audio_dir is None or _reply_wavs(self.audio_dir) - before
            ):
                return
            if time.monotonic() >= deadline:
                print(
                    f"assist replay: no assistant joined {folder.name} within {JOIN_WAIT_S:.0f} s; "
                    "starting the meeting anyway",
                    file=sys.stderr,
                )
                return
            ticker.tick()
            self.stop.wait(FEEDER_POLL_S)

    def _play(self, ticker: _Ticker, feeder: EchoFeeder | None) -> None:
        start = time.monotonic()
        self._start_wall = time.time()
        self.report({"event": "started", "at": self._start_wall, "speed": self.speed})
        due = [start + ms / 1000 / self.speed for ms in self.meeting.publish_ms()]
        end = start + self.meeting.duration_ms / 1000 / self.speed
        pending = list(range(len(self.meeting.lines)))
        next_poll = start
        while not self.stop.is_set():
            now = time.monotonic()
            ticker.tick()
            while pending and due[pending[0]] <= now:
                script_line = self.meeting.lines[pending.pop(0)]
                self._append(script_line.line)
                self.report(
                    {
                        "event": "line",
                        "index": self.lines_written + self.echoes_written - 1,
                        "at": time.time(),
                        "cue": script_line.cue,
                        "line": line_view(script_line.line),
                    }
                )
            if feeder is not None and now >= next_poll:
                next_poll = now + FEEDER_POLL_S
                for echo in feeder.poll(time.time()):
                    self._append_echo(echo)
            if now >= end and not pending and not self._echoes_to_come(feeder, now, end):
                return
            wake = [ticker.next_at]
            wake += [next_poll] if feeder is not None else []
            wake += [end] if now < end else []
            wake += [due[pending[0]]] if pending else []
            self.stop.wait(max(0.0, min(wake) - time.monotonic()))

    def _echoes_to_come(self, feeder: EchoFeeder | None, now: float, end: float) -> bool:
        """Whether to keep recording past the end: a line has not come back yet, or came back
        so late that a reader polling the transcript may not have seen it."""
        if feeder is None or now >= end + ECHO_TAIL_S:
            return False
        return feeder.waiting() > 0 or now < self._last_echo + ECHO_HEARD_S

    def _append(self, line: RawLine, *, echo: bool = False) -> None:
        assert self._raw is not None
        os.write(self._raw, encode_raw_line(line).encode("utf-8"))
        if echo:
            self.echoes_written += 1
        else:
            self.lines_written += 1

    def _append_echo(self, echo: Echo) -> None:
        end_ms = self._track_ms(echo.ended)
        line = RawLine(
            track="room",
            start_ms=max(0, end_ms - round(echo.audio_s * 1000)),
            end_ms=end_ms,
            text=echo.text,
            confidence=ECHO_CONFIDENCE,
        )
        self._append(line, echo=True)
        self._last_echo = time.monotonic()
        self.report(
            {
                "event": "echo",
                "index": self.lines_written + self.echoes_written - 1,
                "at": time.time(),
                "of": echo.kind,
                "mode": echo.mode,
                "said": echo.said,
                "line": line_view(line),
            }
        )

    def _track_ms(self, wall: float) -> int:
        """A wall-clock time on the tracks' clock: meeting milliseconds since the start."""
        return max(0, round((wall - self._start_wall) * self.speed * 1000))


class _Ticker:
    """Grows the room WAV every TICK_S with the silence of the time that passed."""

    def __init__(self, wav: GrowingWav) -> None:
        self.wav = wav
        self.last = time.monotonic()
        self.next_at = self.last + TICK_S

    def tick(self) -> None:
        now = time.monotonic()
        if now >= self.next_at:
            self.wav.grow(now - self.last)
            self.last = now
            self.next_at = now + TICK_S


def _reply_wavs(folder: Path | None) -> set[str]:
    try:
        return {path.name for path in folder.glob(REPLY_GLOB)} if folder else set()
    except OSError:
        return set()


def _has_joined(log: Path) -> bool:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(event.name == "joined" for event in read_events(text))


def _write_session_json(folder: Path, meeting: Meeting, started: datetime, ended: datetime) -> None:
    """The metadata a recorder writes when capture ends (behaviour 1.3)."""
    meta = {
        "id": folder.name,
        "name": meeting.title,
        "started_at": started.isoformat(),
        "ended_at": ended.isoformat(),
        "duration_s": round((ended - started).total_seconds(), 3),
        "device_hz": RATE_HZ,
        "mic_hz": RATE_HZ,
        "channels": 1,
        "mic_channels": 1,
        "apps": [],
        "model": SESSION_MODEL,
        "warnings": [],
    }
    partial = folder / "session.json.part"
    partial.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, folder / SESSION_FILE)
