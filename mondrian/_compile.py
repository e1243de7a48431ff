"""How the kernels are compiled (``kernel``), and the first compile, announced. numba compiles a kernel the first time
it runs on a machine (4 to 8 s for an estimator's first fit, about 30 s for the BSP forests, measured by ``make bench``)
and loads it from its cache afterwards; a user waiting for a first ``fit`` is told so once per process, on the
``mondrian`` logger at WARNING (shown by Python's last-resort handler when logging is not configured;
``logging.getLogger("mondrian").setLevel(logging.ERROR)`` silences it).
"""

import logging
import os

import numba

logger = logging.getLogger("mondrian")
_announced = False


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


def drives(dispatcher):
    """Mark a Python function as the driver of ``dispatcher`` (a kernel it calls), which its first call compiles:
    ``announce_first_compile`` reads the kernel's state."""

    def mark(driver):
        driver.kernel = dispatcher
        return driver

    return mark


def _cached(dispatcher) -> bool:
    """Whether numba has compiled ``dispatcher`` (or the kernel a driver runs, ``drives``) in this process or has it in
    its cache on disk (its index file)."""
    dispatcher = getattr(dispatcher, "kernel", dispatcher)
    if dispatcher.signatures:
        return True
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return index is None or os.path.exists(index)


def announce_first_compile(dispatcher, estimator: str) -> None:
    """Log, once per process, that the kernels ``estimator`` runs are about to be compiled, if ``dispatcher`` (its
    main kernel) is neither compiled in this process nor cached on disk."""
    global _announced
    if _announced or _cached(dispatcher):
        return
    _announced = True
    logger.warning(
        "mondrian: compiling the kernels of %s for their first run on this machine (about a minute at most; "
        "numba caches them for the next runs)",
        estimator,
    )
