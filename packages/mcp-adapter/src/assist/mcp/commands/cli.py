"""The `assist` command: one entry point for the I/O shell's subcommands.

`assist mcp` takes exactly `--no-play` and `--save-audio DIR` (behaviour 3.1); `-h`/`--help`
prints its usage on stdout and exits 0, as every subcommand does; anything else prints the usage
on stderr and exits 2. Its arguments are read by hand rather than by argparse, so nothing but
protocol (or the help asked for) ever reaches its stdout. `assist --version` prints the version.
Subcommands import what they need when they run, so `assist mcp` loads no engine code.
The help texts are for a user, in plain words (`DESCRIPTION`, each subcommand's line).
"""

from __future__ import annotations

import argparse
import os
import sys

from assist.mcp.installed import version
from assist.mcp.process_exit import INTERRUPTED

MCP_USAGE = "usage: assist mcp [--no-play] [--save-audio DIR]"
MCP_HELP = f"""{MCP_USAGE}

Run the assistant for an AI agent: the agent (an MCP client such as Claude Code) starts this
command and talks to it on stdin and stdout.

options:
  -h, --help        show this help and exit
  --no-play         make speech without playing it
  --save-audio DIR  also write each spoken line as DIR/reply-<id>.wav"""
HELP_FLAGS = ("-h", "--help")
DESCRIPTION = (
    "Let an AI agent take part by voice in a meeting being recorded, or talk with you through "
    "this computer's microphone and speakers. Start with: assist demo"
)
ENGINES_DESCRIPTION = (
    "List the voices and the speech recognisers installed, and whether each can run on this "
    "machine."
)


def engines_command(_args: argparse.Namespace) -> int:
    """List the registered voice engines, then the speech recognisers, then the turn models:
    their packages and whether each can load here, each under its heading as `assist doctor`
    shows them."""
    from assist.app.engines import load_plugins
    from assist.app.store.paths import voice_cache_root
    from assist.app.turn_models import installed_turn_models
    from assist.core.engines import VOICES, VoiceOptions
    from assist.core.recognisers import RecogniserOptions
    from assist.mcp.speech.engine_choice import VOICES_HEADING, describe_engines
    from assist.mcp.speech.recogniser_choice import INDENT, describe_recognisers, recognisers
    from assist.mcp.speech.turn_model_choice import describe_turn_models

    options = VoiceOptions(cache_root=str(voice_cache_root(os.environ)))
    print(VOICES_HEADING)
    for line in describe_engines(load_plugins(VOICES, os.environ), options):
        print(INDENT + line)
    for line in describe_recognisers(recognisers(os.environ), RecogniserOptions()):
        print(line)
    for line in describe_turn_models(installed_turn_models(os.environ)):
        print(line)
    return 0


def mcp_arguments(argv: list[str]) -> tuple[bool, str | None] | None:
    """(no_play, save_audio) from `assist mcp`'s arguments, or None when they are not usable."""
    no_play = False
    save_audio: str | None = None
    rest = list(argv)
    while rest:
        argument = rest.pop(0)
        if argument == "--no-play" and not no_play:
            no_play = True
        elif argument == "--save-audio" and save_audio is None and rest and rest[0]:
            save_audio = rest.pop(0)
        elif argument.startswith("--save-audio=") and save_audio is None:
            save_audio = argument.partition("=")[2] or None
            if save_audio is None:
                return None
        else:
            return None
    return no_play, save_audio


def mcp_command(argv: list[str]) -> int:
    """`assist mcp [--no-play] [--save-audio DIR]`: serve the watching tools on stdio."""
    if any(argument in HELP_FLAGS for argument in argv):
        print(MCP_HELP)
        return 0
    parsed = mcp_arguments(argv)
    if parsed is None:
        print(MCP_USAGE, file=sys.stderr)
        return 2
    from assist.mcp.process_exit import exit_at_once
    from assist.mcp.server.server import run

    no_play, save_audio = parsed
    exit_at_once(run(no_play=no_play, save_audio=save_audio))


