"""A scripted meeting through the air: spoken into a room, heard by `assist listen`.

What `assist demo` runs by default (`python -m assist.mcp.demo.rooms.air MEETING --into ROOT --audio
DIR --room software|pulse --events`), in place of the transcript-only `assist replay`:

- each line of the meeting is said by Piper's joe voice with the speaker's own pitch and pace
  (`assist.mcp.demo.rooms.room.VOICES`, given to speakers in order of appearance), so people sound
  apart;
- `assist listen` hears the room (`live`: mixed in software and fed on stdin, or the
  PulseAudio room on the default input) and writes the session: the transcript the agent
  watches is recognised speech, found by the real VAD and recognised by the real whisper;
- every line the assistant says (the WAV its voice saves in `--audio DIR`) is played into the
  same room, 50 ms later and 6 dB quieter (`assist.mcp.demo.rooms.room`'s speaker to microphone), so
  its echo comes back through the microphone and the server must leave it out (behaviour 6).

The room behaves like polite people: the meeting starts once the assistant has joined and its
notice has been heard, nobody talks while the assistant has the floor (from its `speaking`
event until its voice has played), and lines never overlap. Each line keeps the script's
silence before it, but never less than `LEAST_GAP_S`, well over the 600 ms end of turn, so
each is a turn of its own. `--speed X` divides those silences and nothing else, and not the
silence after a line the assistant is expected to answer (the time the room leaves it): speech
cannot be sped up and still be heard, and the end of turn, the recogniser and the voice keep
their real time, so a meeting through the air takes its speech's length whatever the speed.

The assistant's voice enters the room when its WAV appears, which the helper writes whole once
the line is made; on a loudspeaker it starts at its first audio, so the echo comes a little
later than in a real room (never sooner), inside the 120 s the echo rule looks back.

`--events` prints JSON lines on stdout as `assist replay --events` does (`session`, `started`,
`line`, `echo`, `ended`), the times wall-clock: a `line` when its speech has ended in the room;
`echo` for a recognised line that was the assistant's voice; and two more: `played` (the
assistant's voice entering the room) and `heard` (every line the listener wrote, with what it
was: a meeting line, the notice, a remark, or nothing the room played).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from assist.app.stop_signals import stop_on_signals
from assist.core.files import LOG_FILE, RAW_FILE, REPLY_WAV
from assist.core.lines import LineError, parse_raw_line
from assist.core.meeting_log import read_events
from assist.mcp.demo.rooms.live import MixedRoom, Playing, PulseRoom, pulse_problem
from assist.mcp.demo.rooms.room import (
    SPEAKER_TO_MIC_DB,
    SPEAKER_TO_MIC_S,
    TURN_GAP_S,
    VOICES,
    pitched,
)
from assist.mcp.demo.rooms.voiced import RATE_HZ, Voice
from assist.mcp.replay.meeting_files import BUILT_IN, Meeting, MeetingError, load_meeting

ROOMS = ("software", "pulse")
ECHO_DELAY_S = SPEAKER_TO_MIC_S
ECHO_GAIN = 10 ** (SPEAKER_TO_MIC_DB / 20)
"""The assistant's voice reaches the microphone later and quieter (`assist.mcp.demo.rooms.room`)."""
LEAST_GAP_S = TURN_GAP_S
"""Silence before a line, at least: over the 600 ms end of turn with room to spare."""
AFTER_NOTICE_S = 1.5
"""The meeting starts this long after the notice has been heard."""
TICK_S = 0.02
"""The room's loop: how often it writes audio and looks at the files."""
JOIN_WAIT_S = 120.0
"""The meeting starts anyway if no assistant joined within this long."""
FLOOR_WAIT_S = 30.0
"""The room gives the floor back if a remark's voice never reaches it within this long."""
HEARD_WAIT_S = 6.0
"""After the last sound, the recording runs until everything played was heard, or this long."""
TAIL_MOST_S = 25.0
"""...and never more than this past the meeting's planned end."""


