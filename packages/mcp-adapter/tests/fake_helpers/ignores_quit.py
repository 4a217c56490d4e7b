"""A helper that serves, but neither quit nor the end of its input makes it exit, and it
ignores SIGTERM: only SIGKILL ends it."""

import signal
import time

import fake

signal.signal(signal.SIGTERM, signal.SIG_IGN)
args = fake.arguments()
fake.ready(args)
fake.serve(args.engine, args.line_seconds)
time.sleep(600)
