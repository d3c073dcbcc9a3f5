#!/usr/bin/env python3
"""Markdown tables of a transpose-bench run (transpose-bench -J): for each element size and shape,
the copy ceiling measured in the same run and each kernel's GB/s with its % of that ceiling, the
best in bold. One row per element size and shape; kernels that cannot serve a shape show '–'.

    scripts/kernels_table.py docs/results/1xH200-kernels/kernels.json [--shapes square]
"""
import json
import sys


def main(argv):
    path = argv[0]
    shapes = None
    if "--shapes" in argv:
        shapes = argv[argv.index("--shapes") + 1].split(",")
    run = json.load(open(path))
    rows = [r for r in run["rows"] if shapes is None or r["shape"] in shapes]
    kernels = []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    cases = []
    for r in rows:
        key = (r["elem"], r["shape"], r["rows"], r["cols"])
        if key not in cases:
            cases.append(key)
    head = ["element", "shape", "rows × cols", "copy (GB/s)"] + [f"{k} (GB/s, %)" for k in kernels] + ["best", "#wrong"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---:" if i != 1 else "---" for i in range(len(head))) + " |")
    for elem, shape, nr, nc in cases:
        mine = [r for r in rows if (r["elem"], r["shape"], r["rows"], r["cols"]) == (elem, shape, nr, nc)]
        ceiling = max(max(r["copy_gbs"], r["memcpy_gbs"]) for r in mine)
        best = max(mine, key=lambda r: r["pct_copy"])
        cells = [f"{elem} B", shape, f"{nr} × {nc}", f"{ceiling:.0f}"]
        for k in kernels:
            r = next((r for r in mine if r["kernel"] == k), None)
            if r is None or r["time_us"] <= 0:
                cells.append("–")
                continue
            text = f"{r['gbs']:.0f} ({r['pct_copy']:.1f} %)"
            cells.append(f"**{text}**" if r is best else text)
        cells += [f"{best['pct_copy']:.1f} %", str(sum(r["wrong"] for r in mine))]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
