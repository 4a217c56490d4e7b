"""The two environment options of the voice and the batching clock: `ASSIST_VOICE_COMMAND`
replaces the helper's command line, `ASSIST_PACING_SCALE` scales the batching clock; a value
that cannot be used is reported on stderr and the default is kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from assist.core.batcher import DEFAULT_PACING
from assist.mcp.server.server import pacing
from assist.mcp.speech.helper_command import helper_program


def test_without_the_option_the_helper_is_the_assist_voice_beside_the_interpreter() -> None:
    assert helper_program(environ={}) == [str(Path(sys.executable).parent / "assist-voice")]
    assert helper_program(environ={"ASSIST_VOICE_COMMAND": "  "}) == helper_program()


def test_the_voice_command_is_split_as_a_shell_would() -> None:
    environ = {"ASSIST_VOICE_COMMAND": "nice -n 10 '/opt/voices env/bin/assist-voice'"}
    assert helper_program(environ=environ) == [
        "nice",
        "-n",
        "10",
        "/opt/voices env/bin/assist-voice",
    ]


def test_a_voice_command_that_cannot_be_split_is_reported_and_the_default_used(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert helper_program(environ={"ASSIST_VOICE_COMMAND": "'unclosed"}) == helper_program()
    err = capsys.readouterr().err
    assert 'ASSIST_VOICE_COMMAND="\'unclosed" cannot be split' in err


def test_the_pacing_scale_multiplies_every_interval_of_the_batching_clock() -> None:
    quarter = pacing({"ASSIST_PACING_SCALE": "0.25"})
    assert quarter.poll_s == DEFAULT_PACING.poll_s / 4
    assert quarter.settle_s == DEFAULT_PACING.settle_s / 4
    assert quarter.longest_s == DEFAULT_PACING.longest_s / 4
    assert pacing({}) == DEFAULT_PACING


@pytest.mark.parametrize("value", ["fast", "0", "-1", "nan", "inf"])
def test_a_pacing_scale_that_is_not_a_positive_number_is_reported_and_ignored(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pacing({"ASSIST_PACING_SCALE": value}) == DEFAULT_PACING
    assert "is not a positive number" in capsys.readouterr().err
