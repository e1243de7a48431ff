"""One model used from several threads: its public calls take turns. Each model has a reentrant lock (a call may call
another: learn_one passes its sample to partial_fit, predict_one asks predict_proba_one), made on first use and kept
beside the model, not in it (a copy or an unpickled model gets its own). The compiled kernels release the GIL, so
without it a learning call could grow a tree's arrays while another thread's kernel reads them, and two one-sample
calls would share the scratch room their kernels write.

Calls take turns rather than letting predictions run together: a readers-writer lock cost about 10 us per
one-sample predict-and-learn pair (measured in place, its Python bookkeeping on every call, 13% of the pair), a
reentrant lock about 1 us. Threads that need predictions in parallel each take a copy (``copy.deepcopy``), and every
call runs its trees on ``n_jobs`` threads.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable

_TURNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> its lock, dropped with the model
_MAKING = threading.Lock()


def turns_of(model) -> threading.RLock:
    """The model's lock, made on its first guarded call."""
    found = _TURNS.get(model)
    if found is None:
        with _MAKING:
            found = _TURNS.setdefault(model, threading.RLock())
    return found


def takes_turns(method: Callable) -> Callable:
    """A public method of a model that runs alone among the model's guarded calls (those of other threads wait)."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        with _TURNS.get(self) or turns_of(self):
            return method(self, *args, **kwargs)

    return guarded
