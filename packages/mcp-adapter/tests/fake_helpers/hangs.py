"""A helper that starts a line and then never finishes it, nor reads anything again. With
--once FILE it hangs only while FILE does not exist, creating it, so the next helper works."""

import time
from pathlib import Path

import fake

args = fake.arguments(lambda parser: parser.add_argument("--once"))
fake.ready(args)


def hang(say: dict[str, object]) -> bool:
    if args.once:
        if Path(args.once).exists():
            return False
        Path(args.once).touch()
    fake.send({"event": "speaking", "id": say["id"], "first_audio_ms": 5})
    time.sleep(600)
    return True


fake.serve(args.engine, args.line_seconds, on_say=hang)
