"""A stand-in `assist listen` for the conversation's fault tests (run as ASSIST_LISTEN_COMMAND).

It takes the real listener's flags, and its behaviour from `FAKE_LISTENER`:
- `refuse`: says why on stderr (as the real one does with no microphone) and exits 2;
- `crash`: makes the session folder, grows its native WAV for `FAKE_LISTENER_AFTER` seconds,
  then says why on stderr and exits 1;
- `hang`: makes the session folder and its native WAV once, then sleeps (never grows it).

With `FAKE_LISTENER_GATE` set to a path, it first makes `<path>.waiting` and starts only once
the path exists (within 60 s), so a test can act while the server waits for it to capture.
"""

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--into")
parser.add_argument("--name")
parser.add_argument("--from", dest="source")
parser.add_argument("--end-silence-ms")
parser.add_argument("--quiet", action="store_true")
parser.add_argument("--events", action="store_true")
parser.add_argument("--echo-reference")
parser.add_argument("--turn")
args = parser.parse_args()
mode = os.environ.get("FAKE_LISTENER", "crash")
after = float(os.environ.get("FAKE_LISTENER_AFTER", "1"))

gate = os.environ.get("FAKE_LISTENER_GATE")
if gate:
    Path(gate + ".waiting").touch()
    give_up = time.monotonic() + 60
    while not os.path.exists(gate) and time.monotonic() < give_up:
        time.sleep(0.05)

if mode == "refuse":
    print("assist listen: no input device found; plug in a microphone", file=sys.stderr)
    sys.exit(2)
session = datetime.now().strftime("%Y-%m-%dT%H%M") + f"-{args.name}"
folder = Path(args.into) / session
(folder / "audio").mkdir(parents=True)
native = folder / "audio" / "room.native.wav"
native.write_bytes(b"RIFF" + bytes(40))
print(f"session {session} in {folder}", flush=True)
deadline = time.monotonic() + after
while mode == "crash" and time.monotonic() < deadline:
    with native.open("ab") as out:
        out.write(bytes(3200))
    time.sleep(0.2)
if mode == "crash":
    print("assist listen: the capture device went away (simulated crash)", file=sys.stderr)
    sys.exit(1)
while True:
    time.sleep(1)
