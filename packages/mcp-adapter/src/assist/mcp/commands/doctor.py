"""`assist doctor [--prepare]`: what the assistant would use on this machine, and whether its
voice can start.

The report names every place of behaviour 1.1, the settings in effect, the installed engines
and speech recognisers (12.4), the engine a watch would start and the one it would fall back
to, whether sound can be recorded and played here (PortAudio, an input and an output device,
asked for real), and whether another assistant is listening or holds the floor. The exit status
says whether a watch could be heard (0) or not (1, with what to install: no voice can start, or
nothing can be played), so a setup script can check a machine.

`--prepare` removes the long first start from the first meeting (behaviour 11.3): it starts the
chosen engine's helper once, exactly as a watch would, and has it say one short line without
playing it. Downloads, designing a voice and building its pack happen then, with their progress
on stderr, and `watch_meeting` later finds everything in the cache. Nothing here writes to the
files the server shares with Ambient: the heartbeat and the speaking lock are only read.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assist.app.audio import check_audio
from assist.app.engines import MEMORY_TABLE_PLATFORM, choose_here, ready_offline, total_memory
from assist.app.logs import log
from assist.app.store.heartbeat import read_heartbeat
from assist.app.store.paths import sessions_root
from assist.app.store.pids import fits_pid, is_alive
from assist.app.turn_models import installed_turn_models
from assist.core import json_text, refusals
from assist.core.engines import ALLOW_VARIABLE, BLOCK_VARIABLE, VoiceOptions
from assist.core.files import LOCK_FILE
from assist.core.recognisers import RecogniserOptions
from assist.core.settings import describe
from assist.core.tones import NEUTRAL
from assist.mcp.commands.terminal_voice import Machine
from assist.mcp.process_exit import INTERRUPTED
from assist.mcp.speech.engine_choice import VOICES_HEADING, describe_engines
from assist.mcp.speech.helper_command import (
    EnginePlan,
    engine_packages,
    plan_engines,
    resolve_reference,
    why_not_here,
)
from assist.mcp.speech.recogniser_choice import describe_recognisers, recognisers
from assist.mcp.speech.supervisor import READY_WITHIN_VARIABLE, VoiceFailure, ready_limit
from assist.mcp.speech.turn_model_choice import describe_turn_models

PREPARE_LINE = "Hello, the voice is ready."
"""What `--prepare` says: short, so the check is quick, yet a whole sentence, so every stage of
the engine (text front end, model, vocoder) runs once, as the consent notice will make it."""
GIB = 2**30
INDENT = "  "


@dataclass(frozen=True)
class Verdict:
    """Whether a voice can start here, and the line that says so (or what to install)."""

    can_start: bool
    text: str


def doctor_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="assist doctor",
        description="Show what the assistant would use on this machine and whether its voice "
        "can start; exit status 1 when it cannot.",
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="start the voice once and say a short line silently, so first-run downloads and "
        "voice building happen now instead of in the first meeting",
    )
    args = parser.parse_args(argv)
    machine = Machine(os.environ)
    memory = total_memory()
    plan = plan_engines(
        machine.settings.voice, machine.registry, memory=memory, cache_root=str(machine.cache_root)
    )
    for line in report(machine, plan, memory):
        print(line)
    verdict = judge(machine, plan)
    print(verdict.text, flush=True)
    if not verdict.can_start:
        return 1
    heard = audible(machine.environ)
    if heard is not None:
        print(heard, flush=True)
    status = prepare(machine) if args.prepare else 0
    return status or (1 if heard else 0)


def report(machine: Machine, plan: EnginePlan, memory: int) -> list[str]:
    """Every line of the report above the verdict; `plan` is what a watch would start."""
    location, settings = machine.location, machine.settings
    folder = location.path.parent
    owner = "Ambient's, shared with it" if location.ambient else "assist's own"
    exists = "" if location.path.is_file() else "; not created yet, so every setting is default"
    root = sessions_root(machine.environ, settings, location)
    lines = [
        f"config file: {location.path} ({owner}{exists})",
        f"sessions folder: {root}{'' if root.is_dir() else ' (not there yet)'}",
        f"voice cache: {machine.cache_root}",
        "settings:",
        *(f"{INDENT}{key} = {shown}" for key, shown in describe(settings)),
        VOICES_HEADING,
        *(INDENT + line for line in describe_engines(machine.registry, cache_options(machine))),
    ]
    limits = [
        f"{name}={machine.environ[name]}"
        for name in (ALLOW_VARIABLE, BLOCK_VARIABLE)
        if machine.environ.get(name)
    ]
    if limits:
        lines.append(f"{INDENT}(engine plugins limited by {', '.join(limits)})")
    lines += describe_recognisers(
        recognisers(machine.environ), RecogniserOptions(), settings.listen.stt
    )
    lines += describe_turn_models(installed_turn_models(machine.environ), settings.listen.turn)
    lines += choice_lines(machine, plan, memory)
    lines.append(
        f"start-up limit: {ready_limit(machine.environ):g} s for a voice helper to be ready "
        f"(set {READY_WITHIN_VARIABLE} to change it)"
    )
    lines += check_audio(machine.environ).lines()
    lines.append(f"other assistant: {listening(folder, time.time())}")
    lines.append(f"speaking lock: {lock_holder(folder)}")
    return lines


def cache_options(machine: Machine) -> VoiceOptions:
    """What every engine's offline check gets: the cache root, no voice of any one engine."""
    return VoiceOptions(cache_root=str(machine.cache_root))


