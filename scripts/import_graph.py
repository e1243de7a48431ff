"""The design page's picture of the import graph, drawn again: `python scripts/import_graph.py [--out docs/guide]`.

The graph is the one tests/test_layers.py computes and checks (every import statement of mondrian/ and experiments/);
this draws it by groups: the harness's layers (HARNESS_LAYERS, bottom first) on the right, the library's groups on the
left (its families' packages, the forest machinery, the trees, the infrastructure), an arrow from a group to each group
it imports from, and one arrow for all of the harness's imports of the library's public API. It writes
import-graph.png and import-graph.txt (the arrows as text: tests/test_design_page.py checks them against the code).
"""

from __future__ import annotations

import argparse
import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The library's groups, bottom first; a module not named here is in its family's package or "forest machinery".
LIBRARY_GROUPS = {
    "infrastructure": ("_compile", "_threads", "_parallel", "_interrupts", "_validation", "_keyword_only",
                       "_shared_docs", "_former_paths"),
    "trees and nodes": ("tree", "_base_tree", "_split_tree", "_node_arrays", "_nodes", "_points", "_process",
                        "_extend", "_route", "_prune", "_leaf_mean"),
    "forest machinery": ("_forest", "_family", "_inputs", "_one_sample", "_one_sample_path", "_river_hooks",
                         "_intervals",
                         "_schedule"),
}  # fmt: skip
FAMILIES = ("forest", "amf", "orf", "bsp", "partition")


def layers_module():
    """tests/test_layers.py, which holds the graph and the harness's layers."""
    spec = importlib.util.spec_from_file_location("test_layers", ROOT / "tests" / "test_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def group(module: str, layers) -> str:
    """The group of a module: ``harness: <layer>`` or ``mondrian: <group>``."""
    if module.split(".")[0] == "experiments":
        return f"harness: {layers.layer(module)}"
    parts = module.split(".")
    if len(parts) == 1:
        return "mondrian: package"
    if parts[1] in FAMILIES:
        return f"mondrian: {parts[1]}"
    return next(f"mondrian: {name}" for name, names in LIBRARY_GROUPS.items() if parts[1] in names)


def arrows(layers) -> Counter:
    """(importing group, imported group) -> the number of module imports between them; the harness's imports of the
    library counted as one arrow to ``mondrian: public API``."""
    counted = Counter()
    for module, targets in layers.GRAPH.items():
        source = group(module, layers)
        for target in targets:
            to = group(target, layers)
            if source.startswith("harness") and to.startswith("mondrian"):
                to = "mondrian: public API"
            if to != source:
                counted[source, to] += 1
    return counted


def positions(layers) -> dict[str, tuple[float, float]]:
    library = [*(f"mondrian: {g}" for g in LIBRARY_GROUPS), *(f"mondrian: {f}" for f in FAMILIES)]
    library += ["mondrian: package", "mondrian: public API"]
    harness = [f"harness: {name}" for name in layers.HARNESS_LAYERS]
    placed = {name: (0.0, float(i)) for i, name in enumerate(library[:3])}
    placed |= {name: (-0.6 + 0.3 * i, 3.6) for i, name in enumerate(library[3:8])}
    placed["mondrian: package"] = (0.0, 5.0)
    placed["mondrian: public API"] = (0.0, 6.2)
    placed |= {name: (2.4, i * 0.9) for i, name in enumerate(harness)}
    return placed


def draw(out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layers = layers_module()
    counted = arrows(layers)
    placed = positions(layers)
    fig, ax = plt.subplots(figsize=(10, 8))
    for (source, target), n in sorted(counted.items()):
        (x0, y0), (x1, y1) = placed[source], placed[target]
        # arrows within the harness's column bulge to its right, the farther the layers the wider
        bend = -0.25 - 0.06 * abs(y1 - y0) if x0 == x1 == placed["harness: catalog"][0] else 0.12
        ax.annotate(
            "", xy=(x1, y1), xytext=(x0, y0),
            arrowprops={"arrowstyle": "-|>", "color": "0.55", "lw": 0.6 + 0.15 * min(n, 12), "shrinkA": 12,
                        "shrinkB": 12, "connectionstyle": f"arc3,rad={bend:.2f}"},
        )  # fmt: skip
    (x0, y0), (x1, y1) = placed["mondrian: public API"], placed["mondrian: package"]
    ax.plot([x0, x1], [y0 - 0.25, y1 + 0.25], ls=":", color="0.4")  # the public API is the package and its families
    for name, (x, y) in placed.items():
        side, label = name.split(": ")
        colour = "#dbe8f5" if side == "mondrian" else "#f5e6d3"
        ax.text(
            x, y, label, ha="center", va="center", fontsize=9, bbox={"boxstyle": "round", "fc": colour, "ec": "0.4"}
        )
    ax.text(0.0, 7.0, "library (mondrian)", ha="center", fontsize=11, weight="bold")
    ax.text(2.6, 7.9, "harness (experiments), layers bottom first", ha="center", fontsize=11, weight="bold")
    ax.set_xlim(-1.2, 4.2)
    ax.set_ylim(-0.6, 8.3)
    ax.axis("off")
    ax.set_title("Imports between groups of modules (an arrow: importer -> imported; width: how many)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "import-graph.png", dpi=110)
    (out / "import-graph.txt").write_text(edges_text(counted))


def edges_text(counted: Counter) -> str:
    return "".join(f"{source} -> {target}: {n}\n" for (source, target), n in sorted(counted.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "guide")
    draw(parser.parse_args().out)


if __name__ == "__main__":
    main()
