"""Designed voices: the folder that holds one, finding it, and designing it once (8.6).

A designed voice is a folder with a short reference clip and `voice.json` saying what the clip
says. It is either given (`--reference`, which always wins) or designed from a description
(`--description`, with an optional `--cue`) by the VoiceDesign model, a single time: the folder
is named by `keys.design_key`, so the same description finds its clip again and a changed one
designs afresh. A design is written into `<key>.part` and renamed when complete, so a crash
never leaves a half-written voice that looks finished. The model run itself is passed in
(`Designer`), keeping this module free of MLX; numpy is imported only to write a clip, so
the plugin can look for a designed voice while engines are merely listed.
"""

from __future__ import annotations

import json
import shutil
import wave
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from assist.core.files import VOICE_JSON
from assist.core.settings import reference_candidates, reference_not_found, resolve_reference
from assist.voice.qwen3.keys import DESIGN_MODEL, REFERENCE_TEXT, SEED, design_key

if TYPE_CHECKING:
    import numpy as np

    Designer = Callable[[str], tuple[np.ndarray, int]]
    """Runs the VoiceDesign model on REFERENCE_TEXT with this instruction: (audio, rate)."""

AUDIO_FILE = "reference.wav"
"""The clip's file name when `voice.json` names none."""
DESIGNED = "designed"
"""Designed voices live in `<cache root>/designed/<key>/`."""
SHIPPED_VOICES = Path(__file__).parent / "voices"
"""Designed voices shipped inside this package, for a relative reference (none ship yet)."""
PCM_MAX = 32767


@attrs.frozen
class DesignedVoice:
    """A designed-voice folder: the clip and what it says."""

    folder: Path
    text: str
    audio: Path


def read_voice(folder: Path) -> DesignedVoice:
    """The voice in `folder`; only `text` and `audio` of `voice.json` are needed."""
    path = folder / VOICE_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(
            f"{path} cannot be read as a designed voice ({error}); give a folder holding "
            f"{VOICE_JSON} and its reference clip"
        ) from error
    text = data.get("text") if isinstance(data, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{path} has no `text`: write the reference clip's transcript there")
    audio = folder / str(data.get("audio") or AUDIO_FILE)
    if not audio.is_file():
        raise ValueError(
            f"the designed voice in {folder} names the clip {audio.name}, which is not there; "
            "put the clip beside voice.json or fix its `audio` field"
        )
    return DesignedVoice(folder, text.strip(), audio)


def find_reference(reference: str, working_dir: Path) -> Path:
    """The folder a `--reference` names. An absolute path is used as it is; a relative one is
    looked for in the voices shipped with this package, then from the working folder
    (behaviour.md 2.3; the server resolves the config-file cases before the helper starts)."""
    shipped = str(SHIPPED_VOICES) if SHIPPED_VOICES.is_dir() else None
    path = str(Path(reference).expanduser())
    candidates = reference_candidates(path, None, shipped, str(working_dir))
    found = resolve_reference(candidates, lambda folder: (Path(folder) / VOICE_JSON).is_file())
    if found is None:
        if Path(path).is_absolute():
            raise ValueError(
                f"the designed-voice folder {path} holds no {VOICE_JSON}; give a folder "
                "made by a description (under the voice cache's designed/) or one with "
                f"{VOICE_JSON} and reference.wav"
            )
        raise ValueError(reference_not_found(reference, candidates))
    return Path(found)


def design_instruction(description: str, cue: str | None) -> str:
    """What VoiceDesign is told: the description, then the cue after a space when given."""
    return f"{description} {cue}" if cue else description


def designed_folder(cache_root: Path, description: str, cue: str | None) -> Path:
    """Where the voice designed from `description` and `cue` is kept."""
    return cache_root / DESIGNED / design_key(description, cue)


def designed_voice(
    cache_root: Path, description: str, cue: str | None, design: Designer
) -> DesignedVoice:
    """The voice designed from `description` and `cue`, designing it now if it is new."""
    folder = designed_folder(cache_root, description, cue)
    if (folder / VOICE_JSON).is_file():
        return read_voice(folder)
    audio, sample_rate = design(design_instruction(description, cue))
    partial = folder.with_name(f"{folder.name}.part")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    write_wav(partial / AUDIO_FILE, audio, sample_rate)
    voice = {
        "text": REFERENCE_TEXT,
        "audio": AUDIO_FILE,
        "description": description,
        "cue": cue,
        "model": DESIGN_MODEL,
        "seed": SEED,
    }
    (partial / VOICE_JSON).write_text(json.dumps(voice, indent=2) + "\n", encoding="utf-8")
    if folder.exists():  # another helper designed the same voice meanwhile
        shutil.rmtree(partial)
    else:
        partial.rename(folder)
    return read_voice(folder)


def write_wav(path: Path, audio: np.ndarray, sample_rate: int) -> None:
    """16-bit mono PCM, samples clipped to [-1, 1]."""
    import numpy as np

    samples = np.clip(np.asarray(audio, dtype=np.float64).reshape(-1), -1.0, 1.0)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(np.round(samples * PCM_MAX).astype("<i2").tobytes())
