"""The server's voice for one watch: which helper runs, and what a failure leads to.

Behaviour 9.4. A `Voice` starts its helper on demand, speaks one line at a time, restarts a
helper that crashed and asks it once more, and kills one that hangs. What each failure leads to
(counting, the one switch to the fallback engine, giving speech up for the rest of the watch) is
`assist.core.supervision`'s table; this module tells it what happened and does what it says.
The process itself is `helper_process`; the engine and command line are `helper_command`.

This runs in the MCP server, which never imports numpy or an engine: only the standard
library and `assist.core` are used here.

The start-up limit (9.3's 1800 s) can be set with `ASSIST_VOICE_READY_WITHIN`, in seconds: a
machine whose voice was prepared ahead (`assist doctor --prepare`) may want a watch to fail fast
instead of waiting half an hour, and a slow link may need longer for a first download.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from assist.app.engines import load_plugins
from assist.app.logs import log
from assist.core import environment, refusals
from assist.core.engines import VOICES, EngineSpec
from assist.core.files import READY_WITHIN_S, SAY_WITHIN_S
from assist.core.plugins import Registry
from assist.core.settings import VoiceChoices
from assist.core.supervision import MAX_FAILURES, Next, Outcome, VoiceState, step, streak_text
from assist.core.tones import NEUTRAL
from assist.mcp.speech.helper_command import (
    EnginePlan,
    engine_packages,
    helper_arguments,
    helper_program,
    plan_engines,
    why_not_here,
)
from assist.mcp.speech.helper_process import (
    QUIT_WITHIN_S,
    HelperError,
    HelperProcess,
    SayResult,
    kill_all_helpers,
)

__all__ = [
    "QUIT_WITHIN_S",
    "READY_WITHIN_VARIABLE",
    "SayResult",
    "Voice",
    "VoiceFailure",
    "kill_all_helpers",
    "ready_limit",
]

READY_WITHIN_VARIABLE = environment.VOICE_READY_WITHIN.name
"""Seconds a helper gets to send `ready`; unset or empty means `READY_WITHIN_S` (1800)."""


def ready_limit(environ: Mapping[str, str]) -> float:
    """The start-up limit in seconds: `ASSIST_VOICE_READY_WITHIN` when it is a positive
    number, else 1800 (a value that is not gives one warning on stderr)."""
    value = environ.get(READY_WITHIN_VARIABLE)
    return _seconds_or_default(value) if value else READY_WITHIN_S


@functools.cache
def _seconds_or_default(value: str) -> float:
    """Cached, so a bad value is reported once per process, not at every watch."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if math.isfinite(seconds) and seconds > 0:
        return seconds
    log.warning(
        f"{READY_WITHIN_VARIABLE}={value!r} is not a positive number of seconds, so a voice "
        f"helper gets the usual {READY_WITHIN_S:g} s to start; set it to, say, 600 or unset it"
    )
    return READY_WITHIN_S


class VoiceFailure(Exception):
    """A line was not spoken. `chain` holds the failure texts, outermost first; `given_up`
    says speech is now off for the rest of this watch."""

    def __init__(self, *chain: str, given_up: bool = False) -> None:
        super().__init__(": ".join(chain))
        self.chain: tuple[str, ...] = chain
        self.given_up = given_up


