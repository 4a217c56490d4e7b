"""The session tools of `assist mcp` (behaviour 3.3) through the SDK's stdio client.

One real server serves the whole module; each test lays out the sessions it needs in its own
uniquely named folders, so tests do not depend on each other.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp_harness import LiveMeeting, Place, connect, refusal_of, value_of

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    place = Place(tmp_path_factory.mktemp("sessions"))
    place.configure(enabled=False)
    return place


@pytest.fixture(scope="module")
async def server(place: Place) -> AsyncIterator[ClientSession]:
    async with connect(place) as session:
        yield session


def finished(place: Place, session_id: str, **meta: Any) -> Path:
    folder = place.sessions / session_id
    folder.mkdir()
    (folder / "session.json").write_text(json.dumps({"id": session_id, **meta}), encoding="utf-8")
    return folder


def rows_by_id(listing: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in listing}


async def test_sessions_lists_finished_and_live_sessions_newest_first(
    server: ClientSession, place: Place
) -> None:
    finished(place, "2026-01-01T0900-old", name="Old", duration_s=61.5, tags=["a"], pinned=True)
    (place.sessions / "2026-01-01T0900-old" / "transcript.md").write_text("# done\n")
    live = LiveMeeting(place, "2026-01-02T0900-now")
    try:
        listing = value_of(await server.call_tool("sessions", {}))
    finally:
        live.end()
    ids = [row["id"] for row in listing]
    assert ids == sorted(ids, reverse=True)
    rows = rows_by_id(listing)
    assert rows["2026-01-01T0900-old"] == {
        "id": "2026-01-01T0900-old",
        "dir": str(place.sessions / "2026-01-01T0900-old"),
        "name": "Old",
        "started_at": None,
        "duration_s": 61.5,
        "transcribed": True,
        "live": False,
        "transcribing": False,
        "error": None,
        "tags": ["a"],
        "pinned": True,
    }
    assert rows["2026-01-02T0900-now"]["live"] is True
    assert rows["2026-01-02T0900-now"]["name"] is None


async def test_a_symlinked_session_folder_is_not_listed(
    server: ClientSession, place: Place
) -> None:
    real = finished(place, "2026-01-03T0900-real")
    os.symlink(real, place.sessions / "2026-01-03T0901-link")
    rows = rows_by_id(value_of(await server.call_tool("sessions", {})))
    assert "2026-01-03T0900-real" in rows
    assert "2026-01-03T0901-link" not in rows


async def test_transcript_returns_lines_and_a_cursor_that_skips_what_was_read(
    server: ClientSession, place: Place
) -> None:
    folder = finished(place, "2026-01-04T0900-cursor")
    lines = [
        {
            "track": "call",
            "start_ms": 12500,
            "end_ms": 14100,
            "text": "Hear me?",
            "speaker": "Dana",
        },
        {"track": "room", "start_ms": 100, "end_ms": 900, "text": "Yes.", "confidence": 0.5},
    ]
    (folder / "raw.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    first = value_of(await server.call_tool("transcript", {"session": "2026-01-04T0900-cursor"}))
    assert first == {
        "session": "2026-01-04T0900-cursor",
        "state": "pending",
        "next": 2,
        "lines": [
            {
                "track": "call",
                "start_ms": 12500,
                "end_ms": 14100,
                "speaker": "Dana",
                "text": "Hear me?",
            },
            {"track": "room", "start_ms": 100, "end_ms": 900, "speaker": None, "text": "Yes."},
        ],
    }
    with open(folder / "raw.jsonl", "a") as raw:
        raw.write(json.dumps({"track": "room", "start_ms": 5, "end_ms": 6, "text": "More"}) + "\n")
        raw.write('{"track":"room","start_ms":7,"end_ms":8,"te')  # a writer mid-append
    later = value_of(
        await server.call_tool(
            "transcript", {"session": "2026-01-04T0900-cursor", "since": 2, "verbatim": True}
        )
    )
    assert later["next"] == 3
    assert [line["text"] for line in later["lines"]] == ["More"]
    past = value_of(
        await server.call_tool("transcript", {"session": "2026-01-04T0900-cursor", "since": 99})
    )
    assert past["next"] == 3 and past["lines"] == []
    nulls = {"session": "2026-01-04T0900-cursor", "since": None, "verbatim": None}
    assert value_of(await server.call_tool("transcript", nulls))["next"] == 3


async def test_unreadable_raw_lines_count_toward_next_but_give_no_entry(
    server: ClientSession, place: Place
) -> None:
    folder = finished(place, "2026-01-05T0900-bad-lines")
    good = json.dumps({"track": "room", "start_ms": 1, "end_ms": 2, "text": "Fine."}).encode()
    (folder / "raw.jsonl").write_bytes(
        b"\xff\xfe not utf-8 at all\n" + b"{broken json\n" + b"\n" + good + b"\n"
    )
    reply = value_of(await server.call_tool("transcript", {"session": "2026-01-05T0900-bad-lines"}))
    assert reply["next"] == 4
    assert [line["text"] for line in reply["lines"]] == ["Fine."]
    assert (await server.send_ping()) is not None  # and the server keeps serving


@pytest.mark.parametrize("bad_id", ["..", ".", "", "a/b", "../sessions", "a\\b"])
async def test_an_id_that_is_not_one_path_segment_is_refused_as_not_a_session_id(
    server: ClientSession, bad_id: str
) -> None:
    text = refusal_of(await server.call_tool("transcript", {"session": bad_id}))
    assert "not a session id" in text


async def test_a_missing_session_is_refused_naming_it(server: ClientSession) -> None:
    text = refusal_of(await server.call_tool("transcript", {"session": "2020-01-01T0000-none"}))
    assert "no session" in text and "2020-01-01T0000-none" in text


async def test_a_symlinked_session_is_refused_as_a_symlink(
    server: ClientSession, place: Place
) -> None:
    real = finished(place, "2026-01-06T0900-target")
    os.symlink(real, place.sessions / "2026-01-06T0901-alias")
    text = refusal_of(await server.call_tool("transcript", {"session": "2026-01-06T0901-alias"}))
    assert "symlink" in text


async def test_a_symlinked_raw_jsonl_is_refused_naming_the_file(
    server: ClientSession, place: Place, tmp_path: Path
) -> None:
    folder = finished(place, "2026-01-07T0900-linked-raw")
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("")
    os.symlink(elsewhere, folder / "raw.jsonl")
    text = refusal_of(
        await server.call_tool("transcript", {"session": "2026-01-07T0900-linked-raw"})
    )
    assert "raw.jsonl" in text and "symlink" in text


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({}, "session"),
        ({"session": 5}, "session"),
        ({"session": "x", "since": "2"}, "since"),
        ({"session": "x", "since": -1}, "since"),
        ({"session": "x", "since": 1.5}, "since"),
        ({"session": "x", "since": True}, "since"),
        ({"session": "x", "verbatim": "yes"}, "verbatim"),
        ({"session": None}, "session"),
    ],
)
async def test_a_wrong_typed_transcript_argument_is_an_is_error_result_naming_it(
    server: ClientSession, arguments: dict[str, Any], named: str
) -> None:
    text = refusal_of(await server.call_tool("transcript", arguments))
    assert f"`{named}`" in text


async def test_status_reports_the_live_session_and_how_many_await_a_transcript(
    server: ClientSession, place: Place
) -> None:
    before = value_of(await server.call_tool("status", {}))
    finished(place, "2026-01-08T0900-pending")
    live = LiveMeeting(place, "2026-01-08T0901-live")
    try:
        during = value_of(await server.call_tool("status", {}))
    finally:
        live.end()
    assert during["live"] == {"id": "2026-01-08T0901-live"}
    assert during["sessions"] == before["sessions"] + 2
    assert during["awaiting_transcript"] == before["awaiting_transcript"] + 1
    after = value_of(await server.call_tool("status", {}))
    assert after["live"] is None
