"""`assist replay`'s job done through the air: a scripted meeting said in the software room and
recorded by a real `assist listen --from -`, so the transcript is recognised speech and the
assistant's replies come back through the microphone.

It takes `assist replay`'s arguments that make sense here (`MEETING --into ROOT [--audio DIR]
[--after-join] [--events]`; always at speed 1, since speech cannot be sped up) and prints the
same events (`session`, `started`, `line`, `echo`, `ended`), so `assist demo` can run it in
replay's place. Each line the listener writes is matched to what was said by time on the room's
clock (the listener's clock is the room's: its stdin is the room): a line that overlaps a
meeting line's span is that line (`line`, with the script's cue); one that overlaps a reply's
span is the assistant heard through the air (`echo`, with what it said, read from the
meeting's `assistant.jsonl`, in order: the notice, then each remark).

    python -m assist.listen.room_replay sample --into ROOT --audio DIR --after-join --events
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import attrs
from assist.core.lines import RawLine, line_view
from assist.core.meeting_log import read_events
from assist.listen.room import SoftwareRoom

JOIN_WAIT_S = 120.0
"""As assist replay: the meeting starts anyway after this long without an assistant."""
WATCH_S = 0.05
"""How often raw.jsonl is looked at for new lines."""


class RoomReplay:
    def __init__(
        self, spec: str, root: Path, audio: Path | None, after_join: bool, print_events: bool
    ) -> None:
        from assist.mcp.replay.meeting_files import load_meeting

        self.meeting = load_meeting(spec)
        self.root = root
        self.audio = audio
        self.after_join = after_join
        self.print_events = print_events
        lines = [(s.line.speaker, s.line.text, s.line.start_ms / 1000) for s in self.meeting.lines]
        self.room = SoftwareRoom(lines, replies=audio, duration_s=self.meeting.duration_ms / 1000)
        self.stop = threading.Event()
        self.folder: Path | None = None
        self.lines_written = 0
        self.echoes_written = 0
        self._seen = 0

    def report(self, event: dict[str, Any]) -> None:
        if self.print_events:
            sys.stdout.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        elif event["event"] in ("line", "echo"):
            print(f"  {event['line']['track']}: {event['line']['text']}", flush=True)

    def run(self) -> int:
        listener = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "assist.listen.command",
                "--into",
                str(self.root),
                "--from",
                "-",
                "--quiet",
                "--name",
                self.meeting.name,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert listener.stdin is not None and listener.stdout is not None
        first = listener.stdout.readline().decode()
        if " in " not in first:
            return listener.wait() or 1
        self.folder = Path(first.split(" in ", 1)[1].strip())
        self.report(
            {"event": "session", "id": self.folder.name, "dir": str(self.folder), "at": time.time()}
        )
        deadline = time.monotonic() + JOIN_WAIT_S
        replies_before = self._replies()

        def holding() -> bool:
            if not self.after_join or time.monotonic() >= deadline or self.stop.is_set():
                return False
            return not (self._joined() and (self.audio is None or self._replies() - replies_before))

        def relay(event: dict[str, Any]) -> None:
            if event["event"] == "started":
                self.report({"event": "started", "at": event["at"], "speed": 1.0})

        try:
            for block in self.room.blocks(relay, holding):
                if self.stop.is_set():
                    break
                listener.stdin.write(block)
                listener.stdin.flush()
                self._publish()
        except BrokenPipeError:
            pass
        finally:
            listener.stdin.close()
            listener.wait()
            self._publish()
            self.report(
                {
                    "event": "ended",
                    "at": time.time(),
                    "lines": self.lines_written,
                    "echoes": self.echoes_written,
                    "stopped_early": self.stop.is_set(),
                }
            )
        return 0

    def _joined(self) -> bool:
        assert self.folder is not None
        return any(event.name == "joined" for event in self._log())

    def _log(self) -> list[Any]:
        assert self.folder is not None
        try:
            text = (self.folder / "assistant.jsonl").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return read_events(text)

    def _replies(self) -> set[str]:
        if self.audio is None:
            return set()
        try:
            return {path.name for path in self.audio.glob("reply-*.wav")}
        except OSError:
            return set()

    def _spoken(self) -> list[tuple[str, str]]:
        """(kind, text) of what the assistant said, in order: its notice, then each remark."""
        spoken: list[tuple[str, str]] = []
        for event in self._log():
            if event.name == "joined" and event.notice is not None:
                spoken.append(("notice", event.notice))
            elif event.name == "speaking" and event.text is not None:
                spoken.append(("remark", event.text))
        return spoken

    def _publish(self) -> None:
        """Report the lines the listener has written since the last look."""
        assert self.folder is not None
        try:
            raw = (self.folder / "raw.jsonl").read_text(encoding="utf-8").splitlines()
        except OSError:
            return
        for text in raw[self._seen :]:
            record = json.loads(text)
            self._seen += 1
            line = RawLine(
                track=record["track"],
                start_ms=record["start_ms"],
                end_ms=record["end_ms"],
                text=record["text"],
                confidence=record["confidence"],
            )
            self._classify(line)

    def _classify(self, line: RawLine) -> None:
        """A line is the assistant heard through the air when it overlaps a reply more than
        any meeting line, else the meeting line it overlaps most (no cue when none)."""
        start, end = line.start_ms / 1000, line.end_ms / 1000
        index = self.lines_written + self.echoes_written
        echoes = [_overlap(start, end, a, b) for _, a, b in self.room.echo_spans]
        lines = [
            _overlap(start, end, at, at + said.end_s - said.start_s) if at is not None else 0.0
            for said, at in zip(self.room.said, self.room.heard_at, strict=True)
        ]
        if echoes and max(echoes) > max(lines, default=0.0):
            number = echoes.index(max(echoes))
            spoken = self._spoken()
            kind, said = spoken[number] if number < len(spoken) else ("remark", "")
            self.echoes_written += 1
            self.report(
                {
                    "event": "echo",
                    "index": index,
                    "at": time.time(),
                    "of": kind,
                    "mode": "air",
                    "said": said,
                    "reply": self.room.echo_spans[number][0],
                    "line": line_view(line),
                }
            )
            return
        best = lines.index(max(lines)) if lines and max(lines) > 0 else None
        script = self.meeting.lines[best] if best is not None else None
        self.lines_written += 1
        shown = line_view(
            attrs.evolve(line, speaker=script.line.speaker) if script is not None else line
        )
        cue = script.cue if script is not None else None
        self.report({"event": "line", "index": index, "at": time.time(), "cue": cue, "line": shown})


def _overlap(a: float, b: float, c: float, d: float) -> float:
    return max(0.0, min(b, d) - max(a, c))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assist.listen.room_replay", description=__doc__.splitlines()[0]
    )
    parser.add_argument("meeting")
    parser.add_argument("--into", required=True, type=Path, metavar="ROOT")
    parser.add_argument("--audio", type=Path, metavar="DIR")
    parser.add_argument("--after-join", action="store_true")
    parser.add_argument("--events", action="store_true")
    args = parser.parse_args(argv)
    replay = RoomReplay(args.meeting, args.into, args.audio, args.after_join, args.events)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: replay.stop.set())
    return replay.run()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
