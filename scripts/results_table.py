#!/usr/bin/env python3
"""Markdown table of CLI sweeps (disttranspose -J) side by side: one row per dtype and size (the rows
of all files, matched by dtype, bytes and shape), for each JSON file its time and ratio to the bare
all-to-all measured in the same run.

    scripts/results_table.py docs/results/2xH200-p2p/sweep-2-{nccl,p2p}-c64.json

A file given as PATH=LABEL heads its columns with LABEL instead of its backend. With --a2a-each every
file shows its own all-to-all column (runs whose all-to-alls differ, e.g. registered buffers);
otherwise the first file's that has the row is shown.
"""
import json
import sys


def size(b):
    for unit, n in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if b >= n * 0.99:
            return f"{b / n:.0f} {unit}"
    return f"{b:.0f}"


def key(row):
    return (row["dtype"], row["bytes_per_rank"], row["rows"], row["cols"])


def main(argv):
    each = "--a2a-each" in argv
    paths = [a for a in argv if a != "--a2a-each"]
    runs, labels = [], []
    for p in paths:
        path, _, label = p.partition("=")
        run = json.load(open(path))
        runs.append({key(r): r for r in run})
        labels.append(label or ((run[0]["backend"] + (" in place" if run[0].get("inplace") else "")) if run else "?"))
    head = ["dtype", "bytes/rank", "shape"]
    for b in labels:
        head += [f"{b} (µs)", f"{b} ratio"] + ([f"{b} a2a (µs)"] if each else [])
    head += ([] if each else ["a2a (µs)"]) + ["#wrong"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" if i < 1 else "---:" for i in range(len(head))) + " |")
    keys = []
    for run in runs:
        keys += [k for k in run if k not in keys]
    for k in keys:
        row = next(run[k] for run in runs if k in run)
        cells = [row["dtype"], size(row["bytes_per_rank"]), f"{row['rows']}²" if row["rows"] == row["cols"]
                 else f"{row['rows']} × {row['cols']}"]
        wrong = 0
        for run in runs:
            r = run.get(k)
            cells += [f"{r['time_us']:.1f}", f"{r['ratio']:.2f}"] if r else ["", ""]
            if each:
                cells.append(f"{r['alltoall_us']:.1f}" if r else "")
            wrong += (r or {}).get("wrong") or 0
        if not each:
            cells.append(f"{row['alltoall_us']:.1f}")
        cells.append(str(wrong))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
