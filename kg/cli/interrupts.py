"""Ctrl-C ends a command that only reads, at once, even while it waits on a native call.

Python handles a signal in the main thread, between two bytecodes; while that thread waits on
a call into native code that ignores signals (Oxigraph evaluating a SPARQL query), Ctrl-C does
nothing until the call returns. :func:`stop_at_once` watches for Ctrl-C from a second thread,
woken through :func:`signal.set_wakeup_fd` (which the signal's C handler writes to whatever the
main thread is doing): it gives the main thread a short grace to raise KeyboardInterrupt as
usual, and unwind, and if it has not, it says so on stderr and ends the process with status 130.
Only for commands that write nothing: a process ended this way runs no ``finally`` block.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

GRACE = 0.5
"""Seconds the main thread has to handle Ctrl-C itself."""

INTERRUPTED = 130


@contextmanager
def stop_at_once(*, message: str = "kg: interrupted", grace: float = GRACE) -> Iterator[None]:
    """Within the block, Ctrl-C ends the process within ``grace`` seconds, printing ``message``
    on stderr, unless the main thread handles it (KeyboardInterrupt) first.

    Does nothing outside the main thread, which alone receives signals.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    handled = threading.Event()

    def watch() -> None:
        try:
            while signals := os.read(read_end, 16):  # b"" once the block has ended
                if signal.SIGINT in signals and not handled.wait(grace):
                    sys.stderr.write(message + "\n")
                    sys.stderr.flush()
                    os._exit(INTERRUPTED)
        finally:
            os.close(read_end)

    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=watch, name="kg-interrupt-watch", daemon=True).start()
    try:
        yield
    except KeyboardInterrupt:
        handled.set()
        raise
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)
