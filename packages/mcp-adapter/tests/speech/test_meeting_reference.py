"""The route of a watched meeting's echo reference (behaviour 16.3), each side's rule with real
sockets in this process: the listener binds its socket in the short private folder and links
`reference.sock` to it; the watching server's echo path links to that socket for the watch, so
what its helper sends reaches the listener's ring; one server at a time, and everything made
is removed again."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from assist.app.private_sockets import meeting_socket, remove_dead, sockets_folder
from assist.core.echo_reference import encode
from assist.core.files import REFERENCE_SOCKET
from assist.listen.echo_ring import ReferenceRing, ReferenceSocket
from assist.mcp.speech.meeting_reference import CLAIM_SUFFIX, ReferenceRoute
from mcp_harness import LiveMeeting, Place, connect, value_of

ARRIVE_S = 5.0


def deep(root: Path) -> Path:
    """A session folder too deep for a socket of its own."""
    folder = root / ("deep-" + "d" * 60) / ("deeper-" + "e" * 60)
    folder.mkdir(parents=True)
    return folder


def listener_socket(folder: Path) -> ReferenceSocket:
    """What `assist listen` recording a meeting from a device binds."""
    return ReferenceSocket(
        meeting_socket(folder, "reference"), ReferenceRing(), folder / REFERENCE_SOCKET
    )


def send(path: Path, sounds_at: float) -> None:
    helper = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        helper.sendto(encode(sounds_at, 1, np.full(160, 1000, "<i2").tobytes()), str(path))
    finally:
        helper.close()


def arrived(ring: ReferenceRing, until: float) -> bool:
    return ring.wait_for(until, ARRIVE_S)


@pytest.fixture
def echo(tmp_path: Path) -> Iterator[Path]:
    """A server's echo path, as `echo_socket` makes it: in a short private folder."""
    folder = Path(f"/tmp/assist-echo-test-{os.getpid()}-{tmp_path.name[-8:]}")
    folder.mkdir(mode=0o700)
    yield folder / "ref.sock"
    for left in folder.iterdir():
        left.unlink()
    folder.rmdir()


@pytest.mark.anyio
async def test_a_real_server_holds_the_route_for_its_watch_and_a_second_one_says_it_goes_without(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure(cooldown_s=0)
    with LiveMeeting(place) as meeting:
        listener = listener_socket(meeting.folder)
        claim = listener.path.with_suffix(CLAIM_SUFFIX)
        second_errors = tmp_path / "second-stderr.txt"
        try:
            async with connect(place, env=place.slow_voice(0.05, 0.0)) as first:
                value_of(await first.call_tool("watch_meeting", {}))
                assert claim.exists()
                with open(second_errors, "w") as errors:
                    async with connect(
                        place, env=place.slow_voice(0.05, 0.0), errlog=errors
                    ) as second:
                        value_of(await second.call_tool("watch_meeting", {}))
                        value_of(await second.call_tool("stop_watching", {}))
                assert claim.exists()  # the second leaving takes nothing of the first's
                value_of(await first.call_tool("stop_watching", {}))
                assert not claim.exists()
        finally:
            listener.close()
    said = [line for line in second_errors.read_text().splitlines() if "reference" in line]
    assert len(said) == 1 and "another server" in said[0], said


def test_what_the_watching_servers_helper_sends_reaches_the_listener_and_the_watch_undoes_it(
    tmp_path: Path, echo: Path
) -> None:
    folder = deep(tmp_path)
    listener = listener_socket(folder)
    try:
        link = folder / REFERENCE_SOCKET
        assert Path(os.readlink(link)) == listener.path
        assert listener.path.parent == sockets_folder()
        route = ReferenceRoute.open(folder, echo)
        assert route is not None
        now = time.monotonic()  # the listener drops blocks stamped far from its clock
        send(echo, now)  # the helper sends to its fixed path, as it was spawned with
        assert arrived(listener.ring, now + 0.01)
        claim = listener.path.with_suffix(CLAIM_SUFFIX)
        assert claim.exists()
        route.close()
        assert not echo.exists() and not echo.is_symlink() and not claim.exists()
        with pytest.raises(FileNotFoundError):
            send(echo, time.monotonic())  # after the watch: into nothing, as before it
    finally:
        listener.close()
    assert not link.is_symlink() and not listener.path.exists()


def test_a_second_watcher_of_the_meeting_goes_uncancelled_and_says_so_once(
    tmp_path: Path, echo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = deep(tmp_path)
    listener = listener_socket(folder)
    first = ReferenceRoute.open(folder, echo)
    assert first is not None
    other = echo.with_name("other.sock")
    try:
        assert ReferenceRoute.open(folder, other) is None
        assert not other.is_symlink()
        [said] = capsys.readouterr().err.splitlines()
        assert "another server" in said and "not cancelled" in said
        first.close()
        second = ReferenceRoute.open(folder, other)  # once the first has left, it may
        assert second is not None
        second.close()
    finally:
        listener.close()


def test_a_server_killed_while_watching_leaves_a_claim_the_next_one_takes(
    tmp_path: Path, echo: Path
) -> None:
    folder = deep(tmp_path)
    listener = listener_socket(folder)
    claim = listener.path.with_suffix(CLAIM_SUFFIX)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(claim)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert ReferenceRoute.open(folder, echo) is None  # a live server holds it
        holder.kill()
        holder.wait(timeout=30)
        route = ReferenceRoute.open(folder, echo)  # the kernel let its lock go
        assert route is not None
        route.close()
    finally:
        holder.kill()
        holder.wait(timeout=30)
        listener.close()


def test_a_link_whose_listener_was_killed_costs_only_the_cancellation_and_is_said(
    tmp_path: Path, echo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = deep(tmp_path)
    address = meeting_socket(folder, "reference")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(address))
    dead.close()  # the file stays, nobody reads it
    (folder / REFERENCE_SOCKET).symlink_to(address)
    try:
        assert ReferenceRoute.open(folder, echo) is None
        assert not echo.is_symlink()
        [said] = capsys.readouterr().err.splitlines()
        assert "answers nothing" in said and "not cancelled" in said
        remove_dead("reference")  # the next listener to bind one clears it
        assert not address.exists()
    finally:
        address.unlink(missing_ok=True)


def test_a_recorder_that_takes_no_reference_is_not_routed_and_nothing_is_said(
    tmp_path: Path, echo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ReferenceRoute.open(tmp_path, echo) is None
    assert capsys.readouterr().err == ""


def test_a_link_leading_out_of_the_private_folder_is_not_followed(
    tmp_path: Path, echo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = Path(f"/tmp/assist-test-elsewhere-{os.getpid()}.sock")
    stranger = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    stranger.bind(str(elsewhere))
    try:
        (tmp_path / REFERENCE_SOCKET).symlink_to(elsewhere)
        assert ReferenceRoute.open(tmp_path, echo) is None
        assert "outside" in capsys.readouterr().err
    finally:
        stranger.close()
        elsewhere.unlink()


def test_the_listeners_socket_sweeps_what_killed_listeners_and_servers_left(
    tmp_path: Path,
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    address = meeting_socket(gone, "reference")
    left = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    left.bind(str(address))
    left.close()
    claim = address.with_suffix(CLAIM_SUFFIX)
    claim.touch()
    live = tmp_path / "live"
    live.mkdir()
    listener = listener_socket(live)
    live_claim = listener.path.with_suffix(CLAIM_SUFFIX)
    live_claim.touch()
    try:
        remove_dead("reference")
        assert not address.exists() and not claim.exists()
        assert listener.path.exists() and live_claim.exists()
    finally:
        listener.close()
        live_claim.unlink()