class Voice:
    """The helper of one watch. `say` blocks until the line has played and may run in a
    worker thread while `stop_line` or `close` are called from another.

    `settings` are the `voice` settings of the moment the watch began. `program` replaces the
    `assist-voice` command (tests use it for fake helpers); `registry` and `memory` replace
    the installed plugins and the machine's memory for the engine choice. `ready_within`
    None means `ready_limit(environ)`. `span` is what a switch to the fallback lasts for, as
    the warning names it: a watch, or a command typed at a terminal. `own_lines` names the
    assistant of a conversation, whose own lines (greeting, fillers, goodbyes) the helper
    renders while idle, so they start from memory (behaviour 16.2).
    """

    def __init__(
        self,
        settings: VoiceChoices,
        *,
        no_play: bool = False,
        save_dir: str | os.PathLike[str] | None = None,
        config_dir: Path | None = None,
        cache_root: str | None = None,
        environ: Mapping[str, str] | None = None,
        program: Sequence[str] | None = None,
        registry: Registry[EngineSpec] | None = None,
        memory: int | None = None,
        ready_within: float | None = None,
        say_within: float = SAY_WITHIN_S,
        max_failures: int = MAX_FAILURES,
        span: str = "this watch",
        own_lines: str | None = None,
    ) -> None:
        self._settings = settings
        self._span = span
        self._own_lines = own_lines
        self._no_play = no_play
        self._save_dir = save_dir
        self._config_dir = config_dir
        self._program = list(program) if program is not None else helper_program(environ=environ)
        environ = os.environ if environ is None else environ
        self._registry = registry if registry is not None else load_plugins(VOICES, environ)
        self._plan: EnginePlan = plan_engines(
            settings, self._registry, memory=memory, cache_root=cache_root
        )
        self._ready_within = ready_limit(environ) if ready_within is None else ready_within
        self._say_within = say_within

        self._lock = threading.Lock()  # guards everything below; never held while waiting
        self._speaking = threading.Lock()  # one line at a time
        self._state: VoiceState | None = None  # None: no engine can run here
        if self._plan.engine is not None:
            self._state = VoiceState(
                self._plan.engine, self._plan.fallback, max_failures=max_failures
            )
        self._helper: HelperProcess | None = None
        self._given_up: str | None = None
        self._closed = False
        self._in_line = False
        self._stop_asked = False
        self._load_ms: int | None = None

    @property
    def engine(self) -> str | None:
        """The engine speaking now (the fallback after a switch); None if none can run here."""
        return self._state.engine if self._state is not None else None

    @property
    def fallback(self) -> str | None:
        """The engine switched to once when the chosen one fails; None for no fallback."""
        return self._plan.fallback

    @property
    def ready_within(self) -> float:
        """Seconds a helper gets to send `ready` before it counts as a failed start."""
        return self._ready_within

    @property
    def load_ms(self) -> int | None:
        """How long the last helper to start took to load its engine, by its own `ready`."""
        return self._load_ms

    @property
    def failures(self) -> int:
        """Consecutive failures of the current engine."""
        return self._state.failures if self._state is not None else 0

    @property
    def given_up(self) -> bool:
        return self._given_up is not None

    @property
    def helper_pid(self) -> int | None:
        """The running helper's pid, if one runs."""
        helper = self._helper
        return helper.pid if helper is not None and helper.running else None

    def start(self) -> None:
        """Make sure a helper is running and ready (a watch starts it for the notice)."""
        with self._speaking:
            self._running_helper()

    def say(self, text: str, emotion: str = NEUTRAL) -> SayResult:
        """Speak one line and return when it has played or been cut off; raises VoiceFailure."""
        with self._speaking:
            with self._lock:
                self._in_line = True
                self._stop_asked = False
            try:
                return self._say(text, emotion)
            finally:
                with self._lock:
                    self._in_line = False

    def stop_line(self) -> bool:
        """Cut off the line being spoken, if any; its `say` returns with `cut_off` True.
        Returns whether a line was being spoken."""
        with self._lock:
            if not self._in_line:
                return False
            self._stop_asked = True
            if self._helper is not None:
                self._helper.stop_line()
            return True

    def pause_line(self) -> bool:
        """Hold the line being spoken where it is (16.3); its `say` goes on waiting. Returns
        whether a line was being spoken."""
        with self._lock:
            if not self._in_line:
                return False
            return self._helper is not None and self._helper.pause_line()

    def resume_line(self) -> bool:
        """Go on with a paused line from where it paused. Returns whether a line was being
        spoken."""
        with self._lock:
            if not self._in_line:
                return False
            return self._helper is not None and self._helper.resume_line()

    def close(self, quit_within: float = QUIT_WITHIN_S) -> None:
        """Cut off any line, ask the helper to quit, kill it after `quit_within` seconds (at
        once with 0, for a helper that hangs). No line is said after."""
        self.stop_line()
        with self._lock:
            self._closed = True
            helper, self._helper = self._helper, None
        if helper is not None:
            helper.stop(quit_within)

    def __enter__(self) -> Voice:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _say(self, text: str, emotion: str) -> SayResult:
        helper = self._running_helper()
        try:
            return self._speak_once(helper, text, emotion)
        except HelperError as error:
            self._after_failed_line(helper, error)
        helper = self._running_helper()
        try:
            return self._speak_once(helper, text, emotion)
        except HelperError as error:
            self._after_failed_line(helper, error, retry=True)
            raise AssertionError("unreachable: a failed retry always raises") from error

    def _speak_once(self, helper: HelperProcess, text: str, emotion: str) -> SayResult:
        with self._lock:
            if self._stop_asked:
                return SayResult(first_audio_ms=None, audio_s=0.0, cut_off=True)
            request_id = helper.send_say(text, emotion)
        result = helper.wait_say(request_id, self._say_within)
        with self._lock:
            self._decide(Outcome.SPOKE, ())
        return result

    def _after_failed_line(
        self, helper: HelperProcess, error: HelperError, *, retry: bool = False
    ) -> None:
        """Decide what a failed line means; returns only when the line should be asked once
        more of a fresh helper (the first crash), else raises VoiceFailure."""
        if not error.timed_out and helper.running:  # an engine error: the helper is fine
            with self._lock:
                self._decide(Outcome.ENGINE_ERROR, error.chain)
            raise VoiceFailure(*error.chain) from None
        helper.kill()
        chain = error.chain
        if not (error.timed_out or retry or self._closed):
            log.warning(f"{error}; starting a fresh voice helper and asking once more")
        if retry:
            chain = ("asked once more after a crash, the voice failed again", *chain)
        with self._lock:
            if self._closed:
                raise VoiceFailure(_closed_text(), *chain) from None
            if error.timed_out:
                outcome = Outcome.HUNG
            else:
                outcome = Outcome.CRASHED_AGAIN if retry else Outcome.CRASHED
            if self._decide(outcome, chain) is not Next.RETRY:
                raise VoiceFailure(*chain) from None

    def _running_helper(self) -> HelperProcess:
        """The running helper, starting one (or the fallback) if there is none."""
        replaced: tuple[str, ...] = ()  # set when this call switched to the fallback
        while True:
            helper: HelperProcess | None = None
            with self._lock:
                self._refuse_if_over()
                if self._helper is not None and self._helper.running:
                    return self._helper
                if self._helper is not None:
                    self._helper.kill()  # it ended between lines; reap it and start afresh
                    log.warning(
                        f"the {self._helper.engine} voice helper had exited; starting a fresh one"
                    )
                    self._helper = None
                if self._state is None:
                    raise VoiceFailure(refusals.no_voice_engine(engine_packages()))
                engine = self._state.engine
                try:
                    helper = self._launch(engine)
                except HelperError as error:
                    failure = error
                else:
                    self._helper = helper
            if helper is not None:
                try:
                    ready = helper.wait_ready(self._ready_within)
                    self._load_ms = ready.load_ms
                    return helper
                except HelperError as error:
                    failure = error
            chain = failure.chain
            if replaced:
                chain = (*chain, f"it stood in for a voice that had failed: {': '.join(replaced)}")
            with self._lock:
                if self._closed:
                    raise VoiceFailure(_closed_text(), *chain) from None
                if self._decide(Outcome.FAILED_START, chain) is not Next.RETRY:
                    raise VoiceFailure(*chain) from None  # no switch: this call cannot go on
            replaced = chain

    def _launch(self, engine: str) -> HelperProcess:
        """Spawn the helper for `engine`; raises HelperError when it cannot run here."""
        reason = why_not_here(engine, self._registry)
        if reason is not None:
            raise HelperError(f"the {engine} voice cannot run on this machine", reason)
        arguments = helper_arguments(
            engine,
            self._settings,
            designs_voices=self._registry.specs[engine].designs_voices,
            fallback=self._state is not None and self._state.switched,
            config_dir=self._config_dir,
            no_play=self._no_play,
            save_dir=self._save_dir,
            own_lines=self._own_lines,
        )
        return HelperProcess([*self._program, *arguments], engine)

    def _decide(self, outcome: Outcome, chain: tuple[str, ...]) -> Next:
        """Apply `outcome` to the state (lock held) and note a switch; raises VoiceFailure when
        speech is given up, else returns what to do next."""
        assert self._state is not None
        done = step(self._state, outcome)
        failed, self._state = self._state.engine, done.state
        if done.switched_to is not None:
            log.warning(
                f"the {failed} voice failed ({': '.join(chain)}); "
                f"switching to the {done.switched_to} voice for the rest of {self._span}"
            )
        if done.next is Next.GIVE_UP:
            self._given_up = refusals.gave_up(len(done.state.streak))
            log.warning(f"{self._given_up} ({streak_text(done.state.streak)})")
            raise VoiceFailure(*chain, self._given_up, given_up=True)
        return done.next

    def _refuse_if_over(self) -> None:
        if self._closed:
            raise VoiceFailure(_closed_text())
        if self._given_up is not None:
            raise VoiceFailure(self._given_up, given_up=True)


def _closed_text() -> str:
    return "the voice was closed because the watch ended; start a new watch to speak again"
