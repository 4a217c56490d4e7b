"""The helper's parts on their own: the players, WAV naming, and the auto choice of engine.

The speaker player runs against a stand-in output stream (`player_fakes`) that takes audio at
real-time pace, as a blocking device write does, so cuts and drains happen on a real writer
thread.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile
from assist.app.engines import total_memory
from assist.core.engines import VOICES, EngineSpec, VoiceOptions
from assist.core.plugins import Registry
from assist.mcp.voice import loading
from assist.mcp.voice.player import (
    STEP_S,
    PlaybackFailed,
    PlayerUnavailable,
    SilentPlayer,
    SpeakerPlayer,
    open_speakers,
)
from assist.mcp.voice.recording import reply_name, save_reply
from player_fakes import RATE, PacedStream, tone
from supervisor_fakes import declared


def test_the_speaker_player_hands_every_chunk_to_the_device_in_short_steps() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.play(tone(0.2))
    player.play(tone(0.13))
    assert player.wait() == stream.samples() == round(0.33 * RATE)
    assert max(stream.block_sizes) == round(STEP_S * RATE)
    player.close()
    assert stream.stopped and stream.closed


def test_a_cut_halts_playback_within_one_step_and_reports_what_the_device_got() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    for _ in range(5):
        player.play(tone(0.5))
    time.sleep(0.3)
    started = time.monotonic()
    handed = player.cut()
    assert time.monotonic() - started <= STEP_S + 0.09  # a step, and room for a busy machine
    assert handed == stream.samples()
    assert round(0.2 * RATE) <= handed <= round(0.6 * RATE)
    time.sleep(0.2)
    assert stream.samples() == handed  # queued chunks were dropped
    assert player.wait() == handed  # a cut line does not wait for anything
    player.close()


def test_after_a_cut_chunks_are_ignored_until_the_next_line_begins() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.cut()
    player.play(tone(0.1))
    assert player.wait() == 0
    player.begin()
    player.play(tone(0.1))
    assert player.wait() == round(0.1 * RATE) == stream.samples()
    player.close()


def test_a_cut_from_another_thread_wakes_a_waiting_line() -> None:
    player = SpeakerPlayer(PacedStream(), RATE)
    player.begin()
    player.play(tone(3.0))
    threading.Timer(0.2, player.cut).start()
    started = time.monotonic()
    assert 0 < player.wait() < round(0.5 * RATE)
    assert time.monotonic() - started < 1.0
    player.close()


def test_a_device_that_fails_mid_line_fails_that_line_and_the_next_line_can_play() -> None:
    stream = PacedStream(fail_after=2)
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.play(tone(0.5))
    with pytest.raises(PlaybackFailed, match="device unplugged"):
        player.wait()
    stream._fail_after = None
    player.begin()
    player.play(tone(0.1))
    assert player.wait() == round(0.1 * RATE)
    player.close()


def ramp(seconds: float) -> np.ndarray:
    """Audio whose every sample differs from the others and from silence, so where playback
    went on from can be seen."""
    return (np.arange(1, round(seconds * RATE) + 1) / RATE).astype(np.float32)


def test_a_pause_holds_the_line_and_resume_goes_on_from_the_very_sample_where_it_paused() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    audio = ramp(0.6)
    player.play(audio[: round(0.4 * RATE)])
    player.play(audio[round(0.4 * RATE) :])
    time.sleep(0.15)
    paused_at = player.pause()
    assert paused_at == stream.samples() and 0 < paused_at < len(audio)
    time.sleep(0.2)
    assert stream.samples() == paused_at  # nothing reached the device while paused
    assert player.resume() == paused_at
    assert player.wait() == len(audio)
    assert np.array_equal(np.concatenate(stream.written), audio)  # no sample lost or repeated
    player.close()


class RecordingTee:
    """Stands in for the reference tee: keeps what it was told was played."""

    def __init__(self) -> None:
        self.blocks: list[np.ndarray] = []

    def played(self, block: np.ndarray, at: float, free_s: float = 0.0) -> None:
        self.blocks.append(block.copy())

    def took_back(self, count: int) -> None:
        self.blocks[-1] = self.blocks[-1][:-count]

    def ran_dry(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_paused_with_a_reference_tee_the_device_gets_silence_and_the_line_goes_on_intact() -> None:
    stream, tee = PacedStream(), RecordingTee()
    player = SpeakerPlayer(stream, RATE, tee)  # type: ignore[arg-type]
    player.begin()
    audio = ramp(0.4)
    player.play(audio)
    time.sleep(0.1)
    player.pause()
    time.sleep(0.1)
    player.resume()
    assert player.wait() == len(audio)
    player.close()
    line = [block for block in tee.blocks if block.any()]
    assert np.array_equal(np.concatenate(line), audio)  # what was taken back went again
    written = np.concatenate(stream.written)
    sound = np.flatnonzero(written)
    assert np.array_equal(written[sound], audio)
    assert len(sound) < sound[-1] - sound[0] + 1  # silence went to the device while paused


def test_a_cut_ends_a_pause_and_the_next_line_plays_unpaused() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.play(tone(2.0))
    time.sleep(0.1)
    paused_at = player.pause()
    assert player.cut() == paused_at
    assert player.wait() == paused_at
    player.begin()
    player.play(tone(0.1))
    assert player.wait() == round(0.1 * RATE)
    player.close()


def test_a_paused_line_is_not_played_out_when_the_player_closes() -> None:
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.play(tone(2.0))
    paused_at = player.pause()
    player.close()
    assert stream.samples() == paused_at and stream.closed


def test_the_silent_player_counts_the_samples_given_until_a_cut() -> None:
    player = SilentPlayer()
    player.begin()
    player.play(tone(0.1))
    player.play(tone(0.2))
    assert player.cut() == round(0.3 * RATE)
    player.play(tone(1.0))
    assert player.wait() == round(0.3 * RATE)
    player.begin()
    assert player.wait() == 0
    player.play(tone(0.1))
    assert player.pause() == player.resume() == round(0.1 * RATE)


def test_speakers_without_sounddevice_say_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "sounddevice", None)
    with pytest.raises(PlayerUnavailable, match="--no-play"):
        open_speakers(RATE)


@pytest.mark.parametrize(
    ("request_id", "name"),
    [
        (7, "reply-7.wav"),
        ("abc", "reply-abc.wav"),
        ("../up", "reply-.._up.wav"),
        (None, "reply-null.wav"),
        (True, "reply-true.wav"),
        ([1, "a"], 'reply-[1, "a"].wav'),
    ],
)
def test_a_reply_file_is_named_for_its_id_and_never_leaves_the_folder(
    request_id: object, name: str
) -> None:
    assert reply_name(request_id) == name


def test_a_saved_reply_is_16_bit_mono_pcm_cut_at_the_samples_counted(tmp_path: Path) -> None:
    chunks = [tone(0.1), np.full(RATE, 2.0, dtype=np.float32)]
    path = save_reply(tmp_path, 3, chunks, RATE, round(0.15 * RATE))
    info = soundfile.info(path)
    assert (info.samplerate, info.channels, info.subtype, info.frames) == (
        RATE,
        1,
        "PCM_16",
        round(0.15 * RATE),
    )
    samples, _ = soundfile.read(path, dtype="int16")
    assert samples[-1] == 32767  # 2.0 clipped to 1.0
    assert not list(tmp_path.glob("*.part"))


def registry_of(*specs: EngineSpec) -> Registry[EngineSpec]:
    registry = Registry(VOICES)
    for spec in specs:
        registry.specs[spec.name] = spec
    return registry


def spec(name: str, offline: bool = True, reason: str | None = None) -> EngineSpec:
    def build(options: VoiceOptions) -> object:
        raise AssertionError("not built in these tests")

    return EngineSpec(
        name=name,
        package=f"assist-voice-{name}",
        build=build,  # type: ignore[arg-type]
        check=lambda: reason,
        ready_offline=lambda options: offline,
        **declared(name),  # type: ignore[arg-type]
    )


def test_auto_off_macos_prefers_an_engine_that_needs_no_download() -> None:
    registry = registry_of(spec("kokoro", offline=False), spec("piper"), spec("espeak"))
    eight = 8 * 2**30
    assert loading.choose(registry, "auto", VoiceOptions(), "linux", memory=eight) == "piper"
    assert loading.choose(registry, "auto", VoiceOptions(), "darwin", memory=eight) == "kokoro"


def test_auto_skips_engines_that_cannot_run_here() -> None:
    registry = registry_of(spec("qwen3-tts", reason="needs Apple silicon"), spec("espeak"))
    big = 64 * 2**30
    assert loading.choose(registry, "auto", VoiceOptions(), "darwin", memory=big) == "espeak"


def test_a_named_engine_is_taken_as_asked_even_when_auto_would_choose_another() -> None:
    registry = registry_of(spec("espeak"))
    assert loading.choose(registry, "kokoro", VoiceOptions()) == "kokoro"


def test_installed_memory_is_a_positive_figure_here() -> None:
    assert total_memory() > 0
