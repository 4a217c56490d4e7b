"""Plugin groups: how installed packages offer engines, and which of them can run here.

One mechanism serves every group (voices under `assist.voices`, recognisers under
`assist.stt`). A package registers through an entry point whose module holds a registrar hook,
in the manner of simonw/llm: the hook calls `register(Spec(...))`, and importing a plugin does
nothing by itself. Each entry point is loaded and registered inside its own try/except, so one
broken package is reported and the others still work. Loading entry points from the installed
distributions is the shell's job; this module is given them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar, cast

import attrs
import pluggy


class PluginSpec(Protocol):
    """What every registered spec has: its name, its distribution and a cheap check."""

    @property
    def name(self) -> str: ...

    @property
    def package(self) -> str: ...

    @property
    def check(self) -> Callable[[], str | None]: ...


S = TypeVar("S", bound=PluginSpec)


@attrs.frozen
class BrokenPlugin:
    """An entry point that failed to load or register, with the error to show."""

    name: str
    error: str


@attrs.frozen
class PluginKind:
    """One plugin group: where its entry points live, its registrar hook, what it registers."""

    group: str
    """Entry-point group and pluggy project name, such as "assist.voices"."""
    hooks: type
    """The class holding the group's one registrar @hookspec."""
    hook: str
    """The registrar hook's name, such as "assist_voice_engines"."""
    spec_type: type
    """What `register()` accepts; instances have `.name`, `.package` and `.check`."""
    allow_variable: str
    """Comma-separated entry-point names: when set, only these plugins are loaded."""
    block_variable: str
    """Comma-separated entry-point names that are never loaded."""
    noun: str
    """What one spec is called in messages, such as "voice engine"."""
    known_packages: Mapping[str, str] = attrs.field(factory=dict)
    """Names we ship, to the distribution that offers each: named when one is not installed."""


class UnknownPlugin(LookupError):
    """A name that no installed plugin of the group registers."""


class EntryPointLike(Protocol):
    name: str

    def load(self) -> Any: ...


@attrs.define
class Registry(Generic[S]):
    """The specs a group's installed plugins offer, and the plugins that broke on the way."""

    kind: PluginKind
    specs: dict[str, S] = attrs.field(factory=dict)
    broken: list[BrokenPlugin] = attrs.field(factory=list)
    plugins: dict[str, Any] = attrs.field(factory=dict)

    def add_plugin(self, name: str, plugin: Any) -> None:
        """Register one plugin module or object; a failure is recorded, never raised."""
        manager = pluggy.PluginManager(self.kind.group)
        manager.add_hookspecs(self.kind.hooks)
        offered: list[Any] = []
        try:
            manager.register(plugin, name=name)
            manager.check_pending()
            getattr(manager.hook, self.kind.hook)(register=offered.append)
        except Exception as error:  # a broken plugin must not take the others down
            self.broken.append(BrokenPlugin(name, _error_text(error)))
            return
        self.plugins[name] = plugin
        wanted = self.kind.spec_type.__name__
        wanted = f"{'an' if wanted[0] in 'AEIOU' else 'a'} {wanted}"
        for thing in offered:
            if not isinstance(thing, self.kind.spec_type):
                self.broken.append(BrokenPlugin(name, f"registered {thing!r}, not {wanted}"))
                continue
            spec = cast(S, thing)
            if spec.name in self.specs:
                duplicate = f"{self.kind.noun} {spec.name!r} is already registered"
                self.broken.append(BrokenPlugin(name, duplicate))
            else:
                self.specs[spec.name] = spec

    def load(self, entry_points: Iterable[EntryPointLike], environ: Mapping[str, str]) -> None:
        """Load each entry point in its own try/except, honouring the allow and block lists."""
        allowed = _names(environ.get(self.kind.allow_variable))
        blocked = _names(environ.get(self.kind.block_variable))
        for entry_point in entry_points:
            if entry_point.name in blocked or (allowed and entry_point.name not in allowed):
                continue
            try:
                plugin = entry_point.load()
            except Exception as error:
                self.broken.append(BrokenPlugin(entry_point.name, _error_text(error)))
                continue
            self.add_plugin(entry_point.name, plugin)

    def available(self) -> dict[str, S]:
        """Registered specs whose `check` finds nothing in the way on this machine."""
        return {name: spec for name, spec in self.specs.items() if _reason(spec) is None}

    def reasons(self) -> dict[str, str | None]:
        """For each registered spec, why it cannot run here (None when it can)."""
        return {name: _reason(spec) for name, spec in self.specs.items()}

    def spec(self, name: str) -> S:
        """The spec for `name`, or UnknownPlugin naming it and the installed ones."""
        try:
            return self.specs[name]
        except KeyError:
            raise UnknownPlugin(self.unknown(name)) from None

    def unknown(self, name: str) -> str:
        """Why `name` cannot be used: not installed (with its package when we ship it), or
        unknown; then the installed names."""
        noun = self.kind.noun
        installed = ", ".join(sorted(self.specs)) or "none"
        package = self.kind.known_packages.get(name)
        if package is not None:
            problem = f"{noun} {name!r} is not installed ({package})"
        else:
            problem = f"no installed package offers the {noun} {name!r}"
        return f"{problem}; the installed {noun}s are: {installed}"


def _reason(spec: PluginSpec) -> str | None:
    try:
        return spec.check()
    except Exception as error:
        return _error_text(error)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}
