"""A helper that starts a process of its own (as an engine might), which would outlive it but
for the process-group kill; the grandchild's pid goes to --pid-file. It keeps our stdout."""

import subprocess
import sys
from pathlib import Path

import fake

args = fake.arguments(lambda parser: parser.add_argument("--pid-file", required=True))
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
Path(args.pid_file).write_text(str(child.pid))
fake.ready(args)
fake.serve(args.engine, args.line_seconds)
