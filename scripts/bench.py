"""`make bench`: run the benchmarks and write results/BENCHMARKS.md.

Five sections: MondrianForestClassifier against ExtraTrees (experiments/bench/mondrian_forest.py), LRT14's timing
claim (experiments/bench/lrt14.py: MF on 100 mini-batches against batch forests re-fitted after each), the online BSP
forest against the online Mondrian forest (experiments/bench/bsp.py), each estimator's cold first fit
(experiments/bench/first_fit.py), and AMF against river and onelearn
(experiments/bench/amf.py), which needs the benchmark environment .venv-bench that `make bench` creates
(scripts/bench_env.sh); then the memory section, peak memory on a long stream with and without max_nodes against
the same peers (experiments/bench/memory.py), and the intervals section: what return_std costs against predict
(experiments/bench/return_std.py) and the debiased forest with its intervals against a plain one
(experiments/bench/debiased.py).
Larger runs: make bench ARGS="--online-rows 0 --prefix-rows 20000 --seeds 5".
The memory section alone, replacing its part of the report: make bench ARGS="--only memory" (the intervals
section: --only intervals).
Each section says once where it was measured (its environment line, experiments.environment), and its tables are
written beside the report with that environment on every row (results/bench/<section>/<table>.csv,
experiments/bench/rows.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pandas as pd

from experiments.bench import bsp, debiased, first_fit, lrt14, memory, mondrian_forest, return_std, rows
from experiments.bench.summary import summary
from experiments.environment import environment
from experiments.figures.tables import format_mean_sd

OUT = Path("results/BENCHMARKS.md")

_MF_SPEED = "speed: MF / ExtraTrees"
MF_NOTES = (
    "MondrianForestClassifier: 10 trees, lifetime inf, 20 000 x 16 synthetic points "
    "(make_classification, seed 0), partial_fit in 100 mini-batches; ExtraTreesClassifier: "
    "10 trees, fitted once on all points. Best of 3 runs; speed ratios from the same run (above 1, MF is faster)."
)


def _markdown(table: pd.DataFrame, formats: dict[str, str] | None = None) -> str:
    """The table as markdown, each listed column formatted with its format (NaN shown empty)."""
    table = table.copy()
    for column, spec in (formats or {}).items():
        if column in table:
            table[column] = [("" if pd.isna(v) else format(v, spec)) for v in table[column]]
    return table.to_markdown(index=False, floatfmt=".3g", disable_numparse=True)


def _with_sd(table: pd.DataFrame, mean: str, sd: str, spec: str = ".4f") -> pd.DataFrame:
    table = table.copy()
    table[mean] = [format_mean_sd(m, s, spec) for m, s in zip(table[mean], table[sd], strict=True)]
    return table.drop(columns=sd)


def measured(args: argparse.Namespace, section: str, tables: dict[str, pd.DataFrame]) -> str:
    """The section's tables written with the environment they were measured in (``rows.write``, into bench/ beside
    the report); the section's environment line."""
    where = environment()
    rows.write(args.out.parent / "bench", section, tables, where)
    return rows.line(where)