def config_command(argv: list[str]) -> int:
    """`assist config [KEY VALUE]`: show the settings in use, or set one key."""
    from assist.mcp.commands.config import config_command as run

    return run(argv)


def replay_command(argv: list[str]) -> int:
    """`assist replay MEETING --into ROOT ...`: play a scripted meeting into a session folder."""
    from assist.mcp.replay.command import replay_command as run

    return run(argv)


def demo_command(argv: list[str]) -> int:
    """`assist demo ...`: the sample meeting end to end with a stand-in agent."""
    from assist.mcp.demo.command import demo_command as run

    return run(argv)


def eval_command(argv: list[str]) -> int:
    """`assist eval ...`: labelled meetings replayed with an agent, and its behaviour scored."""
    from assist.mcp.eval.command import eval_command as run

    return run(argv)


def doctor_command(argv: list[str]) -> int:
    """`assist doctor [--prepare]`: what a watch would use here, and whether its voice starts."""
    from assist.mcp.commands.doctor import doctor_command as run

    return run(argv)


def say_command(argv: list[str]) -> int:
    """`assist say TEXT ...`: say one line in the assistant's voice."""
    from assist.mcp.commands.say import say_command as run

    return run(argv)


def talk_command(argv: list[str]) -> int:
    """`assist talk`: check the microphone, listener and voice; say how to start talking."""
    from assist.mcp.commands.talk import talk_command as run

    return run(argv)


LISTEN_MISSING = (
    "assist listen: the listener is not installed (it is the assist-listen package); install it "
    "with pip install 'assist-core[listen]', or uv sync in a checkout of assist"
)


def listen_command(argv: list[str]) -> int:
    """`assist listen ...`: record a meeting from a microphone (assist-listen, when installed)."""
    try:
        from assist.listen.command import listen_command as run
    except ModuleNotFoundError as missing:
        if missing.name not in ("assist.listen", "assist.listen.command"):
            raise
        print(LISTEN_MISSING, file=sys.stderr)
        return 2
    return run(argv)


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. A reader that goes away (`assist engines | head -1`) ends it
    quietly with 1, as Python's documentation advises, not with a traceback; Ctrl-C ends it
    at once with 130 and one line, whatever it was doing (its children get the same signal
    from the terminal, and each command's own cleanup is bounded)."""
    try:
        try:
            return _dispatch(sys.argv[1:] if argv is None else list(argv))
        finally:
            sys.stdout.flush()  # inside the guard: after --help, too, the pipe may be closed
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second failure
        return 1
    except KeyboardInterrupt:
        print("assist: interrupted", file=sys.stderr)
        return INTERRUPTED


def _dispatch(arguments: list[str]) -> int:
    direct = {
        "mcp": mcp_command,
        "config": config_command,
        "replay": replay_command,
        "demo": demo_command,
        "eval": eval_command,
        "doctor": doctor_command,
        "say": say_command,
        "listen": listen_command,
        "talk": talk_command,
    }
    if arguments and arguments[0] in direct:
        return direct[arguments[0]](arguments[1:])
    parser = argparse.ArgumentParser(prog="assist", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"assist {version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "engines",
        help="list the voices, speech recognisers and turn models installed",
        description=ENGINES_DESCRIPTION,
    ).set_defaults(run=engines_command)
    commands.add_parser("mcp", help="run the assistant for an AI agent (the agent starts it)")
    commands.add_parser("config", help="show the settings, or set one: assist config KEY VALUE")
    commands.add_parser("replay", help="play a scripted meeting as if it were being recorded")
    commands.add_parser("demo", help="watch a sample meeting with a stand-in agent, end to end")
    commands.add_parser("eval", help="score how an agent behaves in sample meetings")
    commands.add_parser(
        "doctor", help="check what the assistant would use here and that it can speak"
    )
    commands.add_parser("say", help="say one line in the assistant's voice")
    commands.add_parser("listen", help="record a meeting from the microphone and transcribe it")
    commands.add_parser(
        "talk", help="check this machine can talk, and say how to start a conversation"
    )
    args = parser.parse_args(arguments)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
