"""The conversation mode against AGENT-A's figures (issue 12, behaviour 13 and 14.2).

A real `assist mcp` holds a conversation whose listener is real (`assist listen`: Silero VAD,
the turn segmenter, whisper tiny.en) and hears Piper speech written into a FIFO at real time
(the tests' software room, `ASSIST_LISTEN_FROM`). It measures:

- **reply latency**: end of the user's phrase (its last sample written) → first sound of the
  reply, agent time excluded: the wait returns, `speak` is called at once, and the voice's
  own `first_audio_ms` (Piper, `--no-play`) is added to the time the wait took to come back;
  at the 1000 ms end of turn (the conversation's default) and at 600 ms;
- **barge-in**: the interruption's first sample → the line paused (the `paused` entry, the
  figure 14.2 asks of, since 16.3), → stopped on the words heard (`barge_in`), → the cut line's
  `speak` result on the pipe (the stand-in voice answers at once, as the real player does
  within a chunk);
- **false barge-ins**: replies whose own voice comes back into the microphone at -20 dB (a
  speaker about a metre away) while they play; any cut is a false barge-in;
- **full cycle**: request → the agent's `confirm` question → the user's "yes" → the answer's
  first sound, agent time excluded; the question's playing time (its `audio_s`, the voice
  being `--no-play`) and the user's "yes" are counted, and also shown taken out;
- **fillers**: the first filler after the turn is handed over, and the gaps between fillers
  (from the end of one to the start of the next), against [6, 9] s.

    uv run python benchmarks/conversation.py [--latency 5] [--barge 10] [--echo 50] \
        [--turns 2] [--cycle 3] [--only cycle|echo --gains 0.1,0.2] [--busy N]

`--busy N` keeps N cores busy throughout with spinning processes (`busy.py`): 1 is "one other
job" on the 2-core machine, 2 is both cores busy.

Prints a Markdown table and writes `conversation.json` beside this file. Linux only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TESTS = HERE.parent / "packages" / "mcp-adapter" / "tests"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TESTS))
from assist.mcp.demo.rooms.voiced import Phrases  # noqa: E402
from assist.mcp.eval import conversation as eval_conversation  # noqa: E402
from busy import busy_cores  # noqa: E402
from conversation_room import Room  # noqa: E402
from mcp_server import percentile  # noqa: E402

SLOW_VOICE = TESTS / "server_fakes" / "slow_voice.py"
QUESTIONS = (
    "What time is it in Tokyo right now?",
    "Can you remind me what the weather is like tomorrow?",
    "How long does it take to walk to the station?",
    "Please read me the first line of the plan.",
    "What did we decide about the budget?",
)
REPLIES = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there.",
    "Tomorrow looks dry and mild, with some cloud in the afternoon.",
    "It is about twenty minutes on foot, or five by bus.",
    "The plan starts with a review of last quarter's numbers.",
    "We agreed to keep the budget flat and look again in March.",
)
INTERRUPT = "Wait, stop, what about the weather?"
FILLER_S = 0.5
"""How long the stand-in voice plays each filler in the filler trials."""


class Conversation(eval_conversation.Conversation):
    """A conversation whose listener hears the tests' software room; `voice="slow"` is the
    tests' stand-in helper, a line "playing" `line_s`."""

    def __init__(
        self,
        root: Path,
        *,
        end_silence_ms: int,
        fillers: bool,
        voice: str,
        line_s: float = 4.0,
        turn: str | None = None,
        barge_in: dict[str, Any] | None = None,
    ) -> None:
        engine = "piper" if voice == "piper" else "espeak"
        settings: dict[str, Any] = {
            "assistant": {"enabled": True},
            "voice": {"engine": engine},
            "conversation": {"end_silence_ms": end_silence_ms, "fillers": fillers},
        }
        if turn is not None:
            settings["listen"] = {"turn": turn}
        if barge_in is not None:
            settings["barge_in"] = barge_in
        self.room = Room(root)
        env = {"ASSIST_LISTEN_FROM": str(self.room.path)}
        if voice == "slow":
            env |= {
                "ASSIST_VOICE_COMMAND": f"{sys.executable} {SLOW_VOICE}",
                "SLOW_VOICE_SECONDS": str(line_s),
                "SLOW_VOICE_NOTICE_SECONDS": "0.5",
            }
        super().__init__(root, settings, env)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.room.close()


