"""The terminal view: the level meter's scale, the lines as written, and a live panel that
shows each track's state."""

from __future__ import annotations

import io

import attrs
from assist.core.lines import RawLine
from assist.listen.view import METER_WIDTH, LiveView, PlainView, _Panel, ended, meter
from rich.console import Console


def test_the_meter_runs_from_minus_60_db_empty_to_full_scale_full():
    assert meter(0.0).count("#") == 0
    assert meter(1e-4).count("#") == 0
    assert meter(1.0).count("#") == METER_WIDTH
    assert meter(10 ** (-30 / 20)).count("#") == METER_WIDTH // 2
    assert meter(10 ** (-30 / 20)).endswith("-30 dB")


def test_each_line_is_shown_with_its_time_and_track(capsys):
    PlainView().line(RawLine("call", 75_300, 78_000, "Can everyone hear me?", 0.9))
    assert capsys.readouterr().err == "01:15 call: Can everyone hear me?\n"


def test_the_last_note_counts_one_line_as_a_line():
    assert ended("2026-12-01T1017", 1) == "ended 2026-12-01T1017: 1 line written"
    assert ended("2026-12-01T1017", 0) == "ended 2026-12-01T1017: 0 lines written"
    assert ended("2026-12-01T1017", 14) == "ended 2026-12-01T1017: 14 lines written"


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


def test_on_a_terminal_the_view_draws_the_meter_and_state_and_prints_each_line(
    tmp_path, meeting_wav
):
    import os
    import pty
    import subprocess

    from listen_harness import ASSIST, listen_env

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [
            str(ASSIST),
            "listen",
            "--into",
            str(tmp_path / "s"),
            "--from",
            str(meeting_wav),
            "--stt",
            "fake",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**listen_env(tmp_path), "COLUMNS": "100", "TERM": "xterm"},
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the listener closed its end
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=120) == 0
    os.close(leader)
    text = shown.decode(errors="replace")
    assert "room [" in text and " dB" in text, text[-2000:]
    assert "hearing speech" in text and "listening" in text
    assert text.count("heard ") >= 3, "each line printed above the panel"


def test_on_a_terminal_the_panel_is_erased_when_the_session_ends_and_the_lines_stay():
    """A panel left behind would say 'listening' after the listener has gone."""
    screen = io.StringIO()
    view = LiveView()
    view._console = Console(file=screen, force_terminal=True, width=80)
    view.start([FakeTrack("room", 0.1, False)], lambda: False)
    view.line(RawLine("room", 0, 900, "Morning, everyone.", 0.9))
    view.stop()
    shown = screen.getvalue()
    assert "Morning, everyone." in shown
    assert shown.endswith("\x1b[2K"), repr(shown[-80:])  # the panel's line, erased
