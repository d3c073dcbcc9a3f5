#!/usr/bin/env python3
"""Markdown table of the library FFT's runs (examples/fft3d --json FILE): the forward and inverse
times, the same with one chunk, the local passes alone and the exchanges alone (all from the same run,
runs alternated), the FFT's time over the larger of its parts, and, with --peer FILE, a peer's time
for the same case and our time over it.

    scripts/fft_table.py [--peer PEER.json] RUN.json...
"""
import json
import sys


def shape(s):
    return f"{s[0]}³" if s[0] == s[1] == s[2] else "×".join(map(str, s))


def dtype(r):
    if r.get("kind") == "R2C":
        return ("fp64" if r["dtype"] == "c128" else "fp32") + " R2C"
    return r["dtype"]


def main(argv):
    peer = {}
    if argv[:1] == ["--peer"]:
        for row in json.load(open(argv[1]))["rows"]:
            peer[(tuple(row["shape"]), row["dtype"], tuple(row["grid"]))] = row["forward_us"]
        argv = argv[2:]
    head = "| array | grid | exchanges | chunks | forward (µs) | inverse (µs) | 1 chunk | passes alone | exchanges alone | ÷ max(parts) |"
    rule = "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    if peer:
        head += " cuFFTMp (µs) | ÷ cuFFTMp |"
        rule += " ---: | ---: |"
    print(head)
    print(rule)
    status = 0
    for path in argv:
        r = json.load(open(path))
        fwd = r["forward_us"]
        parts = max(r["passes"]["forward_us"], r["exchanges"]["forward_us"])
        grid = f"{r['grid'][0]}×{r['grid'][1]} {r['layout']}"
        line = (f"| {shape(r['shape'])} {dtype(r)} | {grid} | {r['backend']} | {r['chunks']} | {fwd:.1f} | {r['inverse_us']:.1f} | "
                f"{r['one_chunk']['forward_us']:.1f} | {r['passes']['forward_us']:.1f} | {r['exchanges']['forward_us']:.1f} | "
                f"{fwd / parts:.2f} |")
        if peer:
            p = peer.get((tuple(r["shape"]), r["dtype"], tuple(r["grid"]))) if r.get("kind", "C2C") == "C2C" else None
            line += f" {p:.0f} | {fwd / p:.2f} |" if p else " – | – |"
        print(line)
        if not r["passed"]:
            print(f"fft_table.py: {path} did not pass its checks", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
