#!/usr/bin/env python3
"""Markdown table of what a chunk of the slab route costs one rank's GPU (fft-parts' one-GPU part, its
JSON): per file and chunk count, the 2-D pass in that many chunks on one stream and alternating over two,
the route's order (each chunk's rows for the peers copied by the copy engines on the same GPU, then the
pass along z) likewise, and what each chunk beyond the first adds to the 2-D pass on one and on two
streams. The parts alone (the copies, the pass along z) in the rows' first line.

    scripts/chunk_costs_table.py PARTS.json...
"""
import json
import sys


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print("| array | ranks modelled | device | chunks | 2-D, 1 stream (µs) | 2-D, 2 streams (µs) | route, 1 stream (µs) "
          "| route, 2 streams (µs) | a chunk more, 2-D on 1 / 2 streams (µs) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        d = json.load(open(path))
        rows = d["chunks"]
        one = rows[0]
        for r in rows:
            k = r["chunks"]
            more = (f"copies alone {d['copies_us']:.1f}, z alone {d['z_us']:.1f}" if k == 1 else
                    f"{(r['pass_one_stream_us'] - one['pass_one_stream_us']) / (k - 1):.1f} / "
                    f"{(r['pass_two_streams_us'] - one['pass_two_streams_us']) / (k - 1):.1f}")
            print(f"| {d['n']}³ c64 | {d['ranks']} | {d['device']} | {k} | {r['pass_one_stream_us']:.1f} | "
                  f"{r['pass_two_streams_us']:.1f} | {r['route_one_stream_us']:.1f} | {r['route_two_streams_us']:.1f} | {more} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
