"""BSP Table 1 at its real sizes, on generated stand-ins of its two datasets (``experiments.bench.standins``): one
replicate of the paper's grid (profile ``scale``: 100 trees, the five methods) row by row, run as ``make
reproduce-figure`` runs it, on this machine's cores (joblib) or on a local Dask cluster (two single-threaded worker
processes: ``--launcher dask``). Per trial: the training time (the protocol's ``train_time``), the trial's whole time
(data loading, warm-up, fit, test predictions) and the peak resident memory of the process that ran it (both logged
with the run); then the time-vs-n curve of the airline rows.

    python -m experiments.bench.table1_scale [--rows apartments airline_100k ...] [--methods BSP ...]
                                             [--launcher joblib|dask]

Runs go to a store of their own under ``--out`` (default ``results/bench/table1_scale``), never mixed with runs on
real data; a sweep stopped midway resumes where it stopped. The table keeps the trials of its earlier version that
this call did not run (``--rows`` or ``--methods`` run again after a change), each with the commit it ran at.
Writes ``table1_scale.csv`` (one row per trial, with the environment it ran in: its ``env.*`` columns) and ``.md``
(the same rows, the environments said once) and ``table1_scale_time.png`` and ``.pdf`` there.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FormatStrFormatter, NullFormatter

from experiments.bench import rows as bench_rows
from experiments.bench.standins import real_sizes, write
from experiments.config import compose
from experiments.environment import PREFIX, environment, summary
from experiments.reproduce import FigurePlan, fetch_datasets, figure_trials, reproduce_figure
from experiments.tracking import Tracker
from experiments.trial import trial_hash

ROWS = ("apartments", "airline_100k", "airline_400k", "airline_1m")
METHODS = ("RF", "ERT", "MF", "MF increasing", "BSP")
FIGURE = "bsp-table1"


def stand_ins(home: Path) -> Path:
    """The stand-ins at the real sizes under ``home`` (written once)."""
    if not (home / "airline" / "2008.csv.bz2").exists() or not (home / "apartments" / "pp-2012.csv").exists():
        write(home, real_sizes())
    return home


def _config(out: Path, launcher: list[str]):
    return compose([
        f"figure={FIGURE}", "profile=scale", f"tracking.uri=sqlite:///{out / 'mlflow.db'}",
        f"tracking.artifact_root={out / 'mlartifacts'}", f"paths.figures={out / 'figures'}",
        f"paths.tables={out / 'tables'}", *launcher,
    ])  # fmt: skip


def run_rows(
    rows: list[str], out: Path, launcher: list[str], methods: list[str] | None = None
) -> tuple[list, dict[str, str]]:
    """Run the scale profile's trials of ``rows`` (of ``methods`` only, if given; the ones not run yet); returns every
    run of them and the commit each ran at (by run id)."""
    cfg = _config(out, launcher)
    trials = [
        t for t in figure_trials(cfg) if t["dataset"]["name"] in rows and (not methods or t["model"]["name"] in methods)
    ]
    plan = FigurePlan(cfg, trials, fetch_datasets(trials))
    if reproduce_figure(cfg, plan=plan) != 0:
        raise RuntimeError(f"{FIGURE} (profile scale) did not finish the rows {', '.join(rows)} (above)")
    tracker = Tracker.from_config(cfg.tracking)
    runs = tracker.load_runs(FIGURE, [trial_hash(t) for t in plan.trials])
    return runs, {run.run_id: tracker.client.get_run(run.run_id).data.tags.get("git_commit", "") for run in runs}


def table(runs: list, commits: dict[str, str]) -> pd.DataFrame:
    """One row per trial: the row of Table 1, the method, its trees and how many were held at once, the times, the
    peak memory, the commit the trial ran at and the environment it ran in (``env.*``: where a worker ran it)."""
    records = []
    for run in runs:
        searched = run.estimator.get("estimator", {}).get("n_estimators")  # a grid search's forest
        records.append({
            "row": run.dataset, "method": run.model, "n_train": int(run.metrics["n_train"]),
            "trees": run.trees or searched, "trees_per_fit": run.trial["protocol"]["run"].get("trees_per_fit"),
            "train_time s": run.metrics["train_time"], "trial time s": run.metrics["duration_seconds"],
            "peak memory MB": run.metrics.get("peak_memory_mb", float("nan")), "rmse": run.metrics["rmse"],
            "commit": commits.get(run.run_id, "")[:10], **run.environment,
        })  # fmt: skip
    return _in_order(pd.DataFrame(records))


def _in_order(frame: pd.DataFrame) -> pd.DataFrame:
    """The table's trials by row (in Table 1's order), then method."""
    order = {row: k for k, row in enumerate(ROWS)}
    return frame.sort_values(["row", "method"], key=lambda c: c.map(order) if c.name == "row" else c, ignore_index=True)


def with_earlier(frame: pd.DataFrame, earlier: pd.DataFrame) -> pd.DataFrame:
    """The table of this run's trials with the earlier table's trials it did not run (a row or method run again
    alone, the others kept as measured, each with its commit)."""
    ran = set(zip(frame["row"], frame["method"], strict=True))
    kept = earlier[[(r, m) not in ran for r, m in zip(earlier["row"], earlier["method"], strict=True)]]
    return _in_order(pd.concat([frame, kept], ignore_index=True) if len(kept) else frame)


def read_table(path: Path) -> pd.DataFrame:
    """A table written before, its commits and environments as the text they were written as."""
    columns = pd.read_csv(path, nrows=0).columns
    return pd.read_csv(path, dtype={c: str for c in columns if c == "commit" or c.startswith(PREFIX)})


def environments(frame: pd.DataFrame) -> str:
    """Where the table's trials ran, in one line (rows of an earlier table without an environment counted apart)."""
    columns = [c for c in frame.columns if c.startswith(PREFIX)]
    tags = [{k: v for k, v in row.items() if isinstance(v, str)} for row in frame[columns].to_dict("records")]
    return summary(tags) or "not recorded"


