#!/usr/bin/env python3
"""Markdown table of fft-kinds runs (--json FILE): the FFT with real-to-real axes against the periodic
FFT of the same shape, type, grid and backend in the same run (the run's variant with every axis
periodic), forward and inverse medians, and each variant's round-trip error.

    scripts/kinds_table.py RUN.json...
"""
import json
import sys


def main(paths):
    print("| array | grid | device | axes (x, y, z) | forward (µs) | inverse (µs) | ÷ periodic, forward | ÷ periodic, inverse"
          " | round trip |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        run = json.load(open(path))
        n = run["shape"]
        shape = f"{n[0]}³" if n[0] == n[1] == n[2] else "×".join(map(str, n))
        base = next(v for v in run["variants"] if v["axes"] == ["P", "P", "P"])
        for v in run["variants"]:
            print(f"| {shape} {run['dtype']} | {run['grid'][0]}×{run['grid'][1]} | {run['device']} | {', '.join(v['axes'])} | "
                  f"{v['forward_us']:.1f} | {v['inverse_us']:.1f} | {v['forward_us'] / base['forward_us']:.2f} | "
                  f"{v['inverse_us'] / base['inverse_us']:.2f} | {v['round_trip_error']:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
