"""Designed-voice folders (behaviour.md 8.6): their format, finding them, designing them once.

The designing model run is a fake here (it only returns audio); the engine tests run the real
one on a tiny VoiceDesign model.
"""

from __future__ import annotations

import json
import wave
from pathlib import Path

import numpy as np
import pytest
from assist.voice.qwen3 import designed
from assist.voice.qwen3.keys import DESIGN_MODEL, REFERENCE_TEXT, SEED, design_key


def write_voice(folder: Path, data: dict[str, object], clip: str = "reference.wav") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "voice.json").write_text(json.dumps(data))
    designed.write_wav(folder / clip, np.zeros(100), 24000)
    return folder


class FakeDesigner:
    """Stands in for the VoiceDesign run: returns a short tone and counts its calls."""

    def __init__(self) -> None:
        self.instructions: list[str] = []

    def __call__(self, instruction: str) -> tuple[np.ndarray, int]:
        self.instructions.append(instruction)
        return np.sin(np.arange(2400) / 10).astype(np.float32) * 2.0, 24000


def test_a_voice_folder_needs_only_text_and_takes_reference_wav_by_default(tmp_path: Path) -> None:
    folder = write_voice(tmp_path / "v", {"text": " Hello there. "})
    voice = designed.read_voice(folder)
    assert voice.text == "Hello there."
    assert voice.audio == folder / "reference.wav"


def test_a_voice_folder_may_name_its_clip(tmp_path: Path) -> None:
    folder = write_voice(tmp_path / "v", {"text": "Hi.", "audio": "clip.wav"}, clip="clip.wav")
    assert designed.read_voice(folder).audio == folder / "clip.wav"


@pytest.mark.parametrize(
    ("data", "message"),
    [({"audio": "reference.wav"}, "no `text`"), ({"text": "Hi.", "audio": "gone.wav"}, "gone.wav")],
)
def test_a_voice_folder_without_its_text_or_clip_is_refused_saying_what_to_fix(
    tmp_path: Path, data: dict[str, object], message: str
) -> None:
    folder = write_voice(tmp_path / "v", data)
    with pytest.raises(ValueError, match=message):
        designed.read_voice(folder)


def test_an_absolute_reference_is_used_as_it_is(tmp_path: Path) -> None:
    folder = write_voice(tmp_path / "voices" / "gravel", {"text": "Hi."})
    assert designed.find_reference(str(folder), tmp_path / "elsewhere") == folder


def test_a_relative_reference_is_found_from_the_working_folder(tmp_path: Path) -> None:
    folder = write_voice(tmp_path / "voices" / "gravel", {"text": "Hi."})
    assert designed.find_reference("voices/gravel", tmp_path) == folder


def test_a_relative_reference_that_is_nowhere_names_the_places_looked_in(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"voices/nothing.*voice\.json") as error:
        designed.find_reference("voices/nothing", tmp_path)
    assert str(tmp_path / "voices" / "nothing") in str(error.value)


def test_an_absolute_folder_without_voice_json_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"holds no voice\.json"):
        designed.find_reference(str(tmp_path), tmp_path)


def test_a_description_is_designed_once_into_its_keyed_folder(tmp_path: Path) -> None:
    designer = FakeDesigner()
    voice = designed.designed_voice(tmp_path, "A gravelly baritone.", "Dry humour.", designer)
    again = designed.designed_voice(tmp_path, "A gravelly baritone.", "Dry humour.", designer)
    assert designer.instructions == ["A gravelly baritone. Dry humour."]
    folder = tmp_path / "designed" / design_key("A gravelly baritone.", "Dry humour.")
    assert voice == again
    assert voice.folder == folder and voice.text == REFERENCE_TEXT
    assert sorted(p.name for p in folder.parent.iterdir()) == [folder.name]


def test_the_designed_folder_holds_voice_json_and_a_16_bit_mono_clip(tmp_path: Path) -> None:
    voice = designed.designed_voice(tmp_path, "A gravelly baritone.", None, FakeDesigner())
    text = (voice.folder / "voice.json").read_text()
    assert text.endswith("}\n") and '\n  "text": ' in text
    assert json.loads(text) == {
        "text": REFERENCE_TEXT,
        "audio": "reference.wav",
        "description": "A gravelly baritone.",
        "cue": None,
        "model": DESIGN_MODEL,
        "seed": SEED,
    }
    with wave.open(str(voice.audio)) as clip:
        assert (clip.getnchannels(), clip.getsampwidth(), clip.getframerate()) == (1, 2, 24000)
        samples = np.frombuffer(clip.readframes(clip.getnframes()), dtype="<i2")
    assert len(samples) == 2400 and samples.max() == 32767, "samples are clipped to [-1, 1]"


def test_a_changed_cue_designs_a_fresh_voice(tmp_path: Path) -> None:
    designer = FakeDesigner()
    first = designed.designed_voice(tmp_path, "A gravelly baritone.", "Dry.", designer)
    second = designed.designed_voice(tmp_path, "A gravelly baritone.", "Warm.", designer)
    assert first.folder != second.folder
    assert len(designer.instructions) == 2


def test_a_design_left_half_written_by_a_crash_is_designed_again(tmp_path: Path) -> None:
    key = design_key("A gravelly baritone.", None)
    stale = tmp_path / "designed" / f"{key}.part"
    stale.mkdir(parents=True)
    (stale / "reference.wav").write_bytes(b"half")
    designer = FakeDesigner()
    voice = designed.designed_voice(tmp_path, "A gravelly baritone.", None, designer)
    assert designer.instructions and not stale.exists()
    assert voice.folder.name == key


def test_a_failed_design_leaves_no_voice_that_looks_finished(tmp_path: Path) -> None:
    def failing(instruction: str) -> tuple[np.ndarray, int]:
        raise RuntimeError("out of memory")

    with pytest.raises(RuntimeError, match="out of memory"):
        designed.designed_voice(tmp_path, "A gravelly baritone.", None, failing)
    assert not (tmp_path / "designed" / design_key("A gravelly baritone.", None)).exists()
