"""`assist listen`: record a meeting into a session folder, as Ambient's recorder does.

Everything that can fail before recording (the recogniser, the devices, the input file) is
checked before the session folder is claimed, so a mistake never leaves an empty session
behind; such a failure exits 2 with what to do. Then the session id and folder are printed on
stdout, each track runs on its own thread, and this thread watches for the end: a signal
(SIGINT, SIGTERM, SIGHUP), a `STOP` file in the session folder (looked for every 200 ms), the end
of `--from` input, or a lost device. At the end the turns in progress are recognised and
written, then `<track>.wav`, then `session.json`, and last the native WAVs are removed, so the
session stops being live only once everything is in place.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from assist.core.files import REFERENCE_SOCKET, SIGNALS_SOCKET
from assist.core.lines import RawLine

STOP_FILE = "STOP"
STOP_POLL_S = 0.2
"""Ambient's recorder looks for the STOP file every 200 ms (behaviour 12.2)."""
TRACK_STOP_S = 10.0
"""A capture thread looks at the stop every block; one that has not stopped this long after
it (a device that stopped answering) is left, a daemon thread, and named in the warnings."""
USAGE_ERROR = 2
ENDING_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
REFERENCE_KIND = "reference"
"""The meeting's reference socket in the private short folder: `reference-<hash>.sock`."""


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="assist listen",
        description="Record a meeting into a session folder: capture, detect turns, recognise "
        "them offline, one raw.jsonl line per turn. Ends on Ctrl-C, a STOP file in the session "
        "folder, or the end of --from input.",
    )
    result.add_argument("--into", type=Path, metavar="ROOT", help="the sessions root")
    result.add_argument("--name", help="name the recording (its slug ends the session id)")
    result.add_argument(
        "--from",
        dest="source",
        metavar="FILE|-",
        help="a WAV file instead of a microphone, or - for 16 kHz mono s16le PCM on stdin",
    )
    result.add_argument(
        "--fast", action="store_true", help="with --from FILE: as fast as it goes, not real time"
    )
    result.add_argument("--device", metavar="DEV", help="the room microphone (index or name)")
    result.add_argument(
        "--call-device", metavar="DEV", help="a second capture as the call track (index or name)"
    )
    result.add_argument("--stt", metavar="ENGINE", help="the recogniser (default: auto)")
    result.add_argument("--model", help="the recogniser's model (default: its own)")
    result.add_argument(
        "--end-silence-ms",
        type=int,
        metavar="N",
        help="silence that ends a turn, in ms (default 600)",
    )
    result.add_argument(
        "--turn",
        metavar="MODEL",
        help="what ends a turn at a short pause: a turn model, silence, or auto (the default: "
        "the best installed)",
    )
    result.add_argument("--quiet", action="store_true", help="no terminal view on stderr")
    result.add_argument(
        "--events",
        action="store_true",
        help="after the session line, write speech onsets and ends to stdout as NDJSON "
        "(for a server that supervises the listener)",
    )
    result.add_argument(
        "--echo-reference",
        type=Path,
        metavar="SOCKET",
        help="bind this Unix datagram socket and cancel from the room track the audio the "
        "voice helper sends to it (a conversation's server passes it; without it a device's "
        "recording binds its own, linked from reference.sock, for a watching server)",
    )
    result.add_argument("--devices", action="store_true", help="list input devices and exit")
    return result


