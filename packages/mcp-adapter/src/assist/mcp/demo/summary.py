"""The demo's summary: what happened in the meeting, read back from what was written.

Everything is measured from the files and events a real run leaves, so an external agent is
judged the same way as the stand-in: the replay's events (when each line and each echo was
written), the meeting's `assistant.jsonl` (when each remark started, its first sound, its end),
the saved WAVs, and, for the stand-in only, the batches it received and its tool calls.

Times are wall-clock seconds, measured, never scaled by `--speed`:

- first sound after the named question: from the moment the line that asks the assistant by
  name was written to `raw.jsonl` to the first sound of the remark that followed it (the
  `speaking` event's time plus the voice's `first_audio_ms`);
- echoes: how many the feeder wrote back, how many of those the echo rule can recognise
  (a recogniser's errors may hide one), and, for the stand-in, how many reached the agent,
  how many never did (left out), and the server's own `left_out_as_your_own_voice` total
  (a `status` of `ended` carries no count, so an echo in the last stretch is not in it);
- answer after the room paused: for the first remark after the question put to the room, from
  the moment the last line before that remark was written (the room has been quiet since) to
  its first sound.

Through the air (`assist.mcp.demo.rooms.air`) a `line` is the moment its speech ended in the
room, not when a recorder wrote it, so both figures above run from the end of speech and include the
listener's time; `through_the_air` adds the listener's own figures: words recognised against
words spoken (WER), end of speech to line written, the assistant's lines heard back, and
`turn` what ended the turns (the session's `session.json`: a meeting's recorder uses the
silence rule unless `listen.turn` names a model, behaviour 16.1).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from assist.core.echo import is_echo
from assist.core.files import LOG_FILE, REPLY_WAV, SESSION_FILE
from assist.core.meeting_log import LogEvent, read_events
from assist.core.scoring import Limits, Utterance, limits_held
from assist.core.turn_models import SILENCE
from assist.core.words import normalise_words, word_error_rate, word_errors
from assist.mcp.demo.agent import AgentRecord
from assist.mcp.demo.policy import spoken_text
from assist.mcp.replay.meeting_files import Meeting


def read_log(session_dir: Path) -> list[LogEvent]:
    """The meeting's `assistant.jsonl` events with a readable `at`, in order."""
    try:
        text = (session_dir / LOG_FILE).read_text(encoding="utf-8")
    except OSError:
        return []
    return [event for event in read_events(text) if event.at is not None]


def _seconds(event: LogEvent) -> float:
    assert event.at is not None
    return event.at.timestamp()


def remarks_from_log(events: list[LogEvent]) -> list[dict[str, Any]]:
    """Each utterance: text, start, first sound, end, audio length, whether it played."""
    remarks: list[dict[str, Any]] = []
    by_id: dict[str | None, dict[str, Any]] = {}
    for event in events:
        if event.name == "speaking":
            remark = {
                "text": event.text,
                "emotion": event.emotion,
                "started": _seconds(event),
                "first_sound": None,
                "ended": None,
                "audio_s": None,
                "played": False,
            }
            remarks.append(remark)
            by_id[event.utterance] = remark
        elif event.closes_utterance:
            closed = by_id.get(event.utterance)
            if closed is None:
                continue
            closed["ended"] = _seconds(event)
            if event.name == "spoke":
                closed["played"] = True
                closed["audio_s"] = event.audio_s
                first = event.first_audio_ms
                closed["first_sound"] = (
                    closed["started"] + first / 1000 if first is not None else _seconds(event)
                )
    return remarks


