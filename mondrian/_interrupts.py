"""Interrupts (Ctrl-C, SIGINT) during a learning call: it never leaves a model half-learnt.

Python raises KeyboardInterrupt in the main thread between two bytecodes, which in a learning call may fall between
two trees' kernels (some trees updated, the others not) or inside numba's glue around a kernel. A learning call
therefore runs with SIGINT's handler deferred (``interrupts_deferred``): an interrupt arriving meanwhile is recorded,
and the handler it was meant for (Python's: raise KeyboardInterrupt) runs when the call is whole again:

- at the call's end, if the call cannot undo what it learnt (a short call: milliseconds, or at most a few seconds;
  copying the model to undo it would cost more than learning): the call learnt all of its rows;
- at its next safe point (``safe_point``: between two trees, two blocks of rows), if the call keeps a copy of what it
  changes and restores it on failure (``rollback_ready``): the model is then exactly as before the call.

Only the main thread receives Python's signal handlers; a call from another thread runs as is (no interrupt can be
raised in it). Deferral costs two handler swaps (about 20 us), which only the calls that run several kernels pay.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any


class _Deferral:
    """The main thread's deferral: how deep in learning calls it is, the handler SIGINT had before, the interrupt
    that arrived meanwhile (the handler's arguments), and whether the call can roll back."""

    def __init__(self) -> None:
        self.depth = 0
        self.handler: Callable[[int, FrameType | None], Any] = signal.default_int_handler  # set by each deferral
        self.arrived: tuple[int, FrameType | None] | None = None
        self.rollback = False


_DEFERRAL = _Deferral()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _record(signum: int, frame: FrameType | None) -> None:
    """SIGINT's handler during a learning call: the interrupt is kept for later."""
    if _DEFERRAL.arrived is None:
        _DEFERRAL.arrived = (signum, frame)


def _deliver() -> None:
    """Run the deferred handler for the interrupt that arrived, if one did (KeyboardInterrupt, with Python's)."""
    arrived, _DEFERRAL.arrived = _DEFERRAL.arrived, None
    if arrived is not None:
        _DEFERRAL.handler(*arrived)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Run the block with SIGINT's Python handler deferred to its end (or to its safe points, see
    ``rollback_ready``). Nested blocks defer to the outermost's end; outside the main thread, or when SIGINT has no
    Python handler (ignored, or the process's default), the block runs as is."""
    if not _in_main_thread():
        yield
        return
    if _DEFERRAL.depth:
        _DEFERRAL.depth += 1
        try:
            yield
        finally:
            _DEFERRAL.depth -= 1
        return
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        yield
        return
    _DEFERRAL.handler, _DEFERRAL.depth = handler, 1
    signal.signal(signal.SIGINT, _record)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        _DEFERRAL.depth = 0
        _deliver()


@contextmanager
def rollback_ready() -> Iterator[None]:
    """Mark the block as one that restores the model when it raises: its safe points deliver a deferred interrupt
    at once, so that a long call stops promptly (and the model is restored)."""
    if not (_in_main_thread() and _DEFERRAL.depth):
        yield
        return
    before, _DEFERRAL.rollback = _DEFERRAL.rollback, True
    try:
        yield
    finally:
        _DEFERRAL.rollback = before


def watching() -> bool:
    """Whether the calling thread runs a call that can roll back (read once, then passed to worker threads)."""
    return _DEFERRAL.rollback and _in_main_thread()


def stopping(watched: bool) -> bool:
    """Whether the work of a watched call (``watching()`` in its thread) should stop: an interrupt arrived."""
    return watched and _DEFERRAL.arrived is not None


def safe_point() -> None:
    """A point where a call that can roll back may stop: a deferred interrupt's handler runs here (raising
    KeyboardInterrupt with Python's). Elsewhere, a no-op."""
    if _DEFERRAL.arrived is not None and watching():
        _deliver()
