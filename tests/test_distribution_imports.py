"""Each distribution imports only the assist packages below it, and declares the ones it imports.

`ALLOWED` is the dependency graph of design.md, one row per distribution: the assist packages
of other distributions its modules may import, anywhere or only in the modules named. Every
module's source is walked (its AST), so an import hidden in a function or a branch no other
test takes fails here as well. The table is exact: an allowance no module uses fails too, so
the rows say what the packages really need. The check is shown to catch a wrong import planted
in a copy of the packages, as the core's purity test shows its own.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

PACKAGES = Path(__file__).resolve().parents[1] / "packages"

ANYWHERE = None
"""An allowance for every module of the distribution."""
ENGINE = {"assist.core": ANYWHERE, "assist.app": ANYWHERE}
"""What a voice engine, recogniser or turn model package may import: the contract and the
shared helpers, nothing of the shell."""

ALLOWED: dict[str, dict[str, frozenset[str] | None]] = {
    "assist-core": {},
    "assist-app": {"assist.core": ANYWHERE},
    "assist-listen": {"assist.core": ANYWHERE, "assist.app": ANYWHERE},
    "assist-mcp": {
        "assist.core": ANYWHERE,
        "assist.app": ANYWHERE,
        # `assist listen` and `assist talk` dispatch to the recorder (the listen extra); the
        # rest of the shell runs it as a process, never imports it.
        "assist.listen": frozenset({"assist.mcp.commands.cli", "assist.mcp.commands.talk"}),
        # The demo's rooms voice their meetings with Piper (the demo extra).
        "assist.voice.piper": frozenset({"assist.mcp.demo.rooms.voiced"}),
    },
    # The words check writes and hears WAVs with the shell's helpers (the hearing extra).
    "assist-engine-kit": {
        "assist.core": ANYWHERE,
        "assist.mcp": frozenset({"assist.engine_kit.voices"}),
    },
    "assist-voice-espeak": ENGINE,
    "assist-voice-kokoro": ENGINE,
    "assist-voice-piper": ENGINE,
    "assist-voice-qwen3": ENGINE,
    "assist-voice-supertonic": ENGINE,
    "assist-stt-whisper": ENGINE,
    "assist-stt-pocketsphinx": ENGINE,
    "assist-turn-smart": ENGINE,
}


@attrs.frozen
class Distribution:
    """One folder of packages/: its name, its package (`assist.mcp`), the names of the
    distributions it asks for (dependencies and extras) and its modules."""

    name: str
    package: str
    declared: frozenset[str]
    src: Path
    modules: tuple[Path, ...]

    def module_name(self, path: Path) -> str:
        parts = path.relative_to(self.src).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def requirement_name(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[._]", "-", name.group()).lower()


def distributions(packages: Path) -> list[Distribution]:
    """Every distribution under `packages`, read from its pyproject.toml and its src tree."""
    found = []
    for pyproject in sorted(packages.glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        requirements = [*project.get("dependencies", [])]
        for extra in project.get("optional-dependencies", {}).values():
            requirements += extra
        src = pyproject.parent / "src"
        modules = tuple(sorted(src.rglob("*.py")))
        folders = [path.parent.relative_to(src).parts for path in modules]
        common = folders[0]
        for parts in folders:
            while parts[: len(common)] != common:
                common = common[:-1]
        found.append(
            Distribution(
                name=project["name"],
                package=".".join(common),
                declared=frozenset(map(requirement_name, requirements)),
                src=src,
                modules=modules,
            )
        )
    return found


@functools.cache
def imports_in(source: str, module: str, is_package: bool) -> tuple[tuple[int, str], ...]:
    """(line, module imported) for every import in one module, relative ones made absolute and
    `importlib.import_module("...")` with a literal name counted as one (cached: the copies
    below hold the same sources)."""
    found = []
    for node in ast.walk(ast.parse(source, module)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                found.append((node.lineno, node.module or ""))
                continue
            parts = module.split(".") if is_package else module.split(".")[:-1]
            base = parts[: len(parts) - (node.level - 1)]
            found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])])))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return tuple(found)


def owner(module: str, every: list[Distribution]) -> Distribution | None:
    """The distribution whose package holds `module` (the longest package that does)."""
    holders = [d for d in every if module == d.package or module.startswith(d.package + ".")]
    return max(holders, key=lambda d: len(d.package), default=None)


def assist_imports(packages: Path) -> Iterator[tuple[Distribution, str, str, Distribution | None]]:
    """(distribution, `file:line`, importing module, imported module's distribution) for every
    import of an assist module from another distribution, or from none."""
    every = distributions(packages)
    for distribution in every:
        for path in distribution.modules:
            module = distribution.module_name(path)
            source = path.read_text(encoding="utf-8")
            where = str(path.relative_to(packages))
            for line, imported in imports_in(source, module, path.name == "__init__.py"):
                if imported != "assist" and not imported.startswith("assist."):
                    continue
                provider = owner(imported, every)
                if provider is not distribution:
                    yield distribution, f"{where}:{line}: {imported}", module, provider


def may_import(module: str, allowance: frozenset[str] | None) -> bool:
    return allowance is ANYWHERE or any(
        module == place or module.startswith(place + ".") for place in allowance
    )


def problems_in(packages: Path) -> list[str]:
    """Every import of an assist package that a distribution's row does not allow."""
    found = []
    for distribution, where, module, provider in assist_imports(packages):
        row = ALLOWED.get(distribution.name, {})
        if provider is None:
            found.append(f"{where}: no distribution in packages/ provides it")
        elif provider.package not in row:
            found.append(
                f"{where}: {distribution.name} imports {provider.package} ({provider.name}), "
                "which its row of ALLOWED does not allow"
            )
        elif not may_import(module, row[provider.package]):
            places = ", ".join(sorted(row[provider.package] or ()))
            found.append(
                f"{where}: {distribution.name} imports {provider.package} in {module}; "
                f"only {places} may"
            )
    return found


def test_every_distribution_has_a_row_and_every_row_a_distribution() -> None:
    assert sorted(d.name for d in distributions(PACKAGES)) == sorted(ALLOWED)


def test_each_distribution_imports_only_the_assist_packages_its_row_allows() -> None:
    assert problems_in(PACKAGES) == []


def test_each_distribution_declares_the_distributions_its_row_lets_it_import() -> None:
    every = {d.package: d for d in distributions(PACKAGES)}
    missing = [
        f"{distribution.name} may import {package} but asks for no {every[package].name}"
        for distribution in every.values()
        for package in ALLOWED[distribution.name]
        if every[package].name not in distribution.declared
    ]
    assert missing == []


def test_every_allowance_in_the_table_is_used() -> None:
    used: set[tuple[str, str, str]] = set()
    for distribution, _, module, provider in assist_imports(PACKAGES):
        if provider is not None:
            used.add((distribution.name, provider.package, module))
    unused = []
    for name, row in ALLOWED.items():
        for package, places in row.items():
            importers = {module for dist, held, module in used if (dist, held) == (name, package)}
            if not importers:
                unused.append(f"{name} never imports {package}")
            for place in places or ():
                if not any(may_import(module, frozenset({place})) for module in importers):
                    unused.append(f"{name}: {place} never imports {package}")
    assert unused == []


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages' pyproject.toml files and Python sources, copied."""
    root = tmp_path_factory.mktemp("copy") / "packages"

    def not_source(folder: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if (Path(folder) / name).is_file() and not name.endswith((".py", "pyproject.toml"))
        ]

    for pyproject in PACKAGES.glob("*/pyproject.toml"):
        shutil.copytree(
            pyproject.parent / "src", root / pyproject.parent.name / "src", ignore=not_source
        )
        shutil.copy(pyproject, root / pyproject.parent.name / "pyproject.toml")
    assert problems_in(root) == [], "the copy passes as the packages do"
    return root


@pytest.mark.parametrize(
    ("planted", "source", "problem"),
    [
        pytest.param(
            "listen/src/assist/listen/meeting.py",
            "from assist.mcp.replay.meeting_files import load_meeting\n",
            "assist-listen imports assist.mcp (assist-mcp), which its row",
            id="the recorder importing the shell",
        ),
        pytest.param(
            "listen/src/assist/listen/voice.py",
            "def voice():\n    from assist.voice.piper.engine import load_voice\n",
            "assist-listen imports assist.voice.piper (assist-voice-piper)",
            id="the recorder importing an engine lazily",
        ),
        pytest.param(
            "app/src/assist/app/store/shell.py",
            "import assist.mcp.server.wire\n",
            "assist-app imports assist.mcp (assist-mcp)",
            id="assist.app importing the shell",
        ),
        pytest.param(
            "mcp-adapter/src/assist/mcp/server/recorder.py",
            "from assist.listen.command import listen_command\n",
            "assist-mcp imports assist.listen in assist.mcp.server.recorder; only "
            "assist.mcp.commands.cli, assist.mcp.commands.talk may",
            id="the server importing the recorder outside the dispatch",
        ),
        pytest.param(
            "mcp-adapter/src/assist/mcp/demo/rooms/listened.py",
            "import importlib\nimportlib.import_module('assist.listen.vad')\n",
            "assist-mcp imports assist.listen in assist.mcp.demo.rooms.listened",
            id="the demo importing the recorder by name",
        ),
        pytest.param(
            "assist-core/src/assist/core/stored.py",
            "from ..app.store import paths\n",
            "assist-core imports assist.app (assist-app)",
            id="the core importing assist.app relatively",
        ),
        pytest.param(
            "voice-piper/src/assist/voice/piper/typo.py",
            "from assist.voices import x\n",
            "assist.voices: no distribution in packages/ provides it",
            id="an engine importing a package that does not exist",
        ),
    ],
)
def test_the_check_catches_a_wrong_import_planted_in_a_copy(
    copy: Path, planted: str, source: str, problem: str
) -> None:
    plant = copy / planted
    plant.write_text(source, encoding="utf-8")
    try:
        found = problems_in(copy)
    finally:
        plant.unlink()
    assert len(found) == 1 and problem in found[0], found