class LineClock:
    """When each line lands in the conversation's raw.jsonl (watched every 5 ms), to part the
    listener's time from the server's wake."""

    def __init__(self, raw: Path) -> None:
        self.raw = raw
        self.landed: list[float] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.done.wait(0.005):
            try:
                count = self.raw.read_bytes().count(b"\n")
            except FileNotFoundError:
                continue
            now = time.monotonic()
            self.landed.extend([now] * (count - len(self.landed)))

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)


def reply_latency(
    phrases: Phrases, end_silence_ms: int, trials: int, turn: str | None = None
) -> dict[str, Any]:
    total: list[float] = []
    hearing: list[float] = []
    landing: list[float] = []
    voice: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        talk = Conversation(
            Path(folder), end_silence_ms=end_silence_ms, fillers=False, voice="piper", turn=turn
        )
        lines = LineClock(talk.folder / "raw.jsonl")
        try:
            for number in range(trials):
                audio = phrases(QUESTIONS[number % len(QUESTIONS)])
                talk.room.say(audio)
                while len(talk.room.said_at) <= number:
                    time.sleep(0.005)
                ended = talk.room.said_at[number] + len(audio) / 16_000
                _, back = talk.wait_lines()
                if lines.landed:
                    landing.append((lines.landed[-1] - ended) * 1000)
                spoke = talk.tool("speak", {"text": REPLIES[number % len(REPLIES)]})
                assert "said" in spoke
                first_ms = next(e for e in reversed(talk.events()) if e["event"] == "spoke")
                hearing.append((back - ended) * 1000)
                voice.append(first_ms["first_audio_ms"] or 0)
                total.append((back - ended) * 1000 + (first_ms["first_audio_ms"] or 0))
        finally:
            lines.close()
            talk.close()
    return {
        "turn": turn or "auto",
        "end_silence_ms": end_silence_ms,
        "line_ms": landing,
        "heard_ms": hearing,
        "voice_first_audio_ms": voice,
        "first_sound_ms": total,
    }


SERIES = ("line_ms", "heard_ms", "voice_first_audio_ms", "first_sound_ms")


def turns_side_by_side(phrases: Phrases, trials: int, rounds: int) -> list[dict[str, Any]]:
    """Reply latency with the turn model and with the silence rule, in alternating rounds so
    that both see the same load: the end of phrase to the wait's return (turn end, recognition,
    wake) and the voice's first audio, apart."""
    configs = (("smart-turn", 1000), ("silence", 1000), ("silence", 600))
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for _ in range(rounds):
        for turn, silence_ms in configs:
            run = reply_latency(phrases, silence_ms, trials, turn)
            into = merged.setdefault(
                (turn, silence_ms),
                {**run, **{key: [] for key in SERIES}},
            )
            for key in SERIES:
                into[key].extend(run[key])
    return list(merged.values())


REQUEST = "Please open a task to check version one point eight."
QUESTION = "A task to check version one point eight. Shall I?"
YES = "Yes, go ahead."
ANSWER = "Done, the task to check version one point eight is filed."


def full_cycle(phrases: Phrases, trials: int) -> dict[str, Any]:
    """Request → question → yes → answer, agent time excluded. The voice runs `--no-play`, so
    the question's playing time is its `audio_s`, added as the user would have to hear it."""
    import threading

    parts: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        talk = Conversation(Path(folder), end_silence_ms=1000, fillers=False, voice="piper")
        try:
            request, yes = phrases(REQUEST), phrases(YES)
            for _ in range(trials):
                heard = len(talk.room.said_at)
                talk.room.say(request)
                while len(talk.room.said_at) <= heard:
                    time.sleep(0.005)
                request_end = talk.room.said_at[heard] + len(request) / 16_000
                _, back = talk.wait_lines()
                answer: dict[str, Any] = {}

                def confirm(answer: dict[str, Any] = answer) -> None:
                    answer.update(talk.tool("confirm", {"question": QUESTION, "timeout_s": 30}))
                    answer["at"] = time.monotonic()

                def asked_count() -> int:
                    return sum(
                        e["event"] == "spoke" and e["text"] == QUESTION for e in talk.events()
                    )

                before = asked_count()
                thread = threading.Thread(target=confirm)
                thread.start()
                while asked_count() == before:
                    time.sleep(0.01)
                asked = next(e for e in reversed(talk.events()) if e["event"] == "spoke")
                talk.room.say(yes)
                thread.join()
                yes_end = talk.room.said_at[heard + 1] + len(yes) / 16_000
                assert answer["answer"] == "yes", answer
                talk.tool("speak", {"text": ANSWER})
                said = next(e for e in reversed(talk.events()) if e["event"] == "spoke")
                part = {
                    "request_heard_s": back - request_end,
                    "question_first_audio_s": (asked["first_audio_ms"] or 0) / 1000,
                    "question_plays_s": asked["audio_s"],
                    "yes_spoken_s": len(yes) / 16_000,
                    "yes_heard_s": answer["at"] - yes_end,
                    "answer_first_audio_s": (said["first_audio_ms"] or 0) / 1000,
                }
                part["total_s"] = sum(part.values())
                part["ours_s"] = part["total_s"] - part["question_plays_s"] - part["yes_spoken_s"]
                parts.append(part)
        finally:
            talk.close()
    return {"trials": parts}


