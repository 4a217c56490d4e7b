"""`assist.mcp.server` imports strictly downward (issue 18), and its steps read no clock.

Each module's imports are read from its source (its AST, `TYPE_CHECKING` blocks included, so
a cycle cannot hide behind one), and every import of another `assist.mcp.server` module must
go to a lower layer of `LAYERS`. The watch (`watch.py`) is the one module that imports the
steps; each step is handed the desk and the meeting instead, and so reads the time and the
pid only through the desk.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "src" / "assist" / "mcp" / "server"
PACKAGE = "assist.mcp.server"

LAYERS: list[set[str]] = [
    {"__init__", "tools", "wire", "playing", "floor", "progress"},
    {"transport", "session_tools", "desk", "barge_in"},
    {"conversation"},
    {"held_meeting"},
    {"saying", "leaving", "polling"},
    {"speaking", "waiting", "confirm", "tending", "joining"},
    {"watch"},
    {"server"},
]
"""Bottom first: a module may import only from the layers below its own."""

STEPS = {"speaking", "waiting", "confirm", "tending", "joining", "leaving"}
"""What the watch does, one module each; only `watch` imports them."""

PARTS = {"saying", "polling", "held_meeting", "conversation", "barge_in", "floor", "playing"}
"""What the steps are made of; they too are handed their clocks."""

CLOCKS = {("time", "monotonic"), ("time", "time"), ("time", "sleep"), ("os", "getpid")}
CLOCKED = {"now", "today", "utcnow"}
"""What a step would read the time or the pid with, were it not handed the desk."""


def module_names() -> list[str]:
    return sorted(path.stem for path in SERVER.glob("*.py"))


def server_imports(name: str) -> set[str]:
    """The `assist.mcp.server` modules `name` imports, by their short names."""
    tree = ast.parse((SERVER / f"{name}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == PACKAGE:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module.removeprefix(PACKAGE + ".").split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name.removeprefix(PACKAGE + ".").split(".")[0])
    return found


def layer_of(name: str) -> int:
    [layer] = [index for index, names in enumerate(LAYERS) if name in names]
    return layer


def test_every_module_of_the_server_has_its_layer() -> None:
    assert sorted(set().union(*LAYERS)) == module_names()


@pytest.mark.parametrize("name", module_names())
def test_a_server_module_imports_only_from_the_layers_below_its_own(name: str) -> None:
    upward = {imported for imported in server_imports(name) if layer_of(imported) >= layer_of(name)}
    assert upward == set(), f"{name} imports {sorted(upward)} from its own layer or above"


def test_the_server_modules_import_each_other_without_a_cycle() -> None:
    graph = {name: server_imports(name) for name in module_names()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name in done:
            return
        for imported in graph[name]:
            visit(imported, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_only_the_watch_imports_the_steps() -> None:
    importers = {
        name: sorted(server_imports(name) & STEPS)
        for name in module_names()
        if name != "watch" and server_imports(name) & STEPS
    }
    assert importers == {}


@pytest.mark.parametrize("name", sorted(STEPS | PARTS))
def test_a_step_reads_the_time_and_the_pid_only_through_the_desk(name: str) -> None:
    tree = ast.parse((SERVER / f"{name}.py").read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if (node.value.id, node.attr) in CLOCKS or node.attr in CLOCKED:
            found.append(f"{name}.py:{node.lineno}: {node.value.id}.{node.attr}")
    assert found == []
