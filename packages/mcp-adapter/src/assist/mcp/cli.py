"""The `assist` command: one entry point for the I/O shell's subcommands."""

from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata

from assist.core.engines import GROUP, EngineRegistry


def load_registry() -> EngineRegistry:
    """Every engine the installed packages offer, with broken plugins recorded."""
    registry = EngineRegistry()
    registry.load(metadata.entry_points(group=GROUP), os.environ)
    return registry


def engines_command(_args: argparse.Namespace) -> int:
    """List the registered engines, their packages and whether each can run here."""
    registry = load_registry()
    for name, spec in sorted(registry.specs.items()):
        try:
            version = metadata.version(spec.package)
        except metadata.PackageNotFoundError:
            version = "?"
        reason = registry.reasons()[name]
        state = "available" if reason is None else f"unavailable: {reason}"
        print(f"{name:12} {spec.package} {version:8} {state}")
    for broken in registry.broken:
        print(f"{broken.name:12} broken plugin: {broken.error}")
    if not registry.specs and not registry.broken:
        print("no voice engines are installed; install one, e.g. assist-voice-espeak")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="assist", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("engines", help="list voice engines").set_defaults(run=engines_command)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
