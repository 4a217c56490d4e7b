"""`listen.stt` names an installed recogniser, checked as `voice.engine` is against the installed
voice engines: real `assist config` processes, with and without the fake recogniser plugin."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from listen_harness import ASSIST, FAKE_PLUGIN, listen_env


def assist_config(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ASSIST), "config", *arguments], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_recogniser_an_installed_plugin_registers_can_be_set_as_listen_stt(tmp_path):
    env = listen_env(tmp_path)
    done = assist_config(env, "listen.stt", "fake")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "config.json").read_text()) == {"listen": {"stt": "fake"}}
    assert "listen.stt = fake" in assist_config(env).stdout.splitlines()


def test_a_recogniser_no_installed_plugin_registers_is_refused_naming_the_installed_ones(
    tmp_path,
):
    env = listen_env(tmp_path)
    paths = env["PYTHONPATH"].split(os.pathsep)
    env["PYTHONPATH"] = os.pathsep.join(path for path in paths if path != str(FAKE_PLUGIN))
    done = assist_config(env, "listen.stt", "fake")
    assert done.returncode == 2
    assert "listen.stt not changed" in done.stderr and "'fake'" in done.stderr
    assert "the installed recognisers are: pocketsphinx, whisper" in done.stderr
    assert not (tmp_path / "config.json").exists()


@pytest.mark.audio
def test_a_missing_device_set_in_the_config_is_named_as_the_config_key_not_as_a_flag(tmp_path):
    env = listen_env(tmp_path)
    assert assist_config(env, "listen.device", "no such mic 42").returncode == 0
    done = subprocess.run(
        [str(ASSIST), "listen", "--into", str(tmp_path / "s"), "--stt", "fake"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"listen.device 'no such mic 42' (in {tmp_path / 'config.json'})" in done.stderr
    assert "--device 'no such mic 42'" not in done.stderr
    assert not (tmp_path / "s").exists()
