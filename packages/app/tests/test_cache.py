"""Where engine and recogniser packages keep their files (assist.app.cache)."""

from __future__ import annotations

from assist.app.cache import (
    STT_CACHE_VARIABLE,
    VOICE_CACHE_VARIABLE,
    copy_once,
    stt_cache_root,
    voice_cache_root,
)


def test_a_cache_root_follows_the_option_then_the_variable_then_the_user_cache(
    tmp_path, monkeypatch
):
    for variable, root, folder in (
        (VOICE_CACHE_VARIABLE, voice_cache_root, "voice"),
        (STT_CACHE_VARIABLE, stt_cache_root, "stt"),
    ):
        monkeypatch.setenv(variable, str(tmp_path / "from-variable"))
        assert root(str(tmp_path / "given")) == tmp_path / "given"
        assert root(None) == tmp_path / "from-variable"
        monkeypatch.setenv(variable, "")
        assert root(None).name == folder and root(None).parent.name == "assist"


def test_the_voice_and_recogniser_caches_are_set_apart(tmp_path, monkeypatch):
    monkeypatch.setenv(VOICE_CACHE_VARIABLE, str(tmp_path / "voices"))
    monkeypatch.delenv(STT_CACHE_VARIABLE, raising=False)
    assert stt_cache_root(None) != voice_cache_root(None)


def test_a_folder_is_copied_whole_and_no_part_folder_is_left(tmp_path):
    source = tmp_path / "shipped"
    (source / "voices").mkdir(parents=True)
    (source / "phontab").write_bytes(b"data")
    target = tmp_path / "cache" / "deep" / "data"
    copy_once(source, target)
    assert (target / "phontab").read_bytes() == b"data" and (target / "voices").is_dir()
    assert [path.name for path in target.parent.iterdir()] == ["data"]


def test_a_copy_another_process_finished_first_is_kept(tmp_path):
    source = tmp_path / "shipped"
    source.mkdir()
    (source / "phontab").write_bytes(b"ours")
    target = tmp_path / "cache" / "data"
    target.mkdir(parents=True)
    (target / "phontab").write_bytes(b"theirs")
    copy_once(source, target)
    assert (target / "phontab").read_bytes() == b"theirs"
    assert [path.name for path in target.parent.iterdir()] == ["data"]
