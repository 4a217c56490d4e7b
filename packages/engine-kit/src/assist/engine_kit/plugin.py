"""The kit's pytest plugin, loaded through the `pytest11` entry point whenever assist-engine-kit
is installed: the kits' asserts are rewritten like a test's own, so a failed check shows what
it compared instead of a bare AssertionError."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("assist.engine_kit.voices", "assist.engine_kit.recognisers")
