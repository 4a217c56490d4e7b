"""The echo reference socket's private folder goes when its server does, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

MADE = """
import sys
from assist.mcp.process_exit import exit_at_once
from assist.mcp.speech.echo_socket import echo_socket
print(echo_socket().parent, flush=True)
if sys.argv[1] == "wait":
    sys.stdin.read()
exit_at_once(0)
"""


def run(temp: Path, how: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", MADE, how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )


def test_a_server_that_leaves_removes_its_folder(tmp_path: Path) -> None:
    server = run(tmp_path, "leave")
    out, _ = server.communicate(timeout=60)
    folder = Path(out.strip())
    assert folder.parent == tmp_path and folder.name.startswith(f"assist-echo-{server.pid}-")
    assert not folder.exists()


def test_the_folder_of_a_killed_server_is_removed_by_the_next_one(tmp_path: Path) -> None:
    killed = run(tmp_path, "wait")
    assert killed.stdout is not None
    left = Path(killed.stdout.readline().strip())
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=60)
    assert left.is_dir()  # nothing of it ran after SIGKILL
    unrelated = tmp_path / "assist-echo-notapid"
    unrelated.mkdir()
    server = run(tmp_path, "leave")
    server.communicate(timeout=60)
    assert not left.exists()
    assert unrelated.is_dir()  # not named for a pid: not ours to judge
