"""`assist say TEXT`: one line through the real voice helper, checked like `speak` (behaviour
3.6 steps 1-3), saved as a WAV on request, and never over another voice when played aloud.

The command runs as a real subprocess with the real `assist-voice` helper and the espeak
engine; the speaking lock and the `--engine` override are checked in process, the first with
the fake helper that works.
"""

from __future__ import annotations

import array
import json
import os
import shlex
import subprocess
import wave
from pathlib import Path

import pytest
from assist.app.audio import AudioCheck
from assist.mcp.commands import say
from assist.mcp.commands.say import engine_override, say_command
from assist.mcp.commands.terminal_voice import Machine
from assist.mcp.speech.helper_command import VOICE_COMMAND_VARIABLE
from mcp_harness import FAKE_SOUNDDEVICE, run_assist
from supervisor_fakes import fake


@pytest.fixture
def place(tmp_path: Path) -> dict[str, str]:
    """Environment pointing the command at a config file (kokoro, speaker and style set)."""
    config = tmp_path / "config" / "config.json"
    config.parent.mkdir()
    voice = {"engine": "kokoro", "speaker": "af_heart", "style": "calm", "fallback": "none"}
    config.write_text(json.dumps({"voice": voice}))
    return {
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(tmp_path / "sessions"),
        "ASSIST_VOICE_CACHE": str(tmp_path / "cache"),
    }


def run(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return run_assist("say", {"PYTHONPATH": str(FAKE_SOUNDDEVICE), **env}, *arguments)


def test_a_line_is_said_by_the_helper_and_saved_as_a_16_bit_mono_wav(
    place: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "kept" / "out.wav"
    done = run(
        place, "Good morning, everyone.", "--emotion", "warm", "--engine", "espeak",
        "--no-play", "--save", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("said by espeak: ")
    assert done.stdout.rstrip().endswith(f"saved as {out}")
    assert "leaves out voice.speaker and voice.style, set for the kokoro voice" in done.stderr
    with wave.open(str(out)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22050)
        samples = array.array("h", wav.readframes(wav.getnframes()))
    assert len(samples) > 22050 // 2  # more than half a second of speech
    assert max(abs(sample) for sample in samples) > 1000  # not silence


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        (["Hello.", "--emotion", "grumpy"], "--emotion 'grumpy' is not one of neutral, warm"),
        (["x" * 601], "601 characters long"),
        (["   "], "give the words to say"),
    ],
)
def test_words_speak_would_refuse_exit_2_in_the_commands_own_terms_before_any_helper_starts(
    place: dict[str, str], arguments: list[str], refusal: str
) -> None:
    done = run({**place, "ASSIST_VOICES_BLOCK": "espeak"}, *arguments, "--engine", "espeak")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("assist say: nothing was said: ") and refusal in done.stderr
    assert "speak" not in done.stderr.replace("assist say", "")
    assert "`text`" not in done.stderr


def test_a_voice_that_cannot_start_fails_with_exit_1_saying_why(place: dict[str, str]) -> None:
    done = run({**place, "ASSIST_VOICES_BLOCK": "espeak"}, "Hello.", "--engine", "espeak")
    assert done.returncode == 1
    assert "assist say: the line was not said: " in done.stderr
    assert "install assist-voice-espeak" in done.stderr


def test_engine_keeps_the_speaker_only_for_the_engine_the_settings_choose(
    place: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in place.items():
        monkeypatch.setenv(name, value)
    machine = Machine(os.environ)
    same = engine_override(machine, "kokoro")
    assert (same.engine, same.speaker, same.style) == ("kokoro", "af_heart", "calm")
    other = engine_override(machine, "espeak")
    assert (other.engine, other.speaker, other.style) == ("espeak", None, None)
    qwen = engine_override(machine, "qwen3-tts")
    assert (qwen.engine, qwen.speaker, qwen.style) == ("qwen3-tts", None, "calm")
    assert engine_override(machine, "auto").engine is None
    assert engine_override(machine, None) == machine.settings.voice


def test_a_line_played_aloud_waits_for_the_floor_and_gives_up_when_another_voice_keeps_it(
    place: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in place.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(VOICE_COMMAND_VARIABLE, shlex.join(fake("works")))
    monkeypatch.setattr(say, "LOCK_WAIT_S", 0.2)
    monkeypatch.setattr(say, "check_audio", lambda _environ: AudioCheck(None, "mic", "speakers"))
    lock = Path(place["ASSIST_CONFIG"]).parent / "speaking.lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "who": "talk"}))
    assert say_command(["Hello.", "--engine", "kokoro"]) == 1
    assert "another voice kept the floor for 0.2 s" in capsys.readouterr().err
    assert lock.exists()
    lock.unlink()
    assert say_command(["Hello.", "--engine", "kokoro"]) == 0
    assert capsys.readouterr().out.startswith("said by kokoro: 0.05 s of speech")
    assert not lock.exists()  # taken for the line, released after it


def test_without_portaudio_a_line_played_aloud_is_refused_before_any_voice_starts(
    place: dict[str, str],
) -> None:
    done = run({**place, "FAKE_DEVICE": "missing"}, "Hello.", "--engine", "espeak")
    assert done.returncode == 2
    assert done.stderr.startswith("assist say: nothing can be played here: PortAudio, the library")
    assert "install it with `" in done.stderr and "--no-play" in done.stderr
    assert "for the rest of this watch" not in done.stderr  # no fallback was tried


def test_a_fallback_that_fails_too_is_told_as_this_commands_not_a_watchs(
    place: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(place["ASSIST_CONFIG"])
    config.write_text(json.dumps({"voice": {"engine": "kokoro", "fallback": "espeak"}}))
    for name, value in place.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(VOICE_COMMAND_VARIABLE, shlex.join(fake("exits_at_start")))
    assert say_command(["Hello.", "--no-play"]) == 1
    said = capsys.readouterr().err
    assert "switching to the espeak voice for the rest of this command" in said, said
    assert "this watch" not in said
    assert "assist say: the line was not said: " in said
