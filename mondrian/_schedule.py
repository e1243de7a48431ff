"""The schedule of a tree's lifetime (Mondrian forests) or budget (BSP forests) over the points it has learnt: a fixed
value, or one increasing as scale * n^(1/(d+2)) after n points in d features (MGS17's lifetime lam_n, BSP's budget
tau_n), with the least number of points a block must hold to be split. ``value_at`` is the formula, for the kernels
and for Python alike."""

from __future__ import annotations

from typing import NamedTuple

from mondrian._compile import kernel
from mondrian._validation import INCREASING


@kernel
def value_at(n_points, scale, exponent):
    """scale * n^exponent, a schedule's value after n points (exponent 0: the fixed value ``scale``)."""
    return scale * float(n_points) ** exponent


@kernel
def increasing_exponent(n_features):
    """1/(d+2), the exponent of the increasing schedule in d features (MGS17; BSP's experiments)."""
    return 1.0 / (n_features + 2)


@kernel
def lifetime_at(n_points, scale, n_features):
    """lam_n = scale * n^(1/(d+2)), MGS17's schedule (its experiments use scale 1)."""
    return value_at(n_points, scale, increasing_exponent(n_features))


class Schedule(NamedTuple):
    """A forest's lifetime or budget setting, as its trees were started with (``partial_fit`` refuses a change).

    ``scale`` is the fixed value (inf allowed), or the multiplier of the increasing schedule; ``min_split`` the least
    number of points a block must hold to be split by an increasing lifetime (2: any block with a range).
    """

    scale: float
    increasing: bool = False
    min_split: int = 2

    @classmethod
    def fixed(cls, value: float) -> Schedule:
        """A lifetime or budget that does not change with the points."""
        return cls(float(value))

    @classmethod
    def growing(cls, scale: float, min_split: int = 2) -> Schedule:
        """scale * n^(1/(d+2)) after n points in d features, splitting blocks of at least ``min_split`` points."""
        return cls(float(scale), True, int(min_split))

    def exponent(self, n_features: int) -> float:
        """The exponent of n in d features: 1/(d+2), or 0 for a fixed value."""
        return increasing_exponent(n_features) if self.increasing else 0.0

    def at(self, n_points: int, n_features: int) -> float:
        """The value after n points in d features (0 before any point when it increases)."""
        return value_at(n_points, self.scale, self.exponent(n_features))

    def __deepcopy__(self, memo) -> Schedule:
        """The schedule itself (a value): a copied forest's trees keep sharing their forest's, as when pickled."""
        return self

    def settings(self) -> tuple:
        """The schedule as the constructor's parameters set it, in their order: ("increasing", scale, min_split), or
        the fixed value alone."""
        return (INCREASING, self.scale, self.min_split) if self.increasing else (self.scale,)