def build_summary(
    *,
    meeting: Meeting,
    replay_events: list[dict[str, Any]],
    session_dir: Path | None,
    audio_dir: Path,
    record: AgentRecord | None,
    settings: dict[str, Any],
    peaks_mb: dict[str, float | None],
) -> dict[str, Any]:
    """The summary as one JSON-ready object (the table shows a part of it)."""
    log = read_log(session_dir) if session_dir is not None else []
    remarks = remarks_from_log(log)
    lines = [event for event in replay_events if event["event"] == "line"]
    echoes = [event for event in replay_events if event["event"] == "echo"]
    written = {event["index"]: event["at"] for event in lines}

    def cue_time(cue: str) -> float | None:
        return next((event["at"] for event in lines if event.get("cue") == cue), None)

    def first_remark_after(moment: float | None, skip: list[Any]) -> dict[str, Any] | None:
        if moment is None:
            return None
        return next((r for r in remarks if r["started"] >= moment and r not in skip), None)

    def last_line_before(moment: float) -> float | None:
        before = [at for at in written.values() if at <= moment]
        return max(before) if before else None

    named_at = cue_time("named-question")
    room_at = cue_time("room-question")
    open_at = cue_time("still-open")
    named_answer = first_remark_after(named_at, [])
    room_answer = first_remark_after(room_at, [named_answer])
    room_paused_at = last_line_before(room_answer["started"]) if room_answer else None
    notice_first, notice_spoken = _notice(log)
    small_talk_end = named_at if named_at is not None else _first_non_small_talk(lines)
    audio_files = _wavs(audio_dir)

    summary: dict[str, Any] = {
        **settings,
        "session": session_dir.name if session_dir is not None else None,
        "lines_written": len(lines),
        "notice_spoken": notice_spoken,
        "notice_first": notice_first,
        "remarks_made": sum(1 for remark in remarks if remark["played"]),
        "silent_through_small_talk": (
            None
            if small_talk_end is None
            else not any(remark["started"] < small_talk_end for remark in remarks)
        ),
        "named_question_answered": named_answer is not None,
        "first_sound_after_named_question_s": _seconds_between(named_at, named_answer),
        "room_question_answered": room_answer is not None,
        "room_answer_waited_for_the_room": (
            None if room_answer is None or open_at is None else room_answer["started"] >= open_at
        ),
        "answer_after_room_paused_s": _seconds_between(room_paused_at, room_answer),
        "echoes_fed": len(echoes),
        "echoes_recognisable": sum(1 for event in echoes if recognisable(event)),
        "echoes_left_out": None,
        "echoes_seen_by_agent": None,
        "echoes_counted_by_server": None,
        "agent_turns": None,
        "audio_files_written": len(audio_files),
        "audio_files": [path.name for path in audio_files],
        "audio_folder": str(audio_dir),
        "limits_held": _limits_held(remarks, settings),
        "peak_rss_mb": peaks_mb,
        "remarks": [_remark_view(remark, echoes, record) for remark in remarks],
        "notice": _notice_view(log, echoes),
        **through_the_air(replay_events),
        "turn": session_turn(session_dir) if session_dir is not None else None,
    }
    if record is not None:
        seen = echoes_seen(record, echoes)
        summary["echoes_seen_by_agent"] = seen
        summary["echoes_left_out"] = len(echoes) - seen
        summary["echoes_counted_by_server"] = sum(batch.left_out for batch in record.batches)
        summary["agent_turns"] = record.turns
        summary["agent_batches"] = len(record.batches)
        summary["agent_refusals"] = list(record.refusals)
    return summary


def session_turn(session_dir: Path) -> dict[str, Any] | None:
    """How the session's turns were ended (`session.json`'s `turn`: model, short pause,
    limit), or None when the listener wrote none (a replayed transcript)."""
    try:
        turn = json.loads((session_dir / SESSION_FILE).read_text(encoding="utf-8")).get("turn")
    except (OSError, ValueError, AttributeError):
        return None
    return turn if isinstance(turn, dict) else None


def describe_turn(turn: dict[str, Any] | None) -> str:
    """What ended the turns, in words, for the demos' summaries."""
    if turn is None:
        return "the turn model is unknown (no session.json)"
    if turn.get("model") == SILENCE:
        return f"turns ended by the silence rule ({turn.get('end_silence_ms')} ms)"
    return (
        f"turns ended by {turn.get('model')} "
        f"(short pause {turn.get('pause_ms')} ms, limit {turn.get('end_silence_ms')} ms)"
    )


def echoes_seen(record: AgentRecord, echoes: list[dict[str, Any]]) -> int:
    """How many of the echoes fed back reached the agent in a batch; the rest were left out."""
    texts = {event["line"]["text"].strip() for event in echoes}
    return sum(
        1 for batch in record.batches for line in batch.lines if spoken_text(line).strip() in texts
    )


def recognisable(echo: dict[str, Any]) -> bool:
    """Whether the echo rule (behaviour 6.2, 6.3) can tell this echo from the room: what the
    microphone heard against what was said, reversed for the notice. An exact echo always is;
    one a recogniser garbled may not be, and the server is then right to pass it on."""
    heard, said = echo["line"]["text"], echo["said"]
    return is_echo(said, [heard]) if echo["of"] == "notice" else is_echo(heard, [said])


def _notice(log: list[LogEvent]) -> tuple[bool, bool]:
    """(the notice came before anything else was said, the notice was said)."""
    names = [event.name for event in log]
    if "joined" not in names:
        return False, False
    failed = any(event.failed_notice for event in log)
    first_joined = names.index("joined")
    first_speaking = names.index("speaking") if "speaking" in names else len(names)
    return first_joined < first_speaking and not failed, not failed


def _first_non_small_talk(lines: list[dict[str, Any]]) -> float | None:
    return next((event["at"] for event in lines if event.get("cue") != "small-talk"), None)


def _seconds_between(moment: float | None, remark: dict[str, Any] | None) -> float | None:
    if moment is None or remark is None or remark["first_sound"] is None:
        return None
    return seconds_after(moment, float(remark["first_sound"]))


