#!/usr/bin/env python3
"""Markdown table of examples/fft3d --grid auto --all-grids runs (--json FILE): the tuner's choice, how long
the tuning took, and the chosen candidate's FFT time by fft3d's own loop against the best candidate's,
with every candidate's forward time.

    scripts/autotune_table.py RUN.json...
"""
import json
import sys


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    names = []
    for r in runs:
        for c in r["candidates"]:
            name = f"{c['grid'][0]}×{c['grid'][1]} {c['backend']}"
            if name not in names:
                names.append(name)
    print("| array | chosen | tuning (s) | chosen ÷ best (fft3d's loop) | " + " | ".join(f"{n} fwd (µs)" for n in names) + " |")
    print("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in names) + " |")
    for r in runs:
        t = r["autotune"]
        timed = {f"{c['grid'][0]}×{c['grid'][1]} {c['backend']}": c for c in r["candidates"] if c.get("forward_us")}
        both = {n: c["forward_us"] + c["inverse_us"] for n, c in timed.items()}
        chosen = f"{t['grid'][0]}×{t['grid'][1]} {t['backend']}"
        n = r["shape"]
        cells = [f"{timed[x]['forward_us']:.0f}" if x in timed else "–" for x in names]
        print(f"| {n[0]}³ {r['dtype']} | {chosen} | {t['seconds']:.2f} | {both[chosen] / min(both.values()):.3f} | "
              + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
