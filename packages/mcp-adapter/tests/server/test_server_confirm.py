"""`confirm` through a real `assist mcp` and the official MCP client (behaviour.md 14.1).

The server runs the slow stand-in helper (`server_fakes/slow_voice.py`: each line "plays" for
0.3 s, the notice for 0.1 s) and the batching clock at a fifth of its pace. A test waits until
the question's `spoke` event is in the meeting's log (the server marks where the answer may
begin before it logs that), then writes the user's answer into `raw.jsonl` as a recorder would.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from assist.core import hints, refusals
from mcp.client.session import ClientSession
from mcp_harness import (
    LiveMeeting,
    Place,
    connect,
    eventually,
    next_meeting,
    place_in,
    refusal_of,
    value_of,
    watching,
)

pytestmark = pytest.mark.anyio

LINE_S = 0.3
NOTICE_S = 0.1
QUESTION = "Shall I file a task to check version 1.8?"
SETTLE_S = 30.0
"""Generous bound for a step to be seen: both cores may be busy with other agents' tests."""


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "confirm", cooldown_s=0)


@pytest.fixture(scope="module")
async def server(place: Place) -> AsyncIterator[ClientSession]:
    env = place.slow_voice(LINE_S, NOTICE_S, ASSIST_PACING_SCALE="0.2")
    async with connect(place, env=env) as session:
        yield session


@pytest.fixture
def meeting(place: Place, server: ClientSession) -> Iterator[LiveMeeting]:
    with next_meeting(place, "2026-04-02", "confirm", cooldown_s=0) as live:
        yield live


async def joined(server: ClientSession) -> None:
    value_of(await server.call_tool("watch_meeting", {}))


def question_said(meeting: LiveMeeting, question: str = QUESTION) -> bool:
    return any(e["event"] == "spoke" and e["text"] == question for e in meeting.events())


class Asking:
    """A confirm call running in the background; `reply` once it has answered."""

    def __init__(self) -> None:
        self.reply: types.CallToolResult | None = None
        self.took = 0.0

    async def run(self, server: ClientSession, arguments: dict[str, Any]) -> None:
        started = time.monotonic()
        self.reply = await server.call_tool("confirm", arguments)
        self.took = time.monotonic() - started


@asynccontextmanager
async def asked(
    server: ClientSession, meeting: LiveMeeting, question: str = QUESTION, **arguments: Any
) -> AsyncIterator[Asking]:
    """Call confirm in the background and enter the block once its question was said; by the
    end of the block the call has answered (its `reply` is there)."""
    asking = Asking()
    async with anyio.create_task_group() as group:
        group.start_soon(asking.run, server, {"question": question, **arguments})
        await eventually(lambda: question_said(meeting, question), SETTLE_S)
        yield asking
    assert asking.reply is not None


async def ask_and_answer(
    server: ClientSession, meeting: LiveMeeting, *answers: str, question: str = QUESTION
) -> Any:
    """Call confirm, wait until its question was said, say `answers`; its JSON result."""
    async with asked(server, meeting, question, timeout_s=60) as asking:
        for text in answers:
            meeting.say(text)
    assert asking.reply is not None
    return value_of(asking.reply)


