"""A room simulated in software: a scripted meeting spoken aloud, for `assist listen --from -`.

The meeting's lines are voiced by Piper (joe), each speaker made distinct by its own pace and
pitch (the line is resampled, which moves both), and laid out on the meeting's clock: a line
starts at its `start_ms`, or later if the line before it is still being said, always with
enough silence between them for each to be a turn of its own; the room runs for at least the
meeting's `duration_ms`. The assistant's replies come
back through the air: each `reply-*.wav` that appears in the voice's save folder (`assist mcp
--save-audio DIR`) is mixed into the room from the moment it is seen, after a
speaker-to-microphone delay and quieter, as loudspeakers feed a microphone. A little noise is
always there, as in any room.

The room is written to stdout as 16 kHz mono s16le at real time, so

    python -m assist.mcp.demo.rooms.room sample --replies DIR | assist listen --from -

is a meeting heard through the air; each line's `start`, `end` and text go to `--events` (a
JSON line per spoken line and per reply heard) for whoever checks the transcript against it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import attrs
import numpy as np
from assist.mcp.demo.rooms.voiced import RATE_HZ, Voice, pcm16

BLOCK_S = 0.02
"""The room is written 20 ms at a time, as a sound card's blocks come."""
TURN_GAP_S = 1.0
"""At least this much silence between two lines, so each is a turn (the end of turn is 0.6 s)."""
LEAD_S = 0.5
"""Silence before the meeting's first line."""
TAIL_S = 2.0
"""Silence after the last line, so its turn ends and is recognised before the input does."""
SPEAKER_TO_MIC_S = 0.05
"""Sound takes about 50 ms to come back from a laptop's speakers through a room's walls."""
SPEAKER_TO_MIC_DB = -6.0
"""The assistant's voice comes back quieter than the people in the room."""
NOISE_DB = -55.0
"""The room's own noise (white, RMS re full scale): a quiet office."""
VOICES: tuple[float, ...] = (1.0, 0.93, 1.08, 0.97, 1.04)
"""Each speaker's pitch (and pace) factor, in order of first appearance."""


@attrs.frozen
class Said:
    """One line said in the room: who, what, and when (seconds on the room's clock)."""

    speaker: str | None
    text: str
    start_s: float
    end_s: float


class SoftwareRoom:
    """The meeting's voices, then (as time passes) the assistant's, in 20 ms blocks."""

    def __init__(
        self,
        lines: list[tuple[str | None, str, float]],
        *,
        replies: Path | None = None,
        duration_s: float = 0.0,
        voice: Voice | None = None,
        seed: int = 11,
    ) -> None:
        speaker = voice or Voice()
        self.said: list[Said] = []
        pitch: dict[str | None, float] = {}
        parts: list[tuple[int, np.ndarray]] = []
        free = LEAD_S
        for who, text, start_s in lines:
            factor = pitch.setdefault(who, VOICES[len(pitch) % len(VOICES)])
            audio = pitched(speaker.say(text), factor)
            begin = max(start_s, free)
            parts.append((round(begin * RATE_HZ), audio))
            end = begin + len(audio) / RATE_HZ
            self.said.append(Said(who, text, begin, end))
            free = end + TURN_GAP_S
        if voice is None:
            speaker.close()
        length_s = max(free - TURN_GAP_S + TAIL_S, duration_s)
        self.samples = np.zeros(round(length_s * RATE_HZ), dtype=np.float32)
        for at, audio in parts:
            self.samples[at : at + len(audio)] += audio
        self.replies = replies
        self._heard: set[str] = set()
        self._echoes: list[tuple[int, np.ndarray]] = []
        self._noise = np.random.default_rng(seed)

    def blocks(
        self, report: Callable[[dict[str, Any]], None] = lambda event: None
    ) -> Iterator[bytes]:
        """The room at real time, block by block, until the meeting and every echo are over."""
        step = round(BLOCK_S * RATE_HZ)
        start = time.monotonic()
        at = 0
        while at < len(self.samples) or any(begin + len(a) > at for begin, a in self._echoes):
            time.sleep(max(0.0, start + at / RATE_HZ - time.monotonic()))
            self._listen_for_replies(at, report)
            block = np.zeros(step, dtype=np.float32)
            meeting = self.samples[at : at + step]
            block[: len(meeting)] += meeting
            for begin, audio in self._echoes:
                piece = audio[max(0, at - begin) : max(0, at + step - begin)]
                offset = max(0, begin - at)
                block[offset : offset + len(piece)] += piece[: step - offset]
            block += self._noise.standard_normal(step).astype(np.float32) * 10 ** (NOISE_DB / 20)
            yield pcm16(block)
            at += step

    def _listen_for_replies(self, at: int, report: Callable[[dict[str, Any]], None]) -> None:
        if self.replies is None:
            return
        try:
            found = sorted(path for path in self.replies.glob("reply-*.wav"))
        except OSError:
            return
        for path in found:
            if path.name in self._heard:
                continue
            self._heard.add(path.name)
            from assist.mcp.replay.audio import read_wav

            audio, rate = read_wav(path)
            import soxr

            echo = soxr.resample(audio, rate, RATE_HZ).astype(np.float32)
            echo *= 10 ** (SPEAKER_TO_MIC_DB / 20)
            begin = at + round(SPEAKER_TO_MIC_S * RATE_HZ)
            self._echoes.append((begin, echo))
            report(
                {
                    "event": "echo",
                    "reply": path.name,
                    "start_s": begin / RATE_HZ,
                    "end_s": (begin + len(echo)) / RATE_HZ,
                }
            )


def pitched(audio: np.ndarray, factor: float) -> np.ndarray:
    """The line played `factor` times faster: higher and quicker above 1, lower and slower below."""
    if factor == 1.0:
        return audio
    import soxr

    pitched: np.ndarray = soxr.resample(audio, RATE_HZ, round(RATE_HZ / factor))
    return pitched.astype(np.float32)


def load_room(spec: str, replies: Path | None) -> SoftwareRoom:
    """The room for a shipped or scripted meeting (assist replay's files): its lines at their
    `start_ms`, for at least its `duration_ms`."""
    from assist.mcp.replay.meeting_files import load_meeting

    meeting = load_meeting(spec)
    lines = [(s.line.speaker, s.line.text, s.line.start_ms / 1000) for s in meeting.lines]
    return SoftwareRoom(lines, replies=replies, duration_s=meeting.duration_ms / 1000)


def main(argv: list[str] | None = None, out: BinaryIO | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assist.mcp.demo.rooms.room",
        description="Speak a scripted meeting into a software room, as 16 kHz mono s16le on "
        "stdout at real time, with the assistant's replies coming back through the air.",
    )
    parser.add_argument("meeting", help="a meeting file, or a shipped meeting such as sample")
    parser.add_argument("--replies", type=Path, help="the voice's save folder (reply-*.wav)")
    parser.add_argument("--events", type=Path, help="write what was said as JSON lines here")
    args = parser.parse_args(argv)
    sink = out or sys.stdout.buffer
    room = load_room(args.meeting, args.replies)
    events = open(args.events, "w", encoding="utf-8") if args.events else None  # noqa: SIM115

    def report(event: dict[str, Any]) -> None:
        if events is not None:
            events.write(json.dumps(event) + "\n")
            events.flush()

    for said in room.said:
        report({"event": "line", **attrs.asdict(said)})
    try:
        for block in room.blocks(report):
            sink.write(block)
            sink.flush()
    except BrokenPipeError:
        return 1
    finally:
        if events is not None:
            events.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