def choice_lines(machine: Machine, plan: EnginePlan, memory: int) -> list[str]:
    """The memory, the engine a watch would start, auto's choice beside a set one, the fallback."""
    voice = machine.settings.voice
    automatic = choose_here(None, machine.registry, cache_options(machine), memory=memory)
    if sys.platform == MEMORY_TABLE_PLATFORM:
        rule = "by this machine's memory"
    else:
        rule = "preferring an engine that loads without a download"
    shown_memory = f"{memory / GIB:.1f} GiB" if memory else "unknown"
    lines = [f"memory: {shown_memory} installed"]
    if voice.engine:
        lines.append(f"voice engine: {voice.engine} (set in the config file)")
        lines.append(f"{INDENT}auto would choose: {automatic or 'nothing'} ({rule})")
    else:
        lines.append(f"voice engine: {automatic or 'none available'} (auto, {rule})")
    if voice.fallback == "none":
        fallback = "none (voice.fallback is none)"
    elif plan.fallback is None:
        fallback = "none available (piper and espeak are the automatic ones)"
    else:
        how = "set in the config file" if voice.fallback else "automatic"
        fallback = f"{plan.fallback} ({how})"
    lines.append(f"fallback: {fallback}")
    return lines


def judge(machine: Machine, plan: EnginePlan) -> Verdict:
    """Whether a watch's voice could start: the chosen engine, else its fallback."""
    if plan.engine is None:
        return Verdict(
            False, f"no voice can start here: {refusals.no_voice_engine(engine_packages())}"
        )
    reason = why_not_here(plan.engine, machine.registry)
    if reason is None:
        return Verdict(
            True, f"a voice can start here: {plan.engine}{download_note(machine, plan.engine)}"
        )
    fallback_reason = None
    if plan.fallback is not None:
        fallback_reason = why_not_here(plan.fallback, machine.registry)
        if fallback_reason is None:
            return Verdict(
                True,
                f"a voice can start here, but only the fallback: {plan.fallback} will speak "
                f"because {reason}",
            )
    text = f"no voice can start here: {reason}"
    if fallback_reason is not None:
        text += f"; nor can the fallback {plan.fallback}: {fallback_reason}"
    return Verdict(False, text)


def audible(environ: Mapping[str, str]) -> str | None:
    """Why a watch's voice could not be heard here although it starts; None when it could."""
    audio = check_audio(environ)
    if audio.can_play:
        return None
    why = "PortAudio is not installed" if audio.problem else "there is no output device"
    return f"but a watch could not be heard here: {why} (see above)"


def download_note(machine: Machine, engine: str) -> str:
    """Whether the chosen engine, with the voice settings, loads without a download."""
    voice = machine.settings.voice
    reference = voice.reference and resolve_reference(
        voice.reference, helper_dir=voice.helper_dir, config_dir=machine.location.path.parent
    )
    options = VoiceOptions(
        voice=voice.speaker,
        style=voice.style,
        reference=reference or None,
        description=voice.description,
        cue=voice.cue,
        cache_root=str(machine.cache_root),
    )
    if ready_offline(machine.registry.specs[engine], options):
        return ", ready without a download"
    return (
        ", but its first start downloads or builds files; run `assist doctor --prepare` "
        "before the first meeting"
    )


def listening(folder: Path, now: float) -> str:
    """Whether another assistant's heartbeat is fresh beside the config file."""
    beat = read_heartbeat(folder, now)
    if beat is None:
        return "none listening"
    session = f" to {beat.session}" if beat.session else ""
    return f"pid {beat.pid} is {beat.state}{session}"


def lock_holder(folder: Path) -> str:
    """Who holds `speaking.lock`, read without touching it (taking over is the speaker's job)."""
    path = folder / LOCK_FILE
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return "free"
    except OSError as error:
        return f"unreadable ({error})"
    try:
        holder = json_text.parse_bytes(content)
    except json_text.Unreadable:
        holder = None
    if not isinstance(holder, dict):
        return f"held by an unreadable lock file {path}; it is cleared when 10 s old"
    who, pid = holder.get("who"), holder.get("pid")
    named = refusals.holder(who if isinstance(who, str) else None, pid if fits_pid(pid) else None)
    if fits_pid(pid) and not is_alive(pid):
        return f"left by {named}, which has ended; the next speaker takes it over"
    return f"held by {named}"


def prepare(machine: Machine) -> int:
    """Start the chosen voice and say one line silently; report how long each took."""
    with tempfile.TemporaryDirectory(prefix="assist-doctor-") as folder:
        voice = machine.voice(no_play=True, save_dir=folder)
        chosen = voice.engine
        log.warning(
            f"preparing the {chosen} voice; a first start may download and build for a while "
            f"(up to {voice.ready_within:g} s), and its progress shows here"
        )
        try:
            with voice:
                started = time.monotonic()
                voice.start()
                ready_s = time.monotonic() - started
                result = voice.say(PREPARE_LINE, NEUTRAL)
        except VoiceFailure as failure:
            print(f"prepare: the voice could not be prepared: {failure}")
            return 1
        except KeyboardInterrupt:
            print("prepare: interrupted; run it again to finish what it was downloading")
            return INTERRUPTED
    if result.first_audio_ms is None or result.audio_s <= 0:
        print(f"prepare: the {voice.engine} voice started but said nothing; see its errors above")
        return 1
    instead = f" (standing in for {chosen}, which failed)" if voice.engine != chosen else ""
    print(
        f"prepared: the {voice.engine} voice{instead} was ready in {ready_s:.1f} s "
        f"(engine load {voice.load_ms} ms); first audio {result.first_audio_ms} ms after the "
        f"line was sent, {result.audio_s:.2f} s of speech"
    )
    return 0