def amf_section(tables: dict[str, pd.DataFrame], args: argparse.Namespace, seconds: float) -> str:
    from experiments.bench.amf import ONLINE_REPEATS  # .venv-bench only

    online = _with_sd(tables["online"], "log loss", "log loss sd")
    online = _with_sd(online, "log loss on prefix", "prefix sd")
    ratio_columns = [c for c in tables["ratios"].columns if c != "dataset"]
    seeds = ", ".join(map(str, args.seeds))
    parts = [
        "## AMFClassifier against river and onelearn",
        "",
        measured(args, "amf", tables),
        "",
        f"river {version('river')}, onelearn {version('onelearn')} (imported with the numpy 2 shim of "
        "experiments/bench/amf.py), in .venv-bench only. Same settings for all: 10 trees, step 1, dirichlet 0.5, "
        "aggregation on, pure leaves not split. Rows shuffled once (seed 0), features scaled to [0, 1]. "
        f"Seeds {seeds} for the compiled online loops (log loss: mean ± sd over seeds; speed: the best of "
        f"{ONLINE_REPEATS} rounds over the seeds, the loops in turn), seed {args.seeds[0]} for the rest. "
        f"Whole run: {seconds:.0f} s; load average (1 min) {args.load[0]:.1f} before it, {args.load[1]:.1f} "
        "after (above 1, other processes shared the 2 cores: speeds and the n_jobs=2 gain are then understated).",
        "",
        "### Ratios (targets in brackets; speed: ours / peer, bytes: ours / onelearn)",
        "",
        _markdown(tables["ratios"], dict.fromkeys(ratio_columns, ".2f")),
        "",
        "### (a) Online progressive validation: predict x_t, then learn (x_t, y_t)",
        "",
        _markdown(online, {"samples/s": ".0f"}),
        "",
        "The compiled loops and river run on the same rows (the whole stream, at most the online rows); the "
        "one-sample API calls on its first rows (prefix rows), and every learner's average log loss on those rows is "
        "in the last column. Speeds are for one thread except the n_jobs=2 row. Probabilities clipped at 1e-15. "
        "onelearn compiled loop: a numba "
        "loop over onelearn's own compiled tree_classifier_predict and tree_classifier_partial_fit (onelearn has "
        "none). river gives probability 0 to classes it has not seen yet.",
        "",
        "Log losses differ from onelearn's beyond seed noise where the two follow different rules. onelearn 0.3.0 "
        "departs from the text's Algorithms 4-5 in two places (river 0.26 ports its code: its node update has (2), and "
        "its log losses follow onelearn's): (1) the leaf a "
        "split creates, and the root on the first sample, are not charged the loss of h(empty) on the point that "
        "creates them (its update_downwards(..., do_update_weight=False)), so a new leaf starts at log w = 0 "
        "instead of -step log K; (2) a node's loss is taken after its sample count is incremented, "
        "-log((n_y + a) / (n + 1 + K a)) instead of the forecast's -log((n_y + a) / (n + K a)).",
        "",
        _markdown(
            tables["checks"],
            {"one-sample vs progressive, max |diff|": ".1e", "learn_one vs one-row partial_fit, max |diff|": ".1e"},
        ),
        "",
        "One-sample calls: the progressive loop adds the trees' predictions in another order (equal up to rounding); "
        "learn_one and a one-row partial_fit take the same compiled path (equal bit for bit).",
        "",
        *(
            [
                "river's own evaluation loop (`river.evaluate.progressive_val_score` with `metrics.Accuracy`) on its "
                "bundled Phishing stream, with AMFClassifier registered as a river classifier "
                "(`river.base.Classifier.register`), against our predict_one-then-learn_one loop on the same rows:",
                "",
                _markdown(
                    tables["river drop-in"], {"progressive_val_score accuracy": ".4f", "our loop's accuracy": ".4f"}
                ),
                "",
            ]
            if "river drop-in" in tables
            else []
        ),
        "### (b) Batch: fit on 70% (stratified, seed 0, scaler fitted on it), predict the other 30%",
        "",
        _markdown(
            tables["batch"],
            {"fit s": ".3f", "predict s": ".3f", "accuracy": ".4f", "log loss": ".4f", "AUC": ".4f"},
        ),
        "",
        "AUC: one-vs-rest macro average for more than two classes. onelearn fits with one partial_fit call on the "
        "training array (its compiled loop).",
        "",
        "The machine's two-thread gain beside each dataset's fits (experiments/bench/threads.py): after each pair "
        "of fits, one thread follows a random cycle through an array as large as one tree, then two threads do the "
        "same work, half each, through arrays of their own; the shortest times over all the pairs. It is the kind "
        "of work that dominates a tree's fit, memory latency, with nothing else in it: what two threads could gain "
        "on the machine then. On a shared virtual machine it drifts from run to run and from dataset to dataset, "
        "as the fits' n_jobs=2 gain does, and the two need not drift together.",
        "",
        _markdown(
            tables["machine"], {"MB per thread": ".1f", "1 thread s": ".3f", "2 threads s": ".3f", "gain": ".2f"}
        ),
        "",
        "### (c) Memory after the batch fit",
        "",
        _markdown(tables["memory"], {"nodes per tree": ".0f", "MB in nodes": ".1f", "MB held": ".1f"}),
        "",
        "bytes per node: the sum over the per-node arrays of one row (ours: TreeArrays and the AMF statistics row; "
        "onelearn: its NodesClassifier arrays). MB held: every array the forest holds, at its allocated capacity "
        "(onelearn's includes the copy of every training sample it keeps).",
        "",
        f"Command: scripts/bench.py {' '.join(args.argv)}".rstrip(),
        "",
    ]
    return "\n".join(parts)