def barge_in(phrases: Phrases, trials: int) -> dict[str, Any]:
    paused_ms: list[float] = []
    cut_ms: list[float] = []
    reply_ms: list[float] = []
    missed = 0
    import threading

    with tempfile.TemporaryDirectory() as folder:
        talk = Conversation(Path(folder), end_silence_ms=1000, fillers=False, voice="slow")
        try:
            audio = phrases(INTERRUPT)
            for number in range(trials):
                answer: dict[str, Any] = {}

                def speak(number: int = number, answer: dict[str, Any] = answer) -> None:
                    answer.update(talk.tool("speak", {"text": REPLIES[number % len(REPLIES)]}))
                    answer["at"] = time.monotonic()

                thread = threading.Thread(target=speak)
                thread.start()
                time.sleep(1.0)
                heard = len(talk.room.said_at)
                talk.room.say(audio)
                thread.join()
                if answer.get("interrupted"):
                    reply_ms.append((answer["at"] - talk.room.said_at[heard]) * 1000)
                    for kind, into in (("paused", paused_ms), ("barge_in", cut_ms)):
                        entry = [e for e in talk.events() if e["event"] == kind][-1]
                        at = datetime.fromisoformat(entry["at"]).timestamp()
                        into.append((at - talk.room.said_wall[heard]) * 1000)
                else:
                    missed += 1
                talk.wait_lines()  # the interruption's words, so the next trial starts clean
        finally:
            talk.close()
    return {
        "onset_to_pause_sent_ms": paused_ms,
        "onset_to_stop_sent_ms": cut_ms,
        "onset_to_speak_result_ms": reply_ms,
        "missed": missed,
    }


def false_barge_ins(phrases: Phrases, replies: int, gain: float) -> dict[str, Any]:
    import threading

    cuts = 0
    with tempfile.TemporaryDirectory() as folder:
        talk = Conversation(Path(folder), end_silence_ms=1000, fillers=False, voice="slow")
        try:
            for number in range(replies):
                text = REPLIES[number % len(REPLIES)]
                answer: dict[str, Any] = {}

                def speak(text: str = text, answer: dict[str, Any] = answer) -> None:
                    answer.update(talk.tool("speak", {"text": text}))

                thread = threading.Thread(target=speak)
                thread.start()
                time.sleep(0.1)
                talk.room.say(phrases(text)[: 16_000 * 4], gain=gain)
                thread.join()
                cuts += 1 if answer.get("cut_off") else 0
        finally:
            talk.close()
    return {"replies": replies, "gain": gain, "false_barge_ins": cuts}


def filler_timing(phrases: Phrases, turns: int) -> dict[str, Any]:
    first_s: list[float] = []
    gaps_s: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        talk = Conversation(
            Path(folder), end_silence_ms=1000, fillers=True, voice="slow", line_s=FILLER_S
        )
        try:
            for number in range(turns):
                talk.room.say(phrases(QUESTIONS[number % len(QUESTIONS)]))
                talk.wait_lines()
                handed_wall = time.time()
                time.sleep(32)  # three fillers at most, then silence
                said = [
                    datetime.fromisoformat(e["at"]).timestamp()
                    for e in talk.events()
                    if e["event"] == "filler"
                    and datetime.fromisoformat(e["at"]).timestamp() > handed_wall - 1
                ]
                if said:
                    first_s.append(said[0] - handed_wall)
                gaps_s.extend(b - a - FILLER_S for a, b in itertools.pairwise(said))
        finally:
            talk.close()
    return {"first_s": first_s, "gaps_end_to_start_s": gaps_s, "filler_play_s": FILLER_S}


