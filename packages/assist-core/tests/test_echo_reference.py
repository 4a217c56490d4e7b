"""The echo reference datagram (behaviour 14.2): what the helper sends, the listener reads."""

from __future__ import annotations

from assist.core.echo_reference import HEADER, MAX_SAMPLES, decode, encode
from hypothesis import given
from hypothesis import strategies as st

times = st.floats(0, 1e9, allow_nan=False, allow_infinity=False)
pcm = st.binary(min_size=2, max_size=2 * MAX_SAMPLES).filter(lambda data: len(data) % 2 == 0)


@given(times, st.integers(0, 2**32 - 1), pcm)
def test_a_datagram_reads_back_as_the_time_timeline_and_samples_sent(
    sounds_at: float, timeline: int, data: bytes
) -> None:
    assert decode(encode(sounds_at, timeline, data)) == (sounds_at, timeline, data)


@given(st.binary(max_size=64))
def test_any_bytes_read_as_a_datagram_or_as_nothing_and_never_raise(data: bytes) -> None:
    read = decode(data)
    assert read is None or (read[0] >= 0 and len(read[2]) % 2 == 0)


@given(times, pcm)
def test_a_cut_datagram_or_one_with_another_mark_is_dropped(sounds_at: float, data: bytes) -> None:
    whole = encode(sounds_at, 1, data)
    assert decode(whole[: HEADER.size]) is None
    assert decode(whole[:-1]) is None
    assert decode(b"xref" + whole[4:]) is None


def test_a_time_that_is_not_a_time_is_dropped() -> None:
    for bad in (float("nan"), float("inf"), -1.0):
        assert decode(encode(bad, 0, b"\0\0")) is None
    assert decode(encode(1.0, 0, b"\0\0" * (MAX_SAMPLES + 1))) is None
