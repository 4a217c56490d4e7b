"""A helper that starts a line and then never finishes it, nor reads anything again. With
--once FILE it hangs only while FILE does not exist, creating it, so the next helper works."""

import time

import fake

args = fake.arguments(lambda parser: parser.add_argument("--once"))
fake.ready(args)


def hang(say: dict[str, object]) -> bool:
    if not fake.first_time(args.once):
        return False
    fake.start_a_line(say)
    time.sleep(600)
    return True


fake.serve(args.engine, args.line_seconds, on_say=hang)
