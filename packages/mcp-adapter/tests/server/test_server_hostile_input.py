"""Nothing a client or a file sends takes `assist mcp` down (behaviour 3.1, 3.2, 3.3, 4.4, 5.2).

Each case here once ended the process, answered with the wrong kind of error, or lost an
event: lone surrogates (`"\\ud800"`, valid JSON that UTF-8 cannot encode) wherever a string can
reach an answer, files nested deeper than the parser goes, a log torn mid-line, argument errors
of the session tools, and a `stop_watching` while the voice helper hangs. The server is a real
`assist mcp` on a raw pipe, so a crash shows as a closed stdout, and every stdout line is
checked to be one JSON-RPC message.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from assist.mcp.server.server import guarded
from assist.mcp.server.transport import reply_line
from mcp.shared.exceptions import MCPError
from mcp_harness import LiveMeeting, Place, RawServer, helper_pids, place_in, raw_server

DEEP = "[" * 5000 + "]" * 5000
"""Nested deeper than Python's json parser can go: it raises RecursionError, not ValueError."""


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "hostile")


@pytest.fixture(scope="module")
def raw(place: Place) -> Iterator[RawServer]:
    with raw_server(place) as server:
        yield server


def call(tool: str, arguments: Any, request_id: Any = 1) -> bytes:
    """A tools/call line written by hand, so `\\ud800` stays an escape in the JSON text."""
    line = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    line["params"] = {"name": tool, "arguments": arguments}
    return json.dumps(line).encode()


LONE = "\ud800"
SURROGATE_LINES = [
    ("watch_meeting session", call("watch_meeting", {"session": LONE})),
    ("speak emotion", call("speak", {"text": "Hello.", "emotion": LONE})),
    ("stop_watching extra argument", call("stop_watching", {LONE: LONE})),
    ("transcript session", call("transcript", {"session": LONE})),
    ("speak text", call("speak", {"text": LONE * 3})),
    (
        "prompts/get focus",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "prompts/get",
                "params": {"name": "watch", "arguments": {"focus": f"budget {LONE}"}},
            }
        ).encode(),
    ),
    ("unknown method", json.dumps({"jsonrpc": "2.0", "id": 1, "method": LONE}).encode()),
    ("unknown tool", call(LONE, {})),
]


@pytest.mark.parametrize(("where", "line"), SURROGATE_LINES, ids=[w for w, _ in SURROGATE_LINES])
def test_a_lone_surrogate_in_a_request_is_answered_with_u_fffd_and_the_server_goes_on(
    raw: RawServer, where: str, line: bytes
) -> None:
    assert b"\\ud800" in line
    raw.send(line)
    reply = raw.reply()
    assert reply["id"] == 1, where
    assert LONE not in json.dumps(reply, ensure_ascii=False)
    if "result" in reply and "content" in reply["result"]:
        assert reply["result"]["content"][0]["type"] == "text"
    if where == "transcript session":
        assert reply["result"]["isError"] is True  # a session-tool failure, never code 0
    if where == "prompts/get focus":
        [message] = reply["result"]["messages"]
        assert "budget \ufffd" in message["content"]["text"]
    assert raw.request("ping", request_id="after")["result"] == {}


def test_a_request_id_holding_a_lone_surrogate_is_answered_with_u_fffd(raw: RawServer) -> None:
    raw.send(b'{"jsonrpc":"2.0","id":"ask-\\ud800","method":"ping"}')
    assert raw.reply() == {"jsonrpc": "2.0", "id": "ask-\ufffd", "result": {}}
    assert raw.request("ping", request_id="after")["result"] == {}


