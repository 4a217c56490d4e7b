"""Tiny random-weight Qwen3-TTS models, saved where the engine's loader looks for the real ones.

The real models come only from the Hugging Face hub, which tests never reach. These are built
with mlx-audio's own model and config classes (as mlx-audio's test-suite does), with every size
shrunk, quantised as the published ones are, and written as a hub-cache snapshot under the real
model id: `config.json`, `model.safetensors`, a text tokenizer with the chat-template tokens, and
`speech_tokenizer/` with its own config and weights. The engine then runs its real path on them,
offline, on the CPU. The speech is noise, but it has the shape of speech:

- **Lines end when their text does.** A random model almost never samples the end-of-speech
  code, so every line would run to mlx-audio's 4096-token limit. A few weights are therefore set
  by hand: hidden dimension 0 carries only the text side's "end of text" and "padding" marks,
  and the codec head reads the end-of-speech code from that dimension alone. A preset-voice line
  then stops at its end-of-text mark, one codec token per text token, and a cloned line (whose
  steps see only padding) stops at random, after about 30 tokens on average; tests seed it.
- **About as much audio per character as speech.** The text tokenizer is byte-level with every
  pair of lower-case letters merged, about 1.6 characters a token: 12.5 tokens a second then
  make ~0.05 s of audio per character (people speak at ~0.07).
- **The real codec layout.** 2048 codes, the special codes from 2148 up, a 3072-entry codec
  vocabulary (generation suppresses its top 1024 entries), 12.5 tokens a second.

Sizes are small but not arbitrary. mlx's CPU convolutions run at a few GFLOP/s, so the decoder's
last stage would cost seconds per second of audio at 24 kHz: these models declare `SAMPLE_RATE`
instead. mlx-audio guesses from each convolution weight's shape whether it is still in
PyTorch's layout, and a 1-wide convolution with 64 or fewer inputs looks like one; every such
convolution here has more than 64 inputs, and `build` checks that the loader's guess leaves every
written weight as it was. Quantised layers need inputs in multiples of the group size (64).
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten, tree_unflatten

SAMPLE_RATE = 250
"""Declared by the tiny models (24000 in the real ones): a line decodes faster than it plays."""
SAMPLES_PER_TOKEN = 20
"""SAMPLE_RATE / 12.5 tokens a second (1920 in the real models)."""
CODE_GROUPS = 4
"""Codebooks per frame (16 in the real models): fewer code-predictor steps per token."""
HIDDEN = 64
"""Talker width: the smallest that the 4- and 8-bit layers (group size 64) can quantise."""
TEXT_SPECIALS = ("<|im_start|>", "<|im_end|>", "<tts_bos>", "<tts_eos>", "<tts_pad>")
SPEAKERS = {"vivian": 3000, "ryan": 3001}
ENGLISH = 2050
EOS_CODE = 2150
"""mlx-audio's default `codec_eos_token_id`, as in the real configs."""
END_MARK = 20.0
"""Dimension 0 of the end-of-text mark's embedding: end-of-speech becomes certain."""
PAD_MARK = 0.1
"""Dimension 0 of the padding mark's embedding: end-of-speech after ~30 tokens on average."""
OTHER_MARK = -6.0
"""Dimension 0 of every other text embedding: silu(-6) is about 0, no end-of-speech."""
EOS_GAIN = 10.0
"""The codec head's weight from dimension 0 to the end-of-speech code."""
BITS = {"custom_voice": 8, "base": 4}
"""Quantisation of the published preset (8-bit) and clone (4-bit) models. The VoiceDesign model
is published in bf16; its tiny stand-in stays in float32, which mlx runs far faster on a CPU."""
COMMIT = "0123456789abcdef0123456789abcdef01234567"
"""The snapshot's made-up revision: the hub cache needs one to resolve `main`."""


def _layer(hidden: int, intermediate: int) -> dict[str, Any]:
    return {
        "hidden_size": hidden,
        "intermediate_size": intermediate,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": hidden // 2,
        "num_code_groups": CODE_GROUPS,
    }


