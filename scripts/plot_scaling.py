#!/usr/bin/env python3
"""Plots of a scaling study (scripts/scaling.sh OUTDIR) into OUTDIR (or --out DIR):

    weak-busbw.png    bus bandwidth vs bytes per rank, a line per rank count and backend, the bare
                      NCCL all-to-all of the same bytes dashed beside it
    weak-ratio.png    time / bare all-to-all vs bytes per rank
    strong.png        speedup and parallel efficiency of fixed global matrices vs ranks
    kernels.png       the local kernels' % of copy bandwidth per element size

    scripts/plot_scaling.py docs/results/2xH200-scaling [--out docs] [--table [--ranks N]]

--table prints the weak-scaling results as a Markdown table instead (for the README, which
scripts/update_readme.py fills from it). matplotlib is installed when missing.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_table import size  # noqa: E402


def need_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_scaling.py: installing matplotlib", file=sys.stderr)
        if subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", "matplotlib"]) != 0:
            subprocess.call(["apt-get", "update", "-qq"])
            subprocess.check_call(["apt-get", "install", "-y", "-qq", "python3-matplotlib"])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def load(pattern):
    runs = {}
    for path in sorted(glob.glob(pattern)):
        name = os.path.basename(path)[:-5].split("-")
        runs[tuple(name[1:])] = json.load(open(path))
    return runs


def a2a_busbw(r):
    p = r["ranks"]
    return r["bytes_per_rank"] * (p - 1) / p / (r["alltoall_us"] * 1e3) if r["alltoall_us"] > 0 else 0


def sorted_keys(runs):
    return sorted(runs, key=lambda k: (int(k[-2]), k[-1]) if len(k) >= 2 else k)


def table(d, ranks=None):
    weak = load(os.path.join(d, "weak-*.json"))
    keys = [k for k in sorted_keys(weak) if ranks is None or int(k[0]) == ranks]
    print("| ranks | backend | bytes/rank | shape | time (µs) | a2a (µs) | ratio | busbw (GB/s) | #wrong |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for np_, be in keys:
        for r in weak[(np_, be)]:
            print(f"| {np_} | {be} | {size(r['bytes_per_rank'])} | {r['rows']}² | {r['time_us']:.1f} | "
                  f"{r['alltoall_us']:.1f} | {r['ratio']:.2f} | {r['busbw_GBps']:.0f} | {r['wrong']} |")


def per_rank_axes(fig, ax, ylabel, title, path):
    """Bytes per rank on a log axis; labels, grid and legend; saved to path."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def plots(d, out):
    plt = need_matplotlib()
    meta = json.load(open(os.path.join(d, "meta.json"))) if os.path.exists(os.path.join(d, "meta.json")) else {}
    title = f"{meta.get('gpus', '?')} x {meta.get('gpu', 'GPU')}, NCCL {meta.get('nccl', '?')}, {meta.get('date', '')[:10]}"
    weak = load(os.path.join(d, "weak-*.json"))
    keys = sorted_keys(weak)
    styles = {"nccl": "o-", "p2p": "s-", "cpu": "^-"}

    fig, ax = plt.subplots(figsize=(7, 4.5))
    dashed = set()
    for np_, be in keys:
        rows = weak[(np_, be)]
        if int(np_) < 2:
            continue
        x = [r["bytes_per_rank"] for r in rows]
        ax.plot(x, [r["busbw_GBps"] for r in rows], styles.get(be, "o-"), label=f"{np_} ranks, {be}")
        if np_ not in dashed:
            dashed.add(np_)
            ax.plot(x, [a2a_busbw(r) for r in rows], "k--", alpha=0.3 + 0.2 * len(dashed),
                    label=f"{np_} ranks, bare NCCL all-to-all")
    per_rank_axes(fig, ax, "bus bandwidth (GB/s)", "Weak scaling: " + title, os.path.join(out, "weak-busbw.png"))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for np_, be in keys:
        rows = weak[(np_, be)]
        if int(np_) < 2:
            continue
        ax.plot([r["bytes_per_rank"] for r in rows], [r["ratio"] for r in rows], styles.get(be, "o-"),
                label=f"{np_} ranks, {be}")
    ax.axhline(1.0, color="k", lw=0.8)
    per_rank_axes(fig, ax, "time / bare all-to-all of the same bytes", "Cost over the exchange: " + title,
                  os.path.join(out, "weak-ratio.png"))

    strong = load(os.path.join(d, "strong-*.json"))
    if strong:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        series = {}
        for (side, np_, be), rows in strong.items():
            series.setdefault((side, be), []).append((int(np_), rows[0]["time_us"]))
        for (side, be), pts in sorted(series.items()):
            pts.sort()
            base_np, base_t = pts[0]
            nps = [p for p, _ in pts]
            speed = [base_t / t for _, t in pts]
            ax1.plot(nps, speed, styles.get(be, "o-"), label=f"{side}², {be}")
            ax2.plot(nps, [s / (p / base_np) for s, p in zip(speed, nps)], styles.get(be, "o-"), label=f"{side}², {be}")
        top = max(int(k[1]) for k in strong)
        ax1.plot([1, top], [1, top], "k:", lw=0.8, label="ideal")
        ax1.set_xlabel("ranks (GPUs)")
        ax1.set_ylabel("speedup over 1 rank")
        ax2.set_xlabel("ranks (GPUs)")
        ax2.set_ylabel("parallel efficiency")
        ax2.set_ylim(0, 1.2)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle("Strong scaling (fixed global matrix, fp32): " + title, fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "strong.png"), dpi=110)

    kpath = os.path.join(d, "kernels.json")
    if os.path.exists(kpath):
        k = json.load(open(kpath))
        fig, ax = plt.subplots(figsize=(7, 4))
        kernels = sorted({r["kernel"] for r in k["rows"] if r["time_us"] > 0})
        elems = sorted({r["elem"] for r in k["rows"]})
        width = 0.8 / max(1, len(kernels))
        for i, name in enumerate(kernels):
            pct = [next((r["pct_copy"] for r in k["rows"] if r["kernel"] == name and r["elem"] == e), 0) for e in elems]
            ax.bar([j + i * width for j in range(len(elems))], pct, width, label=name)
        ax.axhline(100, color="k", lw=0.8)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(elems))], [f"{e} B" for e in elems])
        ax.set_xlabel("element size")
        ax.set_ylabel("% of copy bandwidth")
        ax.set_title(f"Local kernels on {k['device']}, square {size(k['bytes'])} matrices", fontsize=9)
        ax.legend(fontsize=8, ncol=3)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "kernels.png"), dpi=110)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    d = argv[0]
    if "--table" in argv:
        table(d, int(argv[argv.index("--ranks") + 1]) if "--ranks" in argv else None)
        return 0
    out = argv[argv.index("--out") + 1] if "--out" in argv else d
    os.makedirs(out, exist_ok=True)
    plots(d, out)
    print(f"plot_scaling.py: plots in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
