"""The short private folder of a meeting's sockets (behaviour 14.2, 16.3): one address per
meeting and kind, however the session folder is reached, short enough to bind from a session
folder of any depth, in a folder nobody else may enter."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.app import private_sockets
from assist.app.private_sockets import meeting_socket, sockets_folder

SOCKET_PATH_MAX = 103
"""macOS's limit on a socket's path (Linux: 107)."""


@pytest.fixture(autouse=True)
def short_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = Path("/tmp") / f"assist-test-root-{os.getpid()}"
    root.mkdir(exist_ok=True)
    monkeypatch.setattr(private_sockets, "SOCKETS_ROOT", root)
    yield root
    shutil.rmtree(root)


def test_each_meeting_and_kind_has_one_short_address_however_its_folder_is_reached(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ("deep-" + "d" * 80) / ("deeper-" + "e" * 80)
    folder.mkdir(parents=True)
    signals = meeting_socket(folder, "signals")
    assert meeting_socket(folder / ".." / folder.name, "signals") == signals
    (tmp_path / "alias").symlink_to(folder)
    assert meeting_socket(tmp_path / "alias", "signals") == signals
    reference = meeting_socket(folder, "reference")
    assert reference != signals and reference.parent == signals.parent == sockets_folder()
    assert reference.name.startswith("reference-") and signals.name.startswith("signals-")
    assert len(os.fsencode(reference)) <= SOCKET_PATH_MAX
    other = tmp_path / "other"
    other.mkdir()
    assert meeting_socket(other, "reference") != reference


def test_the_folder_is_made_private_and_one_others_may_enter_is_refused(short_root: Path) -> None:
    made = sockets_folder()
    assert made == short_root / f"assist-{os.getuid()}"
    assert made.stat().st_mode & 0o777 == 0o700
    made.chmod(0o755)
    with pytest.raises(OSError, match="not a private folder"):
        sockets_folder()


def test_a_link_standing_in_for_the_folder_is_refused(short_root: Path, tmp_path: Path) -> None:
    (short_root / f"assist-{os.getuid()}").symlink_to(tmp_path)
    with pytest.raises(OSError, match="remove it"):
        sockets_folder()
