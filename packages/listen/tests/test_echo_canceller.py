"""Echo cancellation with the played audio as the reference (behaviour 14.2, 16.3): the
reference ring, the capture clock, the socket the helper sends to, the filters (AEC3, speex
the fallback) and the canceller on Piper speech."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from assist.core.echo_reference import MAX_SAMPLES, encode
from assist.listen.capture_clock import FIXED_AFTER_S, CaptureClock
from assist.listen.echo_canceller import COMFORT_RMS, RESIDUAL_GATE, REVERB_S, EchoCanceller
from assist.listen.echo_filters import AEC3_CHUNK, Aec3Filter, Filter, SpeexFilter, load_filter
from assist.listen.echo_ring import ReferenceRing, ReferenceSocket
from assist.mcp.demo.rooms.room import pitched
from echo_mix import erle_db, loud_onsets, mix, room_impulse
from hypothesis import given
from hypothesis import strategies as st
from listen_harness import Listener, eventually, listen_env

LINE = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most "
    "people have finished work."
)
USER = "Wait, stop, what about the weather?"
ARRIVE_S = 10.0
"""Longest a test waits for a datagram to reach the ring: far over its time on a busy machine."""
FILTERS = pytest.mark.parametrize("kind", [Aec3Filter, SpeexFilter], ids=["aec3", "speex"])


@contextlib.contextmanager
def receiving(path: Path, ring: ReferenceRing) -> Iterator[tuple[ReferenceSocket, Any]]:
    """A ReferenceSocket at `path` into `ring`, and a function that sends it a datagram;
    both closed after."""
    reference = ReferenceSocket(path, ring)
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        yield reference, lambda datagram: sender.sendto(datagram, str(path))
    finally:
        sender.close()
        reference.close()


def test_the_ring_gives_back_each_sample_at_the_time_it_sounds_and_silence_elsewhere() -> None:
    ring = ReferenceRing(seconds=1.0)
    ring.add(10.0, np.arange(1, 801, dtype=np.int16))
    taken = ring.take(10.0 - 0.01, 960)  # 160 samples before the block, then the block
    assert np.all(taken[:160] == 0)
    assert np.array_equal(taken[160:], np.arange(1, 801))
    assert ring.last_end == pytest.approx(10.05)
    ring.add(11.0, np.full(800, 7, dtype=np.int16))  # a second later: overwrites the slots
    assert np.all(ring.take(10.0, 800) == 0)  # what was there is gone, never stale audio
    assert np.all(ring.take(11.0, 800) == 7)


def test_the_ring_keeps_the_timeline_of_the_newest_stamps_whatever_arrives_late() -> None:
    """A late or repeated datagram of an earlier timeline turned it back, and each flip made
    the canceller relearn and distrust its filter."""
    ring = ReferenceRing()
    ring.add(10.0, np.zeros(800, np.int16), timeline=1)
    ring.add(11.0, np.zeros(800, np.int16), timeline=2)  # the device ran dry, then played on
    ring.add(10.0, np.zeros(800, np.int16), timeline=1)  # late, or sent twice
    assert ring.timeline == 2
    assert ring.last_end == pytest.approx(11.05)
    ring.add(11.05, np.zeros(800, np.int16), timeline=3)
    assert ring.timeline == 3


@given(
    st.lists(st.tuples(st.integers(0, 40_000), st.integers(1, 1_000)), min_size=1, max_size=20),
    st.integers(0, 40_000),
    st.integers(1, 2_000),
)
def test_the_ring_holds_the_latest_block_played_at_each_sample_or_silence(
    blocks: list[tuple[int, int]], start: int, count: int
) -> None:
    size = 16_000
    ring = ReferenceRing(seconds=1.0)
    held: dict[int, tuple[int, int]] = {}  # slot: (sample, value) as a plain model
    for number, (at, length) in enumerate(blocks):
        ring.add(at / 16_000, np.full(length, number + 1, dtype=np.int16))
        for sample in range(at, at + length):
            held[sample % size] = (sample, number + 1)
    taken = ring.take(start / 16_000, count)
    expected = []
    for sample in range(start, start + count):
        slot = held.get(sample % size)
        expected.append(slot[1] if slot is not None and slot[0] == sample else 0)
    assert list(taken) == expected


@given(
    st.lists(st.floats(0, 0.05), min_size=1, max_size=200),
    st.floats(0, 1000),
    st.integers(0, 500),
)
def test_the_capture_clock_is_never_before_the_truth_and_late_only_by_the_least_early_delay(
    delays: list[float], offset: float, unobserved: int
) -> None:
    """Over FIXED_AFTER_S from the first block it observes, wherever in the capture that is."""
    clock = CaptureClock()
    assert clock.at(0.0) is None
    block = 0.032
    for number, delay in enumerate(delays, start=unobserved):
        captured = (number + 1) * block
        clock.observe(captured, offset + captured + delay)
    last = (unobserved + len(delays)) * block
    heard = clock.at(last)
    assert heard is not None
    first = [d for n, d in enumerate(delays) if n == 0 or n * block <= FIXED_AFTER_S]
    assert heard - (offset + last) == pytest.approx(min(first), abs=1e-6)


def test_the_socket_takes_reference_blocks_and_drops_whatever_else_arrives(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ref.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(path))
    dead.close()  # a killed listener's leftover, which nobody holds: replaced
    ring = ReferenceRing()
    with receiving(path, ring) as (reference, send):
        block = np.arange(800, dtype="<i2")
        now = time.monotonic()
        for bad in (b"", b"junk", encode(now, 1, b"\0"), encode(float("nan"), 1, b"\0\0")):
            send(bad)
        send(encode(now, 1, b"\0\0" * (MAX_SAMPLES + 1)))
        send(encode(now, 1, block.tobytes()))
        assert ring.wait_for(now, ARRIVE_S)
        assert np.array_equal(ring.take(now, 800), block)
        assert ring.timeline == 1
        assert reference.dropped == 5
    assert not path.exists()


def test_a_socket_path_held_by_a_live_listener_or_not_a_socket_is_refused_and_left_alone(
    tmp_path: Path,
) -> None:
    """Whatever was there was unlinked: a live listener's socket taken from it, a file at a
    mistyped --echo-reference path deleted. The caller records on without cancellation."""
    path = tmp_path / "ref.sock"
    first = ReferenceSocket(path, ReferenceRing())
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        with pytest.raises(OSError):
            ReferenceSocket(path, ReferenceRing())
        now = time.monotonic()
        sender.sendto(encode(now, 1, np.zeros(800, "<i2").tobytes()), str(path))
        assert first.ring.wait_for(now, ARRIVE_S)  # still the first listener's
    finally:
        sender.close()
        first.close()
    notes = tmp_path / "notes.txt"
    notes.write_text("my meeting notes\n")
    with pytest.raises(OSError):
        ReferenceSocket(notes, ReferenceRing())
    assert notes.read_text() == "my meeting notes\n"


@pytest.mark.parametrize("off_s", [-86_400.0, -4.5, 4.5, 86_400.0, 1e300])
def test_a_block_stamped_further_from_now_than_the_ring_holds_is_dropped_and_counted(
    tmp_path: Path, off_s: float
) -> None:
    """A bad stamp a day ahead would hold the voice playing all day (the user's words
    zeroed); one far enough out overflowed the sample number and ended the reader."""
    path = tmp_path / "ref.sock"
    ring = ReferenceRing()
    with receiving(path, ring) as (reference, send):
        send(encode(time.monotonic() + off_s, 2, np.full(800, 1000, "<i2").tobytes()))
        now = time.monotonic()
        send(encode(now, 1, np.zeros(800, "<i2").tobytes()))
        assert ring.wait_for(now, ARRIVE_S)  # the reader goes on after it
        assert reference.dropped == 1
        assert ring.last_sound is None and ring.timeline == 1


def test_a_datagram_the_ring_cannot_take_is_dropped_and_the_reader_goes_on(
    tmp_path: Path,
) -> None:
    class Failing(ReferenceRing):
        def add(self, sounds_at: float, samples: np.ndarray, timeline: int = 0) -> None:
            if timeline == 2:
                raise ValueError("a block the ring cannot take")
            super().add(sounds_at, samples, timeline)

    path = tmp_path / "ref.sock"
    ring = Failing()
    with receiving(path, ring) as (reference, send):
        sound = np.full(800, 1000, "<i2").tobytes()
        now = time.monotonic()
        send(encode(now, 2, sound))
        send(encode(now, 1, sound))
        assert ring.wait_for(now, ARRIVE_S)
        assert reference.dropped == 1


def test_with_nothing_played_the_canceller_leaves_frames_untouched() -> None:
    canceller = EchoCanceller(ReferenceRing(), Aec3Filter())
    frame = np.random.default_rng(1).uniform(-0.5, 0.5, 512).astype(np.float32)
    assert canceller.cancel(frame, 100.0) is frame
    canceller.ring.add(100.0, np.zeros(800, np.int16))  # the helper's silence between lines
    assert not canceller.active(100.0)
    canceller.ring.add(100.0, np.full(800, 1000, np.int16))
    assert canceller.active(100.5)
    assert not canceller.active(100.05 + 0.6)  # the echo's tail is over: frames pass again
    assert canceller.cancel(frame, 100.7) is frame


@pytest.fixture(scope="module")
def speech() -> tuple[np.ndarray, np.ndarray]:
    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    try:
        return voice.say(LINE), pitched(voice.say(USER), 0.93)
    finally:
        voice.close()


def test_aec3_takes_15_db_or_more_out_of_an_echo_through_a_room_after_2_s(
    speech: tuple[np.ndarray, np.ndarray],
) -> None:
    """The filter alone, handed the reference as played: its delay estimator finds the 40 ms
    and the room by itself (measured: 35 dB, benchmarks/echo.py)."""
    line, _ = speech
    delay = round(0.04 * 16_000)
    echo = np.convolve(line, room_impulse())[: len(line)]
    microphone = np.zeros(len(line) + delay, np.float32)
    microphone[delay:] = echo
    microphone = np.round(microphone[: len(microphone) // 512 * 512] * 32767).astype(np.int16)
    reference = np.zeros(len(microphone), np.int16)
    reference[: len(line)] = np.round(line[: len(microphone)] * 32767).astype(np.int16)
    aec3 = Aec3Filter()
    cleaned = np.concatenate(
        [aec3.cancel(microphone[at : at + 512], reference[at : at + 512])
         for at in range(0, len(microphone), 512)]
    )  # fmt: skip
    assert erle_db(microphone / 32768, cleaned / 32768, skip_s=2.0) >= 15


def test_aec3_gives_each_frame_back_whole_and_after_a_gap_nothing_of_the_last_span() -> None:
    """It runs one 10 ms chunk behind; what it still held when the voice stopped is dropped,
    never played into the next line's first frame."""
    aec3 = Aec3Filter()
    loud = np.random.default_rng(2).integers(-20_000, 20_000, 512).astype(np.int16)
    for _ in range(3):
        assert len(aec3.cancel(loud, np.zeros(512, np.int16))) == 512
    aec3.restart()
    quiet = np.zeros(512, np.int16)
    assert not aec3.cancel(quiet, quiet)[:AEC3_CHUNK].any()


