"""`assist engines` and `assist doctor` list the turn models after the recognisers
(behaviour.md 16.1), run as real subprocesses against the installed plugins."""

from __future__ import annotations

import json

from mcp_harness import FAKE_SOUNDDEVICE, run_assist


def turn_model_lines(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    return lines[lines.index("turn models:") + 1 :][:3]


def test_assist_engines_lists_the_turn_models_after_the_recognisers_and_auto_takes_smart_turn():
    done = run_assist("engines", {})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines.index("turn models:") > lines.index("recognisers:")
    listed = turn_model_lines(done.stdout)
    assert listed[0].startswith("  silence      assist-core ")
    assert listed[1].startswith("  smart-turn   assist-turn-smart ")
    assert listed[1].endswith(": can load here")
    assert listed[2] == "  auto: smart-turn (the best installed)"


def test_blocking_smart_turn_leaves_silence_and_says_what_to_install():
    done = run_assist("engines", {"ASSIST_TURNS_BLOCK": "smart-turn"})
    assert turn_model_lines(done.stdout)[1] == (
        "  auto: silence (no turn model installed; assist-turn-smart adds one)"
    )


def test_assist_doctor_shows_the_configured_turn_model(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"voice": {"engine": "espeak"}, "listen": {"turn": "silence"}}))
    env = {
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(tmp_path),
        "PYTHONPATH": str(FAKE_SOUNDDEVICE),
    }
    done = run_assist("doctor", env)
    assert done.returncode == 0, done.stderr
    assert "  listen.turn: silence (set in the config file)" in done.stdout.splitlines()
    assert "  listen.turn = silence" in done.stdout.splitlines()