MEMORY_HEADING = "## Memory on a long stream: max_nodes"


def memory_section(args: argparse.Namespace) -> str:
    """The memory benchmark run (experiments/bench/memory.py), as the report's section."""
    table = memory.run(tuple(args.memory_sizes), args.river_rows)
    print(table.to_string(index=False))
    peers = ", ".join(sorted({name for name in table["learner"] if "(ours)" not in name}))
    ran = "; ".join(
        f"{name}: {', '.join(f'{r:,}' for r in table['rows'][table['learner'] == name].unique())} rows"
        for name in table["learner"].unique()
    )
    return "\n".join(
        [
            MEMORY_HEADING,
            "",
            measured(args, "memory", {"memory": table}),
            "",
            _markdown(table, {"peak MB": ".1f", "accuracy": ".4f", "seconds": ".1f"}),
            "",
            f"Sizes each learner ran: {ran}. Peers: {peers} (no bound of their own). max_nodes={memory.MAX_NODES} "
            "nodes per tree. " + " ".join(memory.__doc__.split()),
            "",
            f"Command: scripts/bench.py {' '.join(args.argv)}".rstrip(),
            "",
        ]
    )


INTERVALS_HEADING = "## Prediction intervals: what return_std and the debiased forest cost"


def intervals_section(args: argparse.Namespace) -> str:
    """The costs of the intervals (experiments/bench/return_std.py, experiments/bench/debiased.py), as a section."""
    spread = [return_std.measure(n, 10_000, 4, 5) for n in (1_000, 10_000)]
    jackknife = [debiased.measure(d, n, lifetime, 3) for d, n, lifetime in debiased.SETTINGS]
    tables = (return_std.table(spread), debiased.table(jackknife))
    print("\n\n".join(tables))
    where = measured(args, "intervals", {"return_std": pd.DataFrame(spread), "debiased": debiased.frame(jackknife)})
    return "\n".join(
        [
            INTERVALS_HEADING,
            "",
            where,
            "",
            'MondrianForestRegressor(prediction="gaussian") (LRT16): predict against predict(return_std=True) and '
            "predict_interval on the same forest, and the leaf rule on the same trees (ratios to the Gaussian "
            "predict).",
            "",
            tables[0],
            "",
            "MondrianPartitionForestRegressor (CKU23): debias_order=1 fitted then predict_interval, against "
            "debias_order=0 fitted then predict (ratios debiased / plain).",
            "",
            tables[1],
            "",
            f"Command: scripts/bench.py {' '.join(args.argv)}".rstrip(),
            "",
        ]
    )


