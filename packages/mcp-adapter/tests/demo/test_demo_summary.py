"""The demo's summary table and live timeline, from made-up events (no meeting is run)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from assist.mcp.demo.agent import Remark
from assist.mcp.demo.live import LiveOutput, summary_table
from assist.mcp.demo.policy import Decision
from assist.mcp.demo.summary import (
    read_log,
    remarks_from_log,
    seconds_after,
    session_turn,
    through_the_air,
)
from rich.console import Console

START = 1_000_000.0


def rendered(summary: dict[str, Any]) -> str:
    console = Console(file=io.StringIO(), width=200)
    console.print(summary_table(summary))
    text = console.file.getvalue().replace("│", " ")  # type: ignore[attr-defined]
    return " ".join(text.split())


def summary(**given: Any) -> dict[str, Any]:
    """A summary with every row the table shows, as a transcript-only run leaves it."""
    return {
        "notice_spoken": True,
        "notice_first": True,
        "remarks_made": 2,
        "silent_through_small_talk": True,
        "first_sound_after_named_question_s": 4.45,
        "answer_after_room_paused_s": 2.0,
        "echoes_fed": 3,
        "echoes_recognisable": 3,
        "echoes_left_out": 3,
        "agent_turns": 4,
        "audio_files_written": 3,
        "audio_folder": "/tmp/assist-demo-1/audio",
        "limits_held": True,
        "agent": "stand-in",
        "engine": "espeak",
        "speed": 1.0,
        "echo": "exact",
        "cooldown_s": 20,
        "cooldown_note": "shorter for the demo",
        **given,
    }


def line(index: int, text: str) -> dict[str, Any]:
    said = {"text": text, "speaker": "Priya", "track": "room"}
    return {"event": "line", "index": index, "at": START + index, "line": said}


def heard(index: int, text: str) -> dict[str, Any]:
    return {
        "event": "heard",
        "at": START + index + 1,
        "of": "line",
        "index": index,
        "line": {"text": text},
        "after_speech_s": 1.0,
    }


def test_the_word_error_rate_row_counts_errors_in_the_words_spoken_not_words_heard() -> None:
    events = [line(0, "The release is out."), heard(0, "the release is out now")]
    air = through_the_air(events)
    assert (air["words_spoken"], air["words_recognised"], air["word_errors"]) == (4, 5, 1)
    table = rendered(summary(**air))
    assert "Word error rate 25.0 % (1 word error in 4 words spoken)" in table
    assert "5 of 4" not in table


def test_the_end_of_speech_row_says_what_ended_the_turns_as_session_json_tells(
    tmp_path: Path,
) -> None:
    turn = {"model": "silence", "pause_ms": 200, "end_silence_ms": 600}
    (tmp_path / "session.json").write_text(json.dumps({"id": "x", "turn": turn}))
    assert session_turn(tmp_path) == turn
    air = through_the_air([line(0, "The release is out."), heard(0, "The release is out.")])
    table = rendered(summary(**air, turn=turn))
    row = "End of speech to line written median 1.0 s, p95 1.0 s; turns ended by the silence rule"
    assert f"{row} (600 ms)" in table
    smart = {**turn, "model": "smart-turn"}
    assert "; turns ended by smart-turn (short pause 200 ms, limit 600 ms)" in rendered(
        summary(**air, turn=smart)
    )


def test_a_session_without_session_json_has_no_turn_and_the_row_says_so(tmp_path: Path) -> None:
    assert session_turn(tmp_path) is None
    (tmp_path / "session.json").write_text("{not json")
    assert session_turn(tmp_path) is None
    air = through_the_air([line(0, "The release is out."), heard(0, "The release is out.")])
    assert "; the turn model is unknown (no session.json)" in rendered(summary(**air))


def test_the_audio_files_row_names_the_folder_they_are_in() -> None:
    assert "Audio files written 3, in /tmp/assist-demo-1/audio" in rendered(summary())


def test_the_audio_files_row_says_they_went_with_the_temporary_folder() -> None:
    table = rendered(summary(audio_folder=None))
    assert "3, removed with the run's temporary folder (--workdir DIR keeps them)" in table


def timeline() -> tuple[LiveOutput, io.StringIO]:
    out = io.StringIO()
    live = LiveOutput(Console(file=out, width=200), "Claude")
    live.replay_event({"event": "started", "at": START, "speed": 1.0})
    return live, out


def test_the_timeline_and_the_table_show_one_rounding_of_the_first_sound(tmp_path: Path) -> None:
    question = "Claude, is the release out?"
    (tmp_path / "assistant.jsonl").write_text(
        "\n".join(
            json.dumps(event)
            for event in [
                {"event": "speaking", "at": "1970-01-12T13:46:41+00:00", "utterance": "a"},
                {"event": "spoke", "at": "1970-01-12T13:46:45+00:00", "utterance": "a"},
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    live, out = timeline()
    live.session = tmp_path
    [played] = remarks_from_log(read_log(tmp_path))
    asked_at = played["first_sound"] - 4.449  # 4.45 once rounded to 2 places, 4.4 from raw
    live.line_times[question] = asked_at
    decision = Decision(text="Yes, this morning.", emotion="neutral", why="named", answers=question)
    live.remark(Remark(decision, batch_received=0.0, called=0.0, returned=0.0, said=True, reply=""))
    live.show()
    figure = seconds_after(asked_at, played["first_sound"])
    assert f"first sound {figure:.1f} s after the question" in out.getvalue()
    table = rendered(summary(first_sound_after_named_question_s=figure))
    assert f"First sound after the named question {figure:.1f} s" in table


def test_timeline_rows_print_in_time_order_whatever_order_they_came_in() -> None:
    live, out = timeline()
    live.replay_event(line(66, "A line that ended later."))
    live.replay_event(
        {"event": "line", "index": 1, "at": START + 65.9, "line": line(1, "x")["line"]}
    )
    live.show()
    rows = out.getvalue().splitlines()
    assert [row.split("s", 1)[0].strip() for row in rows] == ["0.0", "65.9", "66.0"]
