"""How fast `confirm` hears its answer (issue 12, behaviour 14.1).

A real `assist mcp` (espeak, `--no-play`) watches a live session; each trial calls `confirm`,
waits until the question's `spoke` event is in the meeting's log, appends the user's answer to
`raw.jsonl` as a recorder would, and times:

- **answer latency**: from the answer line's append returning to confirm's result arriving on
  the client's pipe (the server looks at the file's size ten times per 0.5 s poll and reads at
  once when it grew, so this is the part of the issue's full cycle that is ours to shorten);
- **question time**: from the call to the question's `spoke` event (espeak generating the
  question with `--no-play`; a played question adds its length).

Answers alternate between a yes and a no; every third trial first hears the question's own
echo, which must be passed over. Median and p95 over `--trials` (30), printed as a Markdown
table and written to `confirm.json` beside this file.

    uv run python benchmarks/confirm.py --trials 30

Linux only (the harness of `mcp_server.py`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from mcp_server import ASSIST, Client, Meeting, percentile

QUESTION = "Shall I file a task to check version {n}?"
ANSWERS = ("Yes, go ahead.", "No, don't.")


def spoke(meeting: Meeting, text: str) -> bool:
    log = meeting.folder / "assistant.jsonl"
    if not log.exists():
        return False
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("event") == "spoke" and event.get("text") == text:
            return True
    return False


def trials(count: int) -> dict[str, Any]:
    answer_ms: list[float] = []
    question_ms: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        meeting = Meeting(Path(folder))
        settings = json.loads(meeting.config.read_text())
        settings["assistant"]["max_per_meeting"] = count + 1  # each question is an utterance
        meeting.config.write_text(json.dumps(settings))
        client = Client([str(ASSIST), "mcp", "--no-play"], meeting.env)
        client.initialize()
        client.call("tools/call", {"name": "watch_meeting"})
        for trial in range(count):
            question = QUESTION.format(n=f"1.{trial}")
            called = time.monotonic()
            client.send(
                {
                    "jsonrpc": "2.0",
                    "id": 100 + trial,
                    "method": "tools/call",
                    "params": {"name": "confirm", "arguments": {"question": question}},
                }
            )
            while not spoke(meeting, question):
                if time.monotonic() - called > 30:
                    reply, _ = client.receive()
                    raise RuntimeError(f"the question was not said: {reply}")
                time.sleep(0.005)
            question_ms.append((time.monotonic() - called) * 1000)
            if trial % 3 == 2:
                meeting.append(question.rstrip("?").lower())
                time.sleep(0.6)
            expected = "yes" if trial % 2 == 0 else "no"
            meeting.append(ANSWERS[trial % 2])
            appended = time.monotonic()
            reply, arrived = client.receive()
            got = json.loads(reply["result"]["content"][0]["text"])
            assert got["answer"] == expected, got
            answer_ms.append((arrived - appended) * 1000)
        client.close()
        meeting.stop()
    return {
        "trials": count,
        "answer_median_ms": statistics.median(answer_ms),
        "answer_p95_ms": percentile(answer_ms, 0.95),
        "answer_max_ms": max(answer_ms),
        "question_median_ms": statistics.median(question_ms),
        "question_p95_ms": percentile(question_ms, 0.95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    report = trials(args.trials)
    print("| Figure | Median | p95 |")
    print("| --- | --- | --- |")
    print(
        f"| answer line appended -> confirm result | {report['answer_median_ms']:.0f} ms "
        f"| {report['answer_p95_ms']:.0f} ms |"
    )
    print(
        f"| confirm called -> question's `spoke` (espeak, --no-play) "
        f"| {report['question_median_ms']:.0f} ms | {report['question_p95_ms']:.0f} ms |"
    )
    out = Path(__file__).with_name("confirm.json")
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
