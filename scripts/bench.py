"""`make bench`: run the benchmarks and write results/BENCHMARKS.md."""

from pathlib import Path

from experiments.bench import mondrian_forest, write_markdown

if __name__ == "__main__":
    table = mondrian_forest.run()
    print(table.to_string(index=False))
    write_markdown(
        table,
        "Benchmarks",
        Path("results/BENCHMARKS.md"),
        notes=(
            "MondrianForestClassifier: 10 trees, lifetime inf, 20 000 x 16 synthetic points "
            "(make_classification, seed 0), partial_fit in 100 mini-batches; ExtraTreesClassifier: "
            "10 trees, fitted once on all points. Best of 3 runs; ratios from the same run."
        ),
    )
