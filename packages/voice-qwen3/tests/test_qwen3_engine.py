"""The qwen3-tts engine's real path on tiny random-weight models, offline, on MLX's CPU.

The models (see qwen3_tiny_model.py) are built with mlx-audio's own classes and sit in a hub
cache under the real model ids, so loading, streaming, designing and the voice pack all run the
engine's own code. Their speech is noise; whether it sounds right, how fast the first sound
comes and how much memory it takes can only be measured on a Mac with the real weights
(benchmarks/). The conformance kit runs on the preset voice; its words check is skipped for
that reason.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mlx.core as mx
import numpy as np
import pytest
import qwen3_tiny_model as tiny
from assist.core.engines import EngineSpec, VoiceOptions
from assist.engine_kit.voices import EngineConformance, record
from assist.voice.qwen3 import engine as qwen3_engine
from assist.voice.qwen3 import plugin
from assist.voice.qwen3.engine import Qwen3Engine, build_engine
from assist.voice.qwen3.hub import ModelUnavailable
from assist.voice.qwen3.keys import PRESET_MODEL
from assist.voice.qwen3.moods import instruction

TWO_SENTENCES = "Sure. The release went out on Monday morning, and nobody has complained."
CHUNK_SAMPLES = int(qwen3_engine.PRESET_INTERVAL_S * 12.5) * tiny.SAMPLES_PER_TOKEN
"""A preset chunk: 6 codec tokens (0.5 s at 12.5 tokens a second) of the tiny model's audio."""


@pytest.fixture(scope="module")
def preset(offline_hub: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Qwen3Engine]:
    engine = build_engine(VoiceOptions(cache_root=str(tmp_path_factory.mktemp("cache"))))
    yield engine
    engine.close()


def speak(engine: Qwen3Engine, text: str, tone: str = "neutral", seed: int = 0) -> np.ndarray:
    mx.random.seed(seed)
    return np.concatenate(list(engine.stream(text, tone)))


class TestQwen3PresetConformance(EngineConformance):
    """The conformance kit on the preset voice of the tiny CustomVoice model."""

    engine_name = "qwen3-tts"
    entry_point = "qwen3"
    available_here = False
    """Off Apple silicon the engine says why it cannot run (unless ASSIST_QWEN3_CPU is set)."""
    heavy_modules = ("mlx", "mlx_audio", "numpy", "transformers")
    """Listing engines (the MCP server does) imports none of these."""
    offline_voices = ({}, {"reference": "voices/calm"}, {"description": "A calm voice."})
    """A preset, a cloned and a designed voice: asking whether each is ready offline."""
    sample_rates = (tiny.SAMPLE_RATE, 48_000)
    """The tiny model declares 250 Hz so that its decoder runs fast on a CPU."""
    checks_silence = False
    """Random weights make noise at whatever level they happen to have (about 0.01 RMS)."""

    @pytest.fixture(scope="class")
    @classmethod
    def engine(cls, preset: Qwen3Engine) -> Qwen3Engine:
        return preset

    def test_output_is_not_silent(self, two_sentences: Any) -> None:
        pytest.skip(
            "the tiny random-weight model's level means nothing; a real voice's level needs "
            "the real weights on a Mac (benchmarks/)"
        )

    def test_the_words_come_back_when_transcribed(
        self, engine: Qwen3Engine, tmp_path: Path
    ) -> None:
        pytest.skip(
            "the tiny random-weight model speaks noise; intelligibility needs the real "
            "weights on a Mac (benchmarks/)"
        )


def test_the_engine_declares_the_memory_it_needs() -> None:
    specs: list[EngineSpec] = []
    plugin.assist_voice_engines(specs.append)
    assert [spec.memory_mb for spec in specs] == [2730]


def test_away_from_apple_silicon_the_engine_says_what_it_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ASSIST_QWEN3_CPU", raising=False)
    monkeypatch.setattr(plugin.sys, "platform", "linux")
    reason = plugin.check()
    assert reason is not None
    assert "Apple silicon" in reason and "ASSIST_QWEN3_CPU" in reason
    monkeypatch.setattr(plugin.sys, "platform", "darwin")
    monkeypatch.setattr(plugin.platform, "machine", lambda: "arm64")
    assert plugin.check() is None


