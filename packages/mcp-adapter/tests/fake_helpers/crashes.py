"""A helper that dies in the middle of a line (exit status 3). With --once FILE it crashes
only while FILE does not exist, creating it, so the next helper works."""

import os
from pathlib import Path

import fake

args = fake.arguments(lambda parser: parser.add_argument("--once"))
fake.ready(args)


def crash(say: dict[str, object]) -> bool:
    if args.once:
        if Path(args.once).exists():
            return False
        Path(args.once).touch()
    fake.send({"event": "speaking", "id": say["id"], "first_audio_ms": 5})
    os._exit(3)


fake.serve(args.engine, args.line_seconds, on_say=crash)
