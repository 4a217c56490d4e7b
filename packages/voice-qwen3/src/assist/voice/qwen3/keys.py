"""The models, and the keys that name a designed voice and a voice pack on disk (8.6, 8.7).

A key is the first 16 hex digits of a SHA-256 over everything that shapes what is stored, so a
changed input leads to a new folder, never to a stale one. These are pure functions: no MLX,
no files.
"""

from __future__ import annotations

import hashlib
import json

PRESET_MODEL = "mlx-community/Qwen3-TTS-12Hz-0.6B-CustomVoice-8bit"
"""Speaks preset voices, with an instruction per mood (behaviour.md 8.4)."""
DESIGN_MODEL = "mlx-community/Qwen3-TTS-12Hz-1.7B-VoiceDesign-bf16"
"""Turns a description into a voice; run once per description, ~5.6 GB at its peak."""
CLONE_MODEL = "mlx-community/Qwen3-TTS-12Hz-0.6B-Base-4bit"
"""Speaks every line of a designed voice by cloning its reference clip."""
SEED = 1234
"""Seeds the design run: the same description gives the same clip."""
REFERENCE_TEXT = (
    "Of course. I can keep that short, and I will say it plainly so everyone can follow."
)
"""What a designed voice's reference clip says: everyday words with a pause and a stress or two,
about five seconds long, so the clone picks up the voice's pace and melody."""
PACK_VERSION = 1
"""Bumped whenever the pack's layout changes; old packs are then left unused."""
EMBED_BITS = 8
"""The text embedding (151,936 x 2048, 622 MB in bf16) is quantised to this many bits."""
EMBED_GROUP_SIZE = 64
"""The quantisation group size, as mlx-audio uses for the rest of the model."""
KEY_DIGITS = 16


def design_key(description: str, cue: str | None) -> str:
    """The folder name of the voice designed from `description` and `cue`."""
    inputs = json.dumps([DESIGN_MODEL, description, cue or "", REFERENCE_TEXT, SEED])
    return hashlib.sha256(inputs.encode("utf-8")).hexdigest()[:KEY_DIGITS]


def pack_key(model: str, reference_text: str, reference_audio: bytes) -> str:
    """The folder name of the pack cloning this reference clip with `model`."""
    digest = hashlib.sha256(
        json.dumps([PACK_VERSION, EMBED_BITS, model, reference_text]).encode("utf-8")
    )
    digest.update(reference_audio)
    return digest.hexdigest()[:KEY_DIGITS]


def pack_manifest(
    model: str, source: str, reference_text: str, mlx_audio: str
) -> dict[str, object]:
    """`pack.json`: what the pack was built from and by (`source` is the reference folder)."""
    return {
        "version": PACK_VERSION,
        "model": model,
        "source": source,
        "embed_bits": EMBED_BITS,
        "reference_text": reference_text,
        "mlx_audio": mlx_audio,
    }
