#!/usr/bin/env python3
"""Markdown table of CLI sweeps (disttranspose -J) side by side: one row per dtype and size, for each
JSON file its time and ratio to the bare all-to-all measured in the same run.

    scripts/results_table.py docs/results/2xH200-p2p/sweep-2-{nccl,p2p}-c64.json
"""
import json
import sys


def size(b):
    for unit, n in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if b >= n * 0.99:
            return f"{b / n:.0f} {unit}"
    return f"{b:.0f}"


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    backends = [(r[0]["backend"] + (" in place" if r[0].get("inplace") else "")) if r else "?" for r in runs]
    head = ["dtype", "bytes/rank", "shape"]
    for b in backends:
        head += [f"{b} (µs)", f"{b} ratio"]
    head += ["a2a (µs)", "#wrong"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" if i < 1 else "---:" for i in range(len(head))) + " |")
    for i, row in enumerate(runs[0]):
        cells = [row["dtype"], size(row["bytes_per_rank"]), f"{row['rows']}²" if row["rows"] == row["cols"]
                 else f"{row['rows']} × {row['cols']}"]
        wrong = 0
        for run in runs:
            r = run[i] if i < len(run) else None
            cells += [f"{r['time_us']:.1f}", f"{r['ratio']:.2f}"] if r else ["", ""]
            wrong += (r or {}).get("wrong") or 0
        cells += [f"{row['alltoall_us']:.1f}", str(wrong)]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
