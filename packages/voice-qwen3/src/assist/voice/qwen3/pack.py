"""The voice pack: a designed voice's clone model, shrunk once and stored for later starts (8.7).

The published 0.6B clone model peaks at 2.8 GB while loading; most of that is the bf16 text
embedding and the fp32 speech tokenizer. The first start with a voice therefore loads the
model lazily, quantises the text embedding to `keys.EMBED_BITS` (group size 64), casts the
speech decoder to fp16, encodes the reference clip once, and writes `<cache root>/packs/<key>/`:

- `talker.safetensors`: every parameter outside the speech tokenizer;
- `decoder.safetensors`: the speech tokenizer's decoder;
- `reference.safetensors`: the clip's `codes` and `text_ids`, as mlx-audio computes them;
- `pack.json`: version, model, source folder, embedding bits, reference text, mlx-audio version.

Later starts build the model straight from the pack, without the speech encoder (its only job,
encoding the clip, is done) and with mlx-audio's in-context reference cache seeded with the
stored codes. A pack that fails to load (including one built by another mlx-audio version) is
rebuilt once, with a note on stderr. The key (`keys.pack_key`) covers the model, the clip and
its text and `keys.PACK_VERSION`, so a changed input never meets an old pack.
"""

from __future__ import annotations

import json
import logging
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from assist.voice.qwen3 import keys
from assist.voice.qwen3.designed import DesignedVoice

PACKS = "packs"
"""Packs live in `<cache root>/packs/<key>/`."""
TALKER = "talker.safetensors"
DECODER = "decoder.safetensors"
REFERENCE = "reference.safetensors"
MANIFEST = "pack.json"
SPEECH_PREFIX = "speech_tokenizer."
log = logging.getLogger("assist.voice.qwen3")
"""This engine's logger; the voice helper writes its records on stderr as `assist-voice: ...`."""


class PackMismatch(ValueError):
    """A pack built for another layout or by another mlx-audio version."""


def pack_folder(cache_root: Path, model_id: str, voice: DesignedVoice) -> Path:
    return cache_root / PACKS / keys.pack_key(model_id, voice.text, voice.audio.read_bytes())


def mlx_audio_version() -> str:
    return metadata.version("mlx-audio")


def open_pack(
    cache_root: Path, snapshot: Path, model_id: str, voice: DesignedVoice
) -> tuple[Any, Any]:
    """The clone model for `voice` and its clip as mlx-audio reads it, from the pack, building
    (or once rebuilding) the pack first when needed."""
    folder = pack_folder(cache_root, model_id, voice)
    if (folder / MANIFEST).is_file():
        try:
            return load_pack(folder, snapshot, voice)
        except Exception as error:
            log.warning(
                f"the voice pack {folder} could not be loaded "
                f"({type(error).__name__}: {error}); building it again",
            )
            shutil.rmtree(folder, ignore_errors=True)
    build_pack(folder, snapshot, model_id, voice)
    return load_pack(folder, snapshot, voice)


def build_pack(folder: Path, snapshot: Path, model_id: str, voice: DesignedVoice) -> Any:
    """Shrink the published clone model for `voice` and write its pack; returns the shrunk
    model as built (with its encoder), for comparison in tests."""
    import mlx.core as mx
    from assist.voice.qwen3 import loader
    from mlx.utils import tree_flatten
    from mlx_audio.utils import load_audio, load_weights

    model, config = loader.new_model(snapshot)
    weights = model.sanitize(load_weights(snapshot))
    loader.quantise_as_published(model, config, weights)
    loader.load_talker(model, weights, lazy=True)
    del weights
    embedding = model.talker.model.text_embedding
    model.talker.model.text_embedding = embedding.to_quantized(
        group_size=keys.EMBED_GROUP_SIZE, bits=keys.EMBED_BITS
    )
    loader.attach_text_tokenizer(model, snapshot)
    speech = loader.new_speech_tokenizer(snapshot, with_encoder=True)
    speech_weights = loader.published_speech_weights(snapshot, with_encoder=True)
    decoder = loader.attach_speech_tokenizer(model, speech, speech_weights)
    decoder.set_dtype(mx.float16)
    loader.attach_generation_config(model, snapshot)

    audio = load_audio(str(voice.audio), sample_rate=model.sample_rate)
    model._prepare_icl_generation_inputs(text=".", ref_audio=audio, ref_text=voice.text)
    codes, text_ids = model._icl_cache[reference_key(voice.text, audio)]

    partial = folder.with_name(f"{folder.name}.part")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    talker = {
        name: value
        for name, value in tree_flatten(model.parameters())
        if not name.startswith(SPEECH_PREFIX)
    }
    mx.save_safetensors(str(partial / TALKER), talker)
    decoder_weights = tree_flatten(decoder.parameters())
    mx.save_safetensors(str(partial / DECODER), {f"decoder.{k}": v for k, v in decoder_weights})
    mx.save_safetensors(str(partial / REFERENCE), {"codes": codes, "text_ids": text_ids})
    manifest = keys.pack_manifest(model_id, str(voice.folder), voice.text, mlx_audio_version())
    (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return model


def load_pack(folder: Path, snapshot: Path, voice: DesignedVoice) -> tuple[Any, Any]:
    """The clone model from its pack (no speech encoder, reference cache seeded) and the clip
    to pass to mlx-audio with each line."""
    import mlx.core as mx
    from assist.voice.qwen3 import loader
    from mlx_audio.utils import load_audio

    check_manifest(json.loads((folder / MANIFEST).read_text(encoding="utf-8")))
    model, config = loader.new_model(snapshot)
    talker = mx.load(str(folder / TALKER))
    loader.quantise_as_published(model, config, talker)
    embedding = model.talker.model.text_embedding
    model.talker.model.text_embedding = embedding.to_quantized(
        group_size=keys.EMBED_GROUP_SIZE, bits=keys.EMBED_BITS
    )
    loader.load_talker(model, talker, lazy=False)
    loader.attach_text_tokenizer(model, snapshot)
    speech = loader.new_speech_tokenizer(snapshot, with_encoder=False)
    loader.attach_speech_tokenizer(model, speech, mx.load(str(folder / DECODER)))
    model.speech_tokenizer.encoder_model = loader.NoSpeechEncoder()
    loader.attach_generation_config(model, snapshot)

    audio = load_audio(str(voice.audio), sample_rate=model.sample_rate)
    reference = mx.load(str(folder / REFERENCE))
    model._icl_cache[reference_key(voice.text, audio)] = (reference["codes"], reference["text_ids"])
    return model, audio


def check_manifest(manifest: dict[str, Any]) -> None:
    """Refuse a pack of another layout or built by another mlx-audio version."""
    layout = (manifest.get("version"), manifest.get("embed_bits"))
    if layout != (keys.PACK_VERSION, keys.EMBED_BITS):
        raise PackMismatch(
            f"the pack has layout {layout[0]} with {layout[1]}-bit embeddings; this engine "
            f"uses layout {keys.PACK_VERSION} with {keys.EMBED_BITS}-bit embeddings"
        )
    if manifest.get("mlx_audio") != mlx_audio_version():
        raise PackMismatch(
            f"the pack was built by mlx-audio {manifest.get('mlx_audio')}, "
            f"and {mlx_audio_version()} is installed"
        )


def reference_key(text: str, audio: Any) -> tuple[str, tuple[int, float]]:
    """mlx-audio 0.5.8's key for its in-context reference cache: the text and a fingerprint
    of the clip's samples (see `Model._prepare_icl_generation_inputs`)."""
    return (text, (audio.size, float(audio.sum())))
