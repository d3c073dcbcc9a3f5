#!/usr/bin/env python3
"""Markdown table of bench.py jit-chain runs (--json FILE): our FFT calls inside one jitted loop against the
same calls from C, per call, and a jitted single call beside JAX's own dispatch cost on the same array.

    scripts/jit_chain_table.py RUN.json...
"""
import json
import sys


def main(paths):
    print("| array | grid | device | a call in the jitted loop (µs) | C (µs) | ÷ C | over C (µs) | jitted alone (µs) "
          "| its dispatch (µs) | JAX's dispatch of v × 2 (µs) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        for r in json.load(open(path)):
            n = r["shape"]
            jd = r.get("dispatch_xla_us")
            print(f"| {n[0]}³ {r['dtype']} | {r['grid'][0]}×{r['grid'][1]} | {r['device']} {r['backend']} | "
                  f"{r['per_call_jit_us']:.2f} | {r['per_call_c_us']:.2f} | {r['ratio']:.3f} | {r['overhead_per_call_us']:+.2f} | "
                  f"{r['jit_single_fftn_us']:.1f} | {r['jit_single_fftn_us'] - r['per_call_jit_us']:.1f} | "
                  + (f"{jd:.1f}" if jd is not None else "–") + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
