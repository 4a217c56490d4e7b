"""The ending signals set the stop event even when one arrives inside `Event.wait`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SIGNAL_INSIDE_WAIT = textwrap.dedent(
    """
    import signal, threading
    from assist.app.stop_signals import stop_on_signals

    stop = threading.Event()
    stop_on_signals(stop, ["SIGUSR1"])
    handler = signal.getsignal(signal.SIGUSR1)
    # Event.wait holds this lock at moments; a signal's handler may run on the main thread then.
    with stop._cond:
        handler(signal.SIGUSR1, None)
    print("set" if stop.wait(10) else "not set")
    """
)


def test_a_signal_arriving_while_the_main_thread_holds_the_events_lock_still_sets_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_INSIDE_WAIT], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "set", done.stderr


def test_a_real_sigterm_ends_a_wait_on_the_main_thread() -> None:
    script = textwrap.dedent(
        """
        import os, signal, threading
        from assist.app.stop_signals import stop_on_signals

        stop = threading.Event()
        stop_on_signals(stop)
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
        print("stopped" if stop.wait(30) else "still waiting")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "stopped", done.stderr