async def test_a_spoken_yes_answers_yes_and_the_question_is_logged_as_an_utterance(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        got = await ask_and_answer(server, meeting, "Yes, go ahead.")
        assert got == {"answer": "yes", "heard": ["[00:00] someone in the room: Yes, go ahead."]}
        events = meeting.events()
        assert [event["event"] for event in events] == ["joined", "speaking", "spoke"]
        assert events[1]["text"] == QUESTION and events[2]["utterance"] == events[1]["utterance"]
        status = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
        assert status["spoken"] == 1


@pytest.mark.parametrize(
    "said",
    [
        ["Yes... no, wait, don't."],  # a no-word outweighs a yes-word
        ["I'm not sure, that isn't correct.", "No."],  # doubt is no yes: the next line decides
    ],
)
async def test_a_no_word_answers_no_even_with_a_yes_in_it_and_a_negated_yes_answers_nothing(
    server: ClientSession, meeting: LiveMeeting, said: list[str]
) -> None:
    async with watching(server):
        got = await ask_and_answer(server, meeting, *said)
        heard = [f"[00:{2 * n:02d}] someone in the room: {text}" for n, text in enumerate(said)]
        assert got == {"answer": "no", "heard": heard}


async def test_the_lines_heard_are_consumed_and_the_next_wait_starts_after_the_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        got = await ask_and_answer(
            server, meeting, "Hmm, let me think.", "Okay, do it.", "Claude, and the docs too."
        )
        assert got == {
            "answer": "yes",
            "heard": [
                "[00:00] someone in the room: Hmm, let me think.",
                "[00:02] someone in the room: Okay, do it.",
            ],
        }
        batch = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
        assert batch["lines"] == ["[00:04] someone in the room: Claude, and the docs too."]


async def test_silence_or_unclear_lines_until_the_timeout_give_no_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        async with asked(server, meeting, timeout_s=5) as asking:
            meeting.say("Hmm, I wonder.")
        assert asking.reply is not None
        assert value_of(asking.reply) == {
            "answer": "no answer",
            "heard": ["[00:00] someone in the room: Hmm, I wonder."],
        }
        assert asking.took >= 5.0
        batch = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
        assert batch["lines"] == []


async def test_a_timeout_below_5_seconds_is_read_as_5(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        asking = Asking()
        await asking.run(server, {"question": QUESTION, "timeout_s": 1})
        assert asking.reply is not None
        assert value_of(asking.reply) == {"answer": "no answer", "heard": []}
        assert asking.took >= 5.0


async def test_the_echo_of_the_question_itself_is_never_taken_as_the_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    question = "Okay to go ahead and delete the old release branch?"
    async with watching(server):
        async with asked(server, meeting, question, timeout_s=60) as asking:
            meeting.say("okay to go ahead and delete the old release branch")
            await anyio.sleep(1.0)  # five polls at this pace: the echo was read and passed over
            assert asking.reply is None
            meeting.say("Sure.")
        assert asking.reply is not None
        assert value_of(asking.reply) == {
            "answer": "yes",
            "heard": ["[00:02] someone in the room: Sure."],
        }


async def test_its_own_voice_misheard_into_a_yes_word_never_answers_even_merged_with_its_last_line(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    """Issue 20: the question came back with "cracked" heard as "correct", a yes-word, merged
    with the line said before it, so neither line alone held 60% of its words."""
    question = "Shall I throw away the cracked flower pots?"
    async with watching(server):
        value_of(await server.call_tool("speak", {"text": "I'll tidy the shed this afternoon."}))
        async with asked(server, meeting, question, timeout_s=5) as asking:
            meeting.say("Shall I throw away the correct flower pots?")
            meeting.say(
                "I'll tidy the shed this afternoon. Shall I throw away the correct flower pots?"
            )
        assert asking.reply is not None
        assert value_of(asking.reply) == {"answer": "no answer", "heard": []}


async def test_an_answer_merged_into_the_questions_echo_answers_with_the_users_words_alone(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    question = "Shall I order more compost for the raised beds?"
    async with watching(server):
        got = await ask_and_answer(
            server, meeting, f"{question} Yes, please do.", question=question
        )
        assert got == {"answer": "yes", "heard": ["[00:00] someone in the room: Yes, please do."]}


async def test_its_lines_said_back_to_back_and_heard_as_one_never_reach_a_wait(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    lines = ["The pots are in the shed.", "I moved the rake.", "The hose is by the door."]
    async with watching(server):
        for text in lines:
            value_of(await server.call_tool("speak", {"text": text}))
        meeting.say("The pots are in the shed. I moved the rake. The hose is by the door.")
        meeting.say("I moved the rake. The hose is by the door. Thanks, where's the shovel?")
        batch = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
        assert batch["lines"] == ["[00:02] someone in the room: Thanks, where's the shovel?"]
        assert batch["left_out_as_your_own_voice"] == 1


async def test_a_line_already_there_when_the_question_ended_is_heard_but_does_not_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        meeting.say("Okay, and one more thing.")
        got = await ask_and_answer(server, meeting, "No.")
        assert got == {
            "answer": "no",
            "heard": [
                "[00:00] someone in the room: Okay, and one more thing.",
                "[00:02] someone in the room: No.",
            ],
        }


async def test_in_a_cooldown_the_gate_turns_the_question_down_and_nothing_is_logged(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.configure(cooldown_s=60)
    async with watching(server):
        value_of(await server.call_tool("speak", {"text": "Hello there."}))
        text = refusal_of(await server.call_tool("confirm", {"question": QUESTION}))
        assert "was not spoken" in text and "seconds to go" in text
        assert "question was not asked" in text and "do not do" in text
        assert meeting.event_names() == ["joined", "speaking", "spoke"]


async def test_switching_off_while_it_listens_gives_no_answer_and_the_off_status(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await joined(server)
    async with asked(server, meeting) as asking:
        meeting.say("Hmm.")
        place.switch(False)
    assert asking.reply is not None
    assert value_of(asking.reply) == {
        "answer": "no answer",
        "heard": [],
        "status": "off",
        "next": hints.next_after_off(),
    }
    assert meeting.event_names()[-1] == "left"
    assert meeting.events()[-1]["why"] == "the assistant was switched off during the watch"


async def test_the_recording_ending_while_it_listens_gives_no_answer_and_the_ended_status(
    server: ClientSession, place: Place
) -> None:
    place.configure(cooldown_s=0)
    meeting = LiveMeeting(place, "2026-04-02T0001-ends")
    await joined(server)
    async with asked(server, meeting) as asking:
        meeting.end()
    assert asking.reply is not None
    got = value_of(asking.reply)
    assert got["answer"] == "no answer" and got["status"] == "ended"
    assert got["next"] == hints.next_after_ended()


async def test_stop_watching_while_it_listens_gives_a_refusal_saying_there_is_no_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    await joined(server)
    async with asked(server, meeting) as asking:
        value_of(await server.call_tool("stop_watching", {}))
    assert asking.reply is not None
    assert refusal_of(asking.reply) == refusals.confirm_watch_stopped()


async def test_confirm_and_a_wait_never_listen_at_the_same_time(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        waited: dict[str, Any] = {}

        async def wait() -> None:
            waited.update(value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 2})))

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.sleep(0.3)
            text = refusal_of(await server.call_tool("confirm", {"question": QUESTION}))
            assert text == refusals.confirm_during_wait()
        assert waited["status"] == "live"
        async with asked(server, meeting, timeout_s=60) as asking:
            second = refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
            assert second == refusals.wait_running()
            meeting.say("Yep.")
        assert asking.reply is not None and value_of(asking.reply)["answer"] == "yes"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"question": "   "}, refusals.blank_question()),
        ({}, refusals.blank_question()),
        ({"question": 7}, refusals.question_not_text("number")),
        ({"question": "x" * 601}, refusals.question_too_long(601, 600)),
    ],
)
async def test_a_question_that_cannot_be_asked_is_refused_before_anything_is_said(
    server: ClientSession, meeting: LiveMeeting, arguments: dict[str, Any], expected: str
) -> None:
    async with watching(server):
        assert refusal_of(await server.call_tool("confirm", arguments)) == expected
        assert meeting.event_names() == ["joined"]


async def test_without_a_watch_confirm_says_to_call_watch_meeting_and_not_to_act(
    server: ClientSession,
) -> None:
    text = refusal_of(await server.call_tool("confirm", {"question": QUESTION}))
    assert text == refusals.not_asked(refusals.not_watching())
