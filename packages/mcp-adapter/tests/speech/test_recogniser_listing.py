"""`assist engines` and `assist doctor` list the speech recognisers beside the voices
(behaviour.md 12.4), run as real subprocesses against the installed plugins."""

from __future__ import annotations

import json

import attrs
from assist.core.plugins import Registry
from assist.core.recognisers import (
    RECOGNISERS,
    RecogniserOptions,
    RecogniserSpec,
    hookimpl,
)
from assist.mcp.speech.recogniser_choice import describe_recognisers
from mcp_harness import FAKE_SOUNDDEVICE, run_assist


def recogniser_lines(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    listed = lines[lines.index("recognisers:") + 1 :]
    return listed[: listed.index("turn models:")] if "turn models:" in listed else listed


def test_assist_engines_lists_both_recognisers_after_the_voices_and_auto_takes_whisper():
    done = run_assist("engines", {})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines.index("recognisers:") > max(
        index for index, line in enumerate(lines) if line.startswith("  espeak ")
    )
    listed = recogniser_lines(done.stdout)
    assert listed[0].startswith("  pocketsphinx assist-stt-pocketsphinx ")
    assert listed[0].endswith(": can load here (model en-us)")
    assert listed[1].startswith("  whisper      assist-stt-whisper ")
    assert listed[1].endswith(": can load here (model tiny.en)")
    assert listed[2:] == ["  auto: whisper (the most accurate installed)"]


def test_assist_engines_heads_and_indents_the_voices_as_it_does_the_recognisers():
    lines = run_assist("engines", {}).stdout.splitlines()
    voices = lines[1 : lines.index("recognisers:")]
    assert lines[0] == "voice engines:"
    assert voices and all(line.startswith("  ") and line[2] != " " for line in voices), voices


def test_blocking_whisper_leaves_pocketsphinx_as_the_choice():
    done = run_assist("engines", {"ASSIST_STT_BLOCK": "whisper"})
    listed = recogniser_lines(done.stdout)
    assert [line.split()[0] for line in listed] == ["pocketsphinx", "auto:"]
    assert listed[-1] == "  auto: pocketsphinx (the most accurate installed)"


def test_with_no_recogniser_assist_engines_says_what_to_install():
    done = run_assist("engines", {"ASSIST_STT": "none-such"})
    assert done.returncode == 0
    assert recogniser_lines(done.stdout) == [
        "  no speech recognisers are installed (assist listen needs one); install one, for "
        "example assist-stt-whisper"
    ]


def test_assist_doctor_lists_the_recognisers_and_the_configured_one(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"voice": {"engine": "espeak"}, "listen": {"stt": "pocketsphinx"}})
    )
    done = run_assist(
        "doctor",
        {
            "ASSIST_CONFIG": str(config),
            "ASSIST_HOME": str(tmp_path),
            "PYTHONPATH": str(FAKE_SOUNDDEVICE),
        },
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines.index("recognisers:") > lines.index("voice engines:")
    assert "  listen.stt: pocketsphinx (set in the config file)" in lines
    assert any(line.startswith("  whisper      assist-stt-whisper ") for line in lines)


@attrs.frozen
class Offers:
    specs: tuple[RecogniserSpec, ...]

    @hookimpl
    def assist_stt_engines(self, register):
        for spec in self.specs:
            register(spec)


def test_a_recogniser_needing_a_download_or_unable_to_run_says_so():
    def never_built(options):
        raise AssertionError("listing must never build a recogniser")

    registry = Registry(RECOGNISERS)
    registry.add_plugin(
        "fake",
        Offers(
            (
                RecogniserSpec("big", "assist-stt-big", never_built, rank=5,
                               ready_offline=lambda options: False),
                RecogniserSpec("odd", "assist-stt-odd", never_built, rank=50,
                               check=lambda: "needs a GPU"),
            )
        ),
    )  # fmt: skip
    assert describe_recognisers(registry, RecogniserOptions()) == [
        "recognisers:",
        "  big          assist-stt-big not installed: can load here after a first download",
        "  odd          assist-stt-odd not installed: cannot load here: needs a GPU",
        "  auto: big (the most accurate installed)",
    ]
