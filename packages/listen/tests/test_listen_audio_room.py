"""`assist listen` capturing from a real audio server: the meeting is played into the
PulseAudio room (.ci/audio-room) with paplay, and the listener records the default input,
through PortAudio and ALSA's pulse plugin, as it would a microphone, and recognises it with
the default recogniser (whisper tiny.en)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from assist.core.words import word_error_rate
from listen_harness import Listener, eventually, listen_env, raw_lines

MOST_WORD_ERRORS = 0.10


def test_the_meeting_played_into_the_room_is_heard_from_the_default_input(
    tmp_path: Path, audio_room: dict[str, str], meeting, meeting_wav: Path
) -> None:
    env = listen_env(tmp_path, **audio_room)
    listener = Listener(tmp_path / "s", env, "--quiet")
    native = listener.folder / "audio" / "room.native.wav"
    eventually(lambda: native.exists() and native.stat().st_size > 44)
    played = subprocess.run(
        ["paplay", "--device=room", str(meeting_wav)],
        env={**env, **audio_room},
        capture_output=True,
        timeout=60,
    )
    assert played.returncode == 0, played.stderr
    eventually(lambda: len(raw_lines(listener.folder)) >= len(meeting.lines), timeout=15)
    time.sleep(0.5)
    listener.process.send_signal(signal.SIGINT)
    code, _, err = listener.wait(timeout=60)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == len(meeting.lines), lines
    starts = [line["start_ms"] / 1000 for line in lines]
    offset = starts[0] - meeting.lines[0].start_s
    for line, spoken in zip(lines, meeting.lines, strict=True):
        assert line["track"] == "room"
        heard = (line["start_ms"] / 1000 - offset, line["end_ms"] / 1000 - offset)
        assert heard[0] <= spoken.start_s + 0.05 and spoken.end_s <= heard[1] + 0.3, (line, spoken)
    heard = " ".join(line["text"] for line in lines)
    assert word_error_rate(meeting.text, heard) <= MOST_WORD_ERRORS, heard
    meta = json.loads((listener.folder / "session.json").read_text())
    assert meta["warnings"] == []
    assert meta["mic_hz"] > 0
    assert not native.exists()


def test_a_capture_device_that_goes_away_ends_the_session_cleanly_keeping_the_turn(
    tmp_path: Path, private_room: dict[str, str], meeting, meeting_wav: Path
) -> None:
    env = listen_env(tmp_path, **private_room)
    listener = Listener(tmp_path / "s", env, "--stt", "fake", "--quiet")
    native = listener.folder / "audio" / "room.native.wav"
    eventually(lambda: native.exists() and native.stat().st_size > 44)
    player = subprocess.Popen(
        ["paplay", "--device=room", str(meeting_wav)],
        env={**env, **private_room},
        stderr=subprocess.DEVNULL,
    )
    second = meeting.lines[1]
    time.sleep(second.start_s + 1.0 + 0.3)  # into the second line, past the room's delay
    subprocess.run(["pactl", "exit"], env={**env, **private_room}, check=True, timeout=30)
    player.wait(timeout=30)
    code, _, err = listener.wait(timeout=60)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == 2, lines
    assert lines[1]["start_ms"] - lines[0]["start_ms"] >= 3000
    meta = json.loads((listener.folder / "session.json").read_text())
    assert len(meta["warnings"]) == 1 and "capture device" in meta["warnings"][0], meta
    assert not native.exists()
    assert (listener.folder / "audio" / "room.wav").exists()


def test_a_call_device_adds_a_call_track_with_its_own_files_and_clock(
    tmp_path: Path, audio_room: dict[str, str], meeting, meeting_wav: Path
) -> None:
    env = listen_env(tmp_path, **audio_room)
    listener = Listener(
        tmp_path / "s", env, "--device", "pulse", "--call-device", "default", "--stt", "fake"
    )
    audio = listener.folder / "audio"
    for track in ("room", "call"):
        native = audio / f"{track}.native.wav"
        eventually(lambda native=native: native.exists() and native.stat().st_size > 44)
    played = subprocess.run(
        ["paplay", "--device=room", str(meeting_wav)],
        env={**env, **audio_room},
        capture_output=True,
        timeout=60,
    )
    assert played.returncode == 0, played.stderr
    eventually(lambda: len(raw_lines(listener.folder)) >= 2 * len(meeting.lines), timeout=15)
    (listener.folder / "STOP").touch()
    code, _, err = listener.wait(timeout=60)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    for track in ("room", "call"):
        mine = [line for line in lines if line["track"] == track]
        assert len(mine) == len(meeting.lines), lines
        assert [line["start_ms"] for line in mine] == sorted(line["start_ms"] for line in mine)
    assert sorted(path.name for path in audio.iterdir()) == ["call.wav", "room.wav"]
    assert "heard" in err  # the terminal view printed the lines