def summary(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.median(values):.0f} / {percentile(values, 0.95):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=5)
    parser.add_argument("--barge", type=int, default=10)
    parser.add_argument("--echo", type=int, default=50)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--cycle", type=int, default=3)
    parser.add_argument("--only", choices=["cycle", "echo", "turns"], help="run one part only")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds for --only turns")
    parser.add_argument(
        "--gains", default="0.1", help="echo levels for --only echo, comma-separated (0.1 = -20 dB)"
    )
    parser.add_argument(
        "--busy", type=int, default=0, metavar="N", help="keep N cores busy throughout (busy.py)"
    )
    args = parser.parse_args()
    with busy_cores(args.busy):
        run(args)


def run(args: argparse.Namespace) -> None:
    """The parts `args` asks for, their tables printed and their figures written."""
    phrases = Phrases()
    results: dict[str, Any] = {}
    if args.only == "echo":
        sweep = [false_barge_ins(phrases, args.echo, float(g)) for g in args.gains.split(",")]
        print(json.dumps(sweep, indent=2))
        return
    if args.only == "turns":
        side = turns_side_by_side(phrases, args.latency, args.rounds)
        (HERE / "conversation_turns.json").write_text(json.dumps(side, indent=2) + "\n")
        print(
            "| Turn model | End of turn limit | End of phrase → line in raw.jsonl"
            " | → wait returns | Voice's first audio | End of phrase → first sound |"
        )
        print("| --- | --- | --- | --- | --- | --- |")
        for run in side:
            print(
                f"| {run['turn']} | {run['end_silence_ms']} ms | {summary(run['line_ms'])} ms"
                f" | {summary(run['heard_ms'])} ms"
                f" | {summary(run['voice_first_audio_ms'])} ms"
                f" | {summary(run['first_sound_ms'])} ms |"
            )
        return
    if args.only == "cycle":
        cycle = full_cycle(phrases, args.cycle)
        print(json.dumps(cycle, indent=2))
        return
    results["full_cycle"] = full_cycle(phrases, args.cycle)
    results["latency_1000"] = reply_latency(phrases, 1000, args.latency)
    results["latency_600"] = reply_latency(phrases, 600, args.latency)
    results["barge_in"] = barge_in(phrases, args.barge)
    results["echo"] = false_barge_ins(phrases, args.echo, 0.1)
    results["fillers"] = filler_timing(phrases, args.turns)
    (HERE / "conversation.json").write_text(json.dumps(results, indent=2) + "\n")
    cycle = results["full_cycle"]["trials"]
    l1, l6 = results["latency_1000"], results["latency_600"]
    bi, echo, fill = results["barge_in"], results["echo"], results["fillers"]
    firsts = ", ".join(f"{v:.1f}" for v in fill["first_s"])
    gaps = ", ".join(f"{v:.1f}" for v in fill["gaps_end_to_start_s"])
    rows = [
        ("What", "Ours (median / p95)", "Goal", "AGENT-A"),
        ("---", "---", "---", "---"),
        (
            "end of phrase → first sound, 1000 ms end of turn",
            f"{summary(l1['first_sound_ms'])} ms",
            "≤ 1500 ms",
            "2.9–3.2 s",
        ),
        (
            "full cycle: request → question → yes → answer's first sound (agent excluded)",
            f"{summary([t['total_s'] * 1000 for t in cycle])} ms",
            "≤ 4000 ms",
            "6.3 s with Claude Code",
        ),
        (
            "the same without the question's playing and the user's yes",
            f"{summary([t['ours_s'] * 1000 for t in cycle])} ms",
            "—",
            "—",
        ),
        (
            "end of phrase → first sound, 600 ms end of turn",
            f"{summary(l6['first_sound_ms'])} ms",
            "—",
            "1.63 s",
        ),
        (
            "barge-in: onset → pause sent to the voice",
            f"{summary(bi['onset_to_pause_sent_ms'])} ms ({bi['missed']} missed of {args.barge})",
            "p95 ≤ 200 ms",
            "queue flushed on the model's signal",
        ),
        (
            "barge-in: onset → stop sent, on the words heard",
            f"{summary(bi['onset_to_stop_sent_ms'])} ms",
            "within the hold",
            "—",
        ),
        (
            "barge-in: onset → cut line's speak result",
            f"{summary(bi['onset_to_speak_result_ms'])} ms",
            "p95 ≤ 200 ms",
            "queue flushed on the model's signal",
        ),
        (
            "false barge-ins, own voice at -20 dB",
            f"{echo['false_barge_ins']} of {echo['replies']}",
            "0",
            "—",
        ),
        ("first filler after the turn (s)", firsts, "[6, 9]", "every 6–9 s"),
        ("gaps between fillers, end to next start (s)", gaps, "[6, 9]", "every 6–9 s"),
    ]
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
