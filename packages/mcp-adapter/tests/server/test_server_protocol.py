"""`assist mcp` on a raw pipe: the protocol-error table, version negotiation, stdout discipline,
and how the process ends (behaviour 3.1, 3.8).

Raw JSON-RPC lines are written by hand, because an SDK client never sends the malformed
messages the table is about. Every stdout line the server writes is checked to be one JSON-RPC
message (`RawServer.stray` collects anything else).
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from assist.mcp.server import tools, wire
from mcp_harness import (
    TOOLS_IN_ORDER,
    LiveMeeting,
    Place,
    RawServer,
    helper_pids,
    place_in,
    raw_server,
)


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "protocol")


@pytest.fixture(scope="module")
def raw(place: Place) -> Iterator[RawServer]:
    with raw_server(place) as server:
        yield server


def error_of(reply: dict[str, Any]) -> tuple[Any, int, str]:
    assert "result" not in reply, reply
    return reply["id"], reply["error"]["code"], reply["error"]["message"]


TABLE = [
    # (line sent, id answered, code, a word the message must name)
    (b"this is not json", None, -32700, "JSON"),
    (b"\xff\xfe{ not utf-8", None, -32700, "JSON"),
    (b"[1, 2]", None, -32600, "object"),
    (b'"a string"', None, -32600, "object"),
    (b"42", None, -32600, "object"),
    (b'{"jsonrpc":"1.0","id":2,"method":"ping"}', 2, -32600, "jsonrpc"),
    (b'{"id":3,"method":"ping"}', 3, -32600, "jsonrpc"),
    (b'{"jsonrpc":"2.0","id":4,"method":5}', 4, -32600, "method"),
    (b'{"jsonrpc":"2.0","id":5}', 5, -32600, "method"),
    (b'{"jsonrpc":"2.0","id":6,"method":"tools/call"}', 6, -32602, "params"),
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}', 7, -32602, "params"),
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}', 8, -32602, "name"),
    (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"status","arguments":[1]}}',
        9,
        -32602,
        "arguments",
    ),
    (
        b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"status","arguments":null}}',
        10,
        -32602,
        "arguments",
    ),
    (
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search"}}',
        11,
        -32602,
        "search",
    ),
    (b'{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":[1]}', 13, -32602, "params"),
    (b'{"jsonrpc":"2.0","id":14,"method":"prompts/get"}', 14, -32602, "params"),
    (
        b'{"jsonrpc":"2.0","id":15,"method":"prompts/get","params":{"name":"meeting"}}',
        15,
        -32602,
        "watch",
    ),
    (b'{"jsonrpc":"2.0","id":16,"method":"prompts/get","params":{"name":5}}', 16, -32602, "watch"),
    (b'{"jsonrpc":"2.0","id":17,"method":"resources/list"}', 17, -32601, "resources/list"),
    (b'{"jsonrpc":"2.0","id":18,"method":"server/discover"}', 18, -32601, "server/discover"),
    (b'{"jsonrpc":"2.0","id":"text-id","method":"nope"}', "text-id", -32601, "nope"),
    (b'{"jsonrpc":"2.0","id":{"no":1},"method":"ping"}', None, -32600, "id"),
]


@pytest.mark.parametrize(("line", "answered_id", "code", "named"), TABLE)
def test_a_malformed_message_gets_the_code_and_id_of_the_table(
    raw: RawServer, line: bytes, answered_id: Any, code: int, named: str
) -> None:
    raw.send(line)
    got_id, got_code, message = error_of(raw.reply())
    assert (got_id, got_code) == (answered_id, code)
    assert named in message
    assert raw.request("ping", request_id="after")["result"] == {}  # the stream goes on


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"   ",
        b'{"jsonrpc":"2.0","method":"notifications/whatever"}',
        b'{"jsonrpc":"1.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"status"}}',
        b'{"jsonrpc":"2.0","id":99,"result":{}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":null}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled"}',
    ],
)
def test_blank_lines_notifications_and_replies_are_never_answered(
    raw: RawServer, line: bytes
) -> None:
    raw.send(line)
    assert raw.request("ping", request_id="probe") == {
        "jsonrpc": "2.0",
        "id": "probe",
        "result": {},
    }


def test_the_watching_tools_never_answer_invalid_params_for_an_argument_type(
    raw: RawServer,
) -> None:
    for name, arguments in [
        ("wait_for_transcript", {"timeout_s": "soon"}),
        ("speak", {"text": 5, "emotion": ["warm"]}),
        ("watch_meeting", {"session": 12}),
        ("stop_watching", {"anything": True}),
    ]:
        reply = raw.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        assert reply["result"]["content"][0]["type"] == "text"


def test_prompts_list_offers_watch_then_talk_each_with_an_optional_focus(raw: RawServer) -> None:
    prompts = raw.request("prompts/list")["result"]["prompts"]
    assert [listed["name"] for listed in prompts] == ["watch", "talk"]
    for listed in prompts:
        assert set(listed) == {"name", "title", "description", "arguments"}
        assert listed["title"] and listed["description"]
        [focus] = listed["arguments"]
        assert focus["name"] == "focus" and focus["required"] is False and focus["description"]
    assert prompts[0]["title"] != prompts[1]["title"]


def test_prompts_get_talk_names_the_assistant_and_start_conversation_and_ends_with_the_focus(
    raw: RawServer,
) -> None:
    got = raw.request("prompts/get", {"name": "talk", "arguments": {"focus": " the garden "}})
    text = got["result"]["messages"][0]["content"]["text"]
    assert text.startswith("You are Claude")
    for tool in ("start_conversation", "wait_for_transcript", "speak", "confirm", "stop_watching"):
        assert tool in text
    assert text.endswith(" the garden") and "watch_meeting" not in text


def test_prompts_get_reads_the_assistants_name_each_time_and_ends_with_the_focus(
    raw: RawServer, place: Place
) -> None:
    place.configure(name="Ada")
    try:
        got = raw.request("prompts/get", {"name": "watch", "arguments": {"focus": " the budget "}})
    finally:
        place.configure()
    [message] = got["result"]["messages"]
    assert got["result"]["description"]
    assert message["role"] == "user" and message["content"]["type"] == "text"
    text = message["content"]["text"]
    assert text.startswith("You are Ada")
    last = text.rsplit("\n\n", 1)[1]  # after a blank line, a lead-in, then the trimmed focus
    assert last.endswith(" the budget") and last != "the budget"
    for tool in ("watch_meeting", "wait_for_transcript", "speak", "stop_watching"):
        assert tool in text
    again = raw.request("prompts/get", {"name": "watch"})["result"]["messages"][0]
    assert again["content"]["text"].startswith("You are Claude")


def test_a_non_string_focus_is_ignored_not_an_error(raw: RawServer) -> None:
    reply = raw.request("prompts/get", {"name": "watch", "arguments": {"focus": 5}})
    text = reply["result"]["messages"][0]["content"]["text"]
    assert text.startswith("You are Claude")


def without_descriptions(schema: Any) -> Any:
    """A schema with every property's description taken out (their words are ours)."""
    if isinstance(schema, dict):
        return {
            key: without_descriptions(value)
            for key, value in schema.items()
            if not (key == "description" and isinstance(value, str))
        }
    return schema


