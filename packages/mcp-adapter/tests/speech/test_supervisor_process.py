"""One voice helper process (behaviour 9.3): start, say, stop, kill, against fake helpers
that work, crash, hang, print junk, never get ready, or will not quit."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from assist.mcp.speech.helper_process import HelperError, HelperProcess, kill_all_helpers
from supervisor_fakes import fake, gone, wait_gone


def started(*command: str, engine: str = "fake") -> HelperProcess:
    helper = HelperProcess(list(command), engine)
    helper.wait_ready(within=10)
    return helper


def test_a_working_helper_becomes_ready_and_speaks_a_line() -> None:
    helper = HelperProcess([*fake("works"), "--engine", "espeak"], "espeak")
    ready = helper.wait_ready(within=10)
    result = helper.say("Hello there.", "warm", within=10)
    assert (ready.engine, ready.sample_rate) == ("espeak", 22050)
    assert (result.first_audio_ms, result.audio_s, result.cut_off) == (7, 0.05, False)
    assert helper.running
    helper.stop()


def test_request_ids_start_at_one_for_each_helper_and_increase() -> None:
    first, second = started(*fake("works")), started(*fake("works"))
    ids = [first.send_say("One.", "neutral"), first.send_say("Two.", "neutral")]
    assert ids == [1, 2]
    assert second.send_say("Three.", "neutral") == 1
    first.kill()
    second.kill()


def test_lines_that_are_not_events_and_events_for_other_ids_are_skipped() -> None:
    helper = started(*fake("garbage"))
    first = helper.say("Hello.", "neutral", within=10)
    second = helper.say("Again.", "neutral", within=10)
    assert (first.first_audio_ms, first.audio_s, first.cut_off) == (12, 1.25, False)
    assert second.audio_s == 1.25
    helper.stop()


def test_a_helper_that_never_sends_ready_is_killed_when_the_start_limit_runs_out() -> None:
    helper = HelperProcess(fake("never_ready"), "kokoro")
    began = time.monotonic()
    with pytest.raises(HelperError) as failure:
        helper.wait_ready(within=0.5)
    assert 0.5 <= time.monotonic() - began < 2
    assert failure.value.timed_out
    assert "kokoro" in str(failure.value) and "0.5 s" in str(failure.value)
    assert not helper.running and gone(helper.pid)


def test_an_event_before_ready_is_named_and_the_helper_killed() -> None:
    helper = HelperProcess(fake("speaks_first"), "kokoro")
    with pytest.raises(HelperError) as failure:
        helper.wait_ready(within=10)
    assert "'speaking' event before 'ready'" in str(failure.value)
    assert not failure.value.timed_out
    assert gone(helper.pid)


def test_a_helper_that_quits_during_start_up_reports_its_exit_status() -> None:
    helper = HelperProcess(fake("exits_at_start"), "piper")
    with pytest.raises(HelperError) as failure:
        helper.wait_ready(within=10)
    assert "quit during start-up (exit status 2)" in str(failure.value)
    assert not helper.running


def test_a_program_that_cannot_be_run_is_a_failed_start_with_the_os_error(tmp_path: Path) -> None:
    with pytest.raises(HelperError) as failure:
        HelperProcess([str(tmp_path / "no-such-helper")], "espeak")
    assert "could not be started" in str(failure.value)
    assert "No such file" in str(failure.value)


def test_a_crash_mid_line_says_the_helper_died_while_speaking_with_its_status() -> None:
    helper = started(*fake("crashes"))
    with pytest.raises(HelperError) as failure:
        helper.say("Hello.", "neutral", within=10)
    assert "died while speaking (exit status 3)" in str(failure.value)
    assert not failure.value.timed_out
    assert not helper.running


def test_a_line_not_finished_within_the_hang_limit_kills_the_helper() -> None:
    helper = started(*fake("hangs"))
    began = time.monotonic()
    with pytest.raises(HelperError) as failure:
        helper.say("Hello.", "neutral", within=0.5)
    assert 0.5 <= time.monotonic() - began < 2
    assert failure.value.timed_out and "0.5 s" in str(failure.value)
    assert wait_gone(helper.pid)


def test_an_engine_error_passes_on_the_message_and_the_helper_keeps_running() -> None:
    helper = started(*fake("engine_errors"))
    with pytest.raises(HelperError) as failure:
        helper.say("I cannot say this.", "neutral", within=10)
    assert failure.value.chain[-1] == "RuntimeError: synthesis failed"
    with pytest.raises(HelperError) as silent:
        helper.say("A mute line.", "neutral", within=10)
    assert "gave no reason" in str(silent.value)
    assert helper.running
    assert helper.say("This works.", "neutral", within=10).audio_s == 0.05
    helper.stop()


def test_stop_line_cuts_off_the_line_being_spoken() -> None:
    helper = started(*fake("works", "--line-seconds", "5"))
    assert not helper.stop_line()  # nothing playing yet
    threading.Timer(0.3, helper.stop_line).start()
    began = time.monotonic()
    result = helper.say("A long line.", "neutral", within=10)
    assert time.monotonic() - began < 2
    assert result.cut_off and 0.2 <= result.audio_s < 2
    assert result.first_audio_ms == 7
    assert not helper.stop_line()  # the line has had its last event
    helper.stop()


def test_pause_and_resume_hold_the_line_being_spoken_and_let_it_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """16.3: the stand-in voice of the server tests answers pause and resume as the helper
    does, and the time paused is not played."""
    record = tmp_path / "requests.jsonl"
    monkeypatch.setenv("SLOW_VOICE_SECONDS", "1.0")
    monkeypatch.setenv("SLOW_VOICE_RECORD", str(record))
    slow = Path(__file__).parents[1] / "server_fakes" / "slow_voice.py"
    helper = started(sys.executable, str(slow), engine="slow")
    assert not helper.pause_line() and not helper.resume_line()  # nothing playing yet
    threading.Timer(0.2, helper.pause_line).start()
    threading.Timer(0.8, helper.resume_line).start()
    result = helper.say("A line.", "neutral", within=10)
    assert not result.cut_off and result.audio_s == 1.0
    asked = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(r["op"], r["id"]) for r in asked] == [("say", 1), ("pause", 1), ("resume", 1)]
    assert not helper.pause_line()  # the line has had its last event
    helper.stop()


def test_a_helper_that_is_gone_can_no_longer_be_reached() -> None:
    helper = started(*fake("works"))
    os.kill(helper.pid, signal.SIGKILL)
    assert wait_gone(helper.pid)
    with pytest.raises(HelperError) as failure:
        helper.send_say("Hello.", "neutral")
    assert "can no longer be reached" in str(failure.value)
    assert "Broken pipe" in str(failure.value)
    assert not helper.running


def test_stop_lets_a_willing_helper_exit_cleanly_and_quickly() -> None:
    helper = started(*fake("works"))
    began = time.monotonic()
    helper.stop()
    assert time.monotonic() - began < 2  # well inside the 3 s grace
    assert helper.exit_status == "exit status 0"


def test_a_helper_that_ignores_quit_is_killed_after_three_seconds() -> None:
    helper = started(*fake("ignores_quit"))
    began = time.monotonic()
    helper.stop()
    assert 2.9 <= time.monotonic() - began < 4.5
    assert helper.exit_status == "ended by signal SIGKILL"
    assert gone(helper.pid)


@pytest.mark.parametrize("end", ["kill", "stop"])
def test_ending_a_helper_ends_the_processes_it_started(tmp_path: Path, end: str) -> None:
    pid_file = tmp_path / "grandchild.pid"
    helper = started(*fake("grandchild", "--pid-file", str(pid_file)))
    grandchild = int(pid_file.read_text())
    assert not gone(grandchild)
    getattr(helper, end)()
    assert wait_gone(grandchild)


def test_a_helper_that_is_dropped_while_running_is_killed() -> None:
    helper = started(*fake("ignores_quit"))
    pid = helper.pid
    del helper
    gc.collect()
    assert wait_gone(pid, within=1)


def test_kill_all_helpers_ends_every_running_helper() -> None:
    helpers = [started(*fake("ignores_quit")) for _ in range(2)]
    kill_all_helpers()
    assert all(gone(helper.pid) for helper in helpers)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux")
def test_a_helper_dies_with_a_server_killed_outright_even_when_it_ignores_end_of_input() -> None:
    server = textwrap.dedent(
        f"""
        import sys, threading, time
        from assist.mcp.speech.helper_process import HelperProcess
        helpers = []
        def start():  # from a worker thread that then ends, as the server's workers do
            helper = HelperProcess({fake("ignores_quit")!r}, "fake")
            helper.wait_ready(10)
            helpers.append(helper)
        worker = threading.Thread(target=start)
        worker.start()
        worker.join()
        print(helpers[0].pid, flush=True)
        time.sleep(600)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", server], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    helper_pid = int(process.stdout.readline())
    time.sleep(0.3)
    assert not gone(helper_pid), "the helper must outlive the thread that started it"
    process.kill()
    process.wait()
    assert wait_gone(helper_pid, within=2)
