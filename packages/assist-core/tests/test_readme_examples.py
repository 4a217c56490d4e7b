"""The README's examples for other applications run as written (each in a fresh interpreter,
as an application would run them), and do what they say."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import wave
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Using assist from your own application"
RUN_WITHIN_S = 120.0
"""A fresh Python, the engine's libraries and one short line on a busy machine."""


def examples() -> list[str]:
    """The Python blocks of the README's section for applications, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def run(code: str, folder: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=RUN_WITHIN_S,
        env={**os.environ, **environ},
    )


def test_the_section_holds_the_two_examples() -> None:
    speak, rules = examples()
    assert "choose_here" in speak and ".stream(" in speak and "wave.open" in speak
    assert all(name in rules for name in ("Gate(", "is_own_voice(", "Batcher("))


def test_the_speaking_example_chooses_an_engine_builds_it_and_saves_its_chunks(
    tmp_path: Path,
) -> None:
    speak = examples()[0]
    # Only engines that start offline may be chosen here: a test never downloads weights.
    done = run(speak, tmp_path, ASSIST_VOICES="piper,espeak", ASSIST_VOICES_BLOCK="")
    assert done.returncode == 0, done.stderr
    said = re.fullmatch(r"(\w+) said it at (\d+) Hz into hello.wav\n", done.stdout)
    assert said is not None, done.stdout
    assert said[1] == "piper"  # the richer of the two, as auto chooses off macOS
    with wave.open(str(tmp_path / "hello.wav"), "rb") as recording:
        assert recording.getframerate() == int(said[2])
        assert (recording.getnchannels(), recording.getsampwidth()) == (1, 2)
        seconds = recording.getnframes() / recording.getframerate()
        frames = recording.readframes(recording.getnframes())
    assert 1.0 < seconds < 10.0
    loudest = max(
        abs(int.from_bytes(frames[i : i + 2], "little", signed=True))
        for i in range(0, len(frames), 2)
    )
    assert loudest > 1000  # speech, not silence


def test_the_speaking_example_says_what_to_install_when_no_engine_can_run(
    tmp_path: Path,
) -> None:
    done = run(examples()[0], tmp_path, ASSIST_VOICES="none-such")
    assert done.returncode == 1
    assert 'pip install "assist-core[espeak]"' in done.stderr
    assert not (tmp_path / "hello.wav").exists()


def test_the_rules_example_runs_on_the_applications_clock(tmp_path: Path) -> None:
    done = run(examples()[1], tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("not now: ") and "52" in first
    assert "Claude, what shipped exactly?" in second and "It shipped" not in second


def test_the_rules_examples_asserts_are_real_checks(tmp_path: Path) -> None:
    """With an allowance of one line instead of ten, its count check must stop it."""
    broken = examples()[1].replace("cap=10", "cap=1")
    done = run(broken, tmp_path)
    assert done.returncode == 1 and "AssertionError" in done.stderr
