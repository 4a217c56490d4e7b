"""A helper that prints junk around its events: text, non-objects, unknown events, bytes that
are not UTF-8, and events for ids that are not the line's (stale, or equal only loosely)."""

import sys

import fake

args = fake.arguments()
for junk in ["loading model...", "[1, 2]", '"ready"', '{"hello": 1}', '{"event": "mystery"}', ""]:
    print(junk, flush=True)
sys.stdout.buffer.write(b"\xff\xfe not utf-8 \x80\n")
sys.stdout.flush()
fake.ready(args)


def noisy(say: dict[str, object]) -> bool:
    print("synthesising, please wait", flush=True)
    for stale in (say["id"] - 1, 99, str(say["id"]), True, float(say["id"])):
        fake.send({"event": "done", "id": stale, "audio_s": 9.0, "total_ms": 1})
    fake.send({"event": "error", "id": None, "message": "unusable request line"})
    fake.send({"event": "speaking", "id": say["id"], "first_audio_ms": 12})
    print('{"event": "done", "id": ', flush=True)  # a torn line is not JSON
    fake.send({"event": "done", "id": say["id"], "audio_s": 1.25, "total_ms": 30})
    return True


fake.serve(args.engine, args.line_seconds, on_say=noisy)
