#!/usr/bin/env python3
"""Markdown table of fft3d runs (examples/fft3d --json FILE): the forward transform's local FFT
passes and transposes (medians of the slowest rank), its total and GFLOP/s, and its checks.

    scripts/fft3d_table.py RUN.json...
"""
import json
import sys


def shape(s):
    return f"{s[0]}³" if s[0] == s[1] == s[2] else "×".join(map(str, s))


def error(v):
    return "–" if v is None else f"{v:.1e}"


def main(argv):
    print("| array | grid | local FFT passes (µs) | transposes (µs) | total (µs) | GFLOP/s | round trip | against one GPU |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for path in argv:
        r = json.load(open(path))
        ffts = [s for s in r["stages"] if s["stage"].startswith("fft")]
        moves = [s for s in r["stages"] if not s["stage"].startswith("fft")]
        local = " + ".join(f"{s['forward_us']:.1f} ({s['stage'][4:]})" for s in ffts)
        trans = " + ".join(f"{s['forward_us']:.1f} ({s['stage'].replace('->', '→')})" for s in moves)
        print(f"| {shape(r['shape'])} {r['dtype']} | {r['grid'][0]}×{r['grid'][1]} {r['layout']} | {local} | {trans} | "
              f"{r['forward_us']:.1f} | {r['forward_gflops']:.0f} | {error(r['round_trip_error'])} | {error(r['reference_error'])} |")
        if not r["passed"]:
            print(f"fft3d_table.py: {path} did not pass its checks", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