def test_tools_list_gives_the_nine_tools_in_order_with_their_exact_schemas(
    raw: RawServer,
) -> None:
    listed = raw.request("tools/list")["result"]["tools"]
    assert [tool["name"] for tool in listed] == TOOLS_IN_ORDER
    empty = {"type": "object", "properties": {}}
    schemas = {tool["name"]: without_descriptions(tool["inputSchema"]) for tool in listed}
    assert schemas == {
        "sessions": empty,
        "transcript": {
            "type": "object",
            "properties": {
                "session": {"type": "string"},
                "since": {"type": "integer"},
                "verbatim": {"type": "boolean"},
            },
            "required": ["session"],
        },
        "status": empty,
        "watch_meeting": {"type": "object", "properties": {"session": {"type": "string"}}},
        "wait_for_transcript": {
            "type": "object",
            "properties": {"timeout_s": {"type": "integer", "minimum": 1, "maximum": 120}},
        },
        "speak": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "emotion": {
                    "type": "string",
                    "enum": ["neutral", "warm", "amused", "excited", "apologetic", "concerned"],
                },
            },
            "required": ["text"],
        },
        "confirm": {
            "type": "object",
            "properties": {
                "question": {"type": "string"},
                "timeout_s": {"type": "integer", "minimum": 5, "maximum": 120},
            },
            "required": ["question"],
        },
        "start_conversation": empty,
        "stop_watching": empty,
    }
    for tool in listed:
        assert len(tool["description"].split()) >= 5
        for prop in tool["inputSchema"]["properties"].values():
            assert len(prop["description"].split()) >= 3


