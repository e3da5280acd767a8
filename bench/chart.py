"""Draws results.json (written by scripts/bench) as a PNG: one panel per workload, one bar per
system at its median, with the min-max range as an error bar.

Usage: python chart.py results.json results.png [title]
Needs matplotlib; scripts/bench installs it into a venv under tmp/.
"""

import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SYSTEMS = [("ferry", "Ferry", "#1f77b4"), ("java", "Java Connect", "#d62728"), ("raw", "Raw client", "#7f7f7f")]
LOWER_IS_BETTER = {"MiB", "ms"}


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "Ferry vs Java Kafka Connect vs raw librdkafka"
    with open(src) as f:
        rows = json.load(f)
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    cols = 3 if len(workloads) > 4 else 2
    nrows = math.ceil(len(workloads) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(workloads):]:
        ax.axis("off")
    for ax, workload in zip(axes.flat, workloads):
        bars = [(label, color, r) for key, label, color in SYSTEMS
                for r in rows if r["workload"] == workload and r["system"] == key]
        unit = bars[0][2]["unit"] if bars else ""
        xs = range(len(bars))
        medians = [r["median"] for _, _, r in bars]
        lower = [r["median"] - r["min"] for _, _, r in bars]
        upper = [r["max"] - r["median"] for _, _, r in bars]
        ax.bar(xs, medians, color=[c for _, c, _ in bars], yerr=[lower, upper], capsize=4)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([label for label, _, _ in bars])
        better = "lower is better" if unit in LOWER_IS_BETTER else "higher is better"
        ax.set_title(f"{workload}\n{unit}, {better}", fontsize=10)
        top = max(r["max"] for _, _, r in bars) if bars else 1
        ax.set_ylim(0, top * 1.18 if top > 0 else 1)
        for x, m in zip(xs, medians):
            text = f"{m:,.1f}" if unit == "MiB" else f"{m:,.0f}"
            ax.annotate(text, (x, m), textcoords="offset points", xytext=(0, 3),
                        ha="center", va="bottom", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main()
