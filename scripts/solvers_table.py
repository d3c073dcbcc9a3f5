#!/usr/bin/env python3
"""Markdown table of the solvers' runs (--json FILE of examples/taylor_green and examples/poisson, and of
their Python versions, whose array library shows beside the problem): the problem, the grid, ranks and
backend, and the time of a step (taylor_green: RK4, 3 fields, 12 transforms; the C example's median on
the slowest rank, the Python one's whole run over its steps) or the median of a solve (poisson:
forward, division, inverse) on the slowest rank, with the range over the timed steps where there is
one; a label per file (LABEL=RUN.json) names the machine or build it ran on.

    scripts/solvers_table.py [LABEL=]RUN.json...
"""
import json
import sys


def problem(r):
    lib = f" ({r['lib']})" if "lib" in r else ""
    return describe(r) + lib


def describe(r):
    if r["example"] == "taylor_green":
        grid = f"{r['n']}³ modes" + (f" on {r['physical_n']}³ points" if r["physical_n"] != r["n"] else "")
        return f"taylor_green, {grid}, {r['dealias']} rule, {r['type']}"
    s = r["shape"]
    shape = f"{s[0]}³" if s[0] == s[1] == s[2] else "×".join(map(str, s))
    walls = ", ".join(a.upper() for a in r["axes"] if a != "periodic") or "periodic"
    return f"poisson, {shape}, {walls} on z, {r['type']}"


def row(label, r):
    solver = r["example"] == "taylor_green"
    key = "step_us" if solver else "solve_us"
    what = "a step" if solver else "a solve"
    backend = f", {r['backend']}" if "backend" in r else ""
    spread = f"{r[key + '_min'] / 1e3:.2f}–{r[key + '_max'] / 1e3:.2f}" if key + "_min" in r else "–"
    return (f"| {label or '–'} | {problem(r)} | {r['grid'][0]}×{r['grid'][1]} {r['layout']}, {r['ranks']} "
            f"rank{'s' if r['ranks'] > 1 else ''}{backend} | {r[key] / 1e3:.2f} ms {what} | {spread} | "
            f"{'yes' if r['passed'] else 'no'} |")


def main(args):
    print("| run | problem | grid | median | range | passed |")
    print("| --- | --- | --- | ---: | ---: | --- |")
    for a in args:
        label, _, path = a.rpartition("=")
        print(row(label, json.load(open(path))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
