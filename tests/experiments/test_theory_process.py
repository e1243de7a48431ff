"""theory-leaves and theory-cell on the process protocols' own runs: Propositions 1 and 2 hold on them, the claims
are keyed, and they fail on numbers that contradict the propositions."""

import matplotlib.pyplot as plt
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
    for run in runs:
        run.metrics["mean_leaves"] *= 1.5
    assert not any(c.passed for c in theory_leaves.claims(runs, {}))


def test_cell_law_holds_on_the_process_and_fails_on_a_wrong_frequency():
    settings = {"dim": 2, "lifetime": 5.0, "point": [0.3, 0.6], "others": [[0.35, 0.6], [0.5, 0.5]], "replicates": 2000}
    run = as_run(process.cell_law(**settings, seed=0), settings)
    claims = theory_cell.claims([run], {})
    assert_keyed(claims)
    assert [c.key for c in claims] == ["side_law_lam5", "independent_sides_lam5", "same_cell_probability_lam5"]
    assert all(c.passed and c.kind == CLAIM for c in claims), claims
    plt.close(theory_cell.plot([run], {}).figure)
    run.tables["same_cell"]["frequency"] = run.tables["same_cell"]["exact"] / 2
    assert not theory_cell.claims([run], {})[2].passed
