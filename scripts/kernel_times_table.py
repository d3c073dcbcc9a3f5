#!/usr/bin/env python3
"""Markdown table of one run's kernels as a profiler timed them (a JSON file whose "kernels" maps each
run's label to its kernels in launch order: kernel, block, grid, time_us, dram_read_bytes,
dram_write_bytes). Launches of the same kernel with the same block and grid make one row: how many,
their mean time, the HBM bytes each moved and the rate that makes. Launches under --shortest µs (default
300) are left out: the small copies and transposes a run times beside its FFTs.

    scripts/kernel_times_table.py [--shortest US] KERNELS.json
"""
import json
import re
import sys


def short_name(kernel):
    name = re.sub(r"^void ", "", kernel).replace("<unnamed>::", "")
    name = re.sub(r"(, )?HostConfigPlaceholder", "", name)
    return name.replace("dtr::", "")


def main(args):
    shortest = 300.0
    if args[:1] == ["--shortest"]:
        shortest, args = float(args[1]), args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = json.load(open(args[0]))["kernels"]
    print("| run | kernel | block | grid | launches | mean (µs) | HBM bytes a launch (GB) | HBM rate (TB/s) |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for label, kernels in runs.items():
        rows = {}
        for k in kernels:
            if k["time_us"] >= shortest:
                rows.setdefault((k["kernel"], k["block"], k["grid"]), []).append(k)
        for (kernel, block, grid), launches in rows.items():
            time = sum(k["time_us"] for k in launches) / len(launches)
            moved = sum(k["dram_read_bytes"] + k["dram_write_bytes"] for k in launches) / len(launches)
            print(f"| {label} | `{short_name(kernel)}` | {block} | {grid} | {len(launches)} | {time:.1f} | "
                  f"{moved / 1e9:.2f} | {moved / time / 1e6:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
