"""Property-based fuzz of every file and line `assist mcp` reads (behaviour 2.1, 1.5, 3.1, 5.2,
5.4, 7, 8.3): a damaged file never raises out of its reader, and gives that file's documented
outcome. An unreadable config always means every default, hence off.

Hypothesis damages a good example of each file (truncates it, nests it too deep, puts lone
surrogates, NaN, 5,000-digit numbers or bytes that are not UTF-8 into it, replaces it with
arbitrary JSON or bytes) and hands it to the real reader on a real file. What was tried and
the outcomes are printed at the end of the module, for the issue's closing note.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from assist.app.store.config import ConfigFile
from assist.app.store.heartbeat import Heartbeat, read_heartbeat
from assist.app.store.lock import LockBusy, SpeakingLock
from assist.app.store.meeting_log_file import MeetingLogFile
from assist.app.store.sessions import SessionStore
from assist.app.store.transcript import TranscriptReader
from assist.core import protocol
from assist.core.meeting_log import joined, tally
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SESSION = "2026-12-01T1000-damaged"
EXAMPLES = 120

tried: collections.Counter[str] = collections.Counter()
outcomes: collections.Counter[str] = collections.Counter()
folders = itertools.count()


@pytest.fixture(scope="module")
def root(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("damaged")
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:
        total = sum(tried.values())
        reporter.write_line(f"\nfile fuzz: {total} damaged files, 0 raised; tried {dict(tried)}")
        reporter.write_line(f"file fuzz: outcomes {dict(sorted(outcomes.items()))}")


def fresh(root: Path) -> Path:
    folder = root / f"case-{next(folders)}"
    folder.mkdir()
    return folder


GOOD = {
    "config": {
        "assistant": {"enabled": True, "name": "Claude", "cooldown_s": 60, "max_per_meeting": 10},
        "voice": {"engine": "espeak"},
    },
    "session.json": {
        "id": SESSION,
        "name": "Stand-up",
        "started_at": "2026-12-01T10:00:00+00:00",
        "duration_s": 61.5,
        "tags": ["team"],
        "pinned": True,
    },
    "raw line": {
        "track": "room",
        "start_ms": 0,
        "end_ms": 900,
        "text": "Hello.",
        "speaker": "Dana",
    },
    "log event": {
        "event": "speaking",
        "at": "2026-12-01T10:00:05.123456789+00:00",
        "pid": 4242,
        "utterance": "0" * 32,
        "text": "Yes.",
        "emotion": "warm",
    },
    "lock": {"pid": 4242, "who": "assistant"},
    "heartbeat": {"pid": 4242, "session": SESSION, "state": "listening", "updated_at": 0},
    "helper event": {"event": "done", "id": 1, "audio_s": 1.5, "total_ms": 1600},
    "helper request": {"op": "say", "id": 1, "text": "Hello.", "emotion": "warm"},
}

LONE = st.sampled_from(["\\ud800", "\\udfff", "\\udbff"])
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@st.composite
def damaged(draw: st.DrawFn, kind: str) -> tuple[str, bytes]:
    """(how it was damaged, the bytes): a good example of `kind` spoilt one way."""
    good = json.dumps(GOOD[kind], ensure_ascii=False)
    how = draw(
        st.sampled_from(
            [
                "truncated",
                "deep",
                "deep value",
                "lone surrogate",
                "not UTF-8",
                "huge number",
                "NaN",
                "wrong types",
                "arbitrary JSON",
                "bytes",
                "empty",
            ]
        )
    )
    if how == "truncated":
        return how, good.encode()[: draw(st.integers(0, len(good) - 1))]
    if how == "deep":
        depth = draw(st.integers(900, 100_000))
        return how, ("[" * depth + "]" * depth * draw(st.sampled_from([0, 1]))).encode()
    if how == "deep value":
        depth = draw(st.integers(900, 20_000))
        key = draw(st.sampled_from(sorted(GOOD[kind])))
        nested = "[" * depth + "0" + "]" * depth
        return how, good.replace(f'"{key}": ', f'"{key}": {nested}, "was": ', 1).encode()
    if how == "lone surrogate":
        escape = draw(LONE)
        at = draw(st.sampled_from([i for i, char in enumerate(good) if char == '"']))
        return how, (good[: at + 1] + escape + good[at + 1 :]).encode()
    if how == "not UTF-8":
        at = draw(st.integers(0, len(good)))
        return how, good.encode()[:at] + draw(
            st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])
        ) + good.encode()[at:]
    if how == "huge number":
        key = draw(st.sampled_from(sorted(GOOD[kind])))
        return how, good.replace(f'"{key}": ', f'"{key}": {"7" * 5000}, "was": ', 1).encode()
    if how == "NaN":
        key = draw(st.sampled_from(sorted(GOOD[kind])))
        value = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        return how, good.replace(f'"{key}": ', f'"{key}": {value}, "was": ', 1).encode()
    if how == "wrong types":
        spoilt = dict(GOOD[kind])
        for key in draw(st.sets(st.sampled_from(sorted(spoilt)), min_size=1)):
            spoilt[key] = draw(any_json)
        return how, json.dumps(spoilt).encode()
    if how == "arbitrary JSON":
        return how, json.dumps(draw(any_json)).encode()
    if how == "bytes":
        return how, draw(st.binary(max_size=200))
    return how, b""


def record(kind: str, how: str, outcome: str) -> None:
    tried[f"{kind}: {how}"] += 1
    outcomes[f"{kind}: {outcome}"] += 1


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def parsed_object(data: bytes) -> dict[str, Any] | None:
    """What a strict reader makes of the bytes: the object, or None when it is not one."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


