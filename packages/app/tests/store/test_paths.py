"""Where the config file, the sessions root and the voice cache are found (behaviour 1.1)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest
from assist.app.store.paths import (
    ConfigLocation,
    beside_config,
    config_path,
    sessions_root,
    voice_cache_root,
)
from assist.core.settings import Settings

AMBIENT_DEFAULT = Path("Library", "Application Support", "Ambient", "config.json")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home folder; platformdirs' folders are pointed inside the test folder too."""
    folder = tmp_path / "home"
    folder.mkdir()
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(variable, str(tmp_path / variable.lower()))
    return folder


def make_ambient_default(home: Path) -> Path:
    path = home / AMBIENT_DEFAULT
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    return path


def ours_config() -> Path:
    return Path(platformdirs.user_config_dir("assist")) / "config.json"


def test_assist_config_wins_over_ambient_config_and_ambient_default(home: Path) -> None:
    make_ambient_default(home)
    environ = {"HOME": str(home), "ASSIST_CONFIG": "/x/a.json", "AMBIENT_CONFIG": "/x/b.json"}
    assert config_path(environ) == ConfigLocation(Path("/x/a.json"), ambient=False)


def test_an_empty_assist_config_counts_as_unset_and_ambient_config_is_ambients(home: Path) -> None:
    environ = {"HOME": str(home), "ASSIST_CONFIG": "", "AMBIENT_CONFIG": "/x/b.json"}
    assert config_path(environ) == ConfigLocation(Path("/x/b.json"), ambient=True)


def test_ambients_default_file_is_used_when_it_exists(home: Path) -> None:
    path = make_ambient_default(home)
    assert config_path({"HOME": str(home), "AMBIENT_CONFIG": ""}) == ConfigLocation(path, True)


def test_our_own_config_file_is_used_when_ambients_default_does_not_exist(home: Path) -> None:
    location = config_path({"HOME": str(home)})
    assert location == ConfigLocation(ours_config(), ambient=False)
    assert not location.path.exists()


def test_assist_config_naming_ambients_default_file_shares_ambients_file(home: Path) -> None:
    path = make_ambient_default(home)
    assert config_path({"HOME": str(home), "ASSIST_CONFIG": str(path)}).ambient


def test_assist_config_naming_the_same_file_as_ambient_config_shares_it(
    home: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared.json"
    environ = {"HOME": str(home), "ASSIST_CONFIG": str(shared), "AMBIENT_CONFIG": str(shared)}
    assert config_path(environ) == ConfigLocation(shared, ambient=True)


def test_a_relative_config_variable_is_taken_against_the_current_folder(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    location = config_path({"HOME": str(home), "ASSIST_CONFIG": "sub/c.json"})
    assert location.path == tmp_path / "sub" / "c.json"


def test_a_tilde_in_a_config_variable_is_the_home_folder(home: Path) -> None:
    assert config_path({"HOME": str(home), "ASSIST_CONFIG": "~/c.json"}).path == home / "c.json"


def location_in(folder: Path) -> ConfigLocation:
    return ConfigLocation(folder / "config.json", ambient=False)


def test_the_sessions_root_follows_the_order_of_the_rules(home: Path, tmp_path: Path) -> None:
    config = location_in(tmp_path / "conf")
    configured = Settings(sessions_dir="/from/config")
    both = {"HOME": str(home), "ASSIST_HOME": "/a", "AMBIENT_HOME": "/b"}
    assert sessions_root(both, configured, config) == Path("/a")
    ambient_only = {"HOME": str(home), "ASSIST_HOME": "", "AMBIENT_HOME": "/b"}
    assert sessions_root(ambient_only, configured, config) == Path("/b")
    plain = {"HOME": str(home), "ASSIST_HOME": "", "AMBIENT_HOME": ""}
    assert sessions_root(plain, configured, config) == Path("/from/config")
    assert sessions_root(plain, Settings(), config) == Path(
        platformdirs.user_data_dir("assist"), "sessions"
    )
    (home / "Documents" / "Ambient").mkdir(parents=True)
    assert sessions_root(plain, Settings(), config) == home / "Documents" / "Ambient"


def test_a_file_named_like_ambients_sessions_folder_is_not_used(home: Path, tmp_path: Path) -> None:
    (home / "Documents").mkdir()
    (home / "Documents" / "Ambient").write_text("not a folder")
    root = sessions_root({"HOME": str(home)}, Settings(), location_in(tmp_path))
    assert root == Path(platformdirs.user_data_dir("assist"), "sessions")


def test_sessions_dir_expands_a_leading_tilde(home: Path, tmp_path: Path) -> None:
    settings = Settings(sessions_dir="~/meetings")
    assert sessions_root({"HOME": str(home)}, settings, location_in(tmp_path)) == (
        home / "meetings"
    )


def test_a_relative_sessions_dir_is_taken_against_the_config_files_folder(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(home)
    settings = Settings(sessions_dir="meetings/../recorded")
    root = sessions_root({"HOME": str(home)}, settings, location_in(tmp_path / "conf"))
    assert root == tmp_path / "conf" / "recorded"
    assert root.is_absolute()


def test_the_voice_cache_is_ours_unless_the_variable_names_one(home: Path) -> None:
    assert voice_cache_root({"ASSIST_VOICE_CACHE": "/cache/v"}) == Path("/cache/v")
    default = Path(platformdirs.user_cache_dir("assist"), "voice")
    assert voice_cache_root({"ASSIST_VOICE_CACHE": ""}) == default
    assert voice_cache_root({"AMBIENT_VOICE_CACHE": "/ambient"}) == default


def test_the_folder_beside_the_config_file_is_created_when_missing(tmp_path: Path) -> None:
    config = ConfigLocation(tmp_path / "a" / "b" / "config.json", ambient=False)
    folder = beside_config(config)
    assert folder == tmp_path / "a" / "b"
    assert folder.is_dir()
    assert not config.path.exists()
    assert os.listdir(folder) == []
