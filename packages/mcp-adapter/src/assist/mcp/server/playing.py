"""Saying one line while the watch goes on (behaviour 3.6): the line plays in a worker thread
while the settings are re-read every poll interval, and it is cut off when the assistant is
switched off or the watch is left."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from assist.core.settings import Settings
from assist.core.speech import SpeechOk
from assist.mcp.speech.supervisor import SayResult, Voice, VoiceFailure


async def play(
    voice: Voice,
    line: SpeechOk,
    *,
    left: anyio.Event,
    poll_s: float,
    load_settings: Callable[[], Settings],
) -> tuple[SayResult | VoiceFailure, bool]:
    """Speak the line in a worker thread; meanwhile re-read the settings every poll
    interval and cut the line off if the assistant is switched off (ours, 3.6).

    A watch left meanwhile (`left` set) cuts the line off too: leaving sends `stop` at once,
    and the stop is sent again at each look in case it came before the line had reached the
    helper (a stop for no line in flight is dropped)."""
    done = anyio.Event()
    outcome: list[SayResult | VoiceFailure] = []

    async def say() -> None:
        try:
            outcome.append(await anyio.to_thread.run_sync(voice.say, line.text, line.emotion))
        except VoiceFailure as failure:
            outcome.append(failure)
        finally:
            done.set()

    switched_off = False
    async with anyio.create_task_group() as group:
        group.start_soon(say)
        while not done.is_set():
            with anyio.move_on_after(poll_s):
                await done.wait()
            if done.is_set():
                break
            if left.is_set():
                voice.stop_line()
                continue
            if switched_off:
                continue
            settings = await anyio.to_thread.run_sync(load_settings)
            if not settings.assistant.enabled:
                switched_off = True
                voice.stop_line()
    return outcome[0], switched_off
