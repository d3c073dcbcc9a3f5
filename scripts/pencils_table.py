#!/usr/bin/env python3
"""Markdown table of pencil transposes (disttranspose --shape ... -J): each beside the bare all-to-all
of its own group and, where --matrix files are given, the ratio of the 2-D transpose of the same
bytes per rank on as many ranks (the same dtype), measured in the same run.

    scripts/pencils_table.py [--forward] [--groups] PENCILS.json... [--matrix MATRIX.json...]

A file is the CLI's array of rows, or an object whose "pencils" and "matrix" lists hold them.
--forward keeps the forward transposes (X->Y, Y->Z, X->Z); --groups drops the transposes whose group
is one rank (local batched transposes, no exchange).
"""
import json
import sys

ARROW = {"->": "→"}


def size(b):
    for unit, n in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if b >= n * 0.99:
            return f"{b / n:.0f} {unit}"
    return f"{b:.0f}"


def load(paths, kind, arrays):
    """The rows of `kind` in the object files, and the array files' rows where `arrays`."""
    rows = []
    for path in paths:
        data = json.load(open(path))
        rows += data.get(kind, []) if isinstance(data, dict) else (data if arrays else [])
    return rows


def shape(s):
    return f"{s[0]}³" if s[0] == s[1] == s[2] else "×".join(map(str, s))


def matrix(m):
    side = f"{m['rows']}²" if m["rows"] == m["cols"] else f"{m['rows']} × {m['cols']}"
    return f"{m['ratio']:.2f} ({side}" + (f", {m['stages']} stages" if m.get("stages", 1) > 1 else "") + ")"


def main(argv):
    forward, groups = "--forward" in argv, "--groups" in argv
    args = [a for a in argv if a not in ("--forward", "--groups")]
    cut = args.index("--matrix") if "--matrix" in args else len(args)
    pencils = load(args[:cut], "pencils", True)
    mats = load(args[:cut], "matrix", False) + load(args[cut + 1:], "matrix", True)
    if forward:
        pencils = [r for r in pencils if r["transpose"] in ("X->Y", "Y->Z", "X->Z")]
    if groups:
        pencils = [r for r in pencils if r["group"] > 1]
    head = ["array", "grid", "transpose", "group", "backend", "bytes/rank", "time (µs)", "a2a (µs)", "ratio"]
    if mats:
        head.append("2-D ratio, same bytes")
    print("| " + " | ".join(head) + " |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |" + (" ---: |" if mats else ""))
    for r in pencils:
        cells = [f"{shape(r['shape'])} {r['dtype']}", f"{r['grid'][0]}×{r['grid'][1]}",
                 r["transpose"].replace("->", "→") + (" (slabs)" if r["transpose"] in ("X->Z", "Z->X") else ""),
                 str(r["group"]), r["backend"], size(r["bytes_per_rank"]), f"{r['time_us']:.1f}",
                 f"{r['alltoall_us']:.1f}", f"{r['ratio']:.2f}"]
        if mats:
            same = [m for m in mats if m["ranks"] == r["group"] and m["dtype"] == r["dtype"]
                    and m["bytes_per_rank"] == r["bytes_per_rank"]]
            cells.append(matrix(same[0]) if same and r["group"] > 1 else "–")
        print("| " + " | ".join(cells) + " |")
        if r.get("wrong", 0):
            print(f"pencils_table.py: {r['wrong']} wrong entries in a row", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