def model_config(kind: str, text_vocab: int, special_ids: dict[str, int]) -> dict[str, Any]:
    """`kind` is mlx-audio's `tts_model_type`: custom_voice, base or voice_design."""
    config: dict[str, Any] = {
        "model_type": "qwen3_tts",
        "tts_model_type": kind,
        "tts_model_size": "0b6" if kind != "voice_design" else "1b7",
        "talker_config": {
            **_layer(HIDDEN, 2 * HIDDEN),
            "vocab_size": 3072,
            "max_position_embeddings": 8192,
            "rope_scaling": {
                "interleaved": True,
                "mrope_section": [8, 4, 4],
                "rope_type": "default",
            },
            "text_hidden_size": HIDDEN,
            "text_vocab_size": text_vocab,
            "codec_eos_token_id": EOS_CODE,
            "codec_language_id": {"english": ENGLISH},
            "spk_id": SPEAKERS,
            "spk_is_dialect": {},
            "code_predictor_config": {**_layer(HIDDEN, 2 * HIDDEN), "vocab_size": 2048},
        },
        "speaker_encoder_config": {
            "mel_dim": 128,
            "enc_dim": HIDDEN,
            "enc_channels": [72, 72, 72, 72, 216],
            "enc_attention_channels": 72,
            "enc_res2net_scale": 8,
            "enc_se_channels": 72,
        },
        "im_start_token_id": special_ids["<|im_start|>"],
        "im_end_token_id": special_ids["<|im_end|>"],
        "tts_bos_token_id": special_ids["<tts_bos>"],
        "tts_eos_token_id": special_ids["<tts_eos>"],
        "tts_pad_token_id": special_ids["<tts_pad>"],
        "sample_rate": SAMPLE_RATE,
    }
    if kind in BITS:
        config["quantization"] = {"group_size": 64, "bits": BITS[kind]}
    return config


