"""Whether this machine can hear and play sound, and what to install when it cannot.

Every part that touches a microphone or speakers (the listener, the voice helper, `assist
doctor`, `assist talk`, the demo) asks here, so a missing PortAudio says the same sentence
everywhere (behaviour 12.5: exit 2 with what to do, never a traceback). sounddevice raises
`OSError` at import when PortAudio is missing, which is the usual state of a fresh Linux
machine; on macOS and Windows its wheel brings PortAudio along.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import attrs
from assist.core import environment

PLAY_INTO_VARIABLE = environment.PLAY_INTO.name
LISTEN_FROM_VARIABLE = environment.LISTEN_FROM.name
OS_RELEASE = Path("/etc/os-release")
INSTALL_BY_FAMILY = {
    "debian": "sudo apt install libportaudio2",
    "ubuntu": "sudo apt install libportaudio2",
    "fedora": "sudo dnf install portaudio",
    "rhel": "sudo dnf install portaudio",
    "arch": "sudo pacman -S portaudio",
    "suse": "sudo zypper install libportaudio2",
}
"""The package holding PortAudio's library, by the `ID`/`ID_LIKE` words of /etc/os-release."""


class AudioUnavailable(Exception):
    """No sound can be heard or played here; the message says what is missing and what to do."""


def install_portaudio(platform: str = sys.platform, os_release: str | None = None) -> str:
    """The command that installs PortAudio on this platform, as a user would type it."""
    if platform == "darwin":
        return "brew install portaudio"
    if not platform.startswith("linux"):
        return "pip install --force-reinstall sounddevice (its wheel brings PortAudio)"
    if os_release is None:
        try:
            os_release = OS_RELEASE.read_text(encoding="utf-8", errors="replace")
        except OSError:
            os_release = ""
    words: list[str] = []
    for line in os_release.splitlines():
        key, _, value = line.partition("=")
        if key in ("ID", "ID_LIKE"):
            words += value.strip().strip("\"'").lower().split()
    for word in words:
        for family, command in INSTALL_BY_FAMILY.items():
            if word.startswith(family):
                return command
    return f"{INSTALL_BY_FAMILY['debian']} (Debian, Ubuntu) or {INSTALL_BY_FAMILY['fedora']}"


def portaudio_missing(platform: str = sys.platform, os_release: str | None = None) -> str:
    """The one sentence for a machine without PortAudio."""
    return (
        "PortAudio, the library that records and plays sound, is not installed: install it "
        f"with `{install_portaudio(platform, os_release)}`"
    )


def sounddevice() -> ModuleType:
    """The sounddevice module, or `AudioUnavailable` saying what to install."""
    try:
        module = importlib.import_module("sounddevice")
    except ImportError as error:
        raise AudioUnavailable(
            f"the sounddevice package is missing ({error}): reinstall assist-listen, or "
            "assist-mcp with its voice extra"
        ) from None
    except OSError:  # sounddevice's own report: "PortAudio library not found"
        raise AudioUnavailable(portaudio_missing()) from None
    return module


@attrs.frozen
class AudioCheck:
    """What `assist doctor` and `assist talk` report: each part of sound in and out."""

    problem: str | None
    """Why nothing at all can be heard or played (PortAudio missing), or None."""
    input_device: str | None
    output_device: str | None

    @property
    def can_hear(self) -> bool:
        return self.problem is None and self.input_device is not None

    @property
    def can_play(self) -> bool:
        return self.problem is None and self.output_device is not None

    def lines(self) -> list[str]:
        """One line for sound in, one for sound out, each saying what is missing."""
        if self.problem is not None:
            return [f"audio: {self.problem}"]
        server = (
            "check that PulseAudio or PipeWire is running"
            if sys.platform.startswith("linux")
            else "check the system's sound settings"
        )
        heard = self.input_device or f"no input device (connect a microphone; {server})"
        played = self.output_device or f"no output device (connect speakers; {server})"
        return [f"microphone: {heard}", f"speakers: {played}"]


def check_audio(environ: Mapping[str, str]) -> AudioCheck:
    """Ask PortAudio for the default input and output devices, for real; a side that
    `environ` stands in for (`ASSIST_LISTEN_FROM`, `ASSIST_PLAY_INTO`) needs none."""
    stand_ins = [
        environ.get(name) and f"stood in for by {environ[name]} ({name})"
        for name in (LISTEN_FROM_VARIABLE, PLAY_INTO_VARIABLE)
    ]
    if all(stand_ins):
        return AudioCheck(None, stand_ins[0], stand_ins[1])
    try:
        module = sounddevice()
    except AudioUnavailable as unavailable:
        return AudioCheck(str(unavailable), None, None)
    names: list[str | None] = []
    for kind, stand_in in zip(("input", "output"), stand_ins, strict=True):
        if stand_in:
            names.append(stand_in)
            continue
        try:
            found = module.query_devices(kind=kind)
        except Exception:  # PortAudio's "no default device" and host API errors alike
            names.append(None)
            continue
        names.append(str(found["name"]) if found else None)
    return AudioCheck(None, names[0], names[1])
