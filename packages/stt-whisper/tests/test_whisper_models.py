"""Where Whisper models come from: bundled, pinned downloads from a real HTTP server on
127.0.0.1 (never the network), and a user's own folder."""

from __future__ import annotations

import hashlib
import io
import time
from pathlib import Path

import pytest
from assist.app.download import DownloadError
from assist.core.recognisers import RecogniserOptions
from assist.engine_kit.recognisers import speak, word_errors
from assist.engine_kit.served import closed_port
from assist.stt.whisper.engine import WhisperRecogniser
from assist.stt.whisper.models import (
    DOWNLOADS,
    TOKENIZER,
    VOCABULARY,
    ModelFile,
    PinnedModel,
    bundled_model,
    fetch_model,
    local_model,
)
from assist.stt.whisper.plugin import ready_offline


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tiny_en_is_installed_with_the_package_and_ready_with_no_cache(tmp_path):
    folder = bundled_model()
    assert {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"} <= {
        path.name for path in folder.iterdir()
    }
    assert local_model(None, str(tmp_path)) == folder == local_model("tiny.en", str(tmp_path))
    assert ready_offline(RecogniserOptions(cache_root=str(tmp_path)))
    assert list(tmp_path.iterdir()) == []


def test_base_en_shares_its_pinned_tokenizer_and_vocabulary_with_the_bundled_tiny_en():
    pinned = {file.name: file for file in DOWNLOADS["base.en"].files}
    for file in (TOKENIZER, VOCABULARY):
        bundled = bundled_model() / file.name
        assert pinned[file.name] == file
        assert (bundled.stat().st_size, sha256(bundled)) == (file.size, file.sha256)


def test_base_en_is_not_ready_offline_until_its_files_are_in_the_cache(tmp_path):
    options = RecogniserOptions(model="base.en", cache_root=str(tmp_path))
    assert local_model("base.en", str(tmp_path)) is None
    assert not ready_offline(options)


def test_offline_a_pinned_model_fails_within_seconds_saying_what_to_do(tmp_path):
    start = time.monotonic()
    with pytest.raises(DownloadError) as raised:
        fetch_model(
            "base.en",
            str(tmp_path),
            base_url=f"http://127.0.0.1:{closed_port()}/",
            progress=io.StringIO(),
        )
    assert time.monotonic() - start < 5
    message = str(raised.value)
    assert "could not download config.json" in message and "refused" in message
    assert "check the network connection" in message and "bundled tiny.en" in message
    assert not any(path.is_file() for path in tmp_path.rglob("*"))


def test_a_pinned_model_is_fetched_through_part_files_and_then_loads_and_hears(
    served_folder, tmp_path, monkeypatch
):
    url, folder = served_folder
    bundled = bundled_model()
    files = tuple(
        ModelFile(path.name, path.stat().st_size, sha256(path))
        for path in sorted(bundled.iterdir())
        if path.is_file()
    )
    pinned = PinnedModel("tiny-served", "Systran/tiny-served", "0123abcd", files)
    monkeypatch.setitem(DOWNLOADS, pinned.name, pinned)
    remote = folder / "Systran" / "tiny-served" / "resolve" / "0123abcd"
    remote.mkdir(parents=True)
    for file in files:
        (remote / file.name).symlink_to(bundled / file.name)
    progress = io.StringIO()
    fetched = fetch_model("tiny-served", str(tmp_path / "cache"), base_url=url, progress=progress)
    assert fetched == tmp_path / "cache" / "whisper" / "tiny-served"
    assert sorted(path.name for path in fetched.iterdir()) == sorted(file.name for file in files)
    assert "downloading model.bin [" in progress.getvalue()
    assert local_model("tiny-served", str(tmp_path / "cache")) == fetched
    again = fetch_model("tiny-served", str(tmp_path / "cache"), base_url="http://0.0.0.0:9/")
    assert again == fetched, "a complete cached model is fetched again"
    recogniser = WhisperRecogniser(fetched, "tiny-served", threads=1)
    heard = recogniser.transcribe(speak("Yes, do it.")).text
    assert word_errors("Yes, do it.", heard) == (0, 3), heard
    recogniser.close()


def test_a_folder_of_ones_own_is_used_as_it_is(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"weights")
    assert local_model(str(tmp_path), None) == tmp_path


def test_a_folder_without_a_model_is_refused_with_what_to_give(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"holds no model\.bin.*tiny\.en, base\.en"):
        local_model(str(tmp_path), None)
    assert not ready_offline(RecogniserOptions(model=str(tmp_path)))


def test_an_unknown_model_name_is_refused_with_the_models_there_are():
    with pytest.raises(ValueError, match=r"unknown Whisper model 'huge'.*tiny\.en, base\.en"):
        local_model("huge", None)
