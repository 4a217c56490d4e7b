"""Progress while `wait_for_transcript` and `confirm` wait (behaviour.md 3.5, 14.1).

Claude Desktop stops waiting for a tool after about 60 s and some clients reset their limit on
progress, so a long wait reports progress when the request carries a progress token, and
nothing when it carries none; `confirm`'s default wait then fits under a minute. Through a real
`assist mcp` and the official client; every notification the server sends is also recorded by
the session's message handler, so a notification sent without a token would be seen. The
waits are long (progress comes every 5 s) and the checks count notifications, never time them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import mcp_types as types
import pytest
from assist.mcp.server import progress
from mcp.client.session import ClientSession, IncomingMessage
from mcp_harness import LiveMeeting, Place, connect, next_meeting, place_in, value_of, watching

pytestmark = pytest.mark.anyio

LONG_WAIT_S = 16
"""Long enough for two reports at 5 s and 10 s with room to spare on a busy machine."""
CLIENT_LIMIT_S = 60
"""Where Claude Desktop stops waiting for a tool that sends no progress."""
BOUND_S = 150
"""The most any call here may take before the test fails instead of hanging."""


class Reports:
    """Progress reports one call received through its progress callback."""

    def __init__(self) -> None:
        self.received: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, value: float, total: float | None, message: str | None) -> None:
        self.received.append((value, total, message))

    def values(self) -> list[float]:
        return [value for value, _total, _message in self.received]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "progress", cooldown_s=0)


@pytest.fixture(scope="module")
def sent() -> list[types.ProgressNotification]:
    """Every progress notification the server sent, whichever call it was for."""
    return []


@pytest.fixture(scope="module")
async def server(
    place: Place, sent: list[types.ProgressNotification]
) -> AsyncIterator[ClientSession]:
    async def record(message: IncomingMessage) -> None:
        if isinstance(message, types.ProgressNotification):
            sent.append(message)

    env = place.slow_voice(0.3, 0.1)
    async with connect(place, env=env, message_handler=record) as session:
        yield session


@pytest.fixture
def meeting(
    place: Place, server: ClientSession, sent: list[types.ProgressNotification]
) -> Iterator[LiveMeeting]:
    sent.clear()
    with next_meeting(place, "2026-05-06", "progress", cooldown_s=0) as live:
        yield live


async def test_a_long_wait_reports_progress_counting_up_when_the_client_asks_for_it(
    server: ClientSession, meeting: LiveMeeting, sent: list[types.ProgressNotification]
) -> None:
    reports = Reports()
    async with watching(server):
        with anyio.fail_after(BOUND_S):
            reply = await server.call_tool(
                "wait_for_transcript", {"timeout_s": LONG_WAIT_S}, progress_callback=reports
            )
    assert value_of(reply)["lines"] == []
    assert len(reports.received) >= 2
    assert reports.values() == sorted(set(reports.values()))
    assert {message for _value, _total, message in reports.received} == {progress.WAITING}
    assert len(sent) == len(reports.received)


async def test_a_wait_without_a_progress_token_sends_no_progress(
    server: ClientSession, meeting: LiveMeeting, sent: list[types.ProgressNotification]
) -> None:
    async with watching(server):
        with anyio.fail_after(BOUND_S):
            reply = await server.call_tool("wait_for_transcript", {"timeout_s": LONG_WAIT_S})
    assert value_of(reply)["lines"] == []
    assert sent == []


async def test_a_long_confirm_reports_progress_while_it_listens_for_the_answer(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    reports = Reports()
    question = {"question": "Shall I file the task?", "timeout_s": LONG_WAIT_S}
    async with watching(server):
        with anyio.fail_after(BOUND_S):
            reply = await server.call_tool("confirm", question, progress_callback=reports)
    assert value_of(reply) == {"answer": "no answer", "heard": []}
    assert len(reports.received) >= 2
    assert reports.values() == sorted(set(reports.values()))
    assert {message for _value, _total, message in reports.received} == {progress.CONFIRMING}


async def test_confirm_without_a_progress_token_answers_before_a_client_gives_up_at_60_s(
    server: ClientSession, meeting: LiveMeeting, sent: list[types.ProgressNotification]
) -> None:
    async with watching(server):
        reply = await server.call_tool(
            "confirm", {"question": "Shall I file the task?"}, read_timeout_seconds=CLIENT_LIMIT_S
        )
    assert value_of(reply) == {"answer": "no answer", "heard": []}
    assert sent == []


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_tick_reports_the_seconds_waited_once_every_5_s_and_never_when_not_asked() -> None:
    clock = Clock()
    reports = Reports()
    asked = progress.Progress(reports, progress.WAITING, clock)
    silent = progress.Progress(None, progress.WAITING, clock)
    for _ in range(24):  # half a second a poll, for 12 s
        clock.now += 0.5
        await asked.tick()
        await silent.tick()
    assert reports.received == [(5, None, progress.WAITING), (10, None, progress.WAITING)]
    assert (asked.asked, silent.asked) == (True, False)
