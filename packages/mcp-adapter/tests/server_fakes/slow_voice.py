"""A stand-in voice helper for the server's tests: each line "plays" for a while, so a test can
switch the assistant off or call stop_watching while it plays.

It speaks the helper protocol of behaviour 8.3 by hand (no assist code), accepts and ignores
the real helper's flags, and takes its own from the environment (so `ASSIST_VOICE_COMMAND`
stays a plain command): `SLOW_VOICE_SECONDS` per line (default 2; `SLOW_VOICE_NOTICE_SECONDS`
for the consent notice, a line said warmly), `SLOW_VOICE_RECORD` a file
to append each request to, `SLOW_VOICE_FAIL` a word that makes a line containing it fail with
an engine error. A `stop` for the playing line answers `stopped` at once; `pause` holds it
(the time paused does not count as played) until `resume`, each answered as the helper does.
"""

import json
import os
import select
import sys
import time

SECONDS = float(os.environ.get("SLOW_VOICE_SECONDS", "2"))
NOTICE_SECONDS = float(os.environ.get("SLOW_VOICE_NOTICE_SECONDS", str(SECONDS)))
RECORD = os.environ.get("SLOW_VOICE_RECORD")
FAIL = os.environ.get("SLOW_VOICE_FAIL")


def send(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def record(request):
    if RECORD:
        with open(RECORD, "a", encoding="utf-8") as file:
            file.write(json.dumps(request) + "\n")


buffer = b""


def next_request(timeout):
    """The next request line, None on timeout, "eof" at end of input."""
    global buffer
    deadline = None if timeout is None else time.monotonic() + timeout
    while b"\n" not in buffer:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([0], [], [], left)
        if not ready:
            return None
        chunk = os.read(0, 65536)
        if not chunk:
            return "eof"
        buffer += chunk
    line, buffer = buffer.split(b"\n", 1)
    return json.loads(line)


send({"event": "ready", "engine": "slow", "sample_rate": 22050, "load_ms": 1})
while True:
    request = next_request(None)
    if request == "eof" or request.get("op") == "quit":
        break
    record(request)
    if request.get("op") != "say":
        continue
    line = request["id"]
    if FAIL and FAIL in request.get("text", ""):
        send({"event": "error", "id": line, "message": "RuntimeError: synthesis failed"})
        continue
    send({"event": "speaking", "id": line, "first_audio_ms": 7})
    seconds = NOTICE_SECONDS if request.get("emotion") == "warm" else SECONDS
    started = time.monotonic()
    stopped = False
    paused_at = None  # while paused: when it paused
    while paused_at is not None or (left := seconds - (time.monotonic() - started)) > 0:
        other = next_request(None if paused_at is not None else left)
        if other is None:
            break
        if other == "eof" or other.get("op") == "quit":
            sys.exit(0)
        record(other)
        if other.get("id") != line:
            continue
        if other.get("op") == "stop":
            stopped = True
            break
        if other.get("op") == "pause" and paused_at is None:
            paused_at = time.monotonic()
            send({"event": "paused", "id": line, "audio_s": round(paused_at - started, 3)})
        elif other.get("op") == "resume" and paused_at is not None:
            started += time.monotonic() - paused_at
            paused_at = None
            send({"event": "resumed", "id": line, "audio_s": round(time.monotonic() - started, 3)})
    if paused_at is not None:
        started += time.monotonic() - paused_at
    played = round(min(seconds, time.monotonic() - started), 3)
    if stopped:
        send({"event": "stopped", "id": line, "audio_s": played})
    else:
        send({"event": "done", "id": line, "audio_s": played, "total_ms": int(played * 1000)})
