#!/usr/bin/env python3
"""Markdown table of halo-bench runs (--json FILE): the halo exchange and its adjoint against the bare
exchange of the same bytes with the same peers on the plan's transport, in the same run. The adjoint's
columns appear where a run has them (runs of halo-bench before it timed the adjoint do not).

    scripts/halo_table.py RUN.json...
"""
import json
import sys


def main(paths):
    rows = [r for path in paths for r in json.load(open(path))]
    adjoint = any("adjoint_us" in r for r in rows)
    print("| array | pencil | widths | grid | backend | bytes sent a rank | halo (µs) | bare exchange (µs) | ratio |"
          + (" adjoint (µs) | adjoint ratio |" if adjoint else ""))
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if adjoint else ""))
    for r in rows:
        n, h = r["shape"], r["halo"]
        widths = "×".join(map(str, h)) + (" periodic" if r["periodic"] else " open")
        line = (f"| {n[0]}³ {r['dtype']} | {r['pencil']} | {widths} | {r['grid'][0]}×{r['grid'][1]} | {r['backend']} | "
                f"{r['bytes_sent_per_rank']} | {r['halo_us']:.1f} | {r['bare_us']:.1f} | {r['ratio']:.2f} |")
        if adjoint:
            line += f" {r['adjoint_us']:.1f} | {r['adjoint_ratio']:.2f} |" if "adjoint_us" in r else " – | – |"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