def seconds_after(moment: float, later: float) -> float:
    """Seconds from `moment` to `later`, rounded once, so the live timeline and the summary
    table show the same figure."""
    return round(later - moment, 2)


def _limits_held(remarks: list[dict[str, Any]], settings: dict[str, Any]) -> bool:
    rules = Limits(settings["max_per_meeting"], settings["cooldown_s"])
    return limits_held(utterances(remarks), rules)


def utterances(remarks: list[dict[str, Any]]) -> list[Utterance]:
    """The log's remarks (`remarks_from_log`) as the scoring rules take them."""
    return [
        Utterance(
            start=remark["started"],
            text=remark["text"] if isinstance(remark["text"], str) else "",
            first_sound_after_s=(
                None
                if remark["first_sound"] is None
                else max(0.0, remark["first_sound"] - remark["started"])
            ),
            end=remark["ended"],
        )
        for remark in remarks
    ]


def _remark_view(
    remark: dict[str, Any], echoes: list[dict[str, Any]], record: AgentRecord | None
) -> dict[str, Any]:
    view: dict[str, Any] = {
        "text": remark["text"],
        "emotion": remark["emotion"],
        "played": remark["played"],
        "audio_s": remark["audio_s"],
    }
    view.update(_heard(remark["text"], echoes))
    if record is not None:
        made = next((r for r in record.remarks if r.decision.text == remark["text"]), None)
        if made is not None:
            view["why"] = made.decision.why
            view["answers"] = made.decision.answers
            view["agent_think_s"] = round(made.called - made.batch_received, 4)
    return view


def _notice_view(log: list[LogEvent], echoes: list[dict[str, Any]]) -> dict[str, Any] | None:
    joined = next((event for event in log if event.name == "joined"), None)
    if joined is None:
        return None
    return {"text": joined.notice, **_heard(joined.notice or "", echoes)}


def _heard(text: str, echoes: list[dict[str, Any]]) -> dict[str, Any]:
    """What came back for this line (through the air, in one or more turns) and, when a
    recogniser heard it, its WER."""
    pieces = [event for event in echoes if event.get("said") == text]
    if not pieces:
        return {"echo": None}
    heard = " ".join(event["line"]["text"] for event in pieces)
    mode = pieces[0].get("mode")
    wer = round(word_error_rate(text, heard), 3) if mode in ("asr", "air") else None
    return {"echo": heard, "echo_mode": mode, "word_error_rate": wer}


def through_the_air(replay_events: list[dict[str, Any]]) -> dict[str, Any]:
    """What the listener made of the room: its words against the meeting's (WER), how long
    after each line's speech ended its line was written, and the assistant's own voice heard
    back. Empty for a transcript-only replay, which has no `heard` events."""
    heard = [event for event in replay_events if event["event"] == "heard"]
    spoken = [event for event in replay_events if event["event"] == "line"]
    played = [event for event in replay_events if event["event"] == "played"]
    if not heard and not played:
        return {}
    meeting_heard = [event for event in heard if event["of"] in ("line", None)]
    reference = " ".join(event["line"]["text"] for event in spoken)
    hypothesis = " ".join(event["line"]["text"] for event in meeting_heard)
    latest: dict[int, float] = {}
    for event in heard:
        if event["of"] == "line" and event["after_speech_s"] is not None:
            latest[event["index"]] = max(latest.get(event["index"], -1e9), event["after_speech_s"])
    delays = sorted(latest.values())
    echoes = [event for event in heard if event["of"] in ("notice", "remark")]
    return {
        "words_spoken": len(normalise_words(reference)),
        "words_recognised": len(normalise_words(hypothesis)),
        "word_errors": word_errors(reference, hypothesis),
        "word_error_rate": round(word_error_rate(reference, hypothesis), 3),
        "lines_heard": len(meeting_heard),
        "lines_not_heard": len(spoken) - len(latest),
        "end_of_speech_to_line_s": {
            "median": quantile(delays, 0.5),
            "p95": quantile(delays, 0.95),
            "max": round(delays[-1], 2) if delays else None,
        },
        "assistant_lines_played": len(played),
        "assistant_lines_heard": len({event["said"] for event in echoes}),
        "echoes_heard_through_the_air": len(echoes),
    }


def quantile(values: list[float], q: float) -> float | None:
    """The `q` quantile of sorted `values`, nearest rank, to the hundredth."""
    if not values:
        return None
    rank = max(0, min(len(values) - 1, math.ceil(q * len(values)) - 1))
    return round(values[rank], 2)


def _wavs(folder: Path) -> list[Path]:
    try:
        return sorted(path for path in folder.iterdir() if REPLY_WAV.fullmatch(path.name))
    except OSError:
        return []