@FUZZ
@given(damaged("config"))
def test_a_damaged_config_gives_settings_and_is_on_only_when_it_says_enabled_true(
    root: Path, case: tuple[str, bytes]
) -> None:
    how, data = case
    path = fresh(root) / "config.json"
    path.write_bytes(data)
    settings_read = ConfigFile(path).load()
    document = parsed_object(data)
    section = document.get("assistant") if document is not None else None
    says_on = isinstance(section, dict) and section.get("enabled") is True
    assert settings_read.assistant.enabled is says_on
    if document is None:
        assert settings_read == type(settings_read)()  # unreadable: every default, hence off
    record(
        "config", how, "on" if says_on else ("every default, off" if document is None else "off")
    )


@FUZZ
@given(damaged("session.json"))
def test_a_damaged_session_json_still_lists_the_session_with_usable_fields(
    root: Path, case: tuple[str, bytes]
) -> None:
    how, data = case
    sessions = fresh(root)
    (sessions / SESSION).mkdir()
    (sessions / SESSION / "session.json").write_bytes(data)
    store = SessionStore(sessions)
    [row] = store.rows(time.time())
    assert row["id"] == SESSION
    assert row["name"] is None or isinstance(row["name"], str)
    assert isinstance(row["tags"], list) and isinstance(row["pinned"], bool)
    json.dumps(row).encode("utf-8")  # an answer can always be written
    assert store.status(time.time())["sessions"] == 1
    record("session.json", how, "listed, name kept" if row["name"] else "listed with defaults")


@FUZZ
@given(st.lists(damaged("raw line"), min_size=1, max_size=5), st.booleans())
def test_damaged_raw_lines_are_skipped_and_still_counted(
    root: Path, cases: list[tuple[str, bytes]], torn_tail: bool
) -> None:
    good = json.dumps(GOOD["raw line"]).encode()
    lines = [data.replace(b"\n", b" ") for _, data in cases]
    content = b"".join(line + b"\n" for line in [good, *lines, good])
    if torn_tail:
        content += good[:10]
    path = fresh(root) / "raw.jsonl"
    path.write_bytes(content)
    read, next_line = TranscriptReader(path).read(0)
    assert next_line == len(lines) + 2
    assert read[0].text == "Hello." and read[-1].text == "Hello."
    for line in read:
        line.text.encode("utf-8")
        if line.speaker is not None:
            line.speaker.encode("utf-8")
    for how, _ in cases:
        tried[f"raw line: {how}"] += 1
    outcomes[f"raw line: {len(read) - 2} of {len(lines)} damaged lines still read"] += 1


@FUZZ
@given(st.lists(damaged("log event"), min_size=1, max_size=5))
def test_a_damaged_meeting_log_is_tallied_and_our_next_event_is_a_line_of_its_own(
    root: Path, cases: list[tuple[str, bytes]]
) -> None:
    folder = fresh(root)
    good = json.dumps(GOOD["log event"]).encode()
    content = b"\n".join([good, *(data for _, data in cases)])  # the last one is left torn
    (folder / "assistant.jsonl").write_bytes(content)
    log = MeetingLogFile(folder)
    now = datetime.now().astimezone()
    before = tally(log.text(), now, time.monotonic(), own_pid=None)
    assert before.count >= 1
    assert log.append(joined(now, 77, "A notice after the damage."))
    events = [line for line in log.text().split("\n") if '"pid":77' in line]
    assert [json.loads(line)["notice"] for line in events] == ["A notice after the damage."]
    after = tally(log.text(), now, time.monotonic(), own_pid=None)
    assert after.count >= before.count
    for how, _ in cases:
        tried[f"log event: {how}"] += 1
    outcomes[f"log: counted {min(before.count, 2)}{'+' if before.count > 2 else ''}"] += 1


@FUZZ
@given(damaged("lock"))
def test_a_damaged_speaking_lock_is_busy_or_taken_over_never_an_exception(
    root: Path, case: tuple[str, bytes]
) -> None:
    how, data = case
    folder = fresh(root)
    (folder / "speaking.lock").write_bytes(data)
    lock = SpeakingLock(folder, pid=os.getpid())
    try:
        lock.acquire("assistant", wait=0.0)
    except LockBusy:
        outcome = "held by another (busy)"
    else:
        lock.release()
        assert not (folder / "speaking.lock").exists()
        outcome = "stale, taken over"
    record("lock", how, outcome)


@FUZZ
@given(damaged("heartbeat"))
def test_a_damaged_heartbeat_reads_as_none_and_is_never_removed_as_ours(
    root: Path, case: tuple[str, bytes]
) -> None:
    how, data = case
    folder = fresh(root)
    (folder / "assistant.json").write_bytes(data)
    view = read_heartbeat(folder, time.time())
    assert view is None  # pid 4242 is not alive here, or the file is not a heartbeat at all
    removed = Heartbeat(folder, pid=os.getpid()).remove_if_ours()
    assert removed is False and (folder / "assistant.json").exists()
    record("heartbeat", how, "no assistant listening, left alone")


@FUZZ
@given(damaged("helper event"), damaged("helper request"))
def test_damaged_helper_lines_are_skipped_or_answered_never_raised(
    event: tuple[str, bytes], request: tuple[str, bytes]
) -> None:
    for kind, (how, data) in (("helper event", event), ("helper request", request)):
        line = data.decode("utf-8", errors="replace")
        decoded = (
            protocol.decode_event(line) if kind == "helper event" else protocol.decode_request(line)
        )
        if decoded is not None:
            protocol.encode(decoded).encode("ascii")  # whatever it became can be written back
        record(kind, how, type(decoded).__name__)
