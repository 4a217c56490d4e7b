"""The consent notice and the watch lifecycle (behaviour.md 3.4, 3.8)."""

from __future__ import annotations

import pytest
from assist.core.consent import (
    TRANSITIONS,
    LeaveReason,
    LifecycleError,
    Watch,
    WatchEvent,
    WatchState,
    notice_text,
)
from assist.core.echo import is_echo, tokens
from assist.core.names import says_name
from hypothesis import given
from hypothesis import strategies as st

word = st.text(st.characters(categories=["Lu", "Ll", "Nd"]), min_size=1, max_size=12)
names = st.lists(word, min_size=1, max_size=5).map(" ".join)


def test_the_notice_names_the_assistant_and_says_it_listens_and_may_talk() -> None:
    notice = notice_text("Claude")
    assert "Claude" in notice
    assert "AI assistant" in notice
    assert "listening" in notice
    assert "may speak" in notice
    assert 1 <= notice.count(".") <= 2


def test_the_notice_is_fixed_text_with_the_name_put_in() -> None:
    assert notice_text("Ambient Bot").replace("Ambient Bot", "Claude") == notice_text("Claude")


@given(names)
def test_the_notice_has_12_to_25_words_for_names_of_up_to_5_words(name: str) -> None:
    assert 12 <= len(tokens(notice_text(name))) <= 25
    assert says_name(notice_text(name), name)


@given(st.text(alphabet=" -!?.,:;()", max_size=30))
def test_a_name_without_any_words_still_leaves_a_notice_of_12_words(name: str) -> None:
    assert len(tokens(notice_text(name))) >= 12


def test_a_short_question_to_the_assistant_after_the_notice_is_not_taken_for_its_echo() -> None:
    notice = notice_text("Claude")
    assert not is_echo(notice, ["Claude, can you hear us?"])
    assert not is_echo(notice, ["Hello Claude, is this meeting being recorded by an AI assistant?"])
    heard_back = "hello everyone this is claude an ai assistant i am listening to this meeting"
    assert is_echo(notice, [heard_back])


def test_a_watch_goes_from_none_through_announcing_to_watching_and_left() -> None:
    watch = Watch()
    assert watch.state is WatchState.NONE
    watch = watch.join()
    assert watch.state is WatchState.ANNOUNCING
    watch = watch.notice_spoken()
    assert watch.state is WatchState.WATCHING
    watch = watch.leave(LeaveReason.RECORDING_ENDED)
    assert (watch.state, watch.reason) == (WatchState.LEFT, LeaveReason.RECORDING_ENDED)
    watch = watch.join()
    assert (watch.state, watch.reason) == (WatchState.ANNOUNCING, None)


def test_a_failed_notice_leaves_without_ever_watching() -> None:
    watch = Watch().join().leave(LeaveReason.NOTICE_FAILED)
    assert (watch.state, watch.reason) == (WatchState.LEFT, LeaveReason.NOTICE_FAILED)


@pytest.mark.parametrize(
    "moves",
    [
        ["notice_spoken"],
        ["leave"],
        ["join", "join"],
        ["join", "notice_spoken", "notice_spoken"],
        ["join", "notice_spoken", "join"],
        ["join", "leave", "leave"],
        ["join", "leave", "notice_spoken"],
    ],
)
def test_a_move_the_table_does_not_allow_is_refused(moves: list[str]) -> None:
    watch = Watch()
    with pytest.raises(LifecycleError, match="cannot take"):
        for move in moves:
            watch = (
                watch.leave(LeaveReason.AGENT_STOPPED)
                if move == "leave"
                else getattr(watch, move)()
            )


def test_every_state_has_a_row_and_every_event_is_used() -> None:
    assert set(TRANSITIONS) == set(WatchState)
    assert {event for row in TRANSITIONS.values() for event in row} == set(WatchEvent)


@given(st.lists(st.sampled_from(["join", "notice_spoken", "leave"]), max_size=30))
def test_a_meeting_is_held_exactly_between_a_join_and_a_leave(moves: list[str]) -> None:
    watch = Watch()
    joined = False
    for move in moves:
        try:
            watch = watch.leave(LeaveReason.SHUTDOWN) if move == "leave" else getattr(watch, move)()
        except LifecycleError:
            continue
        joined = {"join": True, "leave": False}.get(move, joined)
        assert (watch.state in {WatchState.ANNOUNCING, WatchState.WATCHING}) == joined


def test_there_are_the_seven_leave_reasons_and_the_conversations_each_with_its_own_why() -> None:
    whys = [reason.why for reason in LeaveReason]
    assert len(whys) == len(set(whys)) == 8
    assert all(0 < len(why) <= 80 for why in whys)
    assert {reason.name for reason in LeaveReason} == {
        "OFF_AT_WATCH",
        "REPLACED",
        "NOTICE_FAILED",
        "SWITCHED_OFF",
        "RECORDING_ENDED",
        "AGENT_STOPPED",
        "SHUTDOWN",
        "CONVERSATION_OVER",
    }
