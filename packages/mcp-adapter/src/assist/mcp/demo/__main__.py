"""`python -m assist.mcp.demo` runs `assist demo`."""

import sys

from assist.mcp.demo.command import demo_command

sys.exit(demo_command(sys.argv[1:]))
