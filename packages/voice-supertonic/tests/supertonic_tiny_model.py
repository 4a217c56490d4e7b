"""A tiny stand-in for Supertonic 3's files, laid out where the supertonic package reads them.

The real model comes only from the Hugging Face hub. This one has the same file layout
(`onnx/tts.json`, `onnx/unicode_indexer.json`, four ONNX graphs, `voice_styles/*.json`) and
graphs with the input and output names, element types and ranks that supertonic 1.3.1 feeds
and reads (see `supertonic/core.py`), built with the `onnx` helper API. The arithmetic inside is
simple but keeps the data flow honest: the duration predictor makes each character last
`SECONDS_PER_CHARACTER`, the text encoder looks characters up in a table, the estimator mixes
the text into the latent, and the vocoder turns each latent frame into a chunk of samples.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SAMPLE_RATE = 44100
BASE_CHUNK = 512
COMPRESS = 6
LATENT = 24
CHUNK = BASE_CHUNK * COMPRESS
"""Samples per latent frame: the vocoder's output for one frame."""
CHANNELS = LATENT * COMPRESS
SECONDS_PER_CHARACTER = 0.06
"""About the pace of speech; a line lasts its length in characters times this."""
TEXT_CHANNELS = 8
STYLE_TTL = (1, 4, 8)
STYLE_DP = (1, 2, 4)
INDEXER_SIZE = 0x3000
"""Code points the indexer covers (the real one covers more)."""
UNSAYABLE = "€"
"""A character the tiny model cannot say (its indexer entry is -1)."""
VOICES = ("F1", "F2", "M1")
OPSET = [helper.make_opsetid("", 17)]


def _value(name: str, element: int, shape: list[str | int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, element, shape)


def _save(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: list[onnx.TensorProto],
) -> None:
    graph = helper.make_graph(nodes, path.stem, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=OPSET)
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _constant(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def _text_inputs(style: str, dims: tuple[int, ...]) -> list[onnx.ValueInfoProto]:
    return [
        _value("text_ids", TensorProto.INT64, ["batch", "text"]),
        _value(style, TensorProto.FLOAT, list(dims)),
        _value("text_mask", TensorProto.FLOAT, ["batch", 1, "text"]),
    ]


def _zero_times_sum(name: str, out: str) -> list[onnx.NodeProto]:
    """Nodes giving `out` = 0 * sum(name), so every input is really read by the graph."""
    return [
        helper.make_node("ReduceSum", [name], [f"{out}_sum"], keepdims=0),
        helper.make_node("Mul", [f"{out}_sum", "zero"], [out]),
    ]


def duration_predictor(path: Path) -> None:
    nodes = [
        helper.make_node("ReduceSum", ["text_mask", "axes_12"], ["characters"], keepdims=0),
        helper.make_node("Mul", ["characters", "pace"], ["seconds"]),
        helper.make_node("Cast", ["text_ids"], ["ids_float"], to=TensorProto.FLOAT),
        *_zero_times_sum("ids_float", "ids_zero"),
        *_zero_times_sum("style_dp", "style_zero"),
        helper.make_node("Add", ["seconds", "ids_zero"], ["with_ids"]),
        helper.make_node("Add", ["with_ids", "style_zero"], ["duration"]),
    ]
    constants = [
        _constant("axes_12", np.array([1, 2], dtype=np.int64)),
        _constant("pace", np.array(SECONDS_PER_CHARACTER, dtype=np.float32)),
        _constant("zero", np.array(0.0, dtype=np.float32)),
    ]
    outputs = [_value("duration", TensorProto.FLOAT, ["batch"])]
    _save(path, nodes, _text_inputs("style_dp", STYLE_DP), outputs, constants)


def text_encoder(path: Path, rng: np.random.Generator) -> None:
    table = rng.normal(0, 1, (256, TEXT_CHANNELS)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "text_ids"], ["looked_up"]),
        helper.make_node("Transpose", ["looked_up"], ["channels_first"], perm=[0, 2, 1]),
        helper.make_node("Mul", ["channels_first", "text_mask"], ["masked"]),
        *_zero_times_sum("style_ttl", "style_zero"),
        helper.make_node("Add", ["masked", "style_zero"], ["text_emb"]),
    ]
    constants = [_constant("table", table), _constant("zero", np.array(0.0, dtype=np.float32))]
    outputs = [_value("text_emb", TensorProto.FLOAT, ["batch", TEXT_CHANNELS, "text"])]
    _save(path, nodes, _text_inputs("style_ttl", STYLE_TTL), outputs, constants)


