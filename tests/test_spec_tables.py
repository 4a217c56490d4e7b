"""The spec's tables follow the code's: the environment variables of docs/behaviour.md 2.5 are
generated from the table in `assist.core.environment`, no module names a variable that table does
not hold, and every key of `assist config` (`assist.core.settings.SETTINGS`) is documented."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from assist.core import environment
from assist.core.settings import KEYS

ROOT = Path(__file__).resolve().parents[1]
BEHAVIOUR = ROOT / "docs" / "behaviour.md"
GENERATED = re.compile(
    r"<!-- generated from assist\.core\.environment[^\n]*-->\n(.*?)<!-- end", re.S
)
VARIABLE_NAME = re.compile(r"(ASSIST|AMBIENT)_[A-Z0-9_]+")
TABLE = ROOT / "packages" / "assist-core" / "src" / "assist" / "core" / "environment.py"
SPELT_OUT = {
    ROOT / "packages/mcp-adapter/src/assist/mcp/server/server.py": environment.PACING_SCALE,
}
"""Modules that still spell a name out (server/ is being rebuilt elsewhere, issue 18 items
1-6); each must spell it as the table does."""


def sources() -> list[Path]:
    return sorted(path for path in ROOT.glob("packages/*/src/**/*.py") if ".venv" not in path.parts)


def test_the_documented_table_is_the_one_generated_from_the_code() -> None:
    found = GENERATED.search(BEHAVIOUR.read_text(encoding="utf-8"))
    assert found, "docs/behaviour.md 2.5 lost its generated table markers"
    assert found[1] == environment.markdown(), (
        "docs/behaviour.md 2.5 differs from assist.core.environment; put this between its "
        "markers:\n" + environment.markdown()
    )


def test_no_module_spells_out_a_variable_name_but_the_table() -> None:
    spelt = []
    for path in sources():
        if path == TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            allowed = SPELT_OUT.get(path)
            if VARIABLE_NAME.fullmatch(node.value) and node.value != getattr(allowed, "name", None):
                spelt.append(f"{path.relative_to(ROOT)}: {node.value}")
    assert spelt == []


def test_every_variable_of_the_table_is_read_somewhere() -> None:
    used: set[str] = set()
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "assist.core.environment":
                used |= {alias.name for alias in node.names}
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "environment"
            ):
                used.add(node.attr)
    named = {
        name for name, value in vars(environment).items() if isinstance(value, environment.Variable)
    }
    assert named - used == set()


def test_every_key_of_assist_config_is_documented() -> None:
    text = BEHAVIOUR.read_text(encoding="utf-8")
    assert [key for key in KEYS if f"`{key}`" not in text] == []
