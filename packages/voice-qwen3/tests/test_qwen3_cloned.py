"""Designed voices and voice packs (behaviour.md 8.6, 8.7) on tiny random-weight models.

The VoiceDesign, Base (clone) and pack code run for real, offline on MLX's CPU. What they cannot
show here: that the 1.7B model designs a pleasant voice, that the clone sounds like its clip,
and the memory a pack saves; those need a Mac with the real weights (benchmarks/).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mlx.core as mx
import numpy as np
import pytest
import qwen3_tiny_model as tiny
from assist.core.engines import VoiceOptions
from assist.voice.qwen3 import keys
from assist.voice.qwen3.designed import read_voice, write_wav
from assist.voice.qwen3.engine import CLONE_INTERVAL_S, WARM_UP_TEXT, ClonedVoice, build_engine
from assist.voice.qwen3.hub import ModelUnavailable
from assist.voice.qwen3.pack import build_pack, load_pack, pack_folder
from mlx_audio.tts.models.qwen3_tts import Model

CLIP_TEXT = "Hello there, this is the voice I would like you to use."
CLIP_SECONDS = 6
"""Long enough at the tiny models' 250 Hz for the speaker encoder's mel frames."""


@pytest.fixture
def voice_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "voices" / "noise"
    folder.mkdir(parents=True)
    clip = np.random.default_rng(7).normal(0, 0.2, CLIP_SECONDS * tiny.SAMPLE_RATE)
    write_wav(folder / "reference.wav", clip, tiny.SAMPLE_RATE)
    (folder / "voice.json").write_text(json.dumps({"text": CLIP_TEXT}))
    return folder


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def build(cache: Path, **options: Any) -> Any:
    return build_engine(VoiceOptions(cache_root=str(cache), **options))


def packs(cache: Path) -> list[str]:
    return sorted(p.name for p in (cache / "packs").iterdir())


def lines_of(engine: Any, text: str, tone: str, value: int) -> np.ndarray:
    mx.random.seed(value)
    return np.concatenate(list(engine.stream(text, tone)))


def test_a_description_is_designed_once_and_then_cloned_from_its_pack(
    offline_hub: Path, cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(cache, description="A calm, low voice.", cue="Smiling.").close()
    designed = cache / "designed" / keys.design_key("A calm, low voice.", "Smiling.")
    voice = json.loads((designed / "voice.json").read_text())
    assert voice["description"] == "A calm, low voice." and voice["cue"] == "Smiling."
    assert voice["model"] == keys.DESIGN_MODEL and voice["text"] == keys.REFERENCE_TEXT
    assert "designing the voice" in caplog.text
    [pack] = packs(cache)
    assert json.loads((cache / "packs" / pack / "pack.json").read_text())["source"] == str(designed)

    caplog.clear()
    engine = build(cache, description="A calm, low voice.", cue="Smiling.")
    try:
        assert "designing" not in caplog.text
        assert packs(cache) == [pack]
        assert isinstance(engine.voice, ClonedVoice)
        assert engine.voice.reference_text == keys.REFERENCE_TEXT
    finally:
        engine.close()


def test_the_pack_holds_an_8_bit_embedding_an_fp16_decoder_and_the_encoded_clip(
    offline_hub: Path, cache: Path, voice_folder: Path
) -> None:
    build(cache, reference=str(voice_folder)).close()
    folder = pack_folder(cache, keys.CLONE_MODEL, read_voice(voice_folder))
    assert sorted(p.name for p in folder.iterdir()) == [
        "decoder.safetensors",
        "pack.json",
        "reference.safetensors",
        "talker.safetensors",
    ]
    talker = mx.load(str(folder / "talker.safetensors"))
    assert not [name for name in talker if name.startswith("speech_tokenizer.")]
    embedding = "talker.model.text_embedding"
    assert talker[f"{embedding}.weight"].dtype == mx.uint32
    assert talker[f"{embedding}.scales"].shape[-1] == tiny.HIDDEN // keys.EMBED_GROUP_SIZE
    assert talker[f"{embedding}.weight"].shape[-1] == tiny.HIDDEN * keys.EMBED_BITS // 32
    assert any(name.startswith("talker.code_predictor") for name in talker)
    decoder = mx.load(str(folder / "decoder.safetensors"))
    assert decoder and all(name.startswith("decoder.") for name in decoder)
    floats = {value.dtype for value in decoder.values() if mx.issubdtype(value.dtype, mx.floating)}
    assert floats == {mx.float16}
    reference = mx.load(str(folder / "reference.safetensors"))
    assert sorted(reference) == ["codes", "text_ids"]
    assert reference["codes"].shape[:2] == (1, tiny.CODE_GROUPS)
    assert json.loads((folder / "pack.json").read_text()) == keys.pack_manifest(
        keys.CLONE_MODEL, str(voice_folder), CLIP_TEXT, "0.5.8"
    )


def test_a_pack_loads_without_the_speech_encoder_and_speaks_as_the_model_it_was_built_from(
    offline_hub: Path, cache: Path, voice_folder: Path
) -> None:
    from assist.voice.qwen3.hub import fetch

    voice = read_voice(voice_folder)
    snapshot = fetch(keys.CLONE_MODEL)
    folder = pack_folder(cache, keys.CLONE_MODEL, voice)
    built = build_pack(folder, snapshot, keys.CLONE_MODEL, voice)
    loaded, audio = load_pack(folder, snapshot, voice)

    def say(model: Any) -> np.ndarray:
        mx.random.seed(0)
        return np.concatenate(list(ClonedVoice(model, audio, voice.text).chunks("Noted.", "")))

    spoken = say(loaded)
    assert len(spoken) > 0 and np.array_equal(spoken, say(built))
    assert built.speech_tokenizer.encoder_model is not None
    with pytest.raises(RuntimeError, match="no speech encoder"):
        loaded.speech_tokenizer.encode(audio[None, None, :])
    assert not [name for name, _ in _parameters(loaded) if "encoder_model" in name]


def _parameters(model: Any) -> list[tuple[str, Any]]:
    from mlx.utils import tree_flatten

    return list(tree_flatten(model.parameters()))


def test_a_cloned_voice_streams_small_chunks_and_has_no_tones(
    offline_hub: Path, cache: Path, voice_folder: Path
) -> None:
    engine = build(cache, reference=str(voice_folder))
    try:
        assert engine.sample_rate == tiny.SAMPLE_RATE
        mx.random.seed(0)
        chunks = list(engine.stream("Sure, the launch moves to June.", "neutral"))
        step = int(CLONE_INTERVAL_S * 12.5) * tiny.SAMPLES_PER_TOKEN
        assert len(chunks) >= 2 and all(0 < len(chunk) <= step for chunk in chunks)
        assert np.array_equal(
            lines_of(engine, "Noted.", "excited", 0), lines_of(engine, "Noted.", "neutral", 0)
        )
    finally:
        engine.close()


def test_a_reference_folder_wins_over_a_description(
    offline_hub: Path, cache: Path, voice_folder: Path
) -> None:
    engine = build(cache, reference=str(voice_folder), description="A calm, low voice.")
    try:
        assert engine.voice.reference_text == CLIP_TEXT
        assert not (cache / "designed").exists()
    finally:
        engine.close()


def test_a_relative_reference_is_found_from_the_working_folder(
    offline_hub: Path, cache: Path, voice_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(voice_folder.parent.parent)
    engine = build(cache, reference="voices/noise")
    try:
        assert engine.voice.reference_text == CLIP_TEXT
    finally:
        engine.close()


def test_a_loaded_pack_is_warmed_up_with_one_word(
    offline_hub: Path, cache: Path, voice_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spoken: list[str] = []
    real_generate = Model.generate

    def generate(self: Model, text: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        spoken.append(text)
        return real_generate(self, text, *args, **kwargs)

    monkeypatch.setattr(Model, "generate", generate)
    build(cache, reference=str(voice_folder)).close()
    assert spoken == [WARM_UP_TEXT]


def test_a_pack_that_fails_to_load_is_rebuilt_once_with_a_note(
    offline_hub: Path, cache: Path, voice_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(cache, reference=str(voice_folder)).close()
    [pack] = packs(cache)
    (cache / "packs" / pack / "talker.safetensors").write_bytes(b"not a tensor file")
    caplog.clear()
    build(cache, reference=str(voice_folder)).close()
    err = caplog.text
    assert f"the voice pack {cache / 'packs' / pack} could not be loaded" in err
    assert "building it again" in err
    assert packs(cache) == [pack]
    mx.load(str(cache / "packs" / pack / "talker.safetensors"))


def test_a_pack_built_by_another_mlx_audio_is_rebuilt(
    offline_hub: Path, cache: Path, voice_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    build(cache, reference=str(voice_folder)).close()
    [pack] = packs(cache)
    manifest_path = cache / "packs" / pack / "pack.json"
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "mlx_audio": "0.4.0"}))
    build(cache, reference=str(voice_folder)).close()
    assert "built by mlx-audio 0.4.0, and 0.5.8 is installed" in caplog.text
    assert json.loads(manifest_path.read_text())["mlx_audio"] == "0.5.8"


def test_a_pack_version_bump_builds_a_new_pack(
    offline_hub: Path, cache: Path, voice_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(cache, reference=str(voice_folder)).close()
    [old] = packs(cache)
    monkeypatch.setattr(keys, "PACK_VERSION", keys.PACK_VERSION + 1)
    build(cache, reference=str(voice_folder)).close()
    new = next(name for name in packs(cache) if name != old)
    assert json.loads((cache / "packs" / new / "pack.json").read_text())["version"] == 2


def test_a_changed_clip_or_transcript_builds_its_own_pack(
    offline_hub: Path, cache: Path, voice_folder: Path
) -> None:
    first = pack_folder(cache, keys.CLONE_MODEL, read_voice(voice_folder))
    (voice_folder / "voice.json").write_text(json.dumps({"text": CLIP_TEXT + " Thanks."}))
    second = pack_folder(cache, keys.CLONE_MODEL, read_voice(voice_folder))
    other = voice_folder.parent / "other"
    shutil.copytree(voice_folder, other)
    write_wav(other / "reference.wav", np.zeros(CLIP_SECONDS * tiny.SAMPLE_RATE), tiny.SAMPLE_RATE)
    third = pack_folder(cache, keys.CLONE_MODEL, read_voice(other))
    assert len({first, second, third}) == 3


def test_designing_offline_without_the_voicedesign_model_fails_at_once_naming_it(
    offline_hub: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    partial_hub = tmp_path / "hub"
    partial_hub.mkdir()
    for repo in offline_hub.iterdir():
        if "VoiceDesign" not in repo.name:
            (partial_hub / repo.name).symlink_to(repo)
    monkeypatch.setenv("HF_HUB_CACHE", str(partial_hub))
    with pytest.raises(ModelUnavailable, match=keys.DESIGN_MODEL):
        build(cache, description="A calm, low voice.")
    assert not (cache / "designed").exists() or not any((cache / "designed").iterdir())
