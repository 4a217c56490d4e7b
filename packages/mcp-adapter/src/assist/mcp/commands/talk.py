"""`assist talk`: how to start a spoken conversation with an agent, after checking this machine can.

The conversation mode (behaviour 13) needs four things `assist doctor` does not look at all
together: a microphone, a listener that captures from it (the `assist listen` child
`start_conversation` starts, run here the same way into a scratch folder for a moment), a
voice (started once and made to say a line silently, as `assist doctor --prepare` does) and
speakers to hear it on. Each gets one line, and so does the assistant's switch; then the way to
begin from Claude Code, with the command for adding the server written for how assist is
installed here. The exit status is 0 when all of them work and 1 when one does not, with what
to do.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from assist.app.audio import AudioUnavailable, check_audio
from assist.core.tones import NEUTRAL
from assist.mcp.commands.terminal_voice import Machine
from assist.mcp.speech.listener_process import FROM_VARIABLE, ListenerError, ListenerProcess
from assist.mcp.speech.supervisor import VoiceFailure

TRY_LINE = "Hello, I'm ready to talk."
HOW_TO = """\
To talk with your agent in Claude Code:
  1. once: claude mcp add assist -- {serve}
  2. in Claude Code, type /mcp__assist__talk (text after it is extra guidance)
The agent starts listening, greets you, and answers aloud; say goodbye to end. A conversation
closes by itself after {idle_s} s of silence or {max_s} s in all (assist config
conversation.idle_s / conversation.max_s)."""


def microphone(machine: Machine, environ: Mapping[str, str]) -> tuple[bool, str]:
    """The input a conversation would listen to."""
    source = environ.get(FROM_VARIABLE)
    if source:
        return True, f"microphone: stood in for by {source} ({FROM_VARIABLE})"
    try:
        from assist.listen.devices import DeviceError, find_device
    except ModuleNotFoundError:
        return False, "microphone: not checked, the listener (assist-listen) is not installed"
    try:
        device = find_device(machine.settings.listen.device, track="room")
    except (DeviceError, AudioUnavailable) as error:
        return False, f"microphone: {error}"
    return True, f"microphone: {device.name} at {device.rate} Hz"


def speakers(environ: Mapping[str, str]) -> tuple[bool, str]:
    """The output the voice would play on (asked of PortAudio, for real)."""
    audio = check_audio(environ)
    return audio.can_play, audio.lines()[-1].replace("audio: ", "speakers: ", 1)


def serve_command(prefix: str = sys.prefix, on_path: str | None = None) -> str:
    """`assist mcp` as Claude Code can start it here: through uv in a checkout (whose `.venv`
    this interpreter is), as `assist mcp` when that is on PATH, else by the script's full path."""
    checkout = Path(prefix).parent
    if (checkout / "uv.lock").is_file() and (checkout / "packages").is_dir():
        return f"uv run --directory {shlex.quote(str(checkout))} assist mcp"
    script = Path(prefix) / "bin" / "assist"
    found = shutil.which("assist") if on_path is None else on_path
    if found and Path(found).resolve() == script.resolve():
        return "assist mcp"
    return f"{shlex.quote(str(script))} mcp"


def listener(machine: Machine, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Start the listener as a conversation would, into a scratch folder, and stop it."""
    rules = machine.settings.conversation
    with tempfile.TemporaryDirectory(prefix="assist-talk-") as root:
        try:
            process = ListenerProcess(
                Path(root),
                rules.end_silence_ms,
                lambda _e: None,
                environ,
                machine.settings.listen.turn,
            )
        except ListenerError as error:
            return False, f"listener: {error}"
        try:
            process.wait_capturing()
        except ListenerError as error:
            return False, f"listener: {error}"
        finally:
            process.stop()
    return True, f"listener: captures, with a {rules.end_silence_ms} ms end of turn"


def voice(machine: Machine) -> tuple[bool, str]:
    """Start the voice and say one line silently."""
    with tempfile.TemporaryDirectory(prefix="assist-talk-") as folder:
        speaking = machine.voice(no_play=True, save_dir=folder)
        try:
            with speaking:
                said = speaking.say(TRY_LINE, NEUTRAL)
        except VoiceFailure as failure:
            return False, f"voice: {failure}; assist doctor says more"
    return True, (
        f"voice: {speaking.engine}, first audio {said.first_audio_ms} ms after the line was sent"
    )


def talk_command(argv: list[str]) -> int:
    if any(argument in ("-h", "--help") for argument in argv):
        print("usage: assist talk\n\n" + (__doc__ or "").splitlines()[0])
        return 0
    if argv:
        print("usage: assist talk", file=sys.stderr)
        return 2
    environ = os.environ
    machine = Machine(environ)
    checks = [microphone(machine, environ)]
    if checks[0][0]:
        checks.append(listener(machine, environ))
    checks.append(voice(machine))
    checks.append(speakers(environ))
    if machine.settings.assistant.enabled:
        checks.append((True, "assistant: switched on"))
    else:
        checks.append(
            (
                False,
                "assistant: switched off, so a conversation would be refused; switch it on "
                "with: assist config assistant on",
            )
        )
    for _, line in checks:
        print(line, flush=True)
    rules = machine.settings.conversation
    print(HOW_TO.format(serve=serve_command(), idle_s=rules.idle_s, max_s=rules.max_s))
    failed = [line.split(":", 1)[0] for ok, line in checks if not ok]
    if failed:
        named = ", ".join(failed[:-1]) + (" and " if len(failed) > 1 else "") + failed[-1]
        print(f"Not ready to talk yet: fix the {named} first (see above).")
        return 1
    return 0