def test_ready_offline_follows_the_hub_cache(
    offline_hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = VoiceOptions(cache_root=str(tmp_path))
    assert plugin.ready_offline(options)
    assert plugin.ready_offline(VoiceOptions(cache_root=str(tmp_path), description="A voice."))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    assert not plugin.ready_offline(options)


def test_two_sentences_stream_in_half_second_float32_chunks_at_the_declared_rate(
    preset: Qwen3Engine,
) -> None:
    assert preset.sample_rate == tiny.SAMPLE_RATE
    mx.random.seed(0)
    line = record(preset, TWO_SENTENCES)
    assert len(line.chunks) >= 3
    assert all(c.dtype == np.float32 and c.ndim == 1 for c in line.chunks)
    assert [len(c) for c in line.chunks[:-1]] == [CHUNK_SAMPLES] * (len(line.chunks) - 1)
    assert 0 < len(line.chunks[-1]) <= CHUNK_SAMPLES
    assert line.first_chunk_s is not None and line.first_chunk_s < line.total_s / 2


def test_the_same_seed_gives_the_same_line_and_each_tone_its_own(preset: Qwen3Engine) -> None:
    neutral = speak(preset, TWO_SENTENCES, "neutral")
    assert np.array_equal(speak(preset, TWO_SENTENCES, "neutral"), neutral)
    assert not np.array_equal(speak(preset, TWO_SENTENCES, "concerned"), neutral)


def test_each_line_carries_its_tone_instruction_after_the_style_to_the_model(
    offline_hub: Path, tmp_path: Path
) -> None:
    engine = build_engine(VoiceOptions(cache_root=str(tmp_path), style="Speak with a lilt."))
    tokenizer = engine.voice.model.tokenizer
    encoded: list[str] = []
    real_encode = tokenizer.encode
    tokenizer.encode = lambda text, *a, **k: encoded.append(text) or real_encode(text, *a, **k)
    try:
        for tone in ("apologetic", "furious"):
            speak(engine, "Noted.", tone)
    finally:
        engine.close()
    prompts = [text for text in encoded if text.startswith("<|im_start|>user\n")]
    assert prompts == [
        f"<|im_start|>user\n{instruction('apologetic', 'Speak with a lilt.')}<|im_end|>\n",
        f"<|im_start|>user\n{instruction('neutral', 'Speak with a lilt.')}<|im_end|>\n",
    ]


def test_a_line_is_generated_on_the_thread_that_built_the_engine_and_no_other(
    preset: Qwen3Engine,
) -> None:
    model = preset.voice.model
    threads: list[int] = []
    real_generate = model.generate

    def generate(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return real_generate(*args, **kwargs)

    model.generate = generate
    refusals: list[BaseException] = []

    def speak_elsewhere() -> None:
        try:
            preset.stream("Hello.", "warm")
        except RuntimeError as error:
            refusals.append(error)

    try:
        other = threading.Thread(target=speak_elsewhere)
        other.start()
        other.join()
        assert list(preset.stream("Hello.", "warm"))
    finally:
        del model.generate
    assert threads == [threading.get_ident()]
    assert len(refusals) == 1 and "thread that built it" in str(refusals[0])


def test_the_mlx_cache_is_limited_to_zero_and_emptied_after_every_line(
    preset: Qwen3Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mx.set_cache_limit(0) == 0, "the engine set MLX's buffer cache limit to 0"
    cleared: list[str] = []
    real_clear = mx.clear_cache
    monkeypatch.setattr(mx, "clear_cache", lambda: cleared.append("line") or real_clear())
    stream = preset.stream(TWO_SENTENCES, "neutral")
    next(stream)
    stream.close()
    assert cleared == ["line"], "a stopped line, which mlx-audio leaves as it is, is cleared"
    speak(preset, "Hello.")
    assert len(cleared) >= 2


def test_an_unknown_speaker_is_refused_naming_the_speakers(
    offline_hub: Path, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"no preset voice named 'Bob'.*ryan, vivian"):
        build_engine(VoiceOptions(voice="Bob", cache_root=str(tmp_path)))


def test_another_preset_speaker_speaks_differently(
    preset: Qwen3Engine, offline_hub: Path, tmp_path: Path
) -> None:
    ryan = build_engine(VoiceOptions(voice="Ryan", cache_root=str(tmp_path)))
    try:
        assert not np.array_equal(speak(ryan, "Hello."), speak(preset, "Hello."))
    finally:
        ryan.close()


def test_a_missing_model_offline_fails_at_once_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(ModelUnavailable, match=PRESET_MODEL) as error:
        build_engine(VoiceOptions(cache_root=str(tmp_path)))
    assert time.perf_counter() - start < 5
    assert "HF_HUB_OFFLINE" in str(error.value)


def test_an_unreachable_hub_fails_at_once_naming_the_model(tmp_path: Path) -> None:
    """Without HF_HUB_OFFLINE too: the hub library reads its address at import, hence a
    fresh process pointed at a port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {key: value for key, value in os.environ.items() if key != "HF_HUB_OFFLINE"}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HUB_CACHE=str(tmp_path / "hub"))
    script = (
        "from assist.voice.qwen3.hub import ModelUnavailable, fetch\n"
        "try:\n"
        f"    fetch({PRESET_MODEL!r})\n"
        "except ModelUnavailable as error:\n"
        "    print(error)\n"
    )
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    assert time.perf_counter() - start < 12
    assert out.stdout.startswith(f"could not download the model {PRESET_MODEL}")


def test_a_closed_engine_says_so(offline_hub: Path, tmp_path: Path) -> None:
    engine = build_engine(VoiceOptions(cache_root=str(tmp_path)))
    engine.close()
    with pytest.raises(RuntimeError, match="closed"):
        engine.stream("Hello.", "neutral")


def test_the_voice_helper_speaks_with_qwen3_and_exits_cleanly(
    offline_hub: Path, tmp_path: Path
) -> None:
    """The whole path: `assist-voice --engine qwen3-tts` loads on its main thread, streams a
    line, saves it, and quits with status 0 (MLX work off the main thread made it abort)."""

    helper = Path(sys.executable).parent / "assist-voice"
    requests = [
        {"op": "say", "id": 1, "text": TWO_SENTENCES, "emotion": "warm"},
        {"op": "quit"},
    ]
    done = subprocess.run(
        [str(helper), "--engine", "qwen3-tts", "--no-play", "--save-dir", str(tmp_path / "out")],
        input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ASSIST_VOICE_CACHE": str(tmp_path / "cache")},
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr[-2000:]
    assert [event["event"] for event in events] == ["ready", "speaking", "done"]
    assert events[0]["engine"] == "qwen3-tts" and events[0]["sample_rate"] == tiny.SAMPLE_RATE
    assert events[2]["audio_s"] > 1
    assert (tmp_path / "out" / "reply-1.wav").stat().st_size > 44