def speech_tokenizer_config(with_encoder: bool) -> dict[str, Any]:
    config: dict[str, Any] = {
        "decoder_config": {
            "latent_dim": 72,
            "codebook_dim": 144,
            "codebook_size": 2048,
            "decoder_dim": 130,
            "hidden_size": 32,
            "intermediate_size": 64,
            "head_dim": 16,
            "num_attention_heads": 2,
            "num_key_value_heads": 2,
            "num_hidden_layers": 1,
            "num_quantizers": CODE_GROUPS,
            "num_semantic_quantizers": 1,
            "sliding_window": 72,
            "upsample_rates": [SAMPLES_PER_TOKEN // 4],
            "upsampling_ratios": [2, 2],
        },
        "input_sample_rate": SAMPLE_RATE,
        "output_sample_rate": SAMPLE_RATE,
        "decode_upsample_rate": SAMPLES_PER_TOKEN,
        "encode_downsample_rate": SAMPLES_PER_TOKEN,
    }
    if with_encoder:
        config["encoder_config"] = {
            "frame_rate": 12.5,
            "codebook_dim": 72,
            "codebook_size": 2048,
            "compress": 1,
            "head_dim": 36,
            "hidden_size": 72,
            "intermediate_size": 144,
            "num_attention_heads": 2,
            "num_key_value_heads": 2,
            "num_filters": 72,
            "num_hidden_layers": 1,
            "num_quantizers": CODE_GROUPS,
            "sampling_rate": SAMPLE_RATE,
            "upsampling_ratios": [2, 5],
        }
    return config


def write_text_tokenizer(folder: Path) -> dict[str, int]:
    """A byte-level tokenizer that merges pairs of lower-case letters; returns the special ids."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {c: i for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    merges = [(a, b) for a in string.ascii_lowercase for b in string.ascii_lowercase]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens(list(TEXT_SPECIALS))
    PreTrainedTokenizerFast(tokenizer_object=tokenizer).save_pretrained(str(folder))
    return {name: tokenizer.token_to_id(name) for name in TEXT_SPECIALS}


def _randomised(module: nn.Module, seed: int) -> None:
    """Give the parameters mlx initialises to constants (codebooks, snake) random values."""
    rng = np.random.default_rng(seed)
    fresh = []
    for name, value in tree_flatten(module.parameters()):
        if name.endswith("cluster_usage"):
            fresh.append((name, mx.ones(value.shape)))
        elif name.endswith(("embedding_sum", "embed.weight", ".alpha", ".beta")):
            fresh.append((name, mx.array(rng.normal(0, 0.5, value.shape).astype(np.float32))))
    module.update(tree_unflatten(fresh))


def _end_lines_with_their_text(model: Any, special_ids: dict[str, int]) -> None:
    """Route the end-of-text and padding marks to the end-of-speech code (see the docstring)."""
    talker = model.talker
    text = np.array(talker.model.text_embedding.weight)
    text[:, 0] = OTHER_MARK
    text[special_ids["<tts_eos>"], 0] = END_MARK
    text[special_ids["<tts_pad>"], 0] = PAD_MARK
    talker.model.text_embedding.weight = mx.array(text)
    for linear in (talker.text_projection.linear_fc1, talker.text_projection.linear_fc2):
        weight = np.array(linear.weight)
        weight[0, :], weight[:, 0], weight[0, 0] = 0.0, 0.0, 1.0
        linear.weight = mx.array(weight)
        bias = np.array(linear.bias)
        bias[0] = 0.0
        linear.bias = mx.array(bias)
    for layer in talker.model.layers:
        for linear in (layer.self_attn.o_proj, layer.mlp.down_proj):
            weight = np.array(linear.weight)
            weight[0, :] = 0.0
            linear.weight = mx.array(weight)
    embeddings = [talker.model.codec_embedding, *talker.code_predictor.model.codec_embedding]
    for embedding in embeddings:
        weight = np.array(embedding.weight)
        weight[:, 0] = 0.0
        embedding.weight = mx.array(weight)
    head = np.array(talker.codec_head.weight)
    head[:, 0] = 0.0
    head[EOS_CODE, :] = 0.0
    head[EOS_CODE, 0] = EOS_GAIN
    talker.codec_head.weight = mx.array(head)


def build(hub_cache: Path, repo_id: str, kind: str, seed: int = 0) -> Path:
    """Write a tiny model of `kind` as the hub-cache snapshot of `repo_id`; returns its folder."""
    from mlx_audio.tts.models.qwen3_tts import Model, ModelConfig
    from mlx_audio.tts.models.qwen3_tts.speech_tokenizer import Qwen3TTSSpeechTokenizer

    mx.random.seed(seed)
    repo = hub_cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / COMMIT
    (snapshot / "speech_tokenizer").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)

    special_ids = write_text_tokenizer(snapshot)
    text_vocab = max(special_ids.values()) + 1
    config = model_config(kind, text_vocab, special_ids)
    (snapshot / "config.json").write_text(json.dumps(config))
    model = Model(ModelConfig.from_dict(config))
    _randomised(model, seed)
    _end_lines_with_their_text(model, special_ids)
    if kind in BITS:
        nn.quantize(
            model,
            group_size=64,
            bits=BITS[kind],
            class_predicate=lambda path, module: (
                hasattr(module, "to_quantized")
                and module.weight.shape[-1] % 64 == 0
                and model.model_quant_predicate(path, module)
            ),
        )
    weights = dict(tree_flatten(model.parameters()))
    mx.save_safetensors(str(snapshot / "model.safetensors"), weights)

    tokenizer_config = speech_tokenizer_config(with_encoder=kind == "base")
    (snapshot / "speech_tokenizer" / "config.json").write_text(json.dumps(tokenizer_config))
    speech = Qwen3TTSSpeechTokenizer(_tokenizer_config(tokenizer_config))
    _randomised(speech, seed + 1)
    speech_weights = dict(tree_flatten(speech.parameters()))
    mx.save_safetensors(str(snapshot / "speech_tokenizer" / "model.safetensors"), speech_weights)

    _check_layout(model.sanitize(weights), weights)
    _check_layout(Qwen3TTSSpeechTokenizer.sanitize(speech_weights), speech_weights)
    return snapshot


def _tokenizer_config(config: dict[str, Any]) -> Any:
    from mlx_audio.tts.models.qwen3_tts.config import (
        Qwen3TTSTokenizerConfig,
        Qwen3TTSTokenizerDecoderConfig,
        Qwen3TTSTokenizerEncoderConfig,
    )

    encoder = config.get("encoder_config")
    return Qwen3TTSTokenizerConfig(
        decoder_config=Qwen3TTSTokenizerDecoderConfig(**config["decoder_config"]),
        encoder_config=Qwen3TTSTokenizerEncoderConfig(**encoder) if encoder else None,
        decode_upsample_rate=config["decode_upsample_rate"],
        encode_downsample_rate=config["encode_downsample_rate"],
        input_sample_rate=config["input_sample_rate"],
        output_sample_rate=config["output_sample_rate"],
    )


def _check_layout(loaded: dict[str, mx.array], written: dict[str, mx.array]) -> None:
    """mlx-audio's layout guess must leave every written weight as it is."""
    moved = [name for name, value in written.items() if loaded[name].shape != value.shape]
    assert not moved, f"mlx-audio would transpose {moved}; widen those layers"
