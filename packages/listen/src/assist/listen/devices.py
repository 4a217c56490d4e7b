"""Input devices: listing them (`assist listen --devices`) and finding the one asked for.

A device is named as sounddevice names it: its index, or its name or any unique part of it
(case-insensitive). A missing device is found out before any session folder is made, so a
typo never leaves an empty session behind. A machine without PortAudio raises
`assist.app.audio.AudioUnavailable`, whose message says what to install (behaviour 12.5).
"""

from __future__ import annotations

from typing import Any

import attrs
from assist.app.audio import sounddevice
from assist.listen.session_files import RATE_HZ


@attrs.frozen
class InputDevice:
    index: int
    name: str
    rate: int
    default: bool

    def line(self) -> str:
        mark = "*" if self.default else " "
        return f"{mark} {self.index:3d}  {self.name}  ({self.rate} Hz)"


NO_DEVICES = (
    "there are no input devices here: connect a microphone (on Linux, check that PulseAudio "
    "or PipeWire is running and that libportaudio2 is installed), or use --from FILE"
)


class DeviceError(Exception):
    """The device asked for is not there; the message lists the ones that are."""


def input_devices() -> list[InputDevice]:
    """Every device with at least one input channel; the system default is marked."""
    module = sounddevice()
    try:
        default = module.default.device[0]
        found: Any = module.query_devices()
    except Exception:  # no host API (no audio server): no devices
        return []
    return [
        InputDevice(
            int(device["index"]),
            str(device["name"]),
            int(device["default_samplerate"]),
            device["index"] == default,
        )
        for device in found
        if device["max_input_channels"] > 0
    ]


def describe_devices(devices: list[InputDevice]) -> str:
    """The device list as `--devices` prints it (the default marked with *)."""
    if not devices:
        return NO_DEVICES
    rows = "\n".join(device.line() for device in devices)
    return f"input devices (* is the default):\n{rows}"


def find_device(wanted: str | None, *, track: str, config: str | None = None) -> InputDevice:
    """The device `wanted` names (None: the system default input), or DeviceError. `config`
    is the config file's path when the name came from it (`listen.device`), not a flag."""
    devices = input_devices()
    listing = describe_devices(devices)
    if config is None:
        what = "--device" if track == "room" else "--call-device"
    else:
        what = "listen.device" if track == "room" else "listen.call_device"
    if wanted is None:
        chosen = next((device for device in devices if device.default), None)
        if chosen is None and not devices:
            raise DeviceError(f"nothing to record the {track} from: {NO_DEVICES}")
        if chosen is None:
            raise DeviceError(
                f"there is no default input device to record the {track} from.\n{listing}\n"
                f"Name one with {what} (an index or part of a name from this list), or record "
                "a file with --from FILE"
            )
        return chosen
    try:
        key: int | str = int(wanted) if wanted.strip().isdigit() else wanted
        found = query_device(key)
    except Exception as error:
        said = f"no input device matches {what} {wanted!r}"
        if config is not None:
            said += f" (in {config})"
        if not str(error).startswith("No input device matching"):  # ambiguous, not an input…
            said += f" ({error})"
        if not devices:
            raise DeviceError(f"{said}, and {NO_DEVICES}") from None
        raise DeviceError(
            f"{said}.\n{listing}\nGive {what} an index or a unique part of a name from this list"
        ) from None
    index = int(found["index"])
    return next(
        (device for device in devices if device.index == index),
        InputDevice(index, str(found["name"]), int(found["default_samplerate"]), False),
    )


def capture_rate(device: InputDevice) -> int:
    """The rate to capture `device` at: 16 kHz where it (or the audio server behind it) gives
    that, so the listener resamples nothing; else its own. soxr's stream, 44.1 to 16 kHz, held
    back 24 ms of each block on average (up to 40), and every loud onset waited for it
    (benchmarks/README.md)."""
    try:
        sounddevice().check_input_settings(
            device=device.index, samplerate=RATE_HZ, channels=1, dtype="int16"
        )
    except Exception:  # PortAudio's refusal of the rate, whatever its kind: the device's own
        return device.rate
    return RATE_HZ


def query_device(key: int | str) -> Any:
    """PortAudio's input device for an index or a part of a name; ValueError when none is."""
    return sounddevice().query_devices(key, "input")
