#!/usr/bin/env python3
"""Markdown tables of fft3d runs (examples/fft3d --json FILE).

Default: the forward transform's local FFT passes and transposes (medians of the slowest rank), its total
and GFLOP/s, and its checks. --fields: runs with --howmany N, the plan of N fields against N executes of
the single-field plan in the same run, forward and inverse, and their ratios; a label per file
(LABEL=RUN.json) names the build it ran (e.g. before/now).

    scripts/fft3d_table.py RUN.json...
    scripts/fft3d_table.py --fields [LABEL=]RUN.json...
"""
import json
import sys


def shape(s):
    return f"{s[0]}³" if s[0] == s[1] == s[2] else "×".join(map(str, s))


def error(v):
    return "–" if v is None else f"{v:.1e}"


def stages_row(r):
    ffts = [s for s in r["stages"] if s["stage"].startswith("fft")]
    moves = [s for s in r["stages"] if not s["stage"].startswith("fft")]
    local = " + ".join(f"{s['forward_us']:.1f} ({s['stage'][4:]})" for s in ffts)
    trans = " + ".join(f"{s['forward_us']:.1f} ({s['stage'].replace('->', '→')})" for s in moves)
    return (f"| {shape(r['shape'])} {r['dtype']} | {r['grid'][0]}×{r['grid'][1]} {r['layout']} | {local} | {trans} | "
            f"{r['forward_us']:.1f} | {r['forward_gflops']:.0f} | {error(r['round_trip_error'])} | {error(r['reference_error'])} |")


def fields_row(label, r):
    f = r.get("fields")
    if not f:
        return None
    kind = "R2C" if r["kind"] == "R2C" else r["dtype"]
    return (f"| {label or '–'} | {shape(r['shape'])} {kind} | {r['grid'][0]}×{r['grid'][1]} {r['backend']}, {r['ranks']} ranks | "
            f"{r['howmany']} | {f['forward_us']:.0f} / {f['inverse_us']:.0f} | "
            f"{f['singles_forward_us']:.0f} / {f['singles_inverse_us']:.0f} | {f['forward_over_singles']:.3f} | "
            f"{f['inverse_over_singles']:.3f} |")


def main(argv):
    fields = bool(argv) and argv[0] == "--fields"
    if fields:
        argv = argv[1:]
        print("| build | array | grid | fields | N fields fwd / inv (µs) | N single fwd / inv (µs) | ÷ N single, forward | ÷ N single, inverse |")
        print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    else:
        print("| array | grid | local FFT passes (µs) | transposes (µs) | total (µs) | GFLOP/s | round trip | against one GPU |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: |")
    for arg in argv:
        label, _, path = arg.rpartition("=") if fields else ("", "", arg)
        r = json.load(open(path))
        row = fields_row(label, r) if fields else stages_row(r)
        if row is None:
            print(f"fft3d_table.py: {path} has no several-fields run (fft3d --howmany N)", file=sys.stderr)
            return 1
        print(row)
        if not r["passed"]:
            print(f"fft3d_table.py: {path} did not pass its checks", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
