"""`assist listen` as a real process writing a real session folder, with a recogniser plugin
registered for the test through its entry point (the real recognisers have their own tests:
test_listen_whisper.py)."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from assist.app.store.sessions import SessionStore
from assist.core.turn_ends import TURN_PAUSE_MS
from assist.core.turns import END_SILENCE_MS
from listen_harness import (
    ASSIST,
    REPO,
    Listener,
    eventually,
    listen_env,
    listening_to_file,
    listening_to_stdin,
    pcm,
    raw_lines,
    run_listen,
    write_wav,
)


def test_a_wav_file_becomes_a_finished_session_with_one_line_per_spoken_turn(
    tmp_path: Path, meeting, meeting_wav: Path
) -> None:
    listener = Listener(
        tmp_path / "sessions",
        listen_env(tmp_path),
        "--from",
        str(meeting_wav),
        "--fast",
        "--stt",
        "fake",
        "--name",
        "Weekly sync!",
    )
    code, _, err = listener.wait()
    assert code == 0, err
    folder = listener.folder
    assert folder.parent == tmp_path / "sessions"
    assert folder.name.endswith("-weekly-sync")
    lines = raw_lines(folder)
    assert len(lines) == len(meeting.lines), lines
    for line, spoken in zip(lines, meeting.lines, strict=True):
        assert set(line) == {"track", "start_ms", "end_ms", "text", "confidence"}
        assert line["track"] == "room"
        assert line["start_ms"] <= spoken.start_s * 1000 <= line["end_ms"], (line, spoken)
        assert line["start_ms"] <= spoken.end_s * 1000 <= line["end_ms"] + 100, (line, spoken)
        assert line["text"] == f"heard {(line['end_ms'] - line['start_ms']) / 1000:.1f} seconds"
        assert line["confidence"] == 0.5
    meta = json.loads((folder / "session.json").read_text())
    assert meta["id"] == folder.name
    assert meta["name"] == "Weekly sync!"
    assert meta["model"] == "fake seconds"
    # a recording with no reference of the assistant's voice ends turns on silence (16.1)
    assert meta["turn"] == {
        "model": "silence",
        "pause_ms": TURN_PAUSE_MS,
        "end_silence_ms": END_SILENCE_MS,
    }
    assert meta["warnings"] == []
    assert (meta["mic_hz"], meta["channels"], meta["mic_channels"], meta["apps"]) == (
        16000,
        1,
        1,
        [],
    )
    # on the capture clock, as start_ms and end_ms are: --fast takes less time than it lasts
    assert meta["duration_s"] == pytest.approx(len(meeting.samples) / 16000, abs=0.05)
    with wave.open(str(folder / "audio" / "room.wav")) as room:
        assert (room.getframerate(), room.getnchannels(), room.getsampwidth()) == (16000, 1, 2)
        assert abs(room.getnframes() - len(meeting.samples)) <= 512
    assert sorted(path.name for path in (folder / "audio").iterdir()) == ["room.wav"]
    assert SessionStore(folder.parent).state(folder.name, time.time()) == "pending"


def test_a_stereo_file_at_another_rate_is_mixed_and_resampled_on_the_same_clock(
    tmp_path: Path, meeting
) -> None:
    import soxr

    stereo = np.repeat(soxr.resample(meeting.samples, 16000, 44100)[:, None], 2, axis=1)
    path = tmp_path / "stereo.wav"
    write_wav(path, stereo.reshape(-1), 44100, channels=2)
    listener = listening_to_file(tmp_path, path)
    code, _, err = listener.wait()
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == len(meeting.lines)
    for line, spoken in zip(lines, meeting.lines, strict=True):
        assert line["start_ms"] <= spoken.start_s * 1000 <= line["end_ms"]
    meta = json.loads((listener.folder / "session.json").read_text())
    assert meta["mic_hz"] == 44100


def test_pcm_from_stdin_is_heard_as_it_arrives_and_its_end_ends_the_session(
    tmp_path: Path, meeting
) -> None:
    listener = listening_to_stdin(tmp_path)
    data = pcm(meeting.samples)
    first_end = meeting.lines[0].end_s
    cut = int((first_end + 1.2) * 16000) * 2
    assert listener.process.stdin is not None
    listener.process.stdin.write(data[:cut])
    listener.process.stdin.flush()
    first = eventually(lambda: raw_lines(listener.folder))
    assert len(first) == 1, "the first turn is written while stdin is still open"
    assert (listener.folder / "audio" / "room.native.wav").exists()
    listener.process.stdin.write(data[cut:])
    listener.process.stdin.close()
    code, _, err = listener.wait()
    assert code == 0, err
    assert len(raw_lines(listener.folder)) == len(meeting.lines)
    assert not (listener.folder / "audio" / "room.native.wav").exists()


def test_the_session_is_live_exactly_while_capturing_and_a_stop_file_ends_it(
    tmp_path: Path, meeting
) -> None:
    listener = listening_to_stdin(tmp_path)
    store = SessionStore(tmp_path / "s")
    folder = listener.folder
    assert listener.process.stdin is not None
    listener.process.stdin.write(bytes(16000))  # half a second of silence, then nothing
    listener.process.stdin.flush()
    eventually(lambda: store.live_session(time.time()) == folder.name)
    native = folder / "audio" / "room.native.wav"
    before = native.stat().st_mtime_ns
    time.sleep(1.2)
    assert native.stat().st_mtime_ns > before, "the native WAV is touched while nothing arrives"
    with wave.open(str(native)) as growing:
        assert growing.getnframes() == 8000
    (folder / "STOP").touch()
    eventually(lambda: listener.process.poll() is not None)
    assert not listener.process.stdin.closed, "the STOP file ended it, not the end of stdin"
    code, _, err = listener.wait(timeout=30)
    assert code == 0, err
    assert store.live_session(time.time()) is None
    assert (folder / "session.json").exists()


@pytest.mark.parametrize("ending", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_the_turn_in_progress_at_a_signal_is_recognised_and_kept(
    tmp_path: Path, meeting, ending: str
) -> None:
    listener = listening_to_stdin(tmp_path)
    speech = meeting.samples[: int((meeting.lines[0].start_s + 1.0) * 16000)]
    assert listener.process.stdin is not None
    listener.process.stdin.write(pcm(speech))
    listener.process.stdin.flush()
    native = listener.folder / "audio" / "room.native.wav"

    def heard_it_all() -> bool:
        with wave.open(str(native)) as growing:
            return growing.getnframes() >= len(speech)

    eventually(heard_it_all)
    assert raw_lines(listener.folder) == []
    listener.process.send_signal(getattr(signal, ending))
    code, _, err = listener.wait(timeout=30)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == 1, err
    assert lines[0]["end_ms"] >= (meeting.lines[0].start_s + 0.9) * 1000
    assert (listener.folder / "session.json").exists()


def test_a_recogniser_that_fails_once_is_retried_and_its_turn_written(
    tmp_path: Path, meeting_wav: Path, meeting
) -> None:
    log = tmp_path / "calls.txt"
    env = listen_env(tmp_path, FAKE_STT_FAIL="once", FAKE_STT_LONG_S="3.5", FAKE_STT_LOG=str(log))
    listener = listening_to_file(tmp_path, meeting_wav, env)
    code, _, err = listener.wait()
    assert code == 0, err
    assert len(raw_lines(listener.folder)) == len(meeting.lines)
    assert json.loads((listener.folder / "session.json").read_text())["warnings"] == []
    calls = log.read_text().splitlines()
    assert any(call.endswith("raised") for call in calls), calls
    assert calls[-1] == "closed"


def test_a_recogniser_that_keeps_failing_on_a_turn_is_reported_and_the_session_goes_on(
    tmp_path: Path, meeting_wav: Path, meeting
) -> None:
    log = tmp_path / "calls.txt"
    env = listen_env(tmp_path, FAKE_STT_FAIL="always", FAKE_STT_LONG_S="3.5", FAKE_STT_LOG=str(log))
    listener = listening_to_file(tmp_path, meeting_wav, env)
    code, _, err = listener.wait()
    assert code == 0, err
    long_turns = [line for line in meeting.lines if line.end_s - line.start_s > 3.3]
    assert len(long_turns) == 1, "the test meeting has one long line"
    lines = raw_lines(listener.folder)
    assert len(lines) == len(meeting.lines) - 1
    warnings = json.loads((listener.folder / "session.json").read_text())["warnings"]
    assert len(warnings) == 1, warnings
    span = re.search(r"from ([0-9.]+) s to ([0-9.]+) s", warnings[0])
    assert span is not None and "recogniser failed twice" in warnings[0], warnings
    start, end = float(span[1]), float(span[2])
    assert start <= long_turns[0].start_s < long_turns[0].end_s <= end + 0.1
    calls = log.read_text().splitlines()
    assert calls.count(f"{end - start:.2f} raised") == 2, ("tried once, then once more", calls)
    assert "recogniser failed twice" in err


def test_a_listener_whose_stderr_reader_went_away_still_writes_every_line(
    tmp_path: Path, meeting_wav: Path, meeting
) -> None:
    listener = listening_to_file(tmp_path, meeting_wav)
    assert listener.process.stderr is not None
    listener.process.stderr.close()  # the terminal view now writes into a broken pipe
    code, _, _ = listener.wait()
    assert code == 0
    assert len(raw_lines(listener.folder)) == len(meeting.lines)
    assert (listener.folder / "session.json").exists()


@pytest.mark.audio
def test_a_missing_device_exits_2_with_the_device_list_before_making_a_session(
    tmp_path: Path,
) -> None:
    result = run_listen(tmp_path, "--into", str(tmp_path / "s"), "--device", "no such mic 42")
    assert result.returncode == 2
    assert "no such mic 42" in result.stderr
    assert "input devices" in result.stderr
    assert "--device" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "s").exists()


def test_an_unknown_recogniser_exits_2_naming_the_installed_ones(
    tmp_path: Path, meeting_wav: Path
) -> None:
    result = run_listen(
        tmp_path, "--into", str(tmp_path / "s"), "--from", str(meeting_wav), "--stt", "nosuch"
    )
    assert result.returncode == 2
    assert "nosuch" in result.stderr and "fake" in result.stderr
    assert not (tmp_path / "s").exists()


@pytest.mark.audio
def test_devices_lists_input_devices_or_says_there_are_none(tmp_path: Path) -> None:
    result = run_listen(tmp_path, "--devices")
    assert result.returncode == 0
    assert "input devices" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            ["--from", "no-such-meeting.wav"],
            "there is no file no-such-meeting.wav; give a WAV file",
        ),
        (["--from", "-", "--fast"], "--fast plays a --from FILE"),
        (["--from", "-", "--end-silence-ms", "5"], "--end-silence-ms 5 is outside"),
    ],
)
def test_bad_arguments_exit_2_saying_what_to_do_before_making_a_session(
    tmp_path: Path, arguments: list[str], said: str
) -> None:
    into = ["--into", str(tmp_path / "s")]
    result = run_listen(tmp_path, *into, "--stt", "fake", *arguments, cwd=tmp_path)
    assert result.returncode == 2
    assert said in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "s").exists()


def test_pcm_from_stdin_is_refused_when_stdin_is_a_terminal_rather_than_waiting_forever(
    tmp_path: Path,
) -> None:
    leader, follower = pty.openpty()
    try:
        into = ["--into", str(tmp_path / "s")]
        result = run_listen(tmp_path, *into, "--stt", "fake", "--from", "-", stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2
    assert "--from - reads 16 kHz mono s16le PCM from stdin, which is a terminal" in result.stderr
    assert not (tmp_path / "s").exists()


NO_PORTAUDIO = REPO / "packages" / "app" / "tests" / "no_portaudio"
"""A sounddevice whose import fails as it does on a machine without PortAudio."""


@pytest.mark.parametrize(
    "arguments",
    [["--devices"], ["--into", "s"], ["--into", "s", "--from", "-", "--call-device", "default"]],
)
def test_without_portaudio_listen_exits_2_naming_the_library_and_its_install_command(
    tmp_path: Path, arguments: list[str]
) -> None:
    env = listen_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(NO_PORTAUDIO), env["PYTHONPATH"]])
    done = subprocess.run(
        [str(ASSIST), "listen", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.PIPE,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("assist listen: PortAudio, the library that records and plays")
    assert "install it with `" in done.stderr
    assert not (tmp_path / "s").exists()


def test_a_wav_with_no_audio_exits_2_before_making_a_session(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    write_wav(empty, np.zeros(0), 16000)
    into = ["--into", str(tmp_path / "s")]
    result = run_listen(tmp_path, *into, "--stt", "fake", "--from", str(empty), "--fast")
    assert result.returncode == 2
    assert f"{empty} holds no audio" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "s").exists()


def test_a_wav_cut_short_is_recorded_with_a_warning_saying_how_much_was_there(
    tmp_path: Path, meeting
) -> None:
    cut = tmp_path / "cut.wav"
    write_wav(cut, meeting.samples[: 4 * 16000], 16000)
    cut.write_bytes(cut.read_bytes()[: 44 + 3 * 32000])  # 3 s of the 4 s declared
    listener = listening_to_file(tmp_path, cut)
    code, _out, err = listener.wait()
    assert code == 0, err
    session = json.loads((listener.folder / "session.json").read_text())
    assert any("is cut short: it holds 3.00 s, 75% of the 4.00 s" in w for w in session["warnings"])
