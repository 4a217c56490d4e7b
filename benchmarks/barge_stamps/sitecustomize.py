"""Monotonic stamps along the barge-in path, for `benchmarks/barge_split.py` only.

Put on PYTHONPATH with BARGE_STAMPS naming a file, every assist process (the server, its
listener, its voice helper) appends one JSON line per stamp to it: the listener's capture
callbacks and loud onsets and its waits for the reference, the server's reading of a loud
onset and its `pause` sent, the helper's `pause` acted on and every block of sound it writes.
CLOCK_MONOTONIC is one clock for every process of the machine, so the stamps compare. The
code measured is the real code; the patches only add a stamp around it.
"""

from __future__ import annotations

import importlib.abc
import json
import os
import sys
import time
from typing import Any

PATH = os.environ.get("BARGE_STAMPS")
_fd: int | None = None


def stamp(kind: str, **fields: Any) -> None:
    global _fd
    if _fd is None:
        _fd = os.open(PATH or os.devnull, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    line = {"k": kind, "t": time.monotonic(), "pid": os.getpid(), **fields}
    os.write(_fd, (json.dumps(line) + "\n").encode())


def _latency(stream: str, variable: str) -> None:
    """sounddevice's `stream` class opened at the latency `variable` names, if it is set."""
    latency = os.environ.get(variable)
    if latency:
        import functools

        import sounddevice

        value: Any = latency if latency in ("low", "high") else float(latency)
        setattr(sounddevice, stream, functools.partial(getattr(sounddevice, stream), latency=value))


def _sources(module: Any) -> None:
    block = os.environ.get("BARGE_CAPTURE_BLOCK_S")
    if block:
        module.BLOCK_S = float(block)
    _latency("InputStream", "BARGE_CAPTURE_LATENCY")
    callback = module.DeviceSource._callback

    def stamped(self: Any, indata: Any, frames: int, at: Any, status: Any) -> None:
        callback(self, indata, frames, at, status)
        stamp("block", frames=self._frames, rate=self.rate)

    module.DeviceSource._callback = stamped


def _onsets(module: Any) -> None:
    if os.environ.get("BARGE_FRAMES"):
        each = module.LoudOnsets.feed

        def seen(self: Any, frame: int, probability: float, level: float, needs: Any = None) -> Any:
            """Every frame the onset rule is given, and what it asked of it."""
            asked = needs or module.OnsetNeeds()
            stamp("frame", i=frame, p=probability, rms=level, np=asked.prob, nl=asked.level)
            return each(self, frame, probability, level, asked)

        module.LoudOnsets.feed = seen
    frames = os.environ.get("BARGE_ONSET_FRAMES")
    if frames:
        import attrs

        feed = module.LoudOnsets.feed

        def run_of(
            self: Any, frame: int, probability: float, level: float, needs: Any = None
        ) -> Any:
            """Every loud onset a run of BARGE_ONSET_FRAMES, whatever the canceller asks."""
            needs = module.OnsetNeeds() if needs is None else needs
            return feed(self, frame, probability, level, attrs.evolve(needs, frames=int(frames)))

        module.LoudOnsets.feed = run_of
    loud = module.Signals.loud

    def stamped(self: Any, track: str, ms: int, level: float) -> None:
        stamp("loud", ms=ms)
        loud(self, track, ms, level)

    module.Signals.loud = stamped


def _ring(module: Any) -> None:
    wait_for = module.ReferenceRing.wait_for

    def stamped(self: Any, until: float, within: float) -> bool:
        began = time.monotonic()
        came = wait_for(self, until, within)
        waited = time.monotonic() - began
        if waited > 0.001:
            stamp("ref_wait", s=waited, came=came)
        return came

    module.ReferenceRing.wait_for = stamped


def _conversation(module: Any) -> None:
    on_event = module.Conversation.on_event

    def stamped(self: Any, event: dict[str, Any]) -> None:
        if event.get("event") == "loud":
            stamp("srv_loud", ms=event.get("ms"))
        on_event(self, event)

    module.Conversation.on_event = stamped


def _helper_process(module: Any) -> None:
    ask = module.HelperProcess._ask

    def stamped(self: Any, message: Any) -> bool:
        stamp("srv_ask", what=message.__name__)
        return ask(self, message)

    module.HelperProcess._ask = stamped


def _service(module: Any) -> None:
    hold = module.Service._hold

    def stamped(self: Any, request_id: object, pause: bool) -> None:
        stamp("hlp_hold", pause=pause)
        hold(self, request_id, pause)
        stamp("hlp_held", pause=pause)

    module.Service._hold = stamped


class _Stream:
    """The player's output stream, each write of sound stamped before and after."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def write(self, data: Any) -> Any:
        sound = bool(data.any())
        if sound:
            stamp("w0", n=len(data))
        underflow = self._stream.write(data)
        if sound:
            stamp("w1", n=len(data))
        return underflow


def _player(module: Any) -> None:
    block = os.environ.get("BARGE_PLAYER_BLOCK_S")
    if block:
        module.BLOCK_S = float(block)
    step = os.environ.get("BARGE_PLAYER_STEP_S")
    if step:
        module.STEP_S = float(step)
    _latency("OutputStream", "BARGE_OUT_LATENCY")
    init = module.SpeakerPlayer.__init__

    def stamped(self: Any, stream: Any, sample_rate: int, tee: Any = None) -> None:
        stamp("player", rate=sample_rate, latency=float(stream.latency), block_s=module.BLOCK_S)
        init(self, _Stream(stream), sample_rate, tee)

    module.SpeakerPlayer.__init__ = stamped


def _tee(module: Any) -> None:
    ran_dry = module.ReferenceTee.ran_dry

    def stamped(self: Any) -> None:
        stamp("dry")
        ran_dry(self)

    module.ReferenceTee.ran_dry = stamped


def _devices(module: Any) -> None:
    if os.environ.get("BARGE_DEVICE_RATE"):
        module.capture_rate = lambda device: device.rate  # resampled in the listener, as before


def _filters(module: Any) -> None:
    lead = os.environ.get("BARGE_LEAD_PROB")
    if lead:
        module.Aec3Filter.onset_lead_prob = None if lead == "none" else float(lead)
    sure = os.environ.get("BARGE_SURE_LEVEL")
    if sure:
        module.Aec3Filter.onset_sure_level = None if sure == "none" else float(sure)


PATCHES = {
    "assist.listen.echo_filters": _filters,
    "assist.listen.devices": _devices,
    "assist.mcp.voice.reference_tee": _tee,
    "assist.listen.sources": _sources,
    "assist.listen.onsets": _onsets,
    "assist.listen.echo_ring": _ring,
    "assist.mcp.server.conversation": _conversation,
    "assist.mcp.speech.helper_process": _helper_process,
    "assist.mcp.voice.service": _service,
    "assist.mcp.voice.player": _player,
}


class _Finder(importlib.abc.MetaPathFinder):
    """Patches each module of PATCHES once it has been executed."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in PATCHES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        execute = loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            PATCHES[name](module)

        loader.exec_module = exec_module
        return spec


if PATH:
    sys.meta_path.insert(0, _Finder())
