"""The config file on disk: cheap re-reads, warnings, atomic writes (2.1-2.4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from assist.app.store.config import ConfigFile
from assist.core.settings import SettingError, Settings
from config_files import SHARED, age, write

INSTALLED = ("espeak", "kokoro", "toy")
"""The engine names the installed plugins register, as the shell passes them in."""


def test_a_missing_file_means_every_default_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ConfigFile(tmp_path / "config.json", engines=INSTALLED).load() == Settings()
    assert capsys.readouterr().err == ""


def test_the_settings_in_the_file_apply(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    settings = ConfigFile(path, engines=INSTALLED).load()
    assert settings.assistant.enabled
    assert settings.assistant.name == "Robin"
    assert settings.assistant.max_per_meeting == 4


def test_an_unchanged_file_is_not_parsed_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    write(path, {"assistant": {"enabled": True, "cooldown_s": "soon"}})
    config = ConfigFile(path, engines=INSTALLED)
    first = config.load()
    warned = capsys.readouterr().err
    assert "assistant.cooldown_s" in warned
    assert len(warned.splitlines()) == 1
    assert config.load() is first
    assert capsys.readouterr().err == ""


def test_a_change_of_mtime_alone_reparses_and_warns_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    write(path, {"assistant": {"cooldown_s": "soon"}})
    config = ConfigFile(path, engines=INSTALLED)
    first = config.load()
    capsys.readouterr()
    age(path, 5)
    assert config.load() is not first
    assert "assistant.cooldown_s" in capsys.readouterr().err


def test_a_replaced_file_of_the_same_size_and_mtime_is_seen_through_its_inode(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    write(path, '{"assistant": {"enabled": true }}')
    config = ConfigFile(path, engines=INSTALLED)
    assert config.load().assistant.enabled
    stamp = os.stat(path).st_mtime_ns
    replacement = tmp_path / "next.json"
    write(replacement, '{"assistant": {"enabled": false}}')
    os.utime(replacement, ns=(stamp, stamp))
    os.replace(replacement, path)
    assert os.stat(path).st_size == len('{"assistant": {"enabled": true }}')
    assert not config.load().assistant.enabled


def test_a_file_that_is_not_json_warns_once_and_means_the_assistant_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    config = ConfigFile(path, engines=INSTALLED)
    assert config.load().assistant.enabled
    write(path, '{"assistant": {"enabled": true},')
    assert config.load() == Settings()
    assert config.load() == Settings()
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1
    assert str(path) in warned[0]


def test_a_json_value_that_is_not_an_object_warns_once_and_gives_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    write(path, [1, 2])
    assert ConfigFile(path, engines=INSTALLED).load() == Settings()
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_config_path_that_cannot_be_read_warns_once_not_on_every_poll(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.mkdir()
    config = ConfigFile(path, engines=INSTALLED)
    for _ in range(3):
        assert config.load() == Settings()
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_setting_a_key_keeps_unknown_keys_and_writes_two_space_json_with_a_final_newline(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    inode = os.stat(path).st_ino
    ConfigFile(path, engines=INSTALLED).set("assistant.cooldown_s", "45")
    text = path.read_text(encoding="utf-8")
    expected = json.loads(json.dumps(SHARED))
    expected["assistant"]["cooldown_s"] = 45
    assert json.loads(text) == expected
    assert text == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    assert os.stat(path).st_ino != inode, "the file was replaced by a rename, not rewritten"
    assert sorted(os.listdir(tmp_path)) == ["config.json"], "no temp file is left behind"


def test_setting_a_key_creates_a_missing_file_and_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "config.json"
    config = ConfigFile(path, engines=INSTALLED)
    config.set("assistant", "ON")
    assert json.loads(path.read_text()) == {"assistant": {"enabled": True}}
    assert config.load().assistant.enabled


def test_a_refused_value_leaves_the_file_byte_for_byte_untouched(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    before = path.read_bytes()
    with pytest.raises(SettingError, match="boolean"):
        ConfigFile(path, engines=INSTALLED).set("assistant", "maybe")
    assert path.read_bytes() == before


def test_a_corrupt_file_is_not_overwritten_by_a_set(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write(path, "{ not json")
    with pytest.raises(SettingError, match="left untouched"):
        ConfigFile(path, engines=INSTALLED).set("assistant", "on")
    assert path.read_text() == "{ not json"


def test_sessions_dir_is_refused_while_a_recording_is_live(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    before = path.read_bytes()
    with pytest.raises(SettingError, match="2026-08-29T1101-smoke"):
        ConfigFile(path, engines=INSTALLED).set(
            "sessions_dir", "/elsewhere", live_session="2026-08-29T1101-smoke"
        )
    assert path.read_bytes() == before
    ConfigFile(path, engines=INSTALLED).set("sessions_dir", "/elsewhere")
    assert json.loads(path.read_text())["sessions_dir"] == "/elsewhere"


def test_a_symlinked_config_file_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "assist.json"
    write(target, SHARED)
    link = tmp_path / "config.json"
    link.symlink_to(target)
    ConfigFile(link, engines=INSTALLED).set("assistant.name", "  Ada ")
    assert link.is_symlink()
    assert json.loads(target.read_text())["assistant"]["name"] == "Ada"


def test_a_set_keeps_the_files_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write(path, SHARED)
    path.chmod(0o640)
    ConfigFile(path, engines=INSTALLED).set("assistant", "off")
    assert path.stat().st_mode & 0o777 == 0o640
