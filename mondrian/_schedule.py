"""The schedule of a tree's lifetime (Mondrian forests) or budget (BSP forests) over the points it has learnt: a fixed
value, or one increasing as scale * n^(1/(d+2)) after n points in d features (MGS17's lifetime lam_n, BSP's budget
tau_n), with the least number of points a block must hold to be split. ``value_at`` is the formula, for the kernels
and for Python alike."""

from mondrian._compile import kernel


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
