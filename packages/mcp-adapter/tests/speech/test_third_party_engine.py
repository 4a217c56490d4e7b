"""A third party's engine takes part exactly as ours do (the open plugin contract).

The test writes a toy distribution, `toy-voice`, the way an installer would lay it out: a module
and a `.dist-info` folder whose `entry_points.txt` registers it in the `assist.voices` group.
Only the public contract is used (`EngineSpec`, `hookimpl`). With that folder on PYTHONPATH,
real `assist` and `assist-voice` processes list the engine, accept it as `voice.engine`, choose
it when it declares itself the best engine for the machine (and not when the machine cannot afford
what it declares), and speak through it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcp_harness import run_assist

HELPER = Path(sys.executable).parent / "assist-voice"
"""The helper's console script, as installed beside the interpreter."""
TOY_RATE = 16000
TOY_HZ = 660
TOY_MODULE = f'''
"""toy-voice: a third-party engine for assist, a {TOY_HZ} Hz tone per sentence."""

from assist.core.engines import EngineSpec, hookimpl
from assist.core.sentences import split_sentences


class ToyEngine:
    name = "toy"
    sample_rate = {TOY_RATE}

    def stream(self, text, tone):
        import numpy as np

        samples = np.arange(self.sample_rate * 3 // 10) / self.sample_rate
        for _sentence in split_sentences(text):
            yield (0.3 * np.sin(2 * np.pi * {TOY_HZ} * samples)).astype(np.float32)

    def close(self):
        pass


@hookimpl
def assist_voice_engines(register):
    register(
        EngineSpec(
            name="toy",
            package="toy-voice",
            build=lambda options: ToyEngine(),
            needs="nothing",
            rank=1000,  # richer than any engine of ours
            auto_memory=AUTO_MEMORY,  # 0: on any machine
            ready_offline=lambda options: True,
        )
    )
'''


def install_toy(site: Path, auto_memory: int = 0) -> Path:
    """Lay the toy distribution out in `site` as an installer would: module plus dist-info."""
    info = site / "toy_voice-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "toy_voice.py").write_text(TOY_MODULE.replace("AUTO_MEMORY", str(auto_memory)))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-voice\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[assist.voices]\ntoy = toy_voice\n")
    return site


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """A folder holding the installed toy distribution, best on any machine."""
    return install_toy(tmp_path / "site")


@pytest.fixture
def place(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config" / "config.json"
    config.parent.mkdir()
    return {
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(tmp_path / "sessions"),
        "ASSIST_VOICE_CACHE": str(tmp_path / "cache"),
    }


def with_toy(place: dict[str, str], toy: Path) -> dict[str, str]:
    return {**place, "PYTHONPATH": str(toy)}


def toy_tone(path: Path) -> float:
    """The loudest frequency in a 16-bit mono WAV, in Hz, checking it is at the toy's rate."""
    with wave.open(str(path), "rb") as recording:
        assert (recording.getframerate(), recording.getnchannels()) == (TOY_RATE, 1)
        frames = recording.readframes(recording.getnframes())
    samples = np.frombuffer(frames, dtype="<i2").astype(np.float64)
    assert samples.size > 0
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.fft.rfftfreq(samples.size, 1 / TOY_RATE)[int(np.argmax(spectrum))])


def test_an_installed_third_party_engine_is_listed_by_assist_engines(place, toy):
    done = run_assist("engines", with_toy(place, toy))
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("  toy ")]
    assert line.split() == ["toy", "toy-voice", "0.1:", "can", "load", "here"]
    without = run_assist("engines", place)
    assert not [line for line in without.stdout.splitlines() if line.startswith("  toy ")]


def test_the_third_party_engine_can_be_configured_as_engine_and_fallback(place, toy):
    config = Path(place["ASSIST_CONFIG"])
    refused = run_assist("config", place, "voice.engine", "toy")
    assert refused.returncode == 2  # a value it cannot set: a usage error
    assert "'toy'" in refused.stderr and "the installed engines are: " in refused.stderr
    assert not config.exists()
    for key in ("voice.engine", "voice.fallback"):
        done = run_assist("config", with_toy(place, toy), key, "toy")
        assert done.returncode == 0, done.stderr
    assert json.loads(config.read_text())["voice"] == {"engine": "toy", "fallback": "toy"}
    shown = run_assist("config", with_toy(place, toy)).stdout.splitlines()
    assert "voice.engine = toy" in shown and "voice.fallback = toy" in shown


def test_sharing_ambients_config_still_refuses_an_engine_ambient_cannot_read(place, toy, tmp_path):
    ambient = tmp_path / "ambient" / "config.json"
    env = {k: v for k, v in with_toy(place, toy).items() if k != "ASSIST_CONFIG"}
    env["AMBIENT_CONFIG"] = str(ambient)
    done = run_assist("config", env, "voice.engine", "toy")
    assert done.returncode == 2
    assert "Ambient could not read its config" in done.stderr
    assert not ambient.exists()


def test_auto_chooses_the_third_party_engine_when_it_declares_itself_best_and_speaks_it(
    place, toy, tmp_path
):
    out = tmp_path / "line.wav"
    done = run_assist("say", with_toy(place, toy), "Hello there.", "--no-play", "--save", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("said by toy: 0.30 s of speech")
    assert toy_tone(out) == pytest.approx(TOY_HZ, abs=5)


def helper_events(env: dict[str, str], *arguments: str, text: str = "One.") -> list[Any]:
    """Start `assist-voice --no-play`, say one line, quit; its events (it must exit 0)."""
    helper = subprocess.run(
        [str(HELPER), *arguments, "--no-play"],
        input=json.dumps({"op": "say", "id": 1, "text": text, "emotion": "warm"}) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert helper.returncode == 0, helper.stderr
    return [json.loads(line) for line in helper.stdout.splitlines()]


def test_the_voice_helper_speaks_through_the_third_party_engine(place, toy, tmp_path):
    saved = tmp_path / "saved"
    arguments = ("--engine", "toy", "--save-dir", str(saved))
    events = helper_events(with_toy(place, toy), *arguments, text="One. Two.")
    assert [event["event"] for event in events] == ["ready", "speaking", "done"]
    assert (events[0]["engine"], events[0]["sample_rate"]) == ("toy", TOY_RATE)
    assert events[2]["audio_s"] == pytest.approx(0.6)
    assert toy_tone(saved / "reply-1.wav") == pytest.approx(TOY_HZ, abs=5)


def test_auto_takes_the_third_party_engine_only_when_the_machine_affords_what_it_declares(
    place, tmp_path
):
    only_ours = {"ASSIST_VOICES": "toy,espeak"}
    best = with_toy(place, install_toy(tmp_path / "best"))
    assert helper_events({**best, **only_ours}, "--engine", "auto")[0]["engine"] == "toy"
    greedy = with_toy(place, install_toy(tmp_path / "greedy", auto_memory=2**60))  # 1 EiB
    assert helper_events({**greedy, **only_ours}, "--engine", "auto")[0]["engine"] == "espeak"
