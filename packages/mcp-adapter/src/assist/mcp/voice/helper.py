"""`assist-voice`: the voice helper process, one engine speaking NDJSON requests (behaviour 8).

The start-up order is the point of this module (8.2): the command line is read with the
standard library alone; then stdout is taken for the protocol at file-descriptor level before
any engine, plugin or numeric library loads, so nothing they print can reach the parent; then
the engine is loaded and timed, the player opened, and `ready` sent. Anything that stops the
voice before `ready` (an unknown or uninstalled engine, a library that fails, no audio device)
is one line on stderr naming the program, the engine and the reason, and exit status 2 with
nothing on stdout, so the supervisor can fall back at once.

`--list` prints the registered engines instead of serving; it writes to stdout, as the
protocol is not in use then.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from assist.app.engines import load_plugins
from assist.app.logs import ENGINES, attach
from assist.app.store.paths import voice_cache_root
from assist.core.engines import VOICES, VoiceOptions
from assist.mcp.process_exit import exit_at_once
from assist.mcp.speech import engine_choice
from assist.mcp.voice import loading
from assist.mcp.voice.output import PROGRAM, log, take_stdout

if TYPE_CHECKING:
    from assist.mcp.voice.player import Player

LOAD_FAILED = 2
"""Exit status of a helper that never became ready (also argparse's usage-error status)."""
VOICE_EXTRA_MISSING = (
    "the voice helper needs numpy, sounddevice and soundfile, which assist-mcp installs only "
    "with its voice extra; install them with pip install 'assist-mcp[voice]'"
)
"""Why the helper cannot start in an environment that has the server but not the helper's
audio libraries (behaviour 8.2: a load failure, exit status 2)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Speak lines sent as NDJSON on stdin with one local voice engine; "
        "events come back on stdout, diagnostics on stderr.",
    )
    parser.add_argument(
        "--engine", help="a registered engine name (see --list), or auto to let the machine choose"
    )
    parser.add_argument("--voice", help="the engine's voice or speaker")
    parser.add_argument("--style", help="standing delivery instruction (qwen3-tts preset voices)")
    parser.add_argument("--reference", help="designed-voice folder to clone (qwen3-tts)")
    parser.add_argument("--description", help="design a voice from this text, once (qwen3-tts)")
    parser.add_argument("--cue", help="cue added to the description when designing")
    parser.add_argument("--no-play", action="store_true", help="generate but do not play")
    parser.add_argument("--save-dir", help="also write each line as DIR/reply-<id>.wav")
    parser.add_argument(
        "--own-lines",
        metavar="NAME",
        help="render the server's own lines of a conversation with the assistant NAME while "
        "idle, so they start from memory",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the registered engines and whether each can load"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        return _list_engines(args)
    if not args.engine:
        parser.error("--engine is required: an engine name from --list, or auto")
    output = take_stdout()
    attach(ENGINES, f"{PROGRAM}: ")  # the engines' own loggers, assist.voice.<engine>

    # Only now may anything that could print load: plugins, numpy, the engine's library.
    from assist.core.conversation import own_lines
    from assist.core.protocol import Ready

    try:
        from assist.mcp.voice.player import PlayerUnavailable
        from assist.mcp.voice.service import Service, read_requests
    except ImportError as missing:
        log.warning(f"{VOICE_EXTRA_MISSING} ({missing})")
        return LOAD_FAILED

    save_dir = Path(args.save_dir) if args.save_dir else None
    if save_dir is not None:
        try:
            save_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            log.warning(
                f"cannot create the --save-dir folder {save_dir} ({error}); give a writable one"
            )
            return LOAD_FAILED
    engine_name = args.engine
    try:
        started = time.perf_counter()
        options = _options(args)
        registry = load_plugins(VOICES, os.environ)
        engine_name = loading.choose(registry, args.engine, options)
        engine = loading.build(registry, engine_name, options)
        load_ms = round((time.perf_counter() - started) * 1000)
        log.debug(f"engine {engine_name} built in {load_ms} ms")
        player = _player(args.no_play, int(engine.sample_rate))
    except (loading.LoadFailure, PlayerUnavailable, OSError) as error:
        log.warning(f"cannot load voice engine {engine_name!r}: {error}")
        return LOAD_FAILED

    output.emit(Ready(engine=engine_name, sample_rate=int(engine.sample_rate), load_ms=load_ms))
    prepare = own_lines(args.own_lines) if args.own_lines else ()
    service = Service(engine, player, output, save_dir, prepare=prepare)
    reader = threading.Thread(
        target=read_requests, args=(sys.stdin.buffer, service), name="assist-voice-reader"
    )
    reader.daemon = True  # after quit it has stopped; at EOF it has already returned
    reader.start()
    try:
        service.serve()
    finally:
        player.close()
        engine.close()
    return 0


def _player(no_play: bool, sample_rate: int) -> Player:
    """Nothing with --no-play; else the FIFO that `ASSIST_PLAY_INTO` names (tests, the talk
    demo), else the speakers."""
    from assist.mcp.voice import fifo_output
    from assist.mcp.voice.player import SilentPlayer, open_speakers

    if no_play:
        return SilentPlayer()
    into = os.environ.get(fifo_output.VARIABLE)
    if into:
        return fifo_output.open_fifo(into, sample_rate)
    return open_speakers(sample_rate)


def _options(args: argparse.Namespace) -> VoiceOptions:
    return VoiceOptions(
        voice=args.voice,
        style=args.style,
        reference=args.reference,
        description=args.description,
        cue=args.cue,
        cache_root=str(voice_cache_root(os.environ)),
    )


def _list_engines(args: argparse.Namespace) -> int:
    registry = load_plugins(VOICES, os.environ)
    for line in engine_choice.describe_engines(registry, _options(args)):
        print(line)
    return 0


def run() -> None:
    """The `assist-voice` command: `main`, then out at once (`process_exit`)."""
    exit_at_once(main())


if __name__ == "__main__":
    run()
