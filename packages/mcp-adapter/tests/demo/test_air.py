"""The meeting through the air (`assist.mcp.demo.rooms.air`) and its rooms: the mixed room's
clock and mix, the room's rules for when a line starts and what a recognised line was, and the whole
demo through the PulseAudio room (the software room's run is in the demo's own tests)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from assist.mcp.demo.rooms.air import LEAST_GAP_S, AirMeeting, Sound, _most_overlapping
from assist.mcp.demo.rooms.live import BLOCK, MixedRoom, Playing
from assist.mcp.replay.meeting_files import load_meeting

DEMO = [str(Path(sys.executable).parent / "assist"), "demo"]


def test_the_mixed_room_writes_each_sound_where_its_clock_says_over_quiet_noise() -> None:
    sink = io.BytesIO()
    room = MixedRoom(sink)
    room.open()
    tone = np.full(1600, 0.5, dtype=np.float32)  # 0.1 s
    playing = room.play(tone, delay_s=0.2, gain=0.5)
    time.sleep(0.5)
    room.pump()
    samples = np.frombuffer(sink.getvalue(), dtype="<i2").astype(np.float32) / 32767
    assert len(samples) >= 0.5 * 16000 - BLOCK, "the room keeps real time, block by block"
    start, end = round(playing.start_s * 16000), round(playing.end_s * 16000)
    assert end - start == 1600 and playing.start_s >= 0.2
    assert abs(float(np.median(samples[start:end])) - 0.25) < 0.02, "delayed and quieter"
    quiet = np.concatenate((samples[:start], samples[end:]))
    assert 0 < float(np.sqrt(np.mean(quiet**2))) < 0.01, "the rest is the room's faint noise"


def test_the_silence_after_a_line_the_assistant_should_answer_is_never_shortened(
    tmp_path: Path,
) -> None:
    meeting = load_meeting("sample")
    air = AirMeeting(meeting, tmp_path, tmp_path, speed=8)
    named = meeting.cued("named-question")[0]
    after = meeting.lines[named + 1].line.start_ms - meeting.lines[named].line.end_ms
    assert air._gap_before(named + 1) == after / 1000, "the room leaves the assistant its time"
    assert air._gap_before(1) == LEAST_GAP_S, "small talk's short silences shrink to a turn gap"
    assert AirMeeting(meeting, tmp_path, tmp_path)._gap_before(1) == LEAST_GAP_S


def test_a_recognised_line_is_what_the_room_played_most_during_its_span() -> None:
    line = Sound("line", "Morning, everyone.", Playing(1.0, 3.0), index=0)
    echo = Sound("remark", "It's six hundred a minute.", Playing(2.8, 8.0))
    assert _most_overlapping([line, echo], 0.8, 3.2) is line
    assert _most_overlapping([line, echo], 2.9, 8.1) is echo
    assert _most_overlapping([line, echo], 9.0, 10.0) is None


def test_the_demo_through_the_pulseaudio_room_hears_the_meeting_and_leaves_out_its_own_voice(
    tmp_path: Path, audio_room: dict[str, str]
) -> None:
    import os

    done = subprocess.run(
        [*DEMO, "--room", "pulse", "--speed", "8", "--json", "--workdir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=480,
        env={**os.environ, **audio_room},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run: dict[str, Any] = json.loads(done.stdout)
    (tmp_path / "summary.json").write_text(done.stdout)  # kept with the run's logs
    said = done.stderr[-4000:]
    assert run["room"] == "pulse" and run["notice_first"] and run["silent_through_small_talk"]
    assert run["named_question_answered"] and run["room_question_answered"], said
    assert run["room_answer_waited_for_the_room"], said
    assert run["lines_not_heard"] == 0 and run["word_error_rate"] <= 0.15
    spoken = run["remarks_made"] + 1
    assert run["assistant_lines_heard"] == run["assistant_lines_played"] == spoken == 3
    assert run["echoes_left_out"] == run["echoes_fed"] >= spoken
    assert run["echoes_seen_by_agent"] == 0 and run["limits_held"]


def test_a_listener_that_cannot_start_ends_the_meeting_at_once_saying_why(tmp_path: Path) -> None:
    air = [sys.executable, "-m", "assist.mcp.demo.rooms.air", "sample", "--into", str(tmp_path)]
    done = subprocess.run(
        [*air, "--audio", str(tmp_path), "--stt", "no-such-recogniser", "--events"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "no-such-recogniser" in done.stderr and "assist listen could not start" in done.stderr
