"""The kit's pytest plugin, loaded through the `pytest11` entry point whenever assist-engine-kit
is installed: the kits' asserts are rewritten like a test's own, so a failed check shows what
it compared instead of a bare AssertionError; and the kit's fixtures (`served_folder`) are
offered to every test."""

from __future__ import annotations

import pytest
from assist.engine_kit.served import served_folder

__all__ = ["served_folder"]

pytest.register_assert_rewrite("assist.engine_kit.voices", "assist.engine_kit.recognisers")
