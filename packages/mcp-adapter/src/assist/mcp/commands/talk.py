"""`assist talk`: how to start a spoken conversation with an agent, after checking this machine can.

The conversation mode (behaviour 13) needs three things `assist doctor` does not look at all
together: a microphone, a listener that captures from it (the `assist listen` child
`start_conversation` starts, run here the same way into a scratch folder for a moment), and a
voice (started once and made to say a line silently, as `assist doctor --prepare` does). Each
gets one line; then the way to begin from Claude Code. The exit status is 0 when all three work
and 1 when one does not, with what to do.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from assist.core.tones import NEUTRAL
from assist.mcp.commands.terminal_voice import Machine
from assist.mcp.speech.listener_process import FROM_VARIABLE, ListenerError, ListenerProcess
from assist.mcp.speech.supervisor import VoiceFailure

TRY_LINE = "Hello, I'm ready to talk."
HOW_TO = """\
To talk with your agent in Claude Code:
  1. once: claude mcp add assist -- assist mcp
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
    except DeviceError as error:
        return False, f"microphone: {error}"
    return True, f"microphone: {device.name} at {device.rate} Hz"


def listener(machine: Machine, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Start the listener as a conversation would, into a scratch folder, and stop it."""
    rules = machine.settings.conversation
    with tempfile.TemporaryDirectory(prefix="assist-talk-") as root:
        try:
            process = ListenerProcess(Path(root), rules.end_silence_ms, lambda _e: None, environ)
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
    for _, line in checks:
        print(line, flush=True)
    rules = machine.settings.conversation
    if not machine.settings.assistant.enabled:
        print("assistant: switched off; switch it on with: assist config assistant on")
        checks.append((False, ""))
    print(HOW_TO.format(idle_s=rules.idle_s, max_s=rules.max_s))
    return 0 if all(ok for ok, _ in checks) else 1
