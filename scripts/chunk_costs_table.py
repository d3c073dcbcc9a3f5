#!/usr/bin/env python3
"""Markdown table of what a chunk of the slab route costs one rank's GPU (fft-parts' one-GPU part, its
JSON): per file and chunk count, the 2-D pass in that many chunks on one stream and alternating over two,
the pass along z in as many chunks of lines likewise (where the file has it), the route's order (each
chunk's rows for the peers copied by the copy engines on the same GPU, then the pass along z) likewise,
and what each chunk beyond the first adds to each pass on one and on two streams. The parts alone (the
copies, the pass along z) in the rows' first line.

With --pieces: the 2-D pass in pieces of 1-32 planes on one stream and on two, against the whole pass
in one (where the file has them): pieces whose planes fit in L2 may keep the 2-D transform's second
kernel's reads out of HBM.

With --scatter: the 2-D pass that delivers as it goes (fft-parts' scatter part): cuFFT's 2-D pass then the
copy engines' copies of each rank's rows into its array, against the library's y pass then its x pass
writing each rank's rows straight there; on one GPU (the ranks' arrays on that GPU) and, where the file
has it, on every GPU at once (the peers' arrays over the links).

    scripts/chunk_costs_table.py [--pieces | --scatter] PARTS.json...
"""
import json
import sys


def us(value):
    return "–" if value is None else f"{value:.1f}"


def perChunk(row, first, key, k):
    if row.get(key) is None or first.get(key) is None:
        return "–"
    return f"{(row[key] - first[key]) / (k - 1):.1f}"


def pieces(paths):
    print("| array | ranks modelled | device | L2 (MiB) | planes a piece | MiB a piece | 1 stream (µs) | 2 streams (µs) "
          "| ÷ whole pass |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        d = json.load(open(path))
        for p in d.get("pieces", []):
            best = min(p["one_stream_us"], p["two_streams_us"])
            print(f"| {d['n']}³ c64 | {d['ranks']} | {d['device']} | {d['l2_bytes'] >> 20} | {p['planes']} | "
                  f"{p['bytes'] >> 20} | {p['one_stream_us']:.1f} | {p['two_streams_us']:.1f} | {best / d['pass_us']:.2f} |")
    return 0


def scatter(paths):
    print("| array | ranks | device | where the ranks' arrays are | (a) cuFFT 2-D (µs) | then copies (µs) | (a) in all (µs) "
          "| (b) library y pass (µs) | then its x pass into the arrays (µs) | (b) in all (µs) | b ÷ a "
          "| library 2-D ÷ cuFFT's | checks |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        d = json.load(open(path))
        one = d.get("scatter")
        if one:
            print(f"| {d['n']}³ c64 | {one['ranks']} | {d['device']} | this GPU | {one['cufft_2d_us']:.1f} | "
                  f"{one['copies_us']:.1f} | {one['cufft_then_copies_us']:.1f} | {one['y_pass_us']:.1f} | "
                  f"{one['x_into_ranks_us']:.1f} | {one['library_into_ranks_us']:.1f} | "
                  f"{one['library_into_ranks_us'] / one['cufft_then_copies_us']:.2f} | "
                  f"{one['library_2d_us'] / one['cufft_2d_us']:.2f} | "
                  f"{max(one['max_rel_diff_2d'], one['max_rel_diff_delivered']):.0e} |")
        many = d.get("scatter_gpus")
        if many:
            print(f"| {d['n']}³ c64 | {many['gpus']} | {d['device']} | one a GPU | {many['cufft_2d_us']:.1f} | "
                  f"{many['copies_us']:.1f} | {many['cufft_then_copies_us']:.1f} | {many['y_pass_us']:.1f} | "
                  f"{many['x_into_peers_us']:.1f} (own GPU only {many['x_into_own_gpu_us']:.1f}"
                  + (f"; gathering instead, reading the peers' {many['x_from_peers_us']:.1f}" if "x_from_peers_us" in many else "")
                  + ") | "
                  f"{many['library_into_peers_us']:.1f} | "
                  f"{many['library_into_peers_us'] / many['cufft_then_copies_us']:.2f} | – | "
                  f"{many['max_rel_diff_delivered']:.0e} |")
    return 0


def main(args):
    paths = [a for a in args if a not in ("--pieces", "--scatter")]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if "--pieces" in args:
        return pieces(paths)
    if "--scatter" in args:
        return scatter(paths)
    print("| array | ranks modelled | device | chunks | 2-D, 1 stream (µs) | 2-D, 2 streams (µs) | z, 1 stream (µs) "
          "| z, 2 streams (µs) | route, 1 stream (µs) | route, 2 streams (µs) | a chunk more, 2-D on 1 / 2 streams (µs) "
          "| a chunk more, z on 1 / 2 streams (µs) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        d = json.load(open(path))
        rows = d["chunks"]
        one = rows[0]
        for r in rows:
            k = r["chunks"]
            if k == 1:
                more2d, moreZ = f"copies alone {d['copies_us']:.1f}", f"z alone {d['z_us']:.1f}"
            else:
                more2d = (f"{perChunk(r, one, 'pass_one_stream_us', k)} / "
                          f"{perChunk(r, one, 'pass_two_streams_us', k)}")
                moreZ = f"{perChunk(r, one, 'z_one_stream_us', k)} / {perChunk(r, one, 'z_two_streams_us', k)}"
            print(f"| {d['n']}³ c64 | {d['ranks']} | {d['device']} | {k} | {us(r['pass_one_stream_us'])} | "
                  f"{us(r['pass_two_streams_us'])} | {us(r.get('z_one_stream_us'))} | {us(r.get('z_two_streams_us'))} | "
                  f"{us(r['route_one_stream_us'])} | {us(r['route_two_streams_us'])} | {more2d} | {moreZ} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
