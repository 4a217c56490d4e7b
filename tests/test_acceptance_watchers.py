"""Several `assist mcp` processes watching one meeting (behaviour 5.3, 5.4, 6.3).

The count and the cooldown belong to the meeting's log, not to a process: however many servers
watch, together they never exceed the cap, never speak within each other's cooldown, and never
talk over each other; a server killed in the middle of a line still has that line counted by
the others. The servers share one config folder (so one `speaking.lock`) and run the slow
stand-in voice, whose lines take long enough to overlap if the floor were not kept.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from mcp_harness import (
    LiveMeeting,
    Place,
    RawServer,
    children_of,
    helper_pids,
    is_running,
)

LINE_S = 0.6
COOLDOWN_S = 1
CAP = 3


def tool(server: RawServer, name: str, arguments: dict[str, Any], request_id: Any) -> Any:
    reply = server.request("tools/call", {"name": name, "arguments": arguments}, request_id)
    result = reply["result"]
    text = result["content"][0]["text"]
    return text if result["isError"] else json.loads(text)


def keep_trying_to_speak(server: RawServer, until: float, outcomes: list[Any]) -> None:
    """An eager agent: asks to speak again and again until `until`, or until it is told the
    meeting's allowance is used up (nothing can be said after that)."""
    number = 0
    while time.monotonic() < until:
        number += 1
        outcome = tool(server, "speak", {"text": f"Point {number} from {id(server)}."}, number)
        outcomes.append(outcome)
        if isinstance(outcome, str) and "allowance" in outcome:
            return
        time.sleep(0.05)


def at(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["at"]).timestamp()


def test_three_watchers_together_keep_the_cap_the_cooldown_and_one_voice_at_a_time(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure(cooldown_s=COOLDOWN_S, max_per_meeting=CAP)
    meeting = LiveMeeting(place)
    env = place.slow_voice(LINE_S, 0.1)
    servers = [RawServer(place, env=env) for _ in range(3)]
    try:
        for server in servers:
            server.initialize()
        for server in servers:
            assert isinstance(tool(server, "watch_meeting", {}, "watch"), dict)
        until = time.monotonic() + 3 * (COOLDOWN_S + LINE_S) + 2
        outcomes: list[list[Any]] = [[] for _ in servers]
        agents = [
            threading.Thread(target=keep_trying_to_speak, args=(server, until, outcome))
            for server, outcome in zip(servers, outcomes, strict=True)
        ]
        for agent in agents:
            agent.start()
        for agent in agents:
            agent.join()
        for server in servers:
            tool(server, "stop_watching", {}, "stop")
            server.close_input()
            assert server.wait() == 0
    finally:
        for server in servers:
            server.kill()
        meeting.end()

    events = meeting.events()
    spoken = [event for event in events if event["event"] == "spoke"]
    assert len([event for event in events if event["event"] == "speaking"]) == CAP
    assert len(spoken) == CAP
    assert len({event["pid"] for event in events if event["event"] == "joined"}) == 3
    lines = []
    for started in (event for event in events if event["event"] == "speaking"):
        [ended] = [event for event in spoken if event["utterance"] == started["utterance"]]
        lines.append((at(started), at(ended)))
    lines.sort()
    for (_, ended), (next_started, _) in itertools.pairwise(lines):
        assert next_started >= ended, "two voices overlapped"
        assert next_started - ended >= COOLDOWN_S - 0.05, "spoke within the cooldown"
    successes = [o for outcome in outcomes for o in outcome if isinstance(o, dict)]
    refusals = [o for outcome in outcomes for o in outcome if isinstance(o, str)]
    assert len(successes) == CAP
    assert all("pause" in text or "allowance" in text for text in refusals)
    assert helper_pids(place) == []


def test_a_watcher_killed_mid_line_still_has_that_line_counted_by_the_survivor(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure(cooldown_s=60, max_per_meeting=5)
    meeting = LiveMeeting(place)
    doomed = RawServer(place, env=place.slow_voice(30, 0.1))
    survivor = RawServer(place, env=place.slow_voice(0.1))
    try:
        doomed.initialize()
        survivor.initialize()
        tool(doomed, "watch_meeting", {}, "watch")
        tool(survivor, "watch_meeting", {}, "watch")
        doomed.send(
            {
                "jsonrpc": "2.0",
                "id": "long",
                "method": "tools/call",
                "params": {"name": "speak", "arguments": {"text": "A very long story."}},
            }
        )
        deadline = time.monotonic() + 10
        while "speaking" not in meeting.event_names():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        [orphan] = children_of(doomed.process.pid)
        os.kill(doomed.process.pid, signal.SIGKILL)
        doomed.wait()
        batch = tool(survivor, "wait_for_transcript", {"timeout_s": 1}, "wait")
        assert batch["spoken"] == 1
        assert batch["may_speak"].startswith("not now: ")
        held = tool(survivor, "speak", {"text": "Me next."}, "speak")
        assert isinstance(held, str) and "pause" in held
        deadline = time.monotonic() + 5
        while is_running(orphan):  # the killed server's helper saw its stdin close
            assert time.monotonic() < deadline, "the killed server's helper outlived it"
            time.sleep(0.1)
        tool(survivor, "stop_watching", {}, "stop")
        survivor.close_input()
        assert survivor.wait() == 0
    finally:
        doomed.kill()
        survivor.kill()
        meeting.end()
    names = meeting.event_names()
    assert names.count("speaking") == 1 and "spoke" not in names
    assert meeting.events()[-1]["spoke"] == 1