def vector_estimator(path: Path) -> None:
    inputs = [
        _value("noisy_latent", TensorProto.FLOAT, ["batch", CHANNELS, "latent"]),
        _value("text_emb", TensorProto.FLOAT, ["batch", TEXT_CHANNELS, "text"]),
        _value("style_ttl", TensorProto.FLOAT, list(STYLE_TTL)),
        _value("text_mask", TensorProto.FLOAT, ["batch", 1, "text"]),
        _value("latent_mask", TensorProto.FLOAT, ["batch", 1, "latent"]),
        _value("current_step", TensorProto.FLOAT, ["batch"]),
        _value("total_step", TensorProto.FLOAT, ["batch"]),
    ]
    nodes = [
        helper.make_node("Mul", ["noisy_latent", "half"], ["kept"]),
        helper.make_node("ReduceMean", ["text_emb"], ["text_level"], axes=[1, 2], keepdims=1),
        helper.make_node("Add", ["kept", "text_level"], ["mixed"]),
        helper.make_node("Mul", ["mixed", "latent_mask"], ["masked"]),
        *_zero_times_sum("style_ttl", "style_zero"),
        *_zero_times_sum("text_mask", "mask_zero"),
        helper.make_node("Div", ["current_step", "total_step"], ["progress"]),
        *_zero_times_sum("progress", "progress_zero"),
        helper.make_node("Add", ["masked", "style_zero"], ["plus_style"]),
        helper.make_node("Add", ["plus_style", "mask_zero"], ["plus_mask"]),
        helper.make_node("Add", ["plus_mask", "progress_zero"], ["denoised_latent"]),
    ]
    constants = [
        _constant("half", np.array(0.5, dtype=np.float32)),
        _constant("zero", np.array(0.0, dtype=np.float32)),
    ]
    outputs = [_value("denoised_latent", TensorProto.FLOAT, ["batch", CHANNELS, "latent"])]
    _save(path, nodes, inputs, outputs, constants)


def vocoder(path: Path, rng: np.random.Generator) -> None:
    weights = rng.normal(0, 0.3, (CHANNELS, CHUNK)).astype(np.float32)
    nodes = [
        helper.make_node("Transpose", ["latent"], ["frames"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["frames", "weights"], ["samples"]),
        helper.make_node("Tanh", ["samples"], ["bounded"]),
        helper.make_node("Reshape", ["bounded", "flat"], ["wav_tts"]),
    ]
    constants = [_constant("weights", weights), _constant("flat", np.array([0, -1], np.int64))]
    inputs = [_value("latent", TensorProto.FLOAT, ["batch", CHANNELS, "latent"])]
    outputs = [_value("wav_tts", TensorProto.FLOAT, ["batch", "samples"])]
    _save(path, nodes, inputs, outputs, constants)


def indexer() -> list[int]:
    """Each code point to a table row (0-255), -1 for what the model cannot say."""
    rows = [point % 255 + 1 for point in range(INDEXER_SIZE)]
    for character in UNSAYABLE:
        rows[ord(character)] = -1
    return rows


def style(rng: np.random.Generator, dims: tuple[int, ...]) -> dict[str, object]:
    return {"dims": list(dims), "data": rng.normal(0, 1, dims).tolist(), "type": "float32"}


def build(folder: Path, seed: int = 0) -> Path:
    """Write the tiny model into `folder` (supertonic's cache folder for supertonic-3)."""
    rng = np.random.default_rng(seed)
    onnx_folder = folder / "onnx"
    onnx_folder.mkdir(parents=True)
    config = {
        "ae": {"sample_rate": SAMPLE_RATE, "base_chunk_size": BASE_CHUNK},
        "ttl": {"chunk_compress_factor": COMPRESS, "latent_dim": LATENT},
    }
    (onnx_folder / "tts.json").write_text(json.dumps(config))
    (onnx_folder / "unicode_indexer.json").write_text(json.dumps(indexer()))
    duration_predictor(onnx_folder / "duration_predictor.onnx")
    text_encoder(onnx_folder / "text_encoder.onnx", rng)
    vector_estimator(onnx_folder / "vector_estimator.onnx")
    vocoder(onnx_folder / "vocoder.onnx", rng)
    styles = folder / "voice_styles"
    styles.mkdir()
    for name in VOICES:
        voice = {"style_ttl": style(rng, STYLE_TTL), "style_dp": style(rng, STYLE_DP)}
        (styles / f"{name}.json").write_text(json.dumps(voice))
    return folder
