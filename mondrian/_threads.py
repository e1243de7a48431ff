"""One model used from several threads: calls that only read it (predictions) run together, a call that learns runs
alone. Each model has its own guard, made on first use and kept beside the model, not in it (a copy or an unpickled
model gets its own); the compiled kernels release the GIL, so without it a learning call could grow a tree's arrays
while another thread's kernel reads them."""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable

_get_ident = threading.get_ident


class ModelGuard:
    """A readers-writer lock: any number of readers, or one writer. The writer's thread may read and learn again
    inside its call (a learning call that predicts, learn_one passing its sample to partial_fit), and a reader's may
    read again; a reader waits while another thread learns or waits to, so that readers one after the other never
    keep a learner waiting for ever, and a learner waits for the readers in flight."""

    __slots__ = ("_asleep", "_changed", "_depth", "_lock", "_readers", "_reading", "_waiting", "_writer")

    def __init__(self):
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # waited on with _lock held
        self._readers = 0
        self._reading: dict[int, int] = {}  # thread -> its nested reading calls
        self._writer: int | None = None  # the thread learning
        self._depth = 0  # its nested learning calls
        self._waiting = 0  # threads waiting to learn
        self._asleep = 0  # threads waiting, to read or to learn (none: nobody to wake)

    def acquire_read(self) -> None:
        me = _get_ident()
        with self._lock:  # a plain lock on the path without waiting: a model's one-sample calls take microseconds
            depth = self._reading.get(me)
            if depth is None and self._writer != me:
                while self._writer is not None or self._waiting:
                    self._sleep()
            self._reading[me] = 1 if depth is None else depth + 1
            self._readers += 1

    def release_read(self) -> None:
        me = _get_ident()
        with self._lock:
            self._readers -= 1
            depth = self._reading.pop(me)
            if depth > 1:
                self._reading[me] = depth - 1
            if not self._readers and self._asleep:
                self._changed.notify_all()

    def acquire_write(self) -> None:
        me = _get_ident()
        with self._lock:
            if self._writer == me:
                self._depth += 1
                return
            if me in self._reading:
                raise RuntimeError("a call that reads the model cannot learn inside it")
            self._waiting += 1
            try:
                while self._writer is not None or self._readers:
                    self._sleep()
            finally:
                self._waiting -= 1
            self._writer, self._depth = me, 1

    def release_write(self) -> None:
        with self._lock:
            self._depth -= 1
            if not self._depth:
                self._writer = None
                if self._asleep:
                    self._changed.notify_all()

    def _sleep(self) -> None:
        """Wait (with the lock held) until another thread wakes the sleepers."""
        self._asleep += 1
        try:
            self._changed.wait()
        finally:
            self._asleep -= 1


_GUARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> its guard, dropped with the model
_MAKING = threading.Lock()


def guard_of(model) -> ModelGuard:
    """The model's guard, made on its first guarded call."""
    found = _GUARDS.get(model)
    if found is None:
        with _MAKING:
            found = _GUARDS.setdefault(model, ModelGuard())
    return found


def _guarded(acquire: Callable, release: Callable) -> Callable:
    """A decorator running a method between ``acquire(guard)`` and ``release(guard)`` of its model's guard."""

    def decorate(method: Callable) -> Callable:
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            guard = guard_of(self)
            acquire(guard)
            try:
                return method(self, *args, **kwargs)
            finally:
                release(guard)

        return guarded

    return decorate


# A method that reads the model: it runs beside other readers, never beside a learning call.
reads = _guarded(ModelGuard.acquire_read, ModelGuard.release_read)
# A method that changes the model: it runs alone.
learns = _guarded(ModelGuard.acquire_write, ModelGuard.release_write)
