"""theory-leaves and theory-cell on the process protocols' own runs: Propositions 1 and 2 hold on them, Corollary 1's
printed moment bound fails where the law says it must, the points draw from streams of their own, the claims are
keyed, and they fail on numbers that contradict the propositions."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from claim_checks import assert_keyed

from experiments.figures import CLAIM, theory_cell, theory_leaves
from experiments.protocols import process
from experiments.tracking import RunRecord


def as_run(result, protocol_run: dict) -> RunRecord:
    return RunRecord("r", "r", {"protocol": {"run": protocol_run}, "seed": 0}, result.summary, result.curves,
                     result.tables)  # fmt: skip


def leaf_runs() -> list[RunRecord]:
    settings = [{"dim": dim, "lifetime": lifetime, "replicates": 300} for dim in (1, 2) for lifetime in (0.5, 2.0)]
    return [as_run(process.leaf_count(**s, seed=0), s) for s in settings]


def test_leaves_hold_on_the_process_and_fail_on_a_wrong_mean():
    runs = leaf_runs()
    claims = theory_leaves.claims(runs, {})
    assert_keyed(claims)
    assert [(c.key, c.kind, c.passed) for c in claims] == [
        ("leaves_within_intervals", CLAIM, True),
        ("leaves_jointly", CLAIM, True),
    ], claims
    plt.close(theory_leaves.plot(runs, {}).figure)
    runs[0].metrics["mean_leaves"] += 5 * runs[0].metrics["se_leaves"]  # one point off by 5 SE: beyond Bonferroni
    claims = theory_leaves.claims(runs, {})
    assert not claims[0].passed and claims[0].exceptions == [claims[0].exceptions[0]], claims[0]
    for run in runs:
        run.metrics["mean_leaves"] *= 1.5
    assert not any(c.passed for c in theory_leaves.claims(runs, {}))


def test_each_point_draws_from_its_own_stream():
    """Two points of a grid run with the same seed do not share their draws (their counts are uncorrelated over the
    replicates); the same point with the same seed draws the same partitions."""
    first, other_lifetime, other_dim = (
        process.leaf_count(dim, lifetime, 400, seed=0).tables["counts"]["n_leaves"].to_numpy()
        for dim, lifetime in ((1, 2.0), (1, 4.0), (2, 2.0))
    )
    for other in (other_lifetime, other_dim):
        assert abs(np.corrcoef(first, other)[0, 1]) < 0.2  # one shared stream gave +0.5 to +0.7 here
    np.testing.assert_array_equal(first, process.leaf_count(1, 2.0, 400, seed=0).tables["counts"]["n_leaves"])
    assert not np.array_equal(first, process.leaf_count(1, 2.0, 400, seed=1).tables["counts"]["n_leaves"])
    streams = [process.point_stream(0, "cell_law", 2, 8.0, *x).integers(2**62) for x in ((0.5, 0.5), (0.3, 0.6))]
    assert streams[0] != streams[1]


def cell_run(point, lifetime: float = 5.0, replicates: int = 2000) -> RunRecord:
    dim = len(point)
    others = [[min(v + 0.05, 1.0) for v in point], [0.5] * dim]
    settings = {"dim": dim, "lifetime": lifetime, "point": list(point), "others": others, "replicates": replicates}
    return as_run(process.cell_law(**settings, seed=0), settings)


CELL_KEYS = [
    "side_law",
    "independent_sides",
    "same_cell_probability",
    "diameter_moment",
    "diameter_moment_corrected",
    "diameter_moment_exact",
    "diameter_tail",
]


def test_cell_law_holds_and_the_printed_moment_bound_fails_at_the_centre():
    """At lam = 5 the centre's E[D^2] is 4.54 d / lam^2 > 4d / lam^2: the printed (4.2) fails there, its corrected
    constant 6, the exact value, the law and the tail bound hold; at a corner (sides 0 on its faces) too."""
    runs = [cell_run([0.5, 0.5]), cell_run([0.0, 0.0]), cell_run([0.3])]
    claims = theory_cell.claims(runs, {})
    assert_keyed(claims)
    assert [c.key for c in claims] == CELL_KEYS
    verdicts = {c.key: c.passed for c in claims}
    assert verdicts == {key: key != "diameter_moment" for key in CELL_KEYS}, claims
    printed = claims[3]
    assert [e.split(":")[0] for e in printed.exceptions] == ["d2_x0p5_0p5_lam5"], printed.exceptions
    assert claims[4].weaker_of == "diameter_moment" and claims[4].quote == printed.quote
    assert all(c.kind == CLAIM and c.quote and c.where for c in claims)
    plt.close(theory_cell.plot(runs, {}).figure)


def test_cell_claims_fail_on_a_wrong_law():
    runs = [cell_run([0.3, 0.6], replicates=1000)]
    runs[0].tables["same_cell"]["frequency"] = runs[0].tables["same_cell"]["exact"] / 2
    assert not {c.key: c for c in theory_cell.claims(runs, {})}["same_cell_probability"].passed
    runs = [cell_run([0.3, 0.6], replicates=1000)]
    runs[0].tables["sides"] *= 1.1  # every side 10% too long: the law and E[D^2] are off
    claims = {c.key: c for c in theory_cell.claims(runs, {})}
    assert not claims["side_law"].passed and not claims["diameter_moment_exact"].passed
    runs = [cell_run([0.5], lifetime=2.0, replicates=1000)]
    runs[0].tables["sides"] *= 3.0  # diameters three times too long: the tail bound fails
    assert not {c.key: c for c in theory_cell.claims(runs, {})}["diameter_tail"].passed


@pytest.mark.parametrize("lam", [0.5, 2.0, 8.0, 40.0])
def test_exact_squared_diameter_from_the_law(lam):
    """E[D^2] from Proposition 1 against a direct Monte Carlo of the law; its limits 6 / lam^2 inside, 2 / lam^2 at a
    corner; never above 6d / lam^2; the tail bound is exact in d = 1 where truncation does not bind."""
    rng = np.random.default_rng(0)
    for x in ([0.5], [0.3, 0.9], [0.0, 0.0]):
        x = np.array(x)
        e, e_prime = rng.exponential(size=(2, 400_000, len(x)))
        sides = np.minimum(e / lam, x) + np.minimum(e_prime / lam, 1 - x)
        squared = (sides**2).sum(axis=1)
        exact = theory_cell.exact_squared_diameter(lam, x)
        assert abs(squared.mean() - exact) < 5 * squared.std() / np.sqrt(len(squared))
        assert exact <= 6 * len(x) / lam**2
    assert theory_cell.exact_squared_diameter(1e4, [0.5]) * 1e8 == pytest.approx(6, rel=1e-3)
    assert theory_cell.exact_squared_diameter(1e4, [0.0]) * 1e8 == pytest.approx(2, rel=1e-3)
    delta = np.array([0.05, 0.2]) / lam
    tail = np.exp(-lam * delta) * (1 + lam * delta)  # P(E + E' >= lam delta), Gamma(2, 1)
    np.testing.assert_allclose(theory_cell.tail_bound(lam, 1, delta), tail)
