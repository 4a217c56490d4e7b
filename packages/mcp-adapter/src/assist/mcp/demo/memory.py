"""Peak memory of the demo's processes: the server, its voice helper, the replay.

Linux keeps each process's peak resident set in `/proc/<pid>/status` (`VmHWM`), so sampling
it now and then gives the true peak up to the last sample before the process exits. Children
are found through `/proc/<pid>/task/<tid>/children`. Elsewhere nothing is sampled and the
figures are None (the benchmark is run on Linux).
"""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")
SAMPLE_S = 0.5
"""How often the demo samples: a process that lives a second still gets two samples."""


class PeakMemory:
    """The highest VmHWM seen per role, in MiB."""

    def __init__(self) -> None:
        self.peaks_mb: dict[str, float | None] = {}
        self.available = (PROC / "self" / "status").exists()

    def sample(self, pid: int | None, role: str) -> None:
        if pid is None or not self.available:
            self.peaks_mb.setdefault(role, None)
            return
        peak = peak_rss_mb(pid)
        if peak is not None:
            previous = self.peaks_mb.get(role) or 0.0
            self.peaks_mb[role] = max(previous, peak)
        else:
            self.peaks_mb.setdefault(role, None)


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory in MiB, None when it cannot be read."""
    try:
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def children(pid: int) -> list[int]:
    """The pids of the process's children (none when /proc cannot tell)."""
    found: list[int] = []
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(part) for part in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def command_line(pid: int) -> list[str]:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]
