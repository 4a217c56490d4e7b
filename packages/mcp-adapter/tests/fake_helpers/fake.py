"""Shared parts of the fake voice helpers: the NDJSON protocol written by hand, not with
assist.core, so the supervisor is tested against an independent speaker of the protocol.

A fake accepts the real helper's flags (and ignores them), plus `--record FILE` to append its
arguments as a JSON line, `--line-seconds S`, how long each line "plays", and
`--ready-after S`, how long its engine "loads".
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path


def arguments(extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="fake")
    parser.add_argument("--record")
    parser.add_argument("--line-seconds", type=float, default=0.05)
    parser.add_argument("--ready-after", type=float, default=0.0)
    if extra is not None:
        extra(parser)
    args, _rest = parser.parse_known_args()
    if args.record:
        with open(args.record, "a", encoding="utf-8") as file:
            file.write(json.dumps(sys.argv[1:]) + "\n")
    return args


def first_time(marker: str | None) -> bool:
    """True when a helper should misbehave: always without `--once FILE`, else only while
    FILE does not exist (it is created, so the next helper works)."""
    if marker is None:
        return True
    if Path(marker).exists():
        return False
    Path(marker).touch()
    return True


def start_a_line(say: dict[str, object]) -> None:
    """The `speaking` event of a line that is about to go wrong."""
    send({"event": "speaking", "id": say["id"], "first_audio_ms": 5})


def send(event: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def ready(args: argparse.Namespace) -> None:
    time.sleep(args.ready_after)
    send({"event": "ready", "engine": args.engine, "sample_rate": 22050, "load_ms": 1})


class Input:
    """Request lines from stdin, readable with a timeout so a line can be stopped mid-play."""

    def __init__(self) -> None:
        self.buffer = b""
        self.ended = False

    def line(self, timeout: float | None = None) -> dict[str, object] | None:
        """The next request, or None at a timeout or the end of input."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if self.ended:
                return None
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([0], [], [], wait)[0]:
                return None
            chunk = os.read(0, 65536)
            if not chunk:
                self.ended = True
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(raw)


def serve(
    engine: str,
    line_seconds: float,
    on_say: Callable[[dict[str, object]], bool] | None = None,
) -> None:
    """Answer requests like a working helper until quit or the end of input. `on_say` may
    take a say over (return True when it answered it)."""
    requests = Input()
    pending: list[dict[str, object]] = []
    while True:
        request = pending.pop(0) if pending else requests.line()
        if request is None or request.get("op") == "quit":
            return
        if request.get("op") != "say" or (on_say is not None and on_say(request)):
            continue
        play(request, line_seconds, requests, pending)


def play(
    say: dict[str, object], seconds: float, requests: Input, pending: list[dict[str, object]]
) -> None:
    """Speak one line for `seconds`, answering a stop for it with `stopped`."""
    start = time.monotonic()
    send({"event": "speaking", "id": say["id"], "first_audio_ms": 7})
    while (left := seconds - (time.monotonic() - start)) > 0:
        request = requests.line(timeout=left)
        if request is None:
            if requests.ended:
                break
            continue
        if request.get("op") == "stop" and request.get("id") == say["id"]:
            played = round(time.monotonic() - start, 3)
            send({"event": "stopped", "id": say["id"], "audio_s": played})
            return
        pending.append(request)
    send({"event": "done", "id": say["id"], "audio_s": round(seconds, 3), "total_ms": 9})