def test_a_transcript_line_holding_a_lone_surrogate_reaches_the_agent_as_u_fffd(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    server = RawServer(place, env={**place.slow_voice(0.1, 0.0), "ASSIST_PACING_SCALE": "0.1"})
    try:
        server.initialize()
        server.watch_meeting()
        meeting.append(
            '{"track":"room","start_ms":0,"end_ms":900,"text":"odd \\ud800 word",'
            '"speaker":"Dana \\udfff"}\n'
        )
        meeting.say("And the next line.")
        lines: list[str] = []
        for attempt in range(5):
            reply = server.request(
                "tools/call",
                {"name": "wait_for_transcript", "arguments": {"timeout_s": 5}},
                request_id=attempt,
            )
            batch = json.loads(reply["result"]["content"][0]["text"])
            lines += batch["lines"]
            if len(lines) >= 2:
                break
        assert lines[0] == "[00:00] Dana \ufffd: odd \ufffd word"
        assert lines[1].endswith("And the next line.")
        session = meeting.id
        reply = server.request(
            "tools/call", {"name": "transcript", "arguments": {"session": session}}
        )
        shown = json.loads(reply["result"]["content"][0]["text"])
        assert shown["lines"][0]["text"] == "odd \ufffd word"
        assert shown["lines"][0]["speaker"] == "Dana \ufffd"
        assert server.request("ping", request_id="alive")["result"] == {}
    finally:
        server.close_input()
        assert server.wait() == 0
        meeting.end()
    assert server.stray == []


def test_a_config_nested_too_deep_means_off_for_every_watching_tool(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    server = RawServer(place, env=place.slow_voice(0.1, 0.0))
    try:
        server.initialize()
        server.watch_meeting()
        place.config.write_text('{"assistant": ' + DEEP + "}", encoding="utf-8")
        waited = server.request(
            "tools/call", {"name": "wait_for_transcript", "arguments": {"timeout_s": 5}}
        )
        assert waited["result"]["isError"] is False, waited
        assert json.loads(waited["result"]["content"][0]["text"])["status"] == "off"
        for tool, arguments in [("watch_meeting", {}), ("speak", {"text": "Hello."})]:
            reply = server.request("tools/call", {"name": tool, "arguments": arguments})
            assert reply["result"]["isError"] is True, reply
            assert "switched off" in reply["result"]["content"][0]["text"]
    finally:
        server.close_input()
        assert server.wait() == 0
        meeting.end()
    assert meeting.event_names() == ["joined", "left"]
    assert "nested too deeply" in server.stderr()


def test_a_session_json_nested_too_deep_is_listed_with_defaults_and_noted(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    folder = place.sessions / "2026-02-01T0900-deep"
    folder.mkdir()
    (folder / "session.json").write_text('{"name": ' + DEEP + "}", encoding="utf-8")
    server = RawServer(place)
    try:
        server.initialize()
        reply = server.request("tools/call", {"name": "sessions"})
        rows = json.loads(reply["result"]["content"][0]["text"])
        [row] = rows
        assert row["id"] == "2026-02-01T0900-deep" and row["name"] is None
        status = server.request("tools/call", {"name": "status"}, request_id=2)
        assert json.loads(status["result"]["content"][0]["text"])["sessions"] == 1
    finally:
        server.close_input()
        assert server.wait() == 0
    assert "session.json" in server.stderr() and "nested too deeply" in server.stderr()


@pytest.mark.parametrize(
    ("arguments", "named", "expected", "given"),
    [
        ({}, "session", "string", "missing"),
        ({"session": 5}, "session", "string", "number"),
        ({"session": None}, "session", "string", "null"),
        ({"session": "x", "since": "2"}, "since", "integer", "string"),
        ({"session": "x", "since": -1}, "since", "integer", "number"),
        ({"session": "x", "since": 1.5}, "since", "integer", "number"),
        ({"session": "x", "since": True}, "since", "integer", "boolean"),
        ({"session": "x", "verbatim": "yes"}, "verbatim", "boolean", "string"),
        ({"session": "x", "verbatim": [True]}, "verbatim", "boolean", "array"),
    ],
)
def test_a_wrong_transcript_argument_is_an_is_error_result_naming_it_its_type_and_the_given(
    raw: RawServer, arguments: dict[str, Any], named: str, expected: str, given: str
) -> None:
    reply = raw.request("tools/call", {"name": "transcript", "arguments": arguments})
    assert "error" not in reply, reply
    assert reply["result"]["isError"] is True
    text = reply["result"]["content"][0]["text"]
    assert f"`{named}`" in text and expected in text and given in text


def test_null_for_an_optional_transcript_argument_counts_as_absent(
    raw: RawServer, place: Place
) -> None:
    folder = place.sessions / "2026-02-02T0900-nulls"
    folder.mkdir()
    (folder / "session.json").write_text("{}", encoding="utf-8")
    (folder / "raw.jsonl").write_text(
        '{"track":"room","start_ms":0,"end_ms":5,"text":"Hi."}\n', encoding="utf-8"
    )
    arguments = {"session": folder.name, "since": None, "verbatim": None}
    reply = raw.request("tools/call", {"name": "transcript", "arguments": arguments})
    assert reply["result"]["isError"] is False, reply
    assert json.loads(reply["result"]["content"][0]["text"])["next"] == 1


@pytest.mark.parametrize("text", [42, ["Hello."], {"words": "Hello."}, True])
def test_speak_with_a_text_that_is_not_a_string_says_text_must_be_a_string(
    raw: RawServer, text: object
) -> None:
    reply = raw.request("tools/call", {"name": "speak", "arguments": {"text": text}})
    assert reply["result"]["isError"] is True
    said = reply["result"]["content"][0]["text"]
    assert "`text`" in said and "string" in said and "blank" not in said


def test_an_event_after_a_torn_log_line_is_written_on_a_line_of_its_own(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    meeting.log.write_text('{"event":"spoke","at":"2026-01-01T00:00:00+00:00","te', "utf-8")
    server = RawServer(place, env=place.slow_voice(0.1, 0.0))
    try:
        server.initialize()
        server.watch_meeting()
        server.request("tools/call", {"name": "stop_watching"}, request_id=2)
    finally:
        server.close_input()
        assert server.wait() == 0
        meeting.end()
    lines = meeting.log.read_text(encoding="utf-8").split("\n")
    assert lines[0].endswith('"te') and lines[-1] == ""
    assert [json.loads(line)["event"] for line in lines[1:-1]] == ["joined", "left"]


def test_stop_watching_while_the_helper_hangs_mid_line_returns_at_once(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure(cooldown_s=0)
    meeting = LiveMeeting(place)
    server = RawServer(place, env=place.slow_voice(60.0, 0.0))
    try:
        server.initialize()
        server.watch_meeting()
        server.send(call("speak", {"text": "A long thought."}, request_id="speak"))
        deadline = time.monotonic() + 10
        while "speaking" not in meeting.event_names() and time.monotonic() < deadline:
            time.sleep(0.02)
        [helper] = helper_pids(place)
        os.kill(helper, signal.SIGSTOP)  # hung: it reads nothing and answers nothing
        time.sleep(0.2)
        started = time.monotonic()
        server.send(call("stop_watching", {}, request_id="stop"))
        replies = {}
        while "stop" not in replies:
            reply = server.reply(timeout=15)
            replies[reply["id"]] = reply
        took = time.monotonic() - started
        stopped = json.loads(replies["stop"]["result"]["content"][0]["text"])
        assert stopped["stopped_watching"] == meeting.id
        # 6 s before the fix; "at once" leaves a wide margin for a busy machine.
        assert took < 3.0
        assert server.request("ping", request_id="alive")["result"] == {}
        # Meanwhile the hung helper, given its 3 s to bring the line back, is killed.
        deadline = time.monotonic() + 30
        while helper_pids(place) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert helper_pids(place) == []
        assert server.process.poll() is None
    finally:
        server.close_input()
        assert server.wait() == 0
        meeting.end()
    assert helper_pids(place) == []


def test_an_unexpected_exception_in_a_handler_answers_minus_32603_naming_it() -> None:
    async def broken(_ctx: Any, _params: Any) -> Any:
        raise KeyError("surprise")

    async def refuses(_ctx: Any, _params: Any) -> Any:
        raise MCPError(-32602, "on purpose")

    with pytest.raises(MCPError) as raised:
        anyio.run(guarded("prompts/get", broken), None, None)
    assert raised.value.error.code == -32603
    assert "prompts/get" in raised.value.error.message and "KeyError" in raised.value.error.message
    with pytest.raises(MCPError) as passed:
        anyio.run(guarded("tools/call", refuses), None, None)
    assert passed.value.error.code == -32602


def test_an_sdk_error_made_of_an_exception_goes_out_as_minus_32603() -> None:
    made = types.JSONRPCError(
        jsonrpc="2.0", id=7, error=types.ErrorData(code=0, message="boom \ud800")
    )
    line = reply_line(made)
    assert line is not None
    assert json.loads(line) == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32603, "message": "boom \ufffd"},
    }