def with_section(report: str, heading: str, section: str) -> str:
    """The report with its section under ``heading`` (up to the next section of that level) replaced by
    ``section``, or ``section`` appended if it has none."""
    start = report.find(heading)
    if start < 0:
        return report.rstrip("\n") + "\n\n" + section
    end = report.find("\n## ", start + len(heading))
    return report[:start] + section + ("" if end < 0 else report[end:])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", nargs="+", default=None, help="AMF datasets (default: the five)")
    parser.add_argument("--online-rows", type=int, default=20_000, help="stream length, 0 for all rows")
    parser.add_argument("--prefix-rows", type=int, default=1_000, help="rows for the one-sample API calls")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--no-river", action="store_true")
    parser.add_argument("--skip-amf", action="store_true", help="no AMF section (no .venv-bench needed)")
    parser.add_argument("--skip-lrt14", action="store_true", help="no LRT14 timing section (about 3 minutes)")
    parser.add_argument("--skip-bsp", action="store_true", help="no BSP section (about 2 minutes)")
    parser.add_argument("--skip-first-fit", action="store_true", help="no cold first fits (about 5 minutes)")
    parser.add_argument("--skip-memory", action="store_true", help="no memory section (about 10 minutes)")
    parser.add_argument("--skip-intervals", action="store_true", help="no intervals section (about 2 minutes)")
    parser.add_argument("--memory-sizes", type=int, nargs="+", default=list(memory.SIZES), help="stream rows")
    parser.add_argument("--river-rows", type=int, default=memory.RIVER_ROWS, help="river's largest memory size")
    parser.add_argument(
        "--only",
        choices=["memory", "intervals"],
        help="run this section alone and replace it in the report, the rest kept",
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"the report (default {OUT})")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if args.only:
        heading, section = {
            "memory": (MEMORY_HEADING, memory_section),
            "intervals": (INTERVALS_HEADING, intervals_section),
        }[args.only]
        report = args.out.read_text() if args.out.exists() else "# Benchmarks\n"
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(with_section(report, heading, section(args)))
        print(f"\nwrote the {args.only} section of {args.out}")
        return

    start = time.perf_counter()
    mf = mondrian_forest.run()
    timing = online_bsp = tables = None
    print(mf.to_string(index=False))
    text = "\n## MondrianForestClassifier against ExtraTrees\n\n"
    text += measured(args, "mondrian_forest", {"mondrian_forest": mf}) + "\n\n"
    text += _markdown(mf, {c: ".3g" for c in mf.columns if c.endswith((" s", "sample"))} | {_MF_SPEED: ".2f"})
    text += f"\n\n{MF_NOTES}\n"
    if not args.skip_lrt14:
        timing = lrt14.run()
        print(timing.to_string(index=False))
        text += "\n## LRT14's timing claim: MF against batch forests re-fitted after each mini-batch\n\n"
        text += measured(args, "lrt14", {"lrt14": timing}) + "\n\n"
        text += _markdown(
            timing, {"training s": ".2f", "test accuracy": ".4f", "speed: MF / this (target >= 10)": ".1f"}
        )
        text += "\n\n" + " ".join(lrt14.__doc__.split()) + "\n"
    if not args.skip_bsp:
        online_bsp = bsp.run()
        print(online_bsp.to_string(index=False))
        text += "\n## The online BSP forest against the online Mondrian forest (same budget schedule)\n\n"
        text += measured(args, "bsp", {"bsp": online_bsp}) + "\n\n"
        numbers = [c for c in online_bsp.columns if online_bsp[c].dtype.kind == "f"]
        text += _markdown(online_bsp, dict.fromkeys(numbers, ".3g"))
        text += "\n\n" + " ".join(bsp.__doc__.split()) + "\n"
    if not args.skip_first_fit:
        cold = first_fit.run()
        print(cold.to_string(index=False))
        text += "\n## The first fit: compile time a new user waits for\n\n"
        text += measured(args, "first_fit", {"first_fit": cold}) + "\n\n"
        text += _markdown(cold, {c: ".1f" for c in cold.columns if c != "estimator"} | {"second fit (s)": ".3f"})
        text += f"\n\nTarget: a cold first fit within {first_fit.TARGET_SECONDS:.0f} s (cold / target at most 1). "
        text += " ".join(first_fit.__doc__.split()) + "\n"
    if not args.skip_amf:
        from experiments.bench import amf

        amf_start, load_before = time.perf_counter(), os.getloadavg()[0]
        tables = amf.run(
            datasets=tuple(args.datasets or amf.DATASETS),
            online_rows=args.online_rows or None,
            prefix_rows=args.prefix_rows,
            seeds=tuple(args.seeds),
            river=not args.no_river,
        )
        with pd.option_context("display.width", 250, "display.max_columns", 30):
            for name, table in tables.items():
                print(f"\n{name}\n{table.to_string(index=False)}")
        args.load = (load_before, os.getloadavg()[0])
        text += "\n" + amf_section(tables, args, time.perf_counter() - amf_start)
    if not args.skip_memory:
        text += "\n" + memory_section(args)
    if not args.skip_intervals:
        text += "\n" + intervals_section(args)
    glance = summary(mf, timing, online_bsp, tables)
    head = (
        f"# Benchmarks\n\nLoad average (1 min) {os.getloadavg()[0]:.1f} at the end "
        "(above 1, another process shared the 2 cores).\n\n## Every benchmark at a glance\n\n"
        + measured(args, "glance", {"glance": glance})
        + "\n\n"
        + _markdown(glance, {"samples/s": ".0f", "us per sample per tree": ".3g", "bytes per node": ".0f"})
        + "\n\nSpeed ratios are ours / peer (above 1: ours is faster), each against the peer timed in the same run, "
        "on the same data, one thread each unless the row says n_jobs=2. Sections below: each benchmark's settings "
        "and its full tables.\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(head + text)
    print(f"\nwrote {args.out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
