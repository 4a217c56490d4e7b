"""A helper that dies in the middle of a line (exit status 3). With --once FILE it crashes
only while FILE does not exist, creating it, so the next helper works."""

import os

import fake

args = fake.arguments(lambda parser: parser.add_argument("--once"))
fake.ready(args)


def crash(say: dict[str, object]) -> bool:
    if not fake.first_time(args.once):
        return False
    fake.start_a_line(say)
    os._exit(3)


fake.serve(args.engine, args.line_seconds, on_say=crash)
