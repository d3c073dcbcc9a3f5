#!/usr/bin/env python3
"""Markdown table of halo-bench runs (--json FILE): the halo exchange against the bare exchange of the same
bytes with the same peers on the plan's transport, in the same run.

    scripts/halo_table.py RUN.json...
"""
import json
import sys


def main(paths):
    print("| array | pencil | widths | grid | backend | bytes sent a rank | halo (µs) | bare exchange (µs) | ratio |")
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for path in paths:
        for r in json.load(open(path)):
            n, h = r["shape"], r["halo"]
            widths = "×".join(map(str, h)) + (" periodic" if r["periodic"] else " open")
            print(f"| {n[0]}³ {r['dtype']} | {r['pencil']} | {widths} | {r['grid'][0]}×{r['grid'][1]} | {r['backend']} | "
                  f"{r['bytes_sent_per_rank']} | {r['halo_us']:.1f} | {r['bare_us']:.1f} | {r['ratio']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
