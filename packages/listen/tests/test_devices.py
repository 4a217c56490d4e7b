"""What `assist listen` says when the device asked for is not there, with and without any
input device on the machine (the devices are faked: this is about the words)."""

from __future__ import annotations

import pytest
from assist.listen import devices
from assist.listen.devices import DeviceError, InputDevice, find_device

MIC = InputDevice(3, "USB mic", 48000, True)


def no_match(key: object, kind: str) -> None:
    raise ValueError(f"No {kind} device matching {key!r}")


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch):
    def have(*found: InputDevice) -> None:
        monkeypatch.setattr(devices, "input_devices", lambda: list(found))
        monkeypatch.setattr(devices, "query_device", lambda key: no_match(key, "input"))

    return have


def refusal(wanted: str | None) -> str:
    with pytest.raises(DeviceError) as raised:
        find_device(wanted, track="room")
    return str(raised.value)


def test_a_name_that_matches_nothing_is_named_once_above_the_list(machine) -> None:
    machine(MIC)
    text = refusal("nosuch")
    assert text.splitlines()[0] == "no input device matches --device 'nosuch'."
    assert "USB mic" in text and text.count("nosuch") == 1
    assert text.endswith("Give --device an index or a unique part of a name from this list")


@pytest.mark.parametrize("wanted", ["nosuch", None])
def test_with_no_input_device_at_all_it_points_to_no_list_but_says_what_to_do(
    machine, wanted: str | None
) -> None:
    machine()
    text = refusal(wanted)
    assert "this list" not in text and text.count("nosuch") == (1 if wanted else 0)
    assert "connect a microphone" in text and "--from FILE" in text


@pytest.mark.parametrize(("takes_16k", "rate"), [(True, 16000), (False, 48000)])
def test_a_device_is_captured_at_16_khz_where_it_gives_that_else_at_its_own_rate(
    monkeypatch: pytest.MonkeyPatch, takes_16k: bool, rate: int
) -> None:
    """16 kHz from the device needs no resampler in the listener (a resampler's stream held
    each block back); a device that refuses it is captured as it is and resampled."""
    asked = []

    class PortAudio:
        @staticmethod
        def check_input_settings(**settings: object) -> None:
            asked.append(settings)
            if not takes_16k:
                raise ValueError("Invalid sample rate [PaErrorCode -9997]")

    monkeypatch.setattr(devices, "sounddevice", lambda: PortAudio)
    assert devices.capture_rate(MIC) == rate
    assert asked == [{"device": 3, "samplerate": 16000, "channels": 1, "dtype": "int16"}]
