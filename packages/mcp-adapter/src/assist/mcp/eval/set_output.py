"""What `assist eval --turns` and `--echo-set` do once their set has run, one shape for both:
the report's page, the JSON or the table, the work folder, and a line per part that failed."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from assist.mcp.eval.report import write_report
from rich.console import Console
from rich.table import Table


def set_table(
    title: str, headings: Sequence[str], rows: Sequence[Sequence[str]], left: int, caption: str
) -> Table:
    """The figures as a rich table, the first `left` columns read as text, the rest numbers."""
    shown = Table(title=title, title_justify="left")
    for number, heading in enumerate(headings):
        shown.add_column(heading, justify="left" if number < left else "right")
    for row in rows:
        shown.add_row(*row)
    shown.caption = caption
    shown.caption_justify = "left"
    return shown


def unwritable(report: Path | None, error: OSError) -> str:
    """What to say when `--report` cannot be made or written."""
    return (
        f"assist eval: cannot write the report into {report}: {error}; give --report a folder "
        "that can be made or written"
    )


def finish(
    args: argparse.Namespace,
    progress: Console,
    plain: Callable[..., Console],
    *,
    page: tuple[str, Callable[[], str]],
    out: dict[str, Any],
    table: Table,
    width: int,
    workroot: Path,
    failed: Sequence[tuple[str, str]],
) -> int:
    """Write the report's page (file name, its HTML), then `out` as JSON (`--json`) or the
    table; remove the work folder unless asked to keep it (`--workdir`); say what failed
    (label, why). 1 when something failed, else 0."""
    name, html = page
    shown = None if args.report is None else args.report.resolve() / name
    if shown is not None:
        write_report(args.report, {name: html()})
    if args.json:
        out = {
            **out,
            "report": None if shown is None else str(shown),
            "workdir": str(workroot) if args.workdir else None,
        }
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        plain(width=None if sys.stdout.isatty() else width).print(table)
        if shown is not None:
            progress.print(f"report: {shown}")
    if args.workdir is None:
        shutil.rmtree(workroot, ignore_errors=True)
    for label, why in failed:
        progress.print(f"assist eval: {label} did not run: {why}", style="red")
    return 1 if failed else 0


def load_average() -> list[float] | None:
    """The machine's load averages (1, 5, 15 min), for the caption beside the figures."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def load_text(load: dict[str, list[float] | None]) -> str:
    """`load average 0.5 0.4 0.3 before, 1.2 1.0 0.5 after` for a caption."""
    before, after = (
        " ".join(f"{v:.1f}" for v in load[when] or []) or "?" for when in ("before", "after")
    )
    return f"load average {before} before, {after} after"
