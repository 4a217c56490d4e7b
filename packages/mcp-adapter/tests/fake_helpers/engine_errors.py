"""A helper whose engine fails on some lines but keeps serving: text with "cannot" gets an
error with a message, text with "mute" an error with no message; other lines play."""

import fake

args = fake.arguments()
fake.ready(args)


def fail_some(say: dict[str, object]) -> bool:
    if "cannot" in str(say["text"]):
        fake.send({"event": "error", "id": say["id"], "message": "RuntimeError: synthesis failed"})
        return True
    if "mute" in str(say["text"]):
        fake.send({"event": "error", "id": say["id"]})
        return True
    return False


fake.serve(args.engine, args.line_seconds, on_say=fail_some)
