#!/usr/bin/env python3
"""Markdown table of bench.py jaxdecomp runs (--json FILE): per case, jitted fftn and ifftn on JAX arrays,
the same plans called from C in the same run (--c-loop), jaxdecomp's pfft3d and pifft3d, and the ratios.

    scripts/jax_table.py RUN.json...
"""
import json
import sys


def main(paths):
    print("| array | grid | jitted fftn (µs) | C (µs) | ÷ C | jaxdecomp (µs) | jaxdecomp ÷ ours | jitted ifftn (µs) | C (µs) | ÷ C | jaxdecomp (µs) | jaxdecomp ÷ ours |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        rows = {r["impl"]: r for r in json.load(open(path))}
        ours, c, jd = rows["disttranspose"], rows.get("C"), rows.get("jaxdecomp")
        cells = []
        for d in ("forward_us", "inverse_us"):
            cells.append(f"{ours[d]:.0f}")
            cells += [f"{c[d]:.0f}", f"{ours[d] / c[d]:.3f}"] if c else ["–", "–"]
            cells += [f"{jd[d]:.0f}", f"{jd[d] / ours[d]:.2f}"] if jd else ["–", "–"]
        n = ours["shape"]
        print(f"| {n[0]}³ {ours['dtype']} | {ours['grid'][0]}×{ours['grid'][1]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
