"""Downloading one pinned file, against real HTTP servers on 127.0.0.1 (never the network)."""

from __future__ import annotations

import hashlib
import io
import socket
import time
from pathlib import Path

import pytest
from assist.app.download import DownloadError, download
from assist.engine_kit.served import closed_port

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB
PAYLOAD_SHA256 = hashlib.sha256(PAYLOAD).hexdigest()


class Watch(io.StringIO):
    """A progress stream that notes, at every update, which of the two files exist."""

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.target = target
        self.seen: set[tuple[bool, bool]] = set()

    def write(self, text: str) -> int:
        part = self.target.with_name(self.target.name + ".part")
        self.seen.add((part.exists(), self.target.exists()))
        return super().write(text)


def test_a_file_arrives_through_a_part_file_renamed_once_checked(
    served_folder: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = served_folder
    (folder / "weights.bin").write_bytes(PAYLOAD)
    target = tmp_path / "cache" / "weights.bin"
    watch = Watch(target)
    download(url + "weights.bin", target, size=len(PAYLOAD), sha256=PAYLOAD_SHA256, progress=watch)
    assert target.read_bytes() == PAYLOAD
    assert watch.seen == {(True, False)}, "the file appeared under its name before it was whole"
    assert list(target.parent.iterdir()) == [target]


def test_progress_without_a_terminal_is_a_line_per_tenth(
    served_folder: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = served_folder
    (folder / "weights.bin").write_bytes(PAYLOAD * 4)
    progress = io.StringIO()
    download(
        url + "weights.bin",
        tmp_path / "weights.bin",
        size=len(PAYLOAD) * 4,
        sha256=hashlib.sha256(PAYLOAD * 4).hexdigest(),
        progress=progress,
    )
    lines = progress.getvalue().splitlines()
    assert 2 <= len(lines) <= 11
    assert all(line.startswith("downloading weights.bin [") for line in lines)
    assert lines[-1].endswith("100% 4.2/4.2 MB")
    assert "\r" not in progress.getvalue()


def test_a_file_with_the_wrong_digest_is_refused_and_nothing_is_left(
    served_folder: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = served_folder
    (folder / "weights.bin").write_bytes(PAYLOAD)
    target = tmp_path / "weights.bin"
    with pytest.raises(DownloadError, match=r"damaged: got 1048576 bytes.*it was deleted"):
        download(
            url + "weights.bin", target, size=len(PAYLOAD), sha256="0" * 64, progress=io.StringIO()
        )
    assert list(tmp_path.iterdir()) == [folder]


def test_a_missing_file_on_the_server_says_what_the_server_said(
    served_folder: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = served_folder
    with pytest.raises(DownloadError, match=r"could not download absent\.bin .*404"):
        download(
            url + "absent.bin",
            tmp_path / "absent.bin",
            size=1,
            sha256="0" * 64,
            progress=io.StringIO(),
        )
    assert not (tmp_path / "absent.bin.part").exists()


def test_an_unreachable_server_is_reported_at_once_with_what_to_do(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(DownloadError) as raised:
        download(
            f"http://127.0.0.1:{closed_port()}/weights.bin",
            tmp_path / "weights.bin",
            size=1,
            sha256="0" * 64,
            progress=io.StringIO(),
            instead="or download it yourself and set ASSIST_SOME_MODEL to its path",
        )
    assert time.monotonic() - start < 5
    message = str(raised.value)
    assert "could not download weights.bin" in message and "refused" in message
    assert "check the network connection" in message and "ASSIST_SOME_MODEL" in message
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_never_answers_ends_in_an_error_not_a_hang(tmp_path: Path) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the connection is accepted by the kernel; nothing ever replies
        port = silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(DownloadError, match="timed out"):
            download(
                f"http://127.0.0.1:{port}/weights.bin",
                tmp_path / "weights.bin",
                size=1,
                sha256="0" * 64,
                progress=io.StringIO(),
                timeout=0.5,
            )
        assert time.monotonic() - start < 3
    assert list(tmp_path.iterdir()) == []
