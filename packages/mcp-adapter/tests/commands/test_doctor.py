"""`assist doctor [--prepare]`: the report of what a watch would use here, its exit status, and
starting the voice ahead of the first meeting (behaviour 1.1, 7, 5.4, 9, 11.3).

The command runs as a real subprocess, as a user types it, against a config file, sessions
root and voice cache in a tmp folder; `--prepare` starts the real `assist-voice` helper with
the espeak engine. The start-up limit is checked in process, with a helper that never starts.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from assist.mcp.commands.doctor import doctor_command, lock_holder
from assist.mcp.speech.helper_command import VOICE_COMMAND_VARIABLE
from assist.mcp.speech.supervisor import READY_WITHIN_VARIABLE
from mcp_harness import FAKE_SOUNDDEVICE, run_assist
from supervisor_fakes import fake

EVERY_PLUGIN = "espeak,kokoro,piper,qwen3,supertonic"
"""The entry-point names of every engine plugin in the workspace."""


@pytest.fixture
def place(tmp_path: Path) -> dict[str, str]:
    """Environment pointing the command at a config (espeak, no fallback) under tmp_path."""
    config = tmp_path / "config" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"voice": {"engine": "espeak", "fallback": "none"}}))
    (tmp_path / "sessions").mkdir()
    return {
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(tmp_path / "sessions"),
        "ASSIST_VOICE_CACHE": str(tmp_path / "cache"),
    }


def run(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return run_assist("doctor", {"PYTHONPATH": str(FAKE_SOUNDDEVICE), **env}, *arguments)


def test_doctor_names_the_places_settings_engines_choice_listener_and_lock_holder(
    place: dict[str, str],
) -> None:
    folder = Path(place["ASSIST_CONFIG"]).parent
    beat = {"pid": os.getpid(), "session": "2026-03-01T0900-standup", "state": "listening"}
    (folder / "assistant.json").write_text(json.dumps({**beat, "updated_at": int(time.time())}))
    (folder / "speaking.lock").write_text(json.dumps({"pid": os.getpid(), "who": "talk"}))
    done = run({**place, READY_WITHIN_VARIABLE: "90"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"config file: {place['ASSIST_CONFIG']} (assist's own)"
    assert lines[1] == f"sessions folder: {place['ASSIST_HOME']}"
    assert lines[2] == f"voice cache: {place['ASSIST_VOICE_CACHE']}"
    assert "  voice.engine = espeak" in lines and "  assistant = off" in lines
    assert any(line.startswith("  espeak       assist-voice-espeak ") for line in lines)
    assert "voice engine: espeak (set in the config file)" in lines
    assert any(line.startswith("  auto would choose: ") for line in lines)
    assert "fallback: none (voice.fallback is none)" in lines
    assert any(line.startswith("start-up limit: 90 s") for line in lines)
    listener = f"other assistant: pid {os.getpid()} is listening to 2026-03-01T0900-standup"
    assert listener in lines
    assert any(
        line.startswith('speaking lock: held by "talk" (an `ambient talk` reply)')
        and str(os.getpid()) in line
        for line in lines
    )
    assert lines[-1] == "a voice can start here: espeak, ready without a download"


def test_doctor_says_when_the_config_file_is_ambients(tmp_path: Path) -> None:
    ambient = tmp_path / "Ambient" / "config.json"
    done = run({"AMBIENT_CONFIG": str(ambient), "ASSIST_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"config file: {ambient} (Ambient's, shared with it;")


def test_doctor_exits_1_naming_what_to_install_when_every_engine_is_blocked(
    place: dict[str, str],
) -> None:
    Path(place["ASSIST_CONFIG"]).write_text("{}")
    done = run({**place, "ASSIST_VOICES_BLOCK": EVERY_PLUGIN})
    assert done.returncode == 1
    assert f"(engine plugins limited by ASSIST_VOICES_BLOCK={EVERY_PLUGIN})" in done.stdout
    last = done.stdout.splitlines()[-1]
    assert last.startswith("no voice can start here: ")
    assert "install one of" in last and "assist-voice-espeak" in last


def test_a_configured_engine_that_is_blocked_names_its_package_unless_the_fallback_speaks(
    place: dict[str, str],
) -> None:
    blocked = run({**place, "ASSIST_VOICES_BLOCK": "espeak"})
    assert blocked.returncode == 1
    assert "install assist-voice-espeak" in blocked.stdout.splitlines()[-1]
    Path(place["ASSIST_CONFIG"]).write_text(json.dumps({"voice": {"engine": "espeak"}}))
    covered = run({**place, "ASSIST_VOICES_BLOCK": "espeak"})
    assert covered.returncode == 0
    last = covered.stdout.splitlines()[-1]
    assert last.startswith("a voice can start here, but only the fallback: piper will speak")


def test_prepare_starts_the_voice_once_and_reports_its_load_and_first_audio(
    place: dict[str, str],
) -> None:
    done = run(place, "--prepare")
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("prepared: the espeak voice was ready in ")
    assert "engine load " in last and "first audio " in last and " s of speech" in last
    assert "preparing the espeak voice" in done.stderr


def test_prepare_gives_the_helper_the_same_start_limit_as_a_watch(
    place: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in {**place, READY_WITHIN_VARIABLE: "0.5"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(VOICE_COMMAND_VARIABLE, shlex.join(fake("never_ready")))
    status: list[int] = []
    worker = threading.Thread(target=lambda: status.append(doctor_command(["--prepare"])))
    worker.start()
    worker.join(timeout=10)  # without the limit it would wait half an hour
    assert status == [1]
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("prepare: the voice could not be prepared: ")
    assert "not ready within 0.5 s (the start-up limit)" in out[-1]


def test_the_lock_is_read_without_being_touched(tmp_path: Path) -> None:
    assert lock_holder(tmp_path) == "free"
    lock = tmp_path / "speaking.lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "who": "assistant"}))
    assert lock_holder(tmp_path).startswith('held by "assistant" (another assistant)')
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    lock.write_text(json.dumps({"pid": int(ended.stdout), "who": "assistant"}))
    assert "which has ended" in lock_holder(tmp_path)
    lock.write_text("")
    assert lock_holder(tmp_path).startswith("held by an unreadable lock file")
    assert lock.read_text() == ""  # a doctor never clears or takes the lock


def test_doctor_names_the_microphone_and_speakers_it_found(place: dict[str, str]) -> None:
    done = run(place)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "microphone: fake microphone" in lines and "speakers: fake speakers" in lines


@pytest.mark.parametrize(
    ("device", "said"),
    [
        ("missing", "audio: PortAudio, the library that records and plays sound, is not installed"),
        ("none", "speakers: no output device (connect speakers"),
    ],
)
def test_doctor_exits_1_when_a_watch_could_not_be_heard_saying_what_is_missing(
    place: dict[str, str], device: str, said: str
) -> None:
    done = run({**place, "FAKE_DEVICE": device})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert any(line.startswith(said) for line in done.stdout.splitlines()), done.stdout
    assert done.stdout.splitlines()[-1].startswith("but a watch could not be heard here: ")
