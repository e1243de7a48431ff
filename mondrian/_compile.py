"""How the kernels are compiled (``kernel``), and a compile, announced. numba compiles a kernel the first time it runs
on a machine and loads it from its cache afterwards: ``make bench`` measured an estimator's first fit in a fresh process
at 6.5 to 11.6 s with an empty cache for the Mondrian, AMF and partition forests, 28 s for the online random forest and
52 to 54 s for the BSP forests, and 2.4 to 4.0 s once cached (2 cores; results/BENCHMARKS.md, "The first fit"); longer
on a loaded machine. When numba starts compiling one of the library's kernels, the user is told so once per process
and estimator, on the ``mondrian`` logger at WARNING (shown by Python's last-resort handler when logging is not
configured; ``logging.getLogger("mondrian").setLevel(logging.ERROR)`` silences it).
"""

import logging
import sys
from types import FrameType

import numba
import numba.core.event
from sklearn.base import BaseEstimator

logger = logging.getLogger("mondrian")
_announced: set[str] = set()  # what the compile notice named in this process (``_announce``)


def kernel(function=None, *, inline="never", refcounts=True):
    """``numba.njit`` as the library compiles its kernels: cached on disk, releasing the GIL, and without the C callback
    wrapper numba otherwise compiles beside every function (for ``ctypes`` and ``cfunc`` callers, which the library
    never has; about 5% of the BSP forests' cold first fit). ``@kernel``, ``@kernel(inline="always")``, or
    ``@kernel(refcounts=False)``.

    ``refcounts=False`` compiles the kernel without numba's reference counting of arrays (its ``_nrt`` option), for
    loops over points: each inlined helper that takes a tree binds its arrays (ten; twenty-one for BSP), and numba's
    pass that removes redundant counts leaves most of them in a loop body that large (AMF's learning made about 56
    atomic increments and as many decrements per point and tree; without them its online loop took 13% less time).
    Such a kernel cannot allocate (numba refuses to compile ``np.empty`` there), must not keep an array that a call
    which is not inlined returns to it (it would never be released), and must not return an array
    (``tests/mondrian/test_refcounts.py`` checks that nothing leaks). The option is set on every kernel, never
    inherited: numba otherwise compiles a kernel first called from one without counting the same way, whatever the
    kernel does.
    """
    options = {"cache": True, "nogil": True, "no_cfunc_wrapper": True, "inline": inline, "_nrt": refcounts}
    return numba.njit(**options) if function is None else numba.njit(function, **options)


class _FirstCompile(numba.core.event.Listener):
    """Announces a compile of the library's kernels as numba starts it: numba signals one (its ``numba:compile``
    event) only when neither this process nor its cache on disk holds the kernel for those argument types, so the
    notice follows whatever kernels a call runs."""

    def on_start(self, event):
        function = getattr(event.data.get("dispatcher"), "py_func", None)
        if (getattr(function, "__module__", None) or "").startswith("mondrian."):  # None: a function made by exec
            _announce(_caller())

    def on_end(self, event):
        pass


def _caller() -> str:
    """What the user called that runs the kernel being compiled: the innermost of the library's estimators with a
    method on this thread's stack (its class), else the outermost function of a public module of the library
    (``sample_mondrian``, ``MondrianTree.apply``), else "mondrian"."""
    called = "mondrian"
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, BaseEstimator) and any(c.__module__.startswith("mondrian.") for c in type(owner).__mro__):
            return type(owner).__name__
        module = frame.f_globals.get("__name__", "")
        if module.startswith("mondrian.") and not module.startswith("mondrian._"):
            called = frame.f_code.co_qualname
        frame = frame.f_back
    return called


def _announce(caller: str) -> None:
    """Log, once per process for each ``caller``, that its kernels are being compiled."""
    if caller in _announced:
        return
    _announced.add(caller)
    logger.warning(
        "mondrian: compiling the kernels of %s, which numba's cache does not hold yet (this can take a minute or more "
        "on a slow machine; numba caches them for the next runs)",
        caller,
    )


numba.core.event.register("numba:compile", _FirstCompile())
