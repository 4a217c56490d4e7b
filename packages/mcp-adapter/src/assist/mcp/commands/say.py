"""`assist say TEXT`: one line through the voice helper, as a watch's `speak` would say it.

The words pass the same checks as `speak` (behaviour 3.6 steps 1-3: not blank, at most 600
characters, one of the six tones), told in this command's terms (its words and `--emotion`,
not the tool's arguments) on stderr with exit status 2, like any usage error. The voice is a
watch's voice (`terminal_voice`): same engine choice, fallback, restarts and start-up limit.
When the line is played aloud, the speaking lock is taken for it (after the helper is ready,
so a first download does not hold the floor), so it never talks over an assistant or an
`ambient talk` reply; with `--no-play` nothing is heard and the lock is left alone.

`--engine` names the engine to start instead of the machine's choice. When that is not the
engine the settings would start, the configured speaker (and, except for qwen3-tts, the style)
is left out, as for a fallback: a voice name belongs to one engine and another would refuse it.
`--save PATH` keeps the line as a WAV: the helper writes it into a temporary `--save-dir`,
and it is moved to PATH once the line is done.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import attrs
from assist.app.audio import check_audio
from assist.app.logs import log
from assist.app.store.lock import LockBusy, SpeakingLock
from assist.core import refusals
from assist.core.engines import ENGINE_PACKAGES
from assist.core.files import LOCK_WAIT_S, REPLY_GLOB
from assist.core.settings import VoiceSettings, engine_voice
from assist.core.speech import MAX_SPEECH_CHARS
from assist.core.tones import NEUTRAL, TONES
from assist.mcp.commands.terminal_voice import Machine
from assist.mcp.process_exit import INTERRUPTED
from assist.mcp.speech.helper_command import plan_engines
from assist.mcp.speech.supervisor import VoiceFailure

PROGRAM = "assist say"

AUTO = "auto"
"""`--engine auto`: the machine's own choice, whatever the config file sets."""
USAGE_ERROR = 2
"""Exit status for words or flags that cannot be used (argparse's own)."""
FAILED = 1
"""Exit status when the line could not be said or saved."""


def say_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description=(
            "Say one line in the assistant's voice, with the voice and checks a meeting would "
            "use (a quick way to hear it)."
        ),
    )
    parser.add_argument("text", nargs="+", help="the words to say (at most 600 characters)")
    parser.add_argument(
        "--emotion", default=NEUTRAL, help=f"one of {', '.join(TONES)} (default {NEUTRAL})"
    )
    parser.add_argument(
        "--engine",
        help="the engine to start instead of the one the settings choose, or auto",
    )
    parser.add_argument("--save", metavar="PATH", help="also keep the line as a WAV file here")
    parser.add_argument("--no-play", action="store_true", help="generate without playing")
    args = parser.parse_args(argv)

    words = " ".join(args.text).strip()
    problem = speech_problem(words, args.emotion)
    if problem is not None:
        print(f"{PROGRAM}: nothing was said: {problem}", file=sys.stderr)
        return USAGE_ERROR
    save = Path(args.save) if args.save else None
    if save is not None and save.is_dir():
        print(f"{PROGRAM}: --save wants a file name, and {save} is a folder", file=sys.stderr)
        return USAGE_ERROR

    if not args.no_play and (unheard := cannot_play(os.environ)) is not None:
        print(f"{PROGRAM}: {unheard}; add --no-play (and --save PATH to keep it)", file=sys.stderr)
        return USAGE_ERROR
    machine = Machine(os.environ)
    known = {AUTO, *machine.registry.specs, *ENGINE_PACKAGES}
    if args.engine is not None and args.engine not in known:
        print(f"{PROGRAM}: --engine: {machine.registry.unknown(args.engine)}", file=sys.stderr)
        return USAGE_ERROR
    choices = engine_override(machine, args.engine)
    try:
        with tempfile.TemporaryDirectory(prefix="assist-say-") as folder:
            said = speak(machine, choices, words, args.emotion, args.no_play, folder)
            if said is None:
                return FAILED
            engine, audio_s = said
            saved = ""
            if save is not None:
                if not keep_wav(Path(folder), save):
                    return FAILED
                saved = f", saved as {save}"
    except KeyboardInterrupt:
        return INTERRUPTED
    print(f"said by {engine}: {audio_s:.2f} s of speech{saved}")
    return 0


