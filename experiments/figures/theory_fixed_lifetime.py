"""theory-fixed-lifetime: the excess risk of a Mondrian forest with a fixed lifetime stops improving as n grows
(MGS17 Proposition 1: a fixed lifetime is inconsistent), while lam_n = n^(1/(d+2)) -> inf keeps improving."""

from __future__ import annotations

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import draw, geometric_mean, long_table, slopes

INCREASING = "lam_n = n^(1/(d+2))"
PLATEAU = 0.9  # a fixed lifetime "stops improving": over the last 8-fold increase of n its risk falls by < 10%
SLACK = 1.5  # lam_n "keeps improving": its risk falls at least to 1.5 times the minimax factor 8^(-2/(d+2))


def lifetime_label(run) -> str:
    lifetime = run.protocol["lifetime"]
    return INCREASING if lifetime is None else f"fixed lam = {lifetime:g}"


def plot(runs, spec) -> Drawing:
    long = long_table(runs, lifetime_label)
    n_seeds = int(long["seed"].nunique())
    return Drawing(
        draw(
            long,
            slopes(long),
            "MGS17 Proposition 1: Mondrian forests (M = 10, purely random partitions) with a fixed lifetime against "
            "lam_n = n^(1/(d+2)),\n"
            f"f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1; {n_seeds} seeds (dots), their geometric mean (lines)",
            lambda d: f"d = {d}",
        )
    )


def claims(runs, spec) -> list[Claim]:
    """Per d, over the last eightfold increase of n: every fixed lifetime's risk has stopped falling, lam_n's keeps
    falling at about the minimax rate and ends below theirs."""
    long = long_table(runs, lifetime_label)
    risk = geometric_mean(long, ["d", "variant", "n"])
    out = []
    for d in sorted(long["d"].unique()):
        sizes = sorted(long.loc[long["d"] == d, "n"].unique())
        last, early = sizes[-1], max(n for n in sizes if n <= sizes[-1] / 8)
        ratios = {v: risk[d, v, last] / risk[d, v, early] for v in long.loc[long["d"] == d, "variant"].unique()}
        fixed = [v for v in ratios if v != INCREASING]
        measured = "; ".join(f"{v}: risk(n={last}) / risk(n={early}) = {r:.3f}" for v, r in ratios.items())
        out.append(
            Claim(
                f"d = {d}: every fixed lifetime has stopped improving (risk falls by less than {1 - PLATEAU:.0%} "
                f"from n = {early} to {last})",
                all(ratios[v] >= PLATEAU for v in fixed),
                measured,
                key=f"fixed_lifetime_plateaus_d{d}",
            )
        )
        bound = SLACK * (last / early) ** (-2.0 / (d + 2))
        out.append(
            Claim(
                f"d = {d}: lam_n = n^(1/(d+2)) keeps improving (risk ratio <= {SLACK} x the minimax factor "
                f"({last}/{early})^(-2/(d+2)) = {bound:.3f}) and ends below every fixed lifetime",
                ratios[INCREASING] <= bound and all(risk[d, INCREASING, last] < risk[d, v, last] for v in fixed),
                measured + "; final risks: " + ", ".join(f"{v} {risk[d, v, last]:.3g}" for v in ratios),
                key=f"increasing_lifetime_improves_d{d}",
            )
        )
    return out
