"""The streamed Silero VAD: frame by frame, it gives what faster-whisper's batched call gives."""

from __future__ import annotations

import numpy as np
import pytest
from assist.listen.vad import FRAME_SAMPLES, SileroVad, model_path


def frames_of(samples: np.ndarray) -> np.ndarray:
    whole = len(samples) // FRAME_SAMPLES * FRAME_SAMPLES
    return samples[:whole].reshape(-1, FRAME_SAMPLES)


def test_the_model_is_the_one_faster_whisper_ships():
    assert model_path().name == "silero_vad_v6.onnx"
    assert model_path().is_file()


def test_streaming_frame_by_frame_gives_faster_whisper_batched_probabilities(meeting):
    from faster_whisper.vad import get_vad_model

    frames = frames_of(meeting.samples[: 16000 * 6])
    batched = get_vad_model()(frames.reshape(-1)).reshape(-1)
    vad = SileroVad()
    streamed = np.array([vad.probability(frame) for frame in frames])
    np.testing.assert_allclose(streamed, batched, atol=1e-5)


def test_speech_scores_high_and_silence_low(meeting):
    vad = SileroVad()
    probabilities = [vad.probability(frame) for frame in frames_of(meeting.samples)]

    def at(seconds: float) -> float:
        return probabilities[int(seconds * 16000 / FRAME_SAMPLES)]

    line = meeting.lines[0]
    gap = (line.end_s + meeting.lines[1].start_s) / 2
    assert max(at(line.start_s + step / 10) for step in range(5, 20)) > 0.9
    assert at(gap) < 0.1
    assert at(0.1) < 0.1


def test_reset_forgets_what_was_heard(meeting):
    frames = frames_of(meeting.samples)[:60]
    vad = SileroVad()
    first = [vad.probability(frame) for frame in frames]
    vad.reset()
    assert [vad.probability(frame) for frame in frames] == first


def test_a_frame_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="512"):
        SileroVad().probability(np.zeros(480, dtype=np.float32))
