#!/usr/bin/env python3
"""Markdown table of fft-kinds runs (--json FILE): the FFT with real-to-real axes against the periodic
FFT of the same shape, type, grid and backend in the same run (the run's variant with every axis
periodic), a padded FFT against the periodic FFT of its padded grid (the variant's "yardstick"), forward
and inverse medians, and each variant's round-trip error.

    scripts/kinds_table.py [--periodic] [LABEL=]RUN.json...

--periodic: only the variants with every axis periodic (unpadded; with --unnormalized, both norms).
LABEL=: a first column naming each file's build or setting (where any file has one).
"""
import json
import sys


def main(args):
    periodic = "--periodic" in args
    files = [a.rpartition("=")[::2] for a in args if a != "--periodic"]
    labelled = any(label for label, _ in files)
    print(("| run " if labelled else "") + "| array | grid | device | axes (x, y, z) | forward (µs) | inverse (µs) | ÷ periodic, forward"
          " | ÷ periodic, inverse | round trip |")
    print(("| --- " if labelled else "") + "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for label, path in files:
        run = json.load(open(path))
        n = run["shape"]
        shape = f"{n[0]}³" if n[0] == n[1] == n[2] else "×".join(map(str, n))
        variants = run["variants"]
        for v in variants:
            if periodic and (v["axes"] != ["P", "P", "P"] or v.get("padding")):
                continue
            base = variants[v["yardstick"]] if "yardstick" in v else next(u for u in variants if u["axes"] == ["P", "P", "P"])
            axes = ", ".join(v["axes"])
            if v.get("norm") == "none":
                axes += ", norm none"
            elif v.get("padding"):
                axes += f", padded {v['padding']:g}"
            elif "shape" in v and v["shape"] != n:
                axes += " on " + "×".join(map(str, v["shape"]))
            print((f"| {label or '–'} " if labelled else "") + f"| {shape} {run['dtype']} | {run['grid'][0]}×{run['grid'][1]} | {run['device']} | {axes} | "
                  f"{v['forward_us']:.1f} | {v['inverse_us']:.1f} | {v['forward_us'] / base['forward_us']:.2f} | "
                  f"{v['inverse_us'] / base['inverse_us']:.2f} | {v['round_trip_error']:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
