"""What every figure's claims must be, whatever they say: keyed (a snake_case key, unique within the figure) and of
a known kind."""

import re

from experiments.figures import KINDS

SNAKE_CASE = re.compile(r"[a-z0-9]+(_[a-z0-9]+)*")


def assert_keyed(claims) -> None:
    """Each claim has a non-empty snake_case key, unique among ``claims`` (one figure's), and a valid kind."""
    keys = [c.key for c in claims]
    assert claims and all(SNAKE_CASE.fullmatch(key) for key in keys), keys
    assert len(set(keys)) == len(keys), keys
    assert all(c.kind in KINDS for c in claims), [c.kind for c in claims]
