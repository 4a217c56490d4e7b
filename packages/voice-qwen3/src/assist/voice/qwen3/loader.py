"""Building Qwen3-TTS models from files, as the pinned mlx-audio (0.5.8) does, with two knobs.

mlx-audio's loader (`mlx_audio.utils.base_load_model` and Qwen3-TTS's `post_load_hook`) always
builds the whole model. A voice pack needs the same model with two differences: the speech
tokenizer's encoder left out (it only encodes the reference clip, which the pack stores already
encoded), and weights taken from the pack's own files. This module mirrors those two functions
step by step so the result is the model mlx-audio would build, and only the choices a pack
makes differ. Everything here runs on the engine's MLX thread.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx_audio.tts.models.qwen3_tts import Model, ModelConfig
from mlx_audio.tts.models.qwen3_tts.config import (
    Qwen3TTSTokenizerConfig,
    Qwen3TTSTokenizerDecoderConfig,
    Qwen3TTSTokenizerEncoderConfig,
    filter_dict_for_dataclass,
)
from mlx_audio.tts.models.qwen3_tts.speech_tokenizer import Qwen3TTSSpeechTokenizer
from mlx_audio.utils import apply_quantization

SPEECH_TOKENIZER = "speech_tokenizer"
"""The sub-folder of a Qwen3-TTS snapshot holding the speech tokenizer's config and weights."""


class NoSpeechEncoder:
    """Stands in for the speech encoder a pack leaves out: the reference is encoded already, so
    mlx-audio must never call it. Its presence keeps mlx-audio on the cloning path."""

    def encode(self, audio: Any) -> Any:
        raise RuntimeError(
            "this voice pack has no speech encoder, yet mlx-audio asked to encode a reference "
            "clip; the pack no longer matches the installed mlx-audio, so delete the pack "
            "folder and start again to rebuild it"
        )


def new_model(snapshot: Path) -> tuple[Model, dict[str, Any]]:
    """An empty model of the snapshot's configuration (base_load_model's first steps)."""
    config = json.loads((snapshot / "config.json").read_text(encoding="utf-8"))
    config["model_path"] = str(snapshot)
    return Model(ModelConfig.from_dict(config)), config


def quantise_as_published(model: Model, config: dict[str, Any], weights: dict[str, Any]) -> None:
    """Quantise the layers the published checkpoint has quantised (its config says which)."""
    apply_quantization(model, config, weights, model.model_quant_predicate)


def load_talker(model: Model, weights: dict[str, Any], *, lazy: bool) -> None:
    """Load every weight outside the speech tokenizer (base_load_model's last steps)."""
    model.load_weights(list(weights.items()), strict=True)
    if not lazy:
        mx.eval(model.parameters())
    model.eval()


def attach_text_tokenizer(model: Model, snapshot: Path) -> None:
    from transformers import AutoTokenizer

    model.tokenizer = AutoTokenizer.from_pretrained(str(snapshot))


def new_speech_tokenizer(snapshot: Path, *, with_encoder: bool) -> Qwen3TTSSpeechTokenizer:
    """An empty speech tokenizer of the snapshot's configuration, with or without its encoder."""
    config = json.loads((snapshot / SPEECH_TOKENIZER / "config.json").read_text(encoding="utf-8"))
    decoder = Qwen3TTSTokenizerDecoderConfig(
        **filter_dict_for_dataclass(Qwen3TTSTokenizerDecoderConfig, config["decoder_config"])
    )
    encoder = None
    if with_encoder and "encoder_config" in config:
        encoder = Qwen3TTSTokenizerEncoderConfig(
            **filter_dict_for_dataclass(Qwen3TTSTokenizerEncoderConfig, config["encoder_config"])
        )
    tokenizer_config = Qwen3TTSTokenizerConfig(encoder_config=encoder, decoder_config=decoder)
    for key, value in config.items():
        if key not in ("decoder_config", "encoder_config") and hasattr(tokenizer_config, key):
            setattr(tokenizer_config, key, value)
    return Qwen3TTSSpeechTokenizer(tokenizer_config)


def published_speech_weights(snapshot: Path, *, with_encoder: bool) -> dict[str, Any]:
    """The snapshot's speech-tokenizer weights in mlx-audio's layout."""
    weights: dict[str, Any] = {}
    for path in sorted((snapshot / SPEECH_TOKENIZER).glob("*.safetensors")):
        weights.update(mx.load(str(path)))
    weights = Qwen3TTSSpeechTokenizer.sanitize(weights)
    if not with_encoder:
        weights = {k: v for k, v in weights.items() if not k.startswith("encoder_model.")}
    return weights


def attach_speech_tokenizer(
    model: Model, speech: Qwen3TTSSpeechTokenizer, weights: dict[str, Any]
) -> nn.Module:
    """Load the speech tokenizer and hand it to the model as post_load_hook does; returns the
    decoder module (the model then holds only its compiled form)."""
    if not weights:
        raise ValueError("the speech tokenizer has no weights")
    speech.load_weights(list(weights.items()), strict=False)
    mx.eval(speech.parameters())
    speech.eval()
    if speech.encoder_model is not None:
        quantizer = speech.encoder_model.quantizer
        for layer in [*quantizer.rvq_first.vq.layers, *quantizer.rvq_rest.vq.layers]:
            layer.codebook.update_in_place()
    model.load_speech_tokenizer(speech)
    decoder: nn.Module = speech.decoder
    model.speech_tokenizer.decoder = mx.compile(decoder)
    return decoder


def attach_generation_config(model: Model, snapshot: Path) -> None:
    path = snapshot / "generation_config.json"
    if path.is_file():
        model.load_generate_config(json.loads(path.read_text(encoding="utf-8")))
