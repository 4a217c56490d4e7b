"""A helper whose engine cannot load: a reason on stderr and exit status 2, nothing on stdout."""

import sys

import fake

args = fake.arguments()
print(f"fake-voice: cannot load the {args.engine} engine: not installed", file=sys.stderr)
sys.exit(2)