def cannot_play(environ: Mapping[str, str]) -> str | None:
    """Why a line played aloud could not be heard here, found before any voice starts (so no
    fallback voice fails the same way after it); None when it could."""
    audio = check_audio(environ)
    if audio.can_play:
        return None
    return f"nothing can be played here: {audio.problem or audio.lines()[-1]}"


def speech_problem(words: str, emotion: str) -> str | None:
    """Why `speak` would refuse these words or this tone, said as this command's usage."""
    if not words:
        return 'give the words to say, as in: assist say "Hello, everyone."'
    if len(words) > MAX_SPEECH_CHARS:
        return (
            f"the words are {len(words)} characters long, and a line is at most "
            f"{MAX_SPEECH_CHARS}; say it in one to three short sentences"
        )
    if emotion not in TONES:
        return f"--emotion {emotion!r} is not one of {', '.join(TONES)}"
    return None


def engine_override(machine: Machine, engine: str | None) -> VoiceSettings:
    """The `voice` settings with `--engine` in place of the configured engine."""
    voice = machine.settings.voice
    if engine is None:
        return voice
    if engine == AUTO:
        return attrs.evolve(voice, engine=None)
    planned = plan_engines(voice, machine.registry, cache_root=str(machine.cache_root)).engine
    if engine == planned:
        return attrs.evolve(voice, engine=engine)
    spec = machine.registry.specs.get(engine)
    designs = spec is not None and spec.designs_voices
    taken = engine_voice(voice, designs_voices=designs, stand_in=True)  # as a fallback would
    left_out = [
        name for name in ("speaker", "style") if getattr(voice, name) and not getattr(taken, name)
    ]
    if left_out:
        named = " and ".join(f"voice.{name}" for name in left_out)
        log.warning(f"--engine {engine} leaves out {named}, set for the {planned} voice")
    return attrs.evolve(voice, engine=engine, speaker=taken.speaker, style=taken.style)


def speak(
    machine: Machine,
    choices: VoiceSettings,
    text: str,
    emotion: str,
    no_play: bool,
    folder: str,
) -> tuple[str, float] | None:
    """Say the line; (engine that said it, seconds of audio), or None after printing why not."""
    with machine.voice(choices, no_play=no_play, save_dir=folder) as voice:
        try:
            voice.start()
            if no_play:
                result = voice.say(text, emotion)
            else:
                with SpeakingLock(machine.location.path.parent).holding("assistant", LOCK_WAIT_S):
                    result = voice.say(text, emotion)
        except VoiceFailure as failure:
            print(f"{PROGRAM}: the line was not said: {failure}", file=sys.stderr)
            return None
        except LockBusy as busy:
            holder = refusals.holder(busy.who, busy.pid)
            print(
                f"{PROGRAM}: another voice kept the floor for {LOCK_WAIT_S:g} s ({holder}); "
                "try again when it has finished",
                file=sys.stderr,
            )
            return None
        except OSError as error:
            print(
                f"{PROGRAM}: the speaking lock could not be taken ({error}); the folder of "
                "the config file must be writable",
                file=sys.stderr,
            )
            return None
        engine = voice.engine or "no engine"
    if result.audio_s <= 0:
        print(f"{PROGRAM}: the {engine} voice produced no audio for this line", file=sys.stderr)
        return None
    return engine, result.audio_s


def keep_wav(folder: Path, save: Path) -> bool:
    """Move the helper's WAV of the line to `save`; False after printing why it could not."""
    written = sorted(folder.glob(REPLY_GLOB), key=lambda path: path.stat().st_mtime_ns)
    if not written:
        print(f"{PROGRAM}: the voice helper wrote no WAV, so nothing was saved", file=sys.stderr)
        return False
    try:
        save.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(written[-1], save)
    except OSError as error:
        print(f"{PROGRAM}: could not save the WAV as {save} ({error})", file=sys.stderr)
        return False
    return True
