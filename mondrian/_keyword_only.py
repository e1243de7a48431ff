"""Keyword-only estimator parameters, with positional calls deprecated rather than broken.

The estimators take ``n_estimators`` by position and every other parameter by keyword, as scikit-learn writes them:
``def __init__(self, n_estimators=10, *, lifetime=np.inf, ...)``. Their parameters were once all positional, so
``keyword_only`` lets a call still pass the keyword-only ones by position, in the order of the signature (the order
they had then), with a ``FutureWarning`` naming them. The signature ``inspect.signature`` sees (and scikit-learn's
``get_params`` and ``clone`` read) is the keyword-only one.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

# Parameters added after the constructors became keyword-only (last in their signatures): never taken by position.
NEVER_POSITIONAL = frozenset({"max_nodes"})


def keyword_only(init: Callable[..., None]) -> Callable[..., None]:
    """Return ``init`` accepting its keyword-only parameters by position too, with a ``FutureWarning``.

    Parameters
    ----------
    init : callable
        An ``__init__`` method whose parameters after the positional ones are keyword-only.

    Returns
    -------
    callable
        The method as it was, but for a call passing more positional arguments than ``init`` takes: the extra ones
        are given, in order, to the keyword-only parameters (a ``FutureWarning`` names them), as the parameters were
        ordered when they were all positional (those added since, ``NEVER_POSITIONAL``, left out).
    """
    parameters = inspect.signature(init).parameters.values()
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD][1:]  # self aside
    n_positional = len(positional)
    keywords = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.name not in NEVER_POSITIONAL]

    @functools.wraps(init)
    def init_with_positional(self, *args: Any, **kwargs: Any) -> None:
        extra = args[n_positional:]
        if not extra or len(extra) > len(keywords):
            return init(self, *args, **kwargs)  # a call init takes, or one it refuses as Python does
        names = keywords[: len(extra)]
        twice = [name for name in names if name in kwargs]
        if twice:
            raise TypeError(f"{type(self).__name__}() got multiple values for argument {twice[0]!r}")
        warnings.warn(
            f"{type(self).__name__}() takes {', '.join(positional)} by position and its other parameters by keyword: "
            f"pass {', '.join(f'{name}=...' for name in names)} (passing {', '.join(names)} by position is deprecated "
            "and will be an error in a future release)",
            FutureWarning,
            stacklevel=2,
        )
        return init(self, *args[:n_positional], **dict(zip(names, extra, strict=True)), **kwargs)

    return init_with_positional
