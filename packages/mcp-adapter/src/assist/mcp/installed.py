"""Which version of `assist-mcp` is installed: what `initialize` reports as `serverInfo` and
`assist --version` prints (3.1)."""

from __future__ import annotations

from importlib import metadata

DISTRIBUTION = "assist-mcp"


def version() -> str:
    """The installed version; "0" when the package is not installed (run from a source tree)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0"