def time_vs_n(frame: pd.DataFrame, path: Path) -> list[Path]:
    """Training time against the number of training rows, one line per method, on the airline rows run."""
    airline = frame[frame["row"].str.startswith("airline")]
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for method, part in airline.groupby("method"):
        part = part.sort_values("n_train")
        ax.plot(part["n_train"], part["train_time s"] / 60, marker="o", label=method)
    ax.set(xscale="log", yscale="log", xlabel="training rows (airline stand-in)", ylabel="training time (minutes)",
           title="BSP Table 1 at scale: 100 trees, one replicate")  # fmt: skip
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    files = [path.with_suffix(".png"), path.with_suffix(".pdf")]
    for file in files:
        fig.savefig(file, dpi=150)
    plt.close(fig)
    return files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    parser.add_argument(
        "--methods", nargs="+", choices=METHODS, help="run these methods only; the table keeps the earlier ones'"
    )
    parser.add_argument("--launcher", choices=("joblib", "dask"), default="joblib")
    parser.add_argument("--data", type=Path, default=Path("results/bench/standins"), help="the stand-ins' folder")
    parser.add_argument("--out", type=Path, default=Path("results/bench/table1_scale"))
    args = parser.parse_args(argv)
    tabulated_on = bench_rows.line(environment())  # before the run writes its table into the checkout
    out = args.out.resolve() / args.launcher
    out.mkdir(parents=True, exist_ok=True)
    os.environ["MONDRIAN_DATA"] = str(stand_ins(args.data.resolve()))  # before anything reads the data home
    if args.launcher == "dask":
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            launcher = ["launcher=dask", f"launcher.address={cluster.scheduler_address}"]
            runs, commits = run_rows(args.rows, out, launcher, args.methods)
    else:
        runs, commits = run_rows(args.rows, out, ["launcher=joblib", "launcher.n_jobs=2"], args.methods)
    frame = table(runs, commits)
    if (out / "table1_scale.csv").exists():
        frame = with_earlier(frame, read_table(out / "table1_scale.csv"))
    frame.to_csv(out / "table1_scale.csv", index=False)
    note = (
        f"Tabulated here: {tabulated_on} Trials run with launcher {args.launcher} at the commits listed, on the "
        f"stand-ins of experiments.bench.standins; their environments: {environments(frame)}.\n\n"
    )
    shown = frame[[c for c in frame.columns if not c.startswith(PREFIX)]]
    (out / "table1_scale.md").write_text(note + shown.to_markdown(index=False, floatfmt=".4g") + "\n")
    files = time_vs_n(frame, out / "table1_scale_time") if frame["row"].str.startswith("airline").any() else []
    print(frame.to_string(index=False))
    print("written:", out / "table1_scale.csv", out / "table1_scale.md", *files)


if __name__ == "__main__":
    main()
