"""assist.core stays pure: stdlib, attrs and pluggy only, and no I/O, clock or sleep.

Every module's source is walked (its AST), so a forbidden import or call fails here
before it can hide behind a lazy import or a branch the other tests never take; there are
no exceptions (the conformance kits, which measure engines, are assist-engine-kit's).
The last test installs assist-core alone into a fresh environment, as a user would.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
CORE = PACKAGE / "src" / "assist" / "core"

ALLOWED_THIRD_PARTY = {"attrs", "pluggy"}

FORBIDDEN_MODULES = {
    # files, processes, sockets and the operating system
    "os", "io", "shutil", "tempfile", "glob", "fileinput", "mmap", "fcntl", "msvcrt",
    "subprocess", "multiprocessing", "concurrent", "asyncio", "threading", "signal",
    "socket", "ssl", "select", "selectors", "http", "urllib", "ftplib", "smtplib",
    "sqlite3", "dbm", "shelve", "pickle", "zipfile", "tarfile", "gzip", "bz2", "lzma",
    "wave", "ctypes", "platform", "getpass", "pwd", "grp", "resource", "sys", "atexit",
    "importlib", "logging", "warnings", "webbrowser",
    # clocks and chance: callers pass `now` in, and every rule must replay exactly
    "time", "sched", "random", "secrets", "uuid",
}  # fmt: skip
"""Standard modules whose purpose is I/O, clocks or chance."""

FORBIDDEN_CALLS = {"open", "print", "input", "breakpoint", "exec", "eval", "__import__"}
"""Builtins that read or write a stream, or run arbitrary code."""

FORBIDDEN_METHODS = {
    # clocks
    "now", "today", "utcnow", "sleep", "monotonic", "perf_counter", "time_ns",
    # pathlib and file objects
    "read_text", "read_bytes", "write_text", "write_bytes", "exists", "is_file", "is_dir",
    "is_symlink", "mkdir", "rmdir", "unlink", "iterdir", "rglob", "stat", "lstat", "touch",
    "chmod", "resolve", "expanduser", "home", "cwd", "readlink", "symlink_to", "samefile",
    "flush", "fileno",
}  # fmt: skip
"""Method names that only mean I/O or a clock here (`.now()`, `path.read_text()`)."""


def core_modules() -> list[Path]:
    return sorted(CORE.glob("*.py"))


def problems_in(source: str, filename: str) -> list[str]:
    """Every impure import or call in one module's source, as `file:line: what`."""
    found: list[str] = []
    stdlib = set(sys.stdlib_module_names)
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(f"{where}: relative import; import from assist.core by name")
                continue
            modules = [node.module or ""]
            if node.module == "pathlib":
                found += [
                    f"{where}: pathlib.{alias.name} does I/O; only the Pure* paths are pure"
                    for alias in node.names
                    if not alias.name.startswith("Pure")
                ]
        elif isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name) and function.id in FORBIDDEN_CALLS:
                found.append(f"{where}: calls {function.id}()")
            if isinstance(function, ast.Attribute) and function.attr in FORBIDDEN_METHODS:
                found.append(f"{where}: calls .{function.attr}()")
            continue
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if (
                module == "__future__"
                or module == "assist.core"
                or module.startswith("assist.core.")
            ):
                continue
            if top in FORBIDDEN_MODULES:
                found.append(f"{where}: imports {module}, which is I/O, a clock or chance")
            elif top not in stdlib and top not in ALLOWED_THIRD_PARTY:
                found.append(f"{where}: imports {module}; the core allows only attrs and pluggy")
    return found


def test_the_core_has_modules_to_check():
    names = {path.name for path in core_modules()}
    assert {"engines.py", "protocol.py", "settings.py", "sentences.py", "tones.py"} <= names


@pytest.mark.parametrize("path", core_modules(), ids=lambda path: path.name)
def test_a_core_module_imports_only_stdlib_attrs_and_pluggy_and_does_no_io(path):
    assert problems_in(path.read_text(encoding="utf-8"), path.name) == []


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import numpy", "imports numpy; the core allows only attrs and pluggy"),
        ("from assist.mcp.server import wire", "imports assist.mcp"),
        ("import os.path", "imports os.path, which is I/O"),
        ("from time import monotonic", "imports time, which is I/O"),
        ("import subprocess", "imports subprocess"),
        ("import socket", "imports socket"),
        ("from pathlib import Path", "pathlib.Path does I/O"),
        ("from . import tones", "relative import"),
        ("def f():\n    import random", "imports random"),
        ("text = open('x').read()", "calls open()"),
        ("print('hi')", "calls print()"),
        ("from datetime import datetime\nstamp = datetime.now()", "calls .now()"),
        ("def f(clock):\n    clock.sleep(1)", "calls .sleep()"),
        ("def f(path):\n    return path.read_text()", "calls .read_text()"),
    ],
)
def test_the_purity_check_catches_each_kind_of_impurity(source, problem):
    found = problems_in(source, "example.py")
    assert any(problem in line for line in found), found


def test_the_purity_check_accepts_pure_code():
    source = (
        "from __future__ import annotations\n"
        "import json, re, math\n"
        "from datetime import datetime\n"
        "from pathlib import PurePath\n"
        "import attrs\nimport pluggy\n"
        "from assist.core.tones import TONES\n"
        "when = datetime.fromisoformat('2026-01-01T00:00:00+00:00')\n"
        "name = PurePath('a') / 'b'\n"
    )
    assert problems_in(source, "example.py") == []


def test_assist_core_installs_alone_with_only_attrs_and_pluggy(tmp_path):
    """Build and install packages/assist-core into a fresh environment with uv (from its
    cache, or PyPI when the cache lacks something), then import every module there."""
    uv = shutil.which("uv")
    assert uv, "this test needs uv on PATH (the CI script installs it)"
    venv = tmp_path / "venv"
    subprocess.run(
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, timeout=120
    )
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", str(python), str(PACKAGE)],
        check=True,
        timeout=300,
    )
    listed = subprocess.run(
        [uv, "pip", "freeze", "--python", str(python)],
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout
    installed = sorted(line.split("==")[0].split(" @ ")[0].lower() for line in listed.splitlines())
    assert installed == ["assist-core", "attrs", "pluggy"]
    modules = sorted(f"assist.core.{path.stem}" for path in CORE.glob("*.py"))
    check = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name.removesuffix('.__init__'))\n"
        "assert not {'numpy', 'platformdirs', 'pytest'} & set(sys.modules)\n"
        "import assist, assist.core\n"
        "assert assist.__file__ is None, 'assist must stay a PEP 420 namespace'\n"
        "from assist.core.words import word_error_rate\n"
        "assert word_error_rate('one two', 'one') == 0.5\n"
    )
    subprocess.run([str(python), "-c", check], check=True, timeout=60)
