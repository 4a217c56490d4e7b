"""A helper that works for some engines only: --refuse ENGINE exits at start-up (status 2)
when run as that engine, --crash ENGINE dies mid-line, --hang ENGINE never finishes a line."""

import os
import sys
import time

import fake


def options(parser):
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--crash", action="append", default=[])
    parser.add_argument("--hang", action="append", default=[])


args = fake.arguments(options)
if args.engine in args.refuse:
    print(f"fake-voice: the {args.engine} engine cannot load here", file=sys.stderr)
    sys.exit(2)
fake.ready(args)


def misbehave(say: dict[str, object]) -> bool:
    if args.engine in args.crash:
        os._exit(3)
    if args.engine in args.hang:
        time.sleep(600)
    return False


fake.serve(args.engine, args.line_seconds, on_say=misbehave)
