"""The watching tools' result shapes (behaviour 3.4 to 3.7)."""

from __future__ import annotations

from assist.core import hints, results
from assist.core.batcher import Batch
from assist.core.gate import Gate, cap_hold, cooldown_hold
from assist.core.settings import AssistantSettings
from hypothesis import given
from hypothesis import strategies as st

BATCH = Batch(("[00:01] Ana: Hi.",), left_out_as_your_own_voice=0, named_you=False)


def test_a_watch_reports_who_the_assistant_is_and_its_limits():
    gate = Gate(30, 4, spoken=1)
    answer = results.watching("s1", AssistantSettings(True, "Ada", 30, 4), "Hello.", ["a"], gate)
    assert answer == {
        "watching": "s1",
        "you_are": "Ada",
        "notice_spoken": "Hello.",
        "recent": ["a"],
        "limits": {"cooldown_s": 30, "max_per_meeting": 4, "spoken": 1},
        "next": hints.next_after_watch(),
    }


def test_a_live_wait_says_whether_the_assistant_may_speak_and_only_the_fields_that_apply():
    gate = Gate(60, 10, spoken=2)
    assert results.live(BATCH, None, gate) == {
        "status": "live",
        "lines": ["[00:01] Ana: Hi."],
        "may_speak": "yes",
        "spoken": 2,
    }
    hold = cooldown_hold(12.5)
    named = Batch((), left_out_as_your_own_voice=2, named_you=True)
    answer = results.live(named, hold, gate)
    assert answer["may_speak"] == f"not now: {hold.text}"
    assert (answer["left_out_as_your_own_voice"], answer["named_you"]) == (2, True)


def test_a_wait_whose_watch_ended_says_why_and_to_stop():
    assert results.switched_off(BATCH)["status"] == "off"
    assert results.switched_off(BATCH)["next"] == hints.next_after_off()
    assert results.recording_ended(BATCH) == {
        "status": "ended",
        "lines": ["[00:01] Ana: Hi."],
        "next": hints.next_after_ended(),
    }


def test_stop_watching_reports_the_count_or_that_nothing_was_watched():
    assert results.stopped("s1", Gate(60, 10, spoken=3)) == {"stopped_watching": "s1", "spoken": 3}
    assert results.stopped(None, None) == {
        "stopped_watching": None,
        "note": hints.nothing_to_stop(),
    }


@given(st.integers(0, 50), st.integers(0, 60), st.booleans())
def test_speak_reports_how_many_more_lines_the_cap_allows_never_below_zero(cap, spoken, cut):
    answer = results.spoken("Hi.", 0.5, Gate(60, cap, spoken=spoken), cut_off=cut)
    assert answer["may_still_speak"] == max(0, cap - spoken)
    assert answer["said"] == "Hi." and answer["audio_s"] == 0.5
    assert answer.get("cut_off", False) is cut
    assert results.live(BATCH, cap_hold(cap), Gate(60, cap, spoken=spoken))["may_speak"] != "yes"


@given(st.one_of(st.none(), st.integers(0, 10**6)), st.booleans())
def test_speak_says_how_long_a_line_stood_paused_only_when_it_paused(paused_ms, interrupted):
    answer = results.spoken(
        "Hi there.", 0.5, None, cut_off=interrupted, interrupted=interrupted, paused_ms=paused_ms
    )
    assert answer.get("paused_ms") == paused_ms
    assert ("said_approx" in answer) is interrupted


def test_confirm_gives_the_answer_and_what_was_heard_or_no_answer_when_the_watch_ended():
    assert results.confirmed("yes", ["a"]) == {"answer": "yes", "heard": ["a"]}
    off = results.confirm_switched_off(["a"])
    assert off == {
        "answer": "no answer",
        "heard": ["a"],
        "status": "off",
        "next": hints.next_after_off(),
    }
    assert results.confirm_recording_ended([])["status"] == "ended"