def listen_command(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from assist.app.audio import AudioUnavailable
    from assist.listen.devices import describe_devices, input_devices

    try:
        if args.devices:
            print(describe_devices(input_devices()))
            return 0
        plan = _plan(args)
    except AudioUnavailable as unavailable:
        print(f"assist listen: {unavailable}", file=sys.stderr)
        return USAGE_ERROR
    except _Refusal as refusal:
        print(f"assist listen: {refusal}", file=sys.stderr)
        return USAGE_ERROR
    return _record(plan)


class _Refusal(Exception):
    pass


class _Plan:
    """What a recording will use, all checked before its folder is claimed."""

    root: Path
    name: str | None
    sources: dict[str, Any]
    recogniser: Any
    rules: Any
    pause: Any
    turn: Any
    quiet: bool
    events: bool
    echo_reference: Path | None
    peek_prompt: str


def _plan(args: argparse.Namespace) -> _Plan:
    from assist.app.store.config import ConfigFile
    from assist.app.store.paths import config_path, sessions_root
    from assist.app.turn_models import installed_turn_models, load_turn_model
    from assist.core.interruptions import peek_prompt
    from assist.core.settings import END_SILENCE_RANGE_MS
    from assist.core.turn_ends import PauseRules
    from assist.core.turns import TurnRules
    from assist.listen.devices import DeviceError, capture_rate, find_device
    from assist.listen.recognisers import RecogniserError, build_recogniser
    from assist.listen.sources import CaptureError, DeviceSource, StdinSource, WavSource

    location = config_path(os.environ)
    settings = ConfigFile.at(location, os.environ).load()
    listen = settings.listen
    plan = _Plan()
    plan.root = args.into or sessions_root(os.environ, settings, location)
    plan.name = args.name
    plan.quiet = args.quiet
    plan.events = args.events
    plan.echo_reference = args.echo_reference
    plan.peek_prompt = peek_prompt(settings.interruptions.backchannels)
    end_silence = listen.end_silence_ms if args.end_silence_ms is None else args.end_silence_ms
    low, high = END_SILENCE_RANGE_MS
    if not low <= end_silence <= high:
        raise _Refusal(f"--end-silence-ms {end_silence} is outside {low} to {high}; try 600")
    plan.rules = TurnRules(end_silence_ms=end_silence)
    if args.fast and (args.source is None or args.source == "-"):
        raise _Refusal("--fast plays a --from FILE as fast as it goes; give --from FILE with it")
    sources: dict[str, Any] = {}
    try:
        if args.source == "-":
            if sys.stdin.isatty():
                raise _Refusal(
                    "--from - reads 16 kHz mono s16le PCM from stdin, which is a terminal; "
                    "pipe the audio in (… | assist listen --from -), or give --from FILE"
                )
            sources["room"] = StdinSource()
        elif args.source is not None:
            sources["room"] = WavSource(Path(args.source), fast=args.fast)
        else:
            from_config = None if args.device else str(location.path)
            device = find_device(args.device or listen.device, track="room", config=from_config)
            sources["room"] = DeviceSource(device.index, capture_rate(device), device.name, "room")
        call = args.call_device or (listen.call_device if args.source is None else None)
        if call is not None:
            from_config = None if args.call_device else str(location.path)
            device = find_device(call, track="call", config=from_config)
            sources["call"] = DeviceSource(device.index, capture_rate(device), device.name, "call")
    except (DeviceError, CaptureError) as problem:
        raise _Refusal(str(problem)) from None
    plan.sources = sources
    try:
        plan.recogniser = build_recogniser(args.stt or listen.stt, args.model or listen.model)
    except RecogniserError as problem:
        raise _Refusal(f"{problem}; or name another with --stt") from None
    plan.pause = PauseRules(turn_pause_ms=listen.turn_pause_ms)
    plan.turn = load_turn_model(
        turn_choice(args.turn or listen.turn, plan), installed_turn_models(os.environ)
    )
    return plan


def turn_choice(configured: str | None, plan: _Plan) -> str | None:
    """The turn model to load: `auto` (None) is the best installed only for a conversation's
    listener, the one given its server's `--echo-reference` (behaviour 16.1). A meeting's
    recorder binds a reference socket of its own (16.3), but whether a voice reaches it is
    up to who watches: nobody may, a second watcher's voice is never cancelled, and another
    assistant's never reaches it. A voice come back uncancelled is ended by a turn model at
    every sentence, and a sentence of one or two words is too short for the echo test (6.2):
    there auto is the silence rule, and a model only when named (`--turn auto` names the best
    installed: a conversation's server always passes `--turn`, with or without a reference)."""
    from assist.core.turn_models import SILENCE

    if configured is None and plan.echo_reference is None:
        return SILENCE
    return configured


def _record(plan: _Plan) -> int:
    from assist.app.stop_signals import stop_on_signals
    from assist.app.store.new_session import create_session
    from assist.listen.echo_canceller import EchoCanceller
    from assist.listen.echo_filters import load_filter
    from assist.listen.onsets import Signals
    from assist.listen.recognition import Recognition, Ticket
    from assist.listen.session_files import RATE_HZ, RawJsonl, TrackFiles, write_session_json
    from assist.listen.track import Track
    from assist.listen.turn_judge import SharedJudge
    from assist.listen.view import ended, make_view

    stop = threading.Event()
    stop_on_signals(stop, ENDING_SIGNALS)
    started = datetime.now().astimezone()
    try:
        folder = create_session(plan.root, started, plan.name)
    except OSError as error:
        print(
            f"assist listen: could not make a session under {plan.root}: {error}; check that "
            "the folder is writable, or give another with --into",
            file=sys.stderr,
        )
        plan.recogniser.close()
        plan.turn.model.close()
        return 1
    view = make_view(plan.quiet)
    warnings: list[str] = []
    raw = RawJsonl(folder)

    def written(line: RawLine, _ticket: Ticket) -> None:
        raw.append(line)
        view.line(line)

    def warn(text: str) -> None:
        warnings.append(text)
        view.note(text)

    recognition = Recognition(
        plan.recogniser, written, warn, warm_up=True, peek_prompt=plan.peek_prompt
    )
    if plan.turn.warning is not None:
        warn(plan.turn.warning)
    turn_model = SharedJudge(plan.turn.model)
    signals = Signals(sys.stdout if plan.events else None, folder / SIGNALS_SOCKET, warn)
    reference = _echo_reference(plan, folder, warn)
    filter = load_filter(warn) if reference is not None else None
    canceller = None
    if reference is not None and filter is not None:
        canceller = EchoCanceller(reference.ring, filter)
    tracks = [
        Track(
            name,
            source,
            TrackFiles(folder, name, source.rate),
            recognition,
            plan.rules,
            signals,
            canceller if name == "room" else None,
            turn_model,
            plan.pause,
            warn,
        )
        for name, source in plan.sources.items()
    ]
    print(f"session {folder.name} in {folder}", flush=True)  # once its files are there
    threads = [
        threading.Thread(target=_run_track, args=(track, stop), name=track.name, daemon=True)
        for track in tracks
    ]
    view.start(tracks, lambda: recognition.busy)
    for thread in threads:
        thread.start()
    try:
        while not stop.is_set() and all(thread.is_alive() for thread in threads):
            if (folder / STOP_FILE).exists():
                break
            stop.wait(STOP_POLL_S)
            for track in tracks:
                track.files.tick(time.monotonic())
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=TRACK_STOP_S)
        for track, thread in zip(tracks, threads, strict=True):
            if thread.is_alive():
                warnings.append(
                    f"{track.name}: the track had not stopped {TRACK_STOP_S:g} s after the end "
                    "(its device stopped answering); the turn in progress was "
                    f"not recognised, and audio/{track.name}.wav holds what it heard before"
                )
            warnings.extend(track.source.warnings)
            if track.error is not None:
                warnings.append(f"{track.name}: capture failed: {track.error}")
        if reference is not None:
            reference.close()
            if reference.warning is not None:
                warnings.append(reference.warning)
        recognition.drain()
        plan.recogniser.close()
        turn_model.close()
        raw.close()
        view.stop()
        for track in tracks:
            track.files.write_final_wav()
        room = plan.sources["room"]
        call = plan.sources.get("call")
        write_session_json(
            folder,
            name=plan.name,
            started=started,
            ended=datetime.now().astimezone(),
            duration_s=next(t for t in tracks if t.name == "room").files.samples / RATE_HZ,
            device_hz=room.rate,
            call_hz=call.rate if call is not None else None,
            model=_model_name(plan.recogniser),
            turn={
                "model": plan.turn.model.name,
                "pause_ms": plan.pause.turn_pause_ms,
                "end_silence_ms": plan.rules.end_silence_ms,
            },
            warnings=warnings,
        )
        for track in tracks:
            track.files.remove_temporary()
    if not plan.quiet:
        view.note(ended(folder.name, raw.lines))
    return 0