@attrs.define
class Sound:
    """Something played into the room: a meeting line or the assistant's voice."""

    kind: str  # "line", "notice" or "remark"
    text: str
    playing: Playing
    index: int | None = None
    ended_at: float | None = None
    heard: bool = False


@attrs.define
class Said:
    """A line the assistant's voice was asked to say, from the meeting's log."""

    kind: str
    text: str
    wav: Path | None = None
    sound: Sound | None = None


class AirMeeting:
    """One meeting spoken into `room_kind` and heard by a listener writing under `root`."""

    def __init__(
        self,
        meeting: Meeting,
        root: Path,
        audio_dir: Path,
        *,
        room_kind: str = "software",
        speed: float = 1.0,
        stt: str | None = None,
        report: Any = lambda event: None,
        stop: threading.Event | None = None,
    ) -> None:
        self.meeting = meeting
        self.root = root
        self.audio_dir = audio_dir
        self.room_kind = room_kind
        self.speed = speed
        self.stt = stt
        self.report = report
        self.stop = stop or threading.Event()
        self.sounds: list[Sound] = []
        self.said: list[Said] = []
        self.warnings: list[str] = []
        self._voices: list[np.ndarray] = []
        self._voiced = threading.Event()
        self._raw_offset = 0
        self._log_offset = 0
        self._seen_wavs: set[str] = set()
        self.folder = root
        self._listener: subprocess.Popen[bytes] | None = None
        self.failed = False
        self._floor_since: float | None = None

    # The run ------------------------------------------------------------------------------

    def run(self) -> int:
        self._seen_wavs = set(self._wav_names())
        listener, room = self._open()
        self._listener = listener
        assert listener.stdout is not None
        first = listener.stdout.readline().decode()
        if not first.startswith("session ") or " in " not in first:
            room.close()
            code = listener.wait()
            print(f"assist listen could not start (status {code})", file=sys.stderr)
            return 1
        self.folder = Path(first.split(" in ", 1)[1].strip())
        # The lines are voiced while the assistant joins; the thread is always joined before
        # the process exits (onnxruntime aborts the interpreter if it is still loading then).
        voicing = threading.Thread(target=self._voice_lines, name="voicing")
        voicing.start()
        room.open()
        self.report(
            {"event": "session", "id": self.folder.name, "dir": str(self.folder), "at": time.time()}
        )
        try:
            self._until(room, lambda: self._joined_and_noticed(room))
            self._until(room, lambda: self._voiced.is_set())
            if len(self._voices) < len(self.meeting.lines):
                self.warnings.append("the meeting's lines could not be voiced")
                self.failed = True
                raise _Stopped
            self._until(room, lambda: self._room_quiet(room, AFTER_NOTICE_S))
            self.report({"event": "started", "at": time.time(), "speed": self.speed})
            self._play_meeting(room)
            planned_end = self._planned_end(room)
            self._until(room, lambda: room.now() >= planned_end)
            tail_end = room.now() + TAIL_MOST_S
            self._until(room, lambda: self._all_heard(room) or room.now() >= tail_end)
        except _Stopped:
            pass
        finally:
            self._end(listener, room)
            voicing.join()
        self.report(
            {
                "event": "ended",
                "at": time.time(),
                "lines": sum(1 for sound in self.sounds if sound.kind == "line"),
                "echoes": sum(1 for sound in self.sounds if sound.kind != "line" and sound.heard),
                "stopped_early": self.stop.is_set(),
                "warnings": self.warnings,
            }
        )
        return 1 if self.failed else 0

    def _open(self) -> tuple[subprocess.Popen[bytes], MixedRoom | PulseRoom]:
        command = [sys.executable, "-m", "assist.listen.command", "--into", str(self.root)]
        command += ["--name", self.meeting.name, "--quiet"]
        command += ["--stt", self.stt] if self.stt else []
        if self.room_kind == "software":
            listener = subprocess.Popen(
                [*command, "--from", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            assert listener.stdin is not None
            return listener, MixedRoom(listener.stdin)
        listener = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        return listener, PulseRoom(dict(os.environ))

    def _until(self, room: MixedRoom | PulseRoom, done: Any) -> None:
        while not self.stop.is_set():
            if self._listener is not None and self._listener.poll() is not None:
                print(
                    f"air: assist listen exited (status {self._listener.returncode}) before "
                    "the meeting ended; its messages are above",
                    file=sys.stderr,
                )
                self.warnings.append("assist listen exited before the meeting ended")
                self.failed = True
                raise _Stopped
            self._tick(room)
            if done():
                return
            self.stop.wait(TICK_S)
        raise _Stopped

    def _tick(self, room: MixedRoom | PulseRoom) -> None:
        room.pump()
        self._follow_log()
        self._play_new_wavs(room)
        now = room.now()
        for sound in self.sounds:
            if sound.ended_at is None and now >= sound.playing.end_s:
                sound.ended_at = time.time() - (now - sound.playing.end_s)
                if sound.kind == "line":
                    self._line_spoken(sound)
        self._read_heard(room)

    # The meeting ----------------------------------------------------------------------

    def _voice_lines(self) -> None:
        try:
            voice = Voice()
        except Exception as error:  # Piper missing or broken: said on stderr, the run ends
            print(f"air: Piper could not voice the meeting: {error}", file=sys.stderr)
            self._voiced.set()
            return
        try:
            factors: dict[str | None, float] = {}
            for script_line in self.meeting.lines:
                if self.stop.is_set():
                    return
                who = script_line.line.speaker
                factor = factors.setdefault(who, VOICES[len(factors) % len(VOICES)])
                self._voices.append(pitched(voice.say(script_line.line.text), factor))
        finally:
            voice.close()
            self._voiced.set()

    def _play_meeting(self, room: MixedRoom | PulseRoom) -> None:
        previous_end = room.now()
        lines = self.meeting.lines
        for index, script_line in enumerate(lines):
            gap = self._gap_before(index)
            due = previous_end + gap
            self._until(room, functools.partial(self._line_may_start, room, due))
            playing = room.play(self._voices[index])
            self.sounds.append(Sound("line", script_line.line.text, playing, index=index))
            previous_end = playing.end_s

    def _line_may_start(self, room: MixedRoom | PulseRoom, due: float) -> bool:
        return room.now() >= due and self._room_quiet(room, LEAST_GAP_S)

    def _gap_before(self, index: int) -> float:
        """The script's silence before line `index`, divided by the speed, except after a
        line the assistant is expected to answer (`expect: answer`): that silence is the time
        the room gives it to answer, and people who cut it short would talk over the answer."""
        lines = self.meeting.lines
        line = lines[index].line
        if not index:
            return LEAST_GAP_S
        previous = lines[index - 1]
        silence = (line.start_ms - previous.line.end_ms) / 1000
        answered = previous.label is not None and previous.label.expect == "answer"
        return max(LEAST_GAP_S, silence if answered else silence / self.speed)

    def _line_spoken(self, sound: Sound) -> None:
        assert sound.index is not None
        from assist.core.lines import line_view

        script_line = self.meeting.lines[sound.index]
        self.report(
            {
                "event": "line",
                "index": sound.index,
                "at": sound.ended_at,
                "cue": script_line.cue,
                "line": line_view(script_line.line),
                "spoken_s": round(sound.playing.end_s - sound.playing.start_s, 3),
            }
        )

    def _planned_end(self, room: MixedRoom | PulseRoom) -> float:
        last = self.meeting.lines[-1].line.end_ms
        tail = (self.meeting.duration_ms - last) / 1000 / self.speed
        ends = [sound.playing.end_s for sound in self.sounds] or [room.now()]
        return max(ends) + max(LEAST_GAP_S, tail)

    def _room_quiet(self, room: MixedRoom | PulseRoom, for_s: float) -> bool:
        """Nobody speaking, the assistant not holding the floor, for at least `for_s`."""
        now = room.now()
        if self._floor_since is not None:
            if time.monotonic() - self._floor_since < FLOOR_WAIT_S:
                return False
            self._floor_since = None
        return all(now >= sound.playing.end_s + for_s for sound in self.sounds)

    def _joined_and_noticed(self, room: MixedRoom | PulseRoom) -> bool:
        notice = next((sound for sound in self.sounds if sound.kind == "notice"), None)
        if notice is not None:
            return room.now() >= notice.playing.end_s
        if room.now() >= JOIN_WAIT_S:
            self.warnings.append(f"no assistant joined within {JOIN_WAIT_S:.0f} s")
            return True
        return False

    def _all_heard(self, room: MixedRoom | PulseRoom) -> bool:
        now = room.now()
        if self._floor_since is not None:
            return False
        return all(
            sound.heard or now >= sound.playing.end_s + HEARD_WAIT_S for sound in self.sounds
        )

    def _end(self, listener: subprocess.Popen[bytes], room: MixedRoom | PulseRoom) -> None:
        room.close()
        if self.room_kind == "pulse" and listener.poll() is None:
            listener.send_signal(signal.SIGINT)
        try:
            listener.wait(timeout=120)
        except subprocess.TimeoutExpired:
            listener.kill()
            listener.wait()
            self.warnings.append("assist listen did not end within 120 s and was killed")
        self._read_heard(room)

    # The assistant's voice ----------------------------------------------------------------

    def _follow_log(self) -> None:
        for event in self._new_log_events():
            if event.name == "joined" and event.notice is not None:
                self.said.append(Said("notice", event.notice))
            elif event.failed_notice:
                self.said = [said for said in self.said if said.kind != "notice" or said.wav]
            elif event.name == "speaking" and event.text is not None:
                self.said.append(Said("remark", event.text))
                self._floor_since = time.monotonic()
            elif event.name == "error" and event.closes_utterance:
                self._floor_since = None  # the voice broke down: nothing will play

    def _new_log_events(self) -> list[Any]:
        """The events appended to the meeting's assistant.jsonl since the last look."""
        try:
            with open(self.folder / LOG_FILE, "rb") as file:
                file.seek(self._log_offset)
                data = file.read()
        except OSError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self._log_offset += len(complete)
        return list(read_events(complete.decode("utf-8", errors="replace")))

    def _wav_names(self) -> list[str]:
        try:
            names = [path.name for path in self.audio_dir.iterdir()]
        except OSError:
            return []
        return sorted(name for name in names if REPLY_WAV.fullmatch(name))

    def _play_new_wavs(self, room: MixedRoom | PulseRoom) -> None:
        for name in self._wav_names():
            if name in self._seen_wavs:
                continue
            said = next((said for said in self.said if said.wav is None), None)
            if said is None:
                return  # its log line is not read yet: next tick
            self._seen_wavs.add(name)
            said.wav = self.audio_dir / name
            try:
                samples = _read_wav(said.wav)
            except (OSError, EOFError, ValueError) as error:
                self.warnings.append(f"could not play {name}: {error}")
                continue
            playing = room.play(samples, delay_s=ECHO_DELAY_S, gain=ECHO_GAIN)
            said.sound = Sound(said.kind, said.text, playing)
            self.sounds.append(said.sound)
            self._floor_since = None if said.kind == "remark" else self._floor_since
            self.report(
                {
                    "event": "played",
                    "at": time.time() + (playing.start_s - room.now()),
                    "of": said.kind,
                    "said": said.text,
                    "audio_s": round(playing.end_s - playing.start_s, 3),
                }
            )

    # What the listener wrote --------------------------------------------------------------

    def _read_heard(self, room: MixedRoom | PulseRoom) -> None:
        try:
            with open(self.folder / RAW_FILE, "rb") as file:
                file.seek(self._raw_offset)
                data = file.read()
        except OSError:
            return
        complete = data[: data.rfind(b"\n") + 1]
        self._raw_offset += len(complete)
        for row in complete.decode("utf-8", errors="replace").splitlines():
            try:
                line = parse_raw_line(row)
            except LineError:
                continue
            self._heard(line, room)

    def _heard(self, line: Any, room: MixedRoom | PulseRoom) -> None:
        from assist.core.lines import line_view

        start, end = line.start_ms / 1000 - room.lag_s, line.end_ms / 1000 - room.lag_s
        sound = _most_overlapping(self.sounds, start, end)
        now = time.time()
        event: dict[str, Any] = {
            "event": "heard",
            "at": now,
            "line": line_view(line),
            "of": None if sound is None else sound.kind,
            "index": None if sound is None else sound.index,
            "said": None if sound is None else sound.text,
            "after_speech_s": None,
        }
        if sound is not None:
            sound.heard = True
            if sound.ended_at is not None:
                event["after_speech_s"] = round(now - sound.ended_at, 3)
        self.report(event)
        if sound is not None and sound.kind != "line":
            self.report(
                {
                    "event": "echo",
                    "at": now,
                    "of": sound.kind,
                    "mode": "air",
                    "said": sound.text,
                    "line": line_view(line),
                }
            )


class _Stopped(Exception):
    pass


def _most_overlapping(sounds: list[Sound], start: float, end: float) -> Sound | None:
    best, most = None, 0.0
    for sound in sounds:
        overlap = min(end, sound.playing.end_s) - max(start, sound.playing.start_s)
        if overlap > most:
            best, most = sound, overlap
    return best


def _read_wav(path: Path) -> np.ndarray:
    """A reply WAV as float32 mono at 16 kHz."""
    import soundfile
    import soxr

    audio, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    mono = audio.mean(axis=1)
    if rate != RATE_HZ:
        mono = soxr.resample(mono, rate, RATE_HZ)
    return np.asarray(mono, dtype=np.float32)


# The command ---------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="python -m assist.mcp.demo.rooms.air",
        description="Speak a scripted meeting into a room that assist listen hears, and "
        "play the assistant's saved lines into it too.",
    )
    result.add_argument("meeting", help=f"a meeting file, or a shipped one: {', '.join(BUILT_IN)}")
    result.add_argument("--into", required=True, type=Path, metavar="ROOT")
    result.add_argument(
        "--audio", required=True, type=Path, metavar="DIR", help="where the voice saves its lines"
    )
    result.add_argument("--room", choices=ROOMS, default="software")
    result.add_argument("--speed", type=float, default=1.0, help="divide the silences by this")
    result.add_argument("--stt", help="the listener's recogniser (default: its own choice)")
    result.add_argument("--events", action="store_true", help="JSON lines on stdout")
    return result


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    if not math.isfinite(args.speed) or args.speed <= 0:
        print(f"air: --speed {args.speed} is not a positive number; try 1", file=sys.stderr)
        return 2
    if args.room == "pulse":
        problem = pulse_problem(dict(os.environ))
        if problem is not None:
            print(
                f"air: the PulseAudio room cannot be used: {problem}; start it with "
                "eval \"$(.ci/audio-room)\" (a null sink 'room' whose monitor is the default "
                "source), or use --room software",
                file=sys.stderr,
            )
            return 2
    try:
        meeting = load_meeting(args.meeting)
    except MeetingError as error:
        print(f"air: {error}", file=sys.stderr)
        return 2
    stop = threading.Event()
    stop_on_signals(stop)

    def report(event: dict[str, Any]) -> None:
        if args.events:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    air = AirMeeting(
        meeting,
        args.into,
        args.audio,
        room_kind=args.room,
        speed=args.speed,
        stt=args.stt,
        report=report,
        stop=stop,
    )
    return air.run()


if __name__ == "__main__":
    sys.exit(main())
