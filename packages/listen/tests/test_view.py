"""The terminal view: the level meter's scale, the lines as written, and a live panel that
shows each track's state."""

from __future__ import annotations

import attrs
from assist.core.lines import RawLine
from assist.listen.view import METER_WIDTH, PlainView, _Panel, meter


def test_the_meter_runs_from_minus_60_db_empty_to_full_scale_full():
    assert meter(0.0).count("#") == 0
    assert meter(1e-4).count("#") == 0
    assert meter(1.0).count("#") == METER_WIDTH
    assert meter(10 ** (-30 / 20)).count("#") == METER_WIDTH // 2
    assert meter(10 ** (-30 / 20)).endswith("-30 dB")


def test_each_line_is_shown_with_its_time_and_track(capsys):
    PlainView().line(RawLine("call", 75_300, 78_000, "Can everyone hear me?", 0.9))
    assert capsys.readouterr().err == "01:15 call: Can everyone hear me?\n"


@attrs.define
class FakeTrack:
    name: str
    level: float
    in_speech: bool


def test_the_panel_says_listening_hearing_speech_and_transcribing():
    tracks = [FakeTrack("room", 0.5, True), FakeTrack("call", 0.0, False)]
    shown = _Panel(tracks, lambda: False).__rich__().plain.splitlines()
    assert shown[0].startswith("room") and shown[0].endswith("hearing speech")
    assert shown[1].endswith("listening")
    busy = _Panel(tracks, lambda: True).__rich__().plain
    assert busy.splitlines()[1].endswith("listening, transcribing")
