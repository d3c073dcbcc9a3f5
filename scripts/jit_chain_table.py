#!/usr/bin/env python3
"""Markdown table of bench.py jit-chain runs (--json FILE): our FFT calls inside one jitted loop against the
same calls from C, per call; what one call more costs inside compiled code (unrolled chains of 2 k and 4 k
calls, apart from the dispatch paid once); a lone jitted call against a lone C call, beside what XLA's
dispatch costs alone (a custom call of ours that runs nothing, and v * 2 on the same array: its lone call
over its call in a loop). Older runs lack some columns ("–"). With --lone, the lone calls traced instead
(runs that have lone_trace): the host's clock from the call to the execute's entry, how far apart the
ranks enter, the execute's host time, from its return to the call's, and the whole call.

    scripts/jit_chain_table.py [--lone] RUN.json...
"""
import json
import sys


def cell(r, key, fmt):
    v = r.get(key)
    return "–" if v is None else format(v, fmt)


def lone(paths):
    print("| array | grid | device | call | to the execute (µs) | ranks apart (µs) | the execute's host time (µs) "
          "| to the call's return (µs) | whole (µs) | thread |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for path in paths:
        for r in json.load(open(path)):
            n = r["shape"]
            for name, t in r["lone_trace"].items():
                label = "jitted, a custom call" if name == "jit" else "from C"
                print(f"| {n[0]}³ {r['dtype']} | {r['grid'][0]}×{r['grid'][1]} | {r['device']} {r['backend']} | {label} | "
                      f"{t['to_entry']:.1f} | {t['entry_spread']:.1f} | {t['execute']:.1f} | {t['to_return']:.1f} | "
                      f"{t['whole']:.1f} | {'the caller' if t['same_thread'] else 'another'} |")
    return 0


def main(paths):
    if paths and paths[0] == "--lone":
        return lone(paths[1:])
    print("| array | grid | device | a call in the jitted loop (µs) | C (µs) | ÷ C | one call more, jitted − C (µs) "
          "| jitted alone (µs) | C alone (µs) | ÷ C | a custom call with nothing to run, alone (µs) "
          "| v × 2 alone − in a loop (µs) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        for r in json.load(open(path)):
            n = r["shape"]
            alone = r.get("c_single_fftn_us")
            ratio = "–" if alone is None else f"{r['jit_single_fftn_us'] / alone:.3f}"
            print(f"| {n[0]}³ {r['dtype']} | {r['grid'][0]}×{r['grid'][1]} | {r['device']} {r['backend']} | "
                  f"{r['per_call_jit_us']:.2f} | {r['per_call_c_us']:.2f} | {r['ratio']:.3f} | "
                  f"{cell(r, 'overhead_added_call_us', '+.2f')} | {r['jit_single_fftn_us']:.1f} | {cell(r, 'c_single_fftn_us', '.1f')} | "
                  f"{ratio} | {cell(r, 'nothing_single_us', '.1f')} | {cell(r, 'dispatch_xla_us', '.1f')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