def test_a_result_is_one_compact_text_block_with_non_ascii_kept(
    raw: RawServer, place: Place
) -> None:
    folder = place.sessions / "2026-02-01T0900-cafe"
    folder.mkdir()
    (folder / "session.json").write_text(json.dumps({"name": "Café ☕"}), encoding="utf-8")
    reply = raw.request("tools/call", {"name": "sessions"})["result"]
    assert set(reply) == {"content", "isError"} and reply["isError"] is False
    [block] = reply["content"]
    assert block["type"] == "text"
    assert '"name":"Café ☕"' in block["text"]
    assert ", " not in block["text"] and '": ' not in block["text"]


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ],
)
def test_initialize_answers_the_version_asked_for_else_2025_11_25(
    raw: RawServer, asked: str, answered: str
) -> None:
    reply = raw.request(
        "initialize",
        {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )["result"]
    assert reply["protocolVersion"] == answered
    assert reply["capabilities"] == {
        "tools": {"listChanged": False},
        "prompts": {"listChanged": False},
    }
    assert reply["serverInfo"] == {"name": "assist", "version": metadata.version("assist-mcp")}


def test_a_sparse_initialize_still_gets_an_answer(raw: RawServer) -> None:
    reply = raw.request("initialize", {"protocolVersion": "2025-06-18"})
    assert reply["result"]["protocolVersion"] == "2025-06-18"


def test_a_wait_cancelled_by_the_client_is_never_answered_and_loses_no_lines(
    raw: RawServer, place: Place
) -> None:
    meeting = LiveMeeting(place, "2026-02-02T0900-cancel")
    try:
        raw.watch_meeting()
        meeting.say("A thought in progress.")
        raw.send(
            {
                "jsonrpc": "2.0",
                "id": "the-wait",
                "method": "tools/call",
                "params": {"name": "wait_for_transcript", "arguments": {"timeout_s": 1}},
            }
        )
        time.sleep(0.3)  # the wait has read the line; the room is not quiet for 3 s yet
        raw.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "the-wait", "reason": "the user moved on"},
            }
        )
        assert raw.request("ping", request_id="after")["id"] == "after"
        raw.no_reply(within=1.2)  # the 1 s wait would have answered by now
        reply = raw.request(
            "tools/call", {"name": "wait_for_transcript", "arguments": {"timeout_s": 1}}, "next"
        )
        batch = json.loads(reply["result"]["content"][0]["text"])
        assert batch["lines"] == ["[00:00] someone in the room: A thought in progress."]
    finally:
        raw.request("tools/call", {"name": "stop_watching"})
        meeting.end()


def test_eof_answers_every_request_already_read_ends_an_open_wait_and_exits_0(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    server = RawServer(place, env=place.slow_voice(0.1, 0.0))
    try:
        server.initialize()
        server.watch_meeting()
        server.send(
            {
                "jsonrpc": "2.0",
                "id": "wait",
                "method": "tools/call",
                "params": {"name": "wait_for_transcript", "arguments": {"timeout_s": 60}},
            }
        )
        for number in range(1, 21):
            method = ["ping", "tools/list", "prompts/list"][number % 3]
            server.send({"jsonrpc": "2.0", "id": number, "method": method})
        server.send(
            {"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": "status"}}
        )
        started = time.monotonic()
        server.close_input()
        assert server.wait() == 0
        assert time.monotonic() - started < 5
    finally:
        server.kill()
        meeting.end()
    replies = {reply["id"]: reply for reply in server.remaining_replies()}
    assert set(replies) == {*range(1, 22), "wait"}
    waited = replies["wait"]["result"]
    assert waited["isError"] is True and "watch_meeting" in waited["content"][0]["text"]
    assert meeting.event_names() == ["joined", "left"]
    assert not place.heartbeat.exists()
    assert server.stray == []
    assert helper_pids(place) == []


def test_sigterm_sigint_and_sighup_each_leave_the_watch_remove_the_heartbeat_and_exit_0(
    tmp_path: Path,
) -> None:
    signals = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
    places = [Place(tmp_path / number.name) for number in signals]
    meetings, servers = [], []
    try:
        for place in places:
            place.configure()
            meetings.append(LiveMeeting(place))
            # Started together, so their start-ups overlap; the stand-in voice starts at once.
            servers.append(RawServer(place, env=place.slow_voice(0.1, 0.0)))
        for server, place, number in zip(servers, places, signals, strict=True):
            server.initialize()
            server.watch_meeting()
            assert place.heartbeat.exists()
            server.process.send_signal(number)
        for server in servers:
            assert server.wait() == 0
            assert server.stray == []
    finally:
        for server, meeting in zip(servers, meetings, strict=False):
            server.kill()
            meeting.end()
    for place, meeting in zip(places, meetings, strict=True):
        assert meeting.event_names() == ["joined", "left"]
        assert meeting.events()[-1]["why"] == "the server is shutting down"
        assert not place.heartbeat.exists()
        assert helper_pids(place) == []


def test_wire_screening_is_the_same_decision_for_text_with_or_without_its_newline() -> None:
    names = tools.TOOL_NAMES
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert wire.screen(line, names) == wire.screen(line + b"\n", names)
    assert wire.screen(b"\n", names) == wire.Skip("blank line")
