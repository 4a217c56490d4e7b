"""`assist config`: the file in use and the effective settings shown, one key set, and each
refusal with its exit status (behaviour 2.4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from assist.mcp.commands.config import config_command
from config_files import SHARED, age, write


@pytest.fixture
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "conf" / "config.json"
    for variable in ("AMBIENT_CONFIG", "AMBIENT_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("ASSIST_CONFIG", str(path))
    monkeypatch.setenv("ASSIST_HOME", str(tmp_path / "sessions"))
    return path


def test_assist_config_key_value_saves_and_exits_0(
    own_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert config_command(["assistant.max_per_meeting", "3"]) == 0
    assert json.loads(own_config.read_text()) == {"assistant": {"max_per_meeting": 3}}
    assert capsys.readouterr().err == ""


def test_assist_config_refusing_a_key_or_value_prints_why_exits_2_and_leaves_the_file(
    own_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(own_config, SHARED)
    before = own_config.read_bytes()
    assert config_command(["voice.engine", "loud"]) == 2
    err = capsys.readouterr().err
    assert "loud" in err and "kokoro" in err
    assert own_config.read_bytes() == before
    assert config_command(["no.such.key", "1"]) == 2
    assert "no.such.key" in capsys.readouterr().err


def test_assist_config_refuses_an_engine_ambient_cannot_read_in_ambients_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ambient = tmp_path / "ambient" / "config.json"
    write(ambient, SHARED)
    before = ambient.read_bytes()
    monkeypatch.delenv("ASSIST_CONFIG", raising=False)
    monkeypatch.setenv("AMBIENT_CONFIG", str(ambient))
    assert config_command(["voice.engine", "espeak"]) == 2
    assert "ASSIST_CONFIG" in capsys.readouterr().err
    assert ambient.read_bytes() == before
    assert config_command(["voice.engine", "kokoro"]) == 0
    assert json.loads(ambient.read_text())["talk"] == SHARED["talk"]


def test_assist_config_refuses_sessions_dir_while_the_current_root_records(
    own_config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wav = tmp_path / "sessions" / "2026-09-05T1608" / "audio" / "room.native.wav"
    wav.parent.mkdir(parents=True)
    wav.write_bytes(b"RIFF")
    assert config_command(["sessions_dir", str(tmp_path / "other")]) == 1  # not now, not misuse
    assert "2026-09-05T1608" in capsys.readouterr().err
    assert not own_config.exists()
    age(wav, 11)
    assert config_command(["sessions_dir", str(tmp_path / "other")]) == 0


def test_assist_config_alone_prints_the_path_and_the_effective_settings(
    own_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(own_config, SHARED)
    assert config_command([]) == 0
    out = capsys.readouterr().out
    assert str(own_config) in out
    assert "assistant = on" in out
    assert "assistant.name = Robin" in out
    assert "voice.engine = auto" in out


def test_assist_config_with_one_argument_prints_usage_and_exits_2(
    own_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert config_command(["assistant"]) == 2
    assert "usage" in capsys.readouterr().err
    assert not own_config.exists()


def test_assist_config_on_a_file_that_is_not_json_exits_1_as_a_refusal_not_a_usage_error(
    own_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(own_config, "{ not json")
    assert config_command(["assistant", "on"]) == 1
    assert "left untouched" in capsys.readouterr().err
    assert own_config.read_text() == "{ not json"