def _echo_reference(plan: _Plan, folder: Path, warn: Any) -> Any:
    """The reference socket for the room track's canceller, when it captures a device: the one
    a conversation's server names, else the meeting's own, linked from `reference.sock` for
    whichever server watches (16.3). One that cannot be bound costs the cancellation, never
    the recording."""
    if plan.sources["room"].clock is None:
        return None
    from assist.app.private_sockets import meeting_socket, remove_dead
    from assist.listen.echo_ring import ReferenceRing, ReferenceSocket

    path, link = plan.echo_reference, None
    try:
        if path is None:
            remove_dead(REFERENCE_KIND)
            path, link = meeting_socket(folder, REFERENCE_KIND), folder / REFERENCE_SOCKET
        return ReferenceSocket(path, ReferenceRing(), link)
    except OSError as error:
        where = f"bind {path}" if path is not None else "make the meeting's reference socket"
        linked = f" and link it from {link}" if link is not None else ""
        warn(
            f"room: no echo cancellation: cannot {where}{linked} ({error}); the assistant's "
            "own voice is kept out by the barge-in gate alone"
        )
        return None


def _run_track(track: Any, stop: threading.Event) -> None:
    track.run(stop)
    stop.set()  # one track ending (its input over, its device lost) ends the session


def _model_name(recogniser: Any) -> str:
    return f"{recogniser.name} {recogniser.model}"


def main(argv: list[str] | None = None) -> int:
    return listen_command(sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    sys.exit(main())