@FILTERS
@pytest.mark.parametrize("delay_s", [0.04, -0.1], ids=["after its stamps", "before them"])
def test_the_lines_own_echo_at_0_db_opens_no_loud_onset_once_cancelled(
    speech: tuple[np.ndarray, np.ndarray], kind: type[Filter], delay_s: float
) -> None:
    """Through a room, and also when the echo comes before its stamps (as through PulseAudio):
    AEC3 handed a reference later than its echo makes everything quiet for a while, then lets
    the echo through, so it is not trusted before the lag is known."""
    line, _ = speech
    canceller = EchoCanceller(ReferenceRing(), kind())
    heard = mix(line, delay_s=delay_s, gain=1.0, impulse=room_impulse(), canceller=canceller)
    assert loud_onsets(heard.microphone)  # the gate alone would cut the line
    assert loud_onsets(heard.cancelled, heard) == []
    trusted = np.repeat(~np.array(heard.unsettled), 512)  # before that, the voice passes whole
    assert trusted.any() and not trusted[: 16_000 // 4].any()
    assert erle_db(heard.microphone[trusted], heard.cancelled[trusted]) > 10


def test_with_aec3_a_line_can_be_interrupted_within_its_first_second(
    speech: tuple[np.ndarray, np.ndarray],
) -> None:
    """The first look for the lag, then a quarter second of AEC3 shown to take the voice out:
    from then on a loud onset counts (measured: 0.7 s, speex 2.8-3.8 s)."""
    line, _ = speech
    heard = mix(line, delay_s=0.04, gain=1.0, impulse=room_impulse())
    assert False in heard.unsettled[: 16_000 // 512]


@FILTERS
def test_a_user_talking_over_the_cancelled_echo_still_opens_a_loud_onset(
    speech: tuple[np.ndarray, np.ndarray], kind: type[Filter]
) -> None:
    line, user = speech
    canceller = EchoCanceller(ReferenceRing(), kind())
    heard = mix(
        line, delay_s=0.04, gain=1.0, user=user, user_at_s=4.0, impulse=room_impulse(),
        canceller=canceller,
    )  # fmt: skip
    onsets = loud_onsets(heard.cancelled, heard)
    assert onsets and all(4.0 <= at < 4.0 + len(user) / 16_000 for at in onsets), onsets


@pytest.mark.parametrize("gain", [0.1, 0.0], ids=["echo at -20 dB", "headphones"])
def test_a_user_talking_over_a_quiet_echo_or_none_is_heard_and_the_echo_alone_is_not(
    speech: tuple[np.ndarray, np.ndarray], gain: float
) -> None:
    """An echo near the room's noise cannot come out 20 dB quieter, and through headphones
    none comes back to find a lag in: the filter is trusted all the same, or the user would
    go unheard for the whole line."""
    line, user = speech
    alone = mix(line, delay_s=0.05, gain=gain)
    assert False in alone.unsettled[: 16_000 // 512]
    assert loud_onsets(alone.cancelled, alone) == []
    heard = mix(line, delay_s=0.05, gain=gain, user=user, user_at_s=4.0)
    onsets = loud_onsets(heard.cancelled, heard)
    assert onsets and 4.0 <= onsets[0] < 4.2, onsets


def test_a_user_talking_over_aec3s_echo_early_in_the_line_opens_a_loud_onset_on_their_first_word(
    speech: tuple[np.ndarray, np.ndarray],
) -> None:
    """AEC3's suppressor leaves the user's words over the line sounding less like speech to
    Silero; at the turn rules' probability the onset came on a later word (0.7 s late here)."""
    line, user = speech
    heard = mix(line, delay_s=0.04, gain=1.0, user=user, user_at_s=1.5, impulse=room_impulse())
    onsets = loud_onsets(heard.cancelled, heard)
    first_word = 1.5 + 0.2
    assert onsets and 1.5 <= onsets[0] < first_word, onsets


def test_a_user_whose_first_word_aec3_lowers_with_the_echo_still_opens_the_onset_on_it(
    speech: tuple[np.ndarray, np.ndarray],
) -> None:
    """Here, over a line at 0 dB that comes 0.1 s before its stamps, Silero rises only on the
    fourth frame of "Wait", and AEC3 lowers the word's last loud frame to RMS 0.04: at the
    barge-in gate's 0.05 the run was two frames, and the onset came on a later word, 0.73 s
    after the first sound."""
    line, user = speech
    heard = mix(line, delay_s=-0.1, gain=1.0, user=user, user_at_s=3.04)
    first_sound = 3.04 + int(np.argmax(np.abs(user) > 0.01)) / 16_000
    onsets = loud_onsets(heard.cancelled, heard)
    assert onsets and first_sound - 0.05 <= onsets[0] < first_sound + 0.2, onsets


@pytest.mark.parametrize(
    ("kind", "needed", "run", "lead"),
    [(Aec3Filter, RESIDUAL_GATE, 2, 0.0), (SpeexFilter, None, None, None)],
    ids=["aec3", "speex"],
)
def test_once_trusted_only_a_filter_that_lowers_the_words_asks_for_a_lower_level_and_run(
    speech: tuple[np.ndarray, np.ndarray],
    kind: type[Filter],
    needed: float | None,
    run: int | None,
    lead: float | None,
) -> None:
    """Speex has no suppressor, and its residue can pass the residual gate: it keeps the
    barge-in gate's level and the turn rules' run of three frames of speech."""
    line, _ = speech
    canceller = EchoCanceller(ReferenceRing(), kind())
    heard = mix(line, delay_s=0.04, gain=1.0, impulse=room_impulse(), canceller=canceller)
    assert canceller.settled
    assert {needs.level for needs in heard.onset_needs} == {None, needed}
    assert {needs.frames for needs in heard.onset_needs} == {None, run}
    assert {needs.lead_prob for needs in heard.onset_needs} == {None, lead}


@FILTERS
def test_once_trusted_the_voices_residue_is_a_quiet_rooms_noise_and_the_users_words_pass(
    speech: tuple[np.ndarray, np.ndarray], kind: type[Filter]
) -> None:
    """What the filter leaves of the voice would still be written down by whisper and join the
    user's words into one turn; it becomes a quiet room's noise, the user talking over it does
    not (AEC3's own suppression included)."""
    line, user = speech
    canceller = EchoCanceller(ReferenceRing(), kind())
    heard = mix(
        line, delay_s=0.04, gain=1.0, user=user, user_at_s=4.0, impulse=room_impulse(),
        canceller=canceller,
    )  # fmt: skip
    frames = heard.cancelled.reshape(-1, 512)
    trusted = [n for n, unsettled in enumerate(heard.unsettled) if not unsettled]
    first_user, last_user = 4 * 16_000 // 512, (4 * 16_000 + len(user)) // 512
    echo_only = [n for n in trusted if 2 * 16_000 // 512 < n < first_user]
    faint = [n for n in echo_only if np.sqrt(np.mean(np.square(frames[n]))) <= COMFORT_RMS * 1.5]
    assert echo_only and len(faint) >= 0.8 * len(echo_only)
    user_frames = frames[first_user:last_user]
    assert np.sqrt(np.mean(np.square(user_frames))) > 0.5 * np.sqrt(np.mean(np.square(user)))


def test_a_lag_that_drifts_keeps_the_filters_trust_and_one_that_jumps_loses_it(
    speech: tuple[np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the software room the lag crept 0.7 ms a minute. Measured from where trust began,
    that drift withdrew it a second into a line every minute or so, and a person talking over
    the line then went unheard while the filter showed itself again. A jump from one look to
    the next is shown again."""
    import assist.listen.echo_canceller as canceller_module

    line, _ = speech
    canceller = EchoCanceller(ReferenceRing(), Aec3Filter())
    mix(line, delay_s=0.03, gain=1.0, canceller=canceller)
    assert canceller.settled and canceller.lag is not None
    found = canceller.lag
    drift = iter(found + 0.0004 * look for look in range(1, 1000))
    monkeypatch.setattr(canceller_module, "echo_lag", lambda *_: next(drift))
    heard = mix(line, delay_s=0.03, gain=1.0, canceller=canceller)
    assert canceller.lag >= found + 0.002  # twice LAG_JUMP_S in all, 0.4 ms a look
    assert not any(heard.unsettled)
    monkeypatch.setattr(canceller_module, "echo_lag", lambda *_: found + 0.01)
    heard = mix(line, delay_s=0.03, gain=1.0, canceller=canceller)
    assert any(heard.unsettled)


@FILTERS
def test_words_said_once_the_echo_has_rung_out_pass_untouched(
    speech: tuple[np.ndarray, np.ndarray], kind: type[Filter]
) -> None:
    """An answer said a moment after the question, within the half second the voice counts as
    playing for the echo's tail: once the lag is known and the echo has rung out, the frames
    are the microphone's own, not what the filter and the residual gate make of them (the
    soft start of "No," came back as a quiet room's noise and the answer as "keep it")."""
    line, user = speech
    canceller = EchoCanceller(ReferenceRing(), kind())
    echo_ends_s = (len(line) + room_impulse().size) / 16_000 + 0.04
    heard = mix(
        line, delay_s=0.04, gain=1.0, user=user, user_at_s=echo_ends_s + 0.3,
        impulse=room_impulse(), canceller=canceller,
    )  # fmt: skip
    assert canceller.lag is not None
    rung_out = round((echo_ends_s + REVERB_S + 0.032) * 16_000) // 512 * 512
    user_ends = round((echo_ends_s + 0.3) * 16_000) + len(user)
    assert np.array_equal(heard.cancelled[rung_out:user_ends], heard.microphone[rung_out:user_ends])


@FILTERS
def test_a_helper_that_stops_sending_costs_one_wait_not_one_per_frame(kind: type[Filter]) -> None:
    """Frames after the reference stopped coming (the helper died or hung) wait for it once,
    then go on at once, until the reference reaches the frame that waited."""

    class CountingRing(ReferenceRing):
        waits = 0

        def wait_for(self, until: float, within: float) -> bool:
            CountingRing.waits += 1
            return super().wait_for(until, 0.001)

    canceller = EchoCanceller(CountingRing(), kind())
    canceller.ring.add(100.0, np.full(800, 1000, np.int16))  # then the helper died
    frame = np.zeros(512, np.float32)
    for number in range(20):
        canceller.cancel(frame, 100.06 + number * 0.032)
    assert CountingRing.waits == 1
    canceller.ring.add(100.75, np.full(800, 1000, np.int16))  # it is back
    canceller.cancel(frame, 100.8)
    assert CountingRing.waits == 2


@FILTERS
def test_stamps_behind_the_capture_clock_cost_one_wait_per_stretch_they_lag_not_one_per_frame(
    kind: type[Filter],
) -> None:
    """A helper whose stamps run 0.8 s behind the capture clock sends a block every frame,
    none reaching the frame: each block reset the guard, every frame waited WAIT_S, and the
    listener fell 0.7 s behind real time, its barge-in as late."""

    class CountingRing(ReferenceRing):
        in_vain = 0

        def wait_for(self, until: float, within: float) -> bool:
            there = super().wait_for(until, 0.001)
            CountingRing.in_vain += not there
            return there

    canceller = EchoCanceller(CountingRing(), kind())
    frame = np.zeros(512, np.float32)
    for number in range(62):  # two seconds of capture
        at = 100.0 + number * 0.032
        canceller.ring.add(at - 0.8, np.zeros(512, np.int16))
        canceller.cancel(frame, at)
    assert CountingRing.in_vain == 3  # at 0 s, then each time the stamps reach that frame


@FILTERS
def test_a_meeting_no_server_routes_its_voice_to_never_waits_for_a_reference(
    kind: type[Filter],
) -> None:
    """A meeting's listener has a canceller from its start (16.3), but no reference comes
    until a server watches, nor after it leaves: no frame waits for one."""

    class CountingRing(ReferenceRing):
        waits = 0

        def wait_for(self, until: float, within: float) -> bool:
            CountingRing.waits += 1
            return super().wait_for(until, 0.001)

    canceller = EchoCanceller(CountingRing(), kind())
    frame = np.random.default_rng(2).uniform(-0.5, 0.5, 512).astype(np.float32)
    for number in range(200):  # six seconds of capture, nobody watching
        assert canceller.cancel(frame, 100.0 + number * 0.032) is frame
    assert CountingRing.waits == 0
    canceller.ring.add(110.0, np.full(800, 1000, np.int16))  # a watch's last block
    for number in range(200):  # it left: the route is gone and nothing more comes
        canceller.cancel(frame, 112.0 + number * 0.032)
    assert CountingRing.waits == 0  # long over before these frames: not waited for


def test_a_canceller_that_cannot_load_gives_way_to_speex_with_one_warning_and_speex_cancels(
    speech: tuple[np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pywebrtc_audio", None)  # importing it fails
    warnings: list[str] = []
    filter = load_filter(warnings.append)
    assert isinstance(filter, SpeexFilter)
    [warning] = warnings
    assert "WebRTC AEC3" in warning and "speexdsp cancels it instead" in warning
    line, _ = speech
    heard = mix(line, delay_s=0.04, gain=1.0, canceller=EchoCanceller(ReferenceRing(), filter))
    assert loud_onsets(heard.microphone)
    assert loud_onsets(heard.cancelled, heard) == []


def test_with_no_canceller_that_loads_the_gate_alone_is_left_and_each_step_warns_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Broken:
        def __init__(self, *_: object) -> None:
            raise OSError("libaec.so: cannot open shared object file")

    monkeypatch.setitem(sys.modules, "pywebrtc_audio", None)
    monkeypatch.setattr("pyaec.Aec", Broken)  # a broken wheel: it imports, then fails
    warnings: list[str] = []
    assert load_filter(warnings.append) is None
    assert len(warnings) == 2
    assert "speexdsp" in warnings[1] and "libaec.so" in warnings[1]
    assert "barge-in gate alone" in warnings[1]


def test_a_listener_whose_aec3_cannot_load_records_with_speex_and_says_so_once(
    tmp_path: Path, audio_room: dict[str, str]
) -> None:
    broken = tmp_path / "broken" / "pywebrtc_audio"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise ImportError("a broken wheel")\n')
    env = listen_env(tmp_path, **audio_room)
    env["PYTHONPATH"] = f"{broken.parent}:{env['PYTHONPATH']}"
    reference = tmp_path / "ref.sock"
    listener = Listener(
        tmp_path / "s", env, "--stt", "fake", "--quiet", "--echo-reference", str(reference)
    )
    eventually(reference.exists)
    listener.process.send_signal(signal.SIGINT)
    code, _, err = listener.wait(timeout=60)
    assert code == 0, err
    warnings = json.loads((listener.folder / "session.json").read_text())["warnings"]
    assert warnings == [
        "room: the WebRTC AEC3 echo canceller could not load (a broken wheel); speexdsp "
        "cancels it instead"
    ]


def test_a_listener_lists_the_reference_datagrams_it_dropped_in_the_sessions_warnings(
    tmp_path: Path, audio_room: dict[str, str]
) -> None:
    """Dropped, a reference leaves the canceller blind there; the user learns of it once."""
    reference = tmp_path / "ref.sock"
    listener = Listener(
        tmp_path / "s",
        listen_env(tmp_path, **audio_room),
        *("--stt", "fake", "--quiet", "--echo-reference", str(reference)),
    )
    eventually(reference.exists)
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    with contextlib.closing(sender):
        for bad in (b"junk", encode(time.monotonic() + 86_400, 1, b"\0\0" * 800)):
            sender.sendto(bad, str(reference))
    listener.process.send_signal(signal.SIGINT)
    code, _, err = listener.wait(timeout=60)
    assert code == 0, err
    warnings = json.loads((listener.folder / "session.json").read_text())["warnings"]
    assert [w for w in warnings if "reference" in w] == [
        "room: 2 datagram(s) on the echo reference socket were dropped: not a reference "
        "block, or stamped over 4 s from when they arrived; the canceller took the voice as "
        "silent there (is the voice helper the same version of assist as the listener?)"
    ]
