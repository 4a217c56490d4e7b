"""`assist replay` writes a session as a recorder would: real subprocesses, real files."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import wave
from datetime import datetime
from pathlib import Path
from typing import Any

from assist.app.store.sessions import SessionStore
from assist.core.lines import encode_raw_line
from assist.core.meeting_log import encode_event, joined, speaking, spoke
from assist.mcp.replay.meeting_files import load_meeting

REPLAY = [str(Path(sys.executable).parent / "assist"), "replay"]


class Replay:
    """`assist replay --events` as a subprocess, its events read as they come."""

    def __init__(self, *arguments: str) -> None:
        self.process = subprocess.Popen(
            [*REPLAY, *arguments, "--events"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def first(self) -> dict[str, Any]:
        event = self.events.get(timeout=30)
        assert event is not None, self.process.communicate()[1]
        return event

    def running(self) -> bool:
        return self.process.poll() is None

    def rest(self) -> list[dict[str, Any]]:
        self.process.wait(timeout=60)
        assert self.process.stderr is not None
        assert self.process.returncode == 0, self.process.stderr.read()
        events = []
        while (event := self.events.get(timeout=10)) is not None:
            events.append(event)
        return events


def meeting_file(folder: Path, *turns: tuple[int, int, str], duration_ms: int) -> str:
    """A small meeting file of room turns (start_ms, end_ms, text)."""
    path = folder / "small.jsonl"
    rows = [{"assist_meeting": 1, "name": "small", "duration_ms": duration_ms}]
    rows += [
        {"track": "room", "start_ms": a, "end_ms": b, "speaker": "Ann", "text": text}
        for a, b, text in turns
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_replay_writes_exactly_the_meetings_lines_in_order_at_their_scaled_times(
    tmp_path: Path,
) -> None:
    meeting = load_meeting("sample")
    replay = Replay("sample", "--into", str(tmp_path), "--speed", "40")
    session = replay.first()
    events = replay.rest()
    raw = (Path(session["dir"]) / "raw.jsonl").read_text(encoding="utf-8")
    assert raw == "".join(encode_raw_line(script.line) for script in meeting.lines)
    started = next(event["at"] for event in events if event["event"] == "started")
    written = [event for event in events if event["event"] == "line"]
    assert [event["index"] for event in written] == list(range(14))
    assert [event["cue"] for event in written] == [script.cue for script in meeting.lines]
    for event, due_ms in zip(written, meeting.publish_ms(), strict=True):
        assert due_ms / 40_000 - 0.01 <= event["at"] - started <= due_ms / 40_000 + 0.5
    assert events[-1] == {**events[-1], "event": "ended", "lines": 14, "echoes": 0}


def test_the_session_is_live_while_the_replay_runs_and_ended_after(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    replay = Replay("sample", "--into", str(tmp_path), "--speed", "40")
    session = replay.first()
    folder = Path(session["dir"])
    seen_live = []
    while replay.running():
        seen_live.append(store.live_session(time.time()))
        time.sleep(0.2)
    replay.rest()
    assert len(seen_live) > 5 and set(seen_live[:-1]) == {session["id"]}
    assert store.live_session(time.time()) is None
    assert store.state(session["id"], time.time()) == "pending"
    assert not (folder / "audio" / "room.native.wav").exists()
    meta = json.loads((folder / "session.json").read_text())
    assert meta["id"] == session["id"] and meta["name"] == "Orders API weekly sync"
    assert 75 / 40 - 0.2 < meta["duration_s"] < 75 / 40 + 2


def test_the_room_wav_grows_as_a_valid_wav_and_sigterm_ends_the_recording_cleanly(
    tmp_path: Path,
) -> None:
    replay = Replay("long", "--into", str(tmp_path), "--speed", "2")
    folder = Path(replay.first()["dir"])
    wav = folder / "audio" / "room.native.wav"
    sizes = []
    for _ in range(4):
        time.sleep(0.25)
        with wave.open(str(wav), "rb") as reader:
            sizes.append(reader.getnframes())
    replay.process.send_signal(signal.SIGTERM)
    events = replay.rest()
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0] > 0
    assert events[-1]["event"] == "ended" and events[-1]["stopped_early"] is True
    assert (folder / "session.json").exists()
    assert not wav.exists()


def test_two_replays_at_once_each_claim_their_own_folder_named_for_the_meeting(
    tmp_path: Path,
) -> None:
    first = Replay("overlap", "--into", str(tmp_path), "--speed", "100")
    second = Replay("overlap", "--into", str(tmp_path), "--speed", "100")
    ids = sorted([first.first()["id"], second.first()["id"]])
    first.rest(), second.rest()
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d{4}-crosstalk(-02)?", id_) for id_ in ids)
    if ids[0][:15] == ids[1][:15]:  # the same minute (almost always)
        assert ids[1] == f"{ids[0]}-02"


def test_the_overlap_meeting_keeps_append_order_though_starts_go_backwards(
    tmp_path: Path,
) -> None:
    meeting = load_meeting("overlap")
    replay = Replay("overlap", "--into", str(tmp_path), "--speed", "50")
    folder = Path(replay.first()["dir"])
    replay.rest()
    lines, _ = SessionStore(tmp_path).reader(folder.name, time.time()).read(0)
    assert lines == [script.line for script in meeting.lines]


def test_the_long_meeting_replays_in_full_and_reads_back_incrementally(tmp_path: Path) -> None:
    meeting = load_meeting("long")
    replay = Replay("long", "--into", str(tmp_path), "--speed", "900")
    folder = Path(replay.first()["dir"])
    store = SessionStore(tmp_path)
    cursor, read, reads = 0, [], 0
    while replay.running():
        new, cursor = store.reader(folder.name, time.time()).read(cursor)
        read += new
        reads += 1
        time.sleep(0.1)
    replay.rest()
    new, cursor = store.reader(folder.name, time.time()).read(cursor)
    read += new
    assert reads > 5, "read while the meeting was being written"
    assert read == [script.line for script in meeting.lines]
    assert cursor == len(meeting.lines)


def test_after_join_holds_the_meeting_until_an_assistant_has_joined_and_spoken(
    tmp_path: Path,
) -> None:
    audio = tmp_path / "audio"
    audio.mkdir()
    small = meeting_file(tmp_path, (0, 500, "Shall we start?"), duration_ms=1000)
    replay = Replay(small, "--into", str(tmp_path / "s"), "--after-join", "--audio", str(audio))
    folder = Path(replay.first()["dir"])
    time.sleep(0.5)
    assert not (folder / "raw.jsonl").read_text(), "nobody has joined: the room waits"
    with open(folder / "assistant.jsonl", "a", encoding="utf-8") as log:
        log.write(encode_event(joined(datetime.now().astimezone(), 1, "Hello.")))
    time.sleep(0.5)
    assert not (folder / "raw.jsonl").read_text(), "the notice is still being said"
    said = time.time()
    (audio / "reply-1.wav").write_bytes(b"RIFF")
    events = replay.rest()
    started = next(event["at"] for event in events if event["event"] == "started")
    assert said <= started < said + 0.5
    assert (folder / "raw.jsonl").read_text().count("\n") == 1


def test_exact_echoes_come_back_into_the_room_track_three_scaled_seconds_later(
    tmp_path: Path,
) -> None:
    small = meeting_file(tmp_path, (0, 500, "Claude, the limit?"), duration_ms=20_000)
    replay = Replay(small, "--into", str(tmp_path / "s"), "--speed", "10", "--echo")
    folder = Path(replay.first()["dir"])
    time.sleep(0.3)
    now = datetime.now().astimezone()
    answer = "Six hundred a minute for each key."
    with open(folder / "assistant.jsonl", "a", encoding="utf-8") as log:
        log.write(encode_event(speaking(now, 1, "c" * 32, answer, "neutral")))
        log.write(
            encode_event(
                spoke(
                    now,
                    1,
                    "c" * 32,
                    answer,
                    "neutral",
                    first_audio_ms=100,
                    audio_s=1.5,
                    took_ms=400,
                )
            )
        )
    events = replay.rest()
    [echo] = [event for event in events if event["event"] == "echo"]
    assert echo["line"] == {**echo["line"], "track": "room", "speaker": None, "text": answer}
    assert echo["line"]["end_ms"] - echo["line"]["start_ms"] == 1500
    assert 0.3 - 0.05 <= echo["at"] - now.timestamp() < 0.3 + 0.5, "3 s at speed 10"
    raw = (folder / "raw.jsonl").read_text().splitlines()
    assert len(raw) == 2 and json.loads(raw[echo["index"]])["text"] == answer
    assert events[-1]["echoes"] == 1


def test_bad_arguments_exit_2_and_say_what_to_do(tmp_path: Path) -> None:
    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*REPLAY, *arguments], capture_output=True, text=True, timeout=30)

    speed = run("sample", "--into", str(tmp_path), "--speed", "0")
    assert speed.returncode == 2 and "not a positive number" in speed.stderr
    missing = run(str(tmp_path / "nope.jsonl"), "--into", str(tmp_path))
    assert missing.returncode == 2 and "sample, long, overlap" in missing.stderr
    asr = run("sample", "--into", str(tmp_path), "--echo", "asr")
    assert asr.returncode == 2 and "--audio DIR" in asr.stderr
    assert list(tmp_path.iterdir()) == [], "nothing is written when the arguments are wrong"
