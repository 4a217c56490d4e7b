"""A plugin's `check` finds its libraries without importing them (assist.app.libraries)."""

from __future__ import annotations

import sys

from assist.app.libraries import missing_libraries


def test_installed_libraries_give_no_reason():
    assert missing_libraries(("json", "attrs"), "assist-voice-toy") is None


def test_missing_libraries_are_named_with_the_distribution_to_reinstall():
    reason = missing_libraries(("json", "no_such_lib_a", "no_such_lib_b"), "assist-voice-toy")
    assert reason == "missing no_such_lib_a, no_such_lib_b; reinstall assist-voice-toy"


def test_looking_for_a_library_does_not_import_it():
    assert "this" not in sys.modules  # the stdlib's Zen: importing it would print
    assert missing_libraries(("this",), "assist-voice-toy") is None
    assert "this" not in sys.modules
