"""Stands in for sounddevice on a machine without PortAudio: its import fails as the real
one's does there (sounddevice raises this OSError when it cannot find the library)."""

raise OSError("PortAudio library not found")
