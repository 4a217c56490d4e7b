"""A machine that cannot hear or play sound says what to install, the same way everywhere."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from assist.app import audio
from assist.app.audio import AudioCheck, AudioUnavailable, check_audio, install_portaudio

NO_PORTAUDIO = Path(__file__).parent / "no_portaudio"


@pytest.mark.parametrize(
    ("os_release", "command"),
    [
        ('ID=debian\nVERSION_ID="12"\n', "sudo apt install libportaudio2"),
        ("ID=ubuntu\nID_LIKE=debian\n", "sudo apt install libportaudio2"),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', "sudo apt install libportaudio2"),
        ('ID="fedora"\n', "sudo dnf install portaudio"),
        ('ID="rocky"\nID_LIKE="rhel centos fedora"\n', "sudo dnf install portaudio"),
        ("ID=arch\n", "sudo pacman -S portaudio"),
        (
            'ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n',
            "sudo zypper install libportaudio2",
        ),
    ],
)
def test_the_install_command_is_the_linux_distributions_own(os_release: str, command: str) -> None:
    assert install_portaudio("linux", os_release) == command


def test_an_unknown_linux_is_given_both_common_commands() -> None:
    said = install_portaudio("linux", "ID=nixos\n")
    assert "apt install libportaudio2" in said and "dnf install portaudio" in said


def test_macos_is_told_to_use_homebrew() -> None:
    assert install_portaudio("darwin") == "brew install portaudio"


def without_portaudio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.syspath_prepend(str(NO_PORTAUDIO))


def test_a_missing_portaudio_is_one_sentence_naming_the_library_and_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_portaudio(monkeypatch)
    with pytest.raises(AudioUnavailable, match=r"^PortAudio, .* not installed: install it with `"):
        audio.sounddevice()


def test_the_check_reports_a_missing_portaudio_instead_of_devices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_portaudio(monkeypatch)
    check = check_audio({})
    assert check.problem is not None and "PortAudio" in check.problem
    assert not check.can_hear and not check.can_play
    assert check.lines() == [f"audio: {check.problem}"]


def test_a_missing_device_is_named_with_what_to_do() -> None:
    lines = AudioCheck(None, "default", None).lines()
    assert lines[0] == "microphone: default"
    assert lines[1].startswith("speakers: no output device (connect speakers")


def test_a_side_stood_in_for_needs_no_portaudio(monkeypatch: pytest.MonkeyPatch) -> None:
    without_portaudio(monkeypatch)
    both = {"ASSIST_LISTEN_FROM": "/tmp/mic.fifo", "ASSIST_PLAY_INTO": "/tmp/speaker.fifo"}
    check = check_audio(both)
    assert check.can_hear and check.can_play
    assert check.output_device == "stood in for by /tmp/speaker.fifo (ASSIST_PLAY_INTO)"
    assert not check_audio({"ASSIST_PLAY_INTO": "/tmp/speaker.fifo"}).can_hear
