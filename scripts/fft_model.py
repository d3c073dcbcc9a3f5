#!/usr/bin/env python3
"""The model of the library FFT on the GPUs of one node (docs/model.md#the-fft-on-one-node), from the
parts examples/fft3d and fft-parts measured on 2 and 4 GPUs, and its prediction for 8.

Slabs (the slab route, src/fft/slab_copies.c), a rank's slab of S bytes, P ranks, C chunks:
    T = max(HBM, links) + g (A + Z) / C
  HBM   = (6 + 2 (P - 1) / P) S / R: the 2-D pass reads and writes the slab twice, the pass along z
          once, the copies read (P - 1) / P of it and the peers write as much into this rank's memory;
          R the HBM rate of the passes alone (their bytes over their time, measured);
  links = S (P - 1) / P / L, L the copy engines' all-to-all rate (fft-parts, staggered peers);
  A, Z  = the 2-D pass and the transposing pass along z alone (fft3d's parts; the transposing pass
          1.15 x the contiguous one, fft-parts); their chunks at both ends are what the overlap leaves;
  g     = one constant fitted to the measured rows (least relative squares).
Slabs delivering as they go (DTR_FFT_DELIVER, forward): the library's y pass, then its x pass writing each
rank's rows into that rank's staging array over the links, then the pass along z after every peer's:
    T = Y A' / C + max(4 S / R, links_sm) + Z
  A' = 1.03 A, the library's 2-D pass (1.01-1.06 x cuFFT's on one H100), Y its y pass's share (0.53);
  HBM 4 S: y and x each read and write the slab (the peers' rows land here in place of this rank's);
  links_sm = S (P - 1) / P / L_sm, the SMs' stores to the peers, at the copy engines' rate or less (not
  yet measured); the pass along z waits for the last chunk, no rounds.
  With rounds (DTR_FFT_DELIVER=2): the rows of the first W = C - R chunks of lines go out as the y pass
  makes the planes, those of the last R in rounds once it is done, the pass along z behind the rounds:
    T = max(Y A', w links_sm) + max((1 - w) links_sm, (C - 1) / C Z) + Z / C,  w = W / C
  (at least the HBM bound), R = C - W by chunk_rule.c's rule for it.
The inverse that gathers (DTR_FFT_GATHER, its mirror): the pass along z in chunks, the x pass reading
the rows of the first R chunks of lines from the peers in rounds as they come, the rest by chunks of
planes with the y pass (and the own rows' x pass, X' / P) behind:
    T = Z / C + max((C - 1) / C Z, r links_sm) + max((1 - r) links_sm, (C - 1) / C V) + V / C,
  r = R / C, V = Y A' + (1 - Y) A' / P (at least the HBM bound).
Pencils (one-pass exchanges, not overlapped: their kernel needs every SM):
    T = three passes + the exchanges, each S (g - 1) / g / K among its g ranks, K the one-pass rate
  measured on 4 GPUs; on P x 1 the Y<->Z transpose is made by the pass along y (no exchange).

    scripts/fft_model.py [RESULTS_DIR]   (default docs/results/4xH100-fft)
"""
import json
import math
import os
import sys

TRANSPOSING = 1.15      # the transposing pass along z over the contiguous one (fft-parts, 512^3 and 1024^3)
LINKS = 389e9           # bytes/s sent a GPU, the slab route's all-to-all of copies (fft-parts, 4 x H100)
LIBRARY_2D = 1.03       # the library's 2-D pass over cuFFT's (fft-parts scatter, one H100: 1.01-1.06)
Y_SHARE = 0.53          # its y pass's share of it (204 of 389 us at 512^3, 1711 of 3147 at 1024^3)


def load(d, name):
    path = os.path.join(d, name)
    return json.load(open(path)) if os.path.exists(path) else None


def steps(r, part):
    return {s["stage"]: s["forward_us"] * 1e-6 for s in r[part]["steps"]}


def slab_bytes(n, e, p):
    return n ** 3 * e / p


def chunks_by_rule(s):
    """src/fft/chunk_rule.c: chunks of 128 MiB a rank or more, 2 to 8."""
    c = 2
    while c < 8 and s / (2 * c) >= 128 * 2 ** 20:
        c *= 2
    return c


def slab_parts(n, e, p, rates):
    s = slab_bytes(n, e, p)
    a = s / rates["2d"]
    z = TRANSPOSING * s / rates["z"]
    hbm = (6 + 2 * (p - 1) / p) * s / rates["hbm"]
    links = s * (p - 1) / p / LINKS
    return s, a, z, hbm, links


def slab_time(n, e, p, rates, g, c=None):
    s, a, z, hbm, links = slab_parts(n, e, p, rates)
    c = c or chunks_by_rule(s)
    return max(hbm, links) + g * (a + z) / c, c


def one_trip_parts(n, e, p, rates, link, c=None):
    """The routes on the library's one-trip passes: the slab's bytes, its 2-D pass (A'), its pass along z,
    the chunks, the time of the bytes to the peers at `link`, and the HBM bound of the four trips."""
    s = slab_bytes(n, e, p)
    c = c or chunks_by_rule(s)
    return (s, LIBRARY_2D * s / rates["2d"], TRANSPOSING * s / rates["z"], c, s * (p - 1) / p / link,
            4 * s / rates["hbm"])


def deliver_time(n, e, p, rates, link, c=None):
    s, a, z, c, sent, hbm = one_trip_parts(n, e, p, rates, link, c)
    return Y_SHARE * a / c + max(hbm, sent) + z, c


def deliver_rounds(p, c):
    """src/fft/chunk_rule.c: the delivering route's rounds, its y pass (two passes over the slab) against
    the links (0.13 of HBM's rate)."""
    if c < 2 or p < 2:
        return 1
    whole = min(c - 1, math.ceil(2.0 * 0.13 * p / (p - 1) * (c - 1)))
    return c - whole


def deliver_rounds_time(n, e, p, rates, link, c=None):
    s, a, z, c, sent, hbm = one_trip_parts(n, e, p, rates, link, c)
    w = (c - deliver_rounds(p, c)) / c
    t = max(Y_SHARE * a, w * sent) + max((1 - w) * sent, (c - 1) / c * z) + z / c
    return max(t, hbm), c


def gather_time(n, e, p, rates, link, c=None):
    s, a, z, c, sent, hbm = one_trip_parts(n, e, p, rates, link, c)
    r = deliver_rounds(p, c) / c
    v = Y_SHARE * a + (1 - Y_SHARE) * a / p
    t = z / c + max((c - 1) / c * z, r * sent) + max((1 - r) * sent, (c - 1) / c * v) + v / c
    return max(t, hbm), c


def at_both_rates(route, n, e, p, rates, c):
    """A route's time with the SMs' traffic to the peers at the copy engines' rate and at 300 GB/s."""
    return route(n, e, p, rates, LINKS, c)[0], route(n, e, p, rates, 300e9, c)[0]


def main(argv):
    d = argv[0] if argv else "docs/results/4xH100-fft"
    # Rates of the passes alone, per byte of slab, from the 4-GPU 1024^3 run (the largest).
    ref = load(d, "fft3d-1x4-1024-c64.json")
    st = steps(ref, "passes")
    s = slab_bytes(1024, 8, 4)
    rates = {"2d": s / st["fft yx"], "z": s / st["fft z"], "hbm": 6 * s / (st["fft yx"] + st["fft z"])}
    # The one-pass exchange's rate among g ranks, from the 4-GPU pencil runs.
    k2 = load(d, "fft3d-2x2-512-c64.json")
    k4 = load(d, "fft3d-4x1-512-c64.json")
    s512 = slab_bytes(512, 8, 4)
    one_pass = {2: s512 / 2 / steps(k2, "exchanges")["X->Y p2p"], 4: s512 * 3 / 4 / steps(k4, "exchanges")["X->Y p2p"]}
    pass_rate = 3 * 2 * s512 / (k2["passes"]["forward_us"] * 1e-6)  # bytes/s of the contiguous 1-D passes, read + written
    print(f"rates: 2-D pass {rates['2d'] / 1e9:.0f} GB/s of slab, pass along z {rates['z'] / 1e9:.0f}, HBM "
          f"{rates['hbm'] / 1e9:.0f} GB/s read + written; links {LINKS / 1e9:.0f} GB/s; one-pass exchange "
          f"{one_pass[2] / 1e9:.0f} GB/s among 2, {one_pass[4] / 1e9:.0f} among 4")

    slabs = [(f"fft3d-1x{p}-{n}-{t}.json", n, 8 if t == "c64" else 16, p)
             for p in (2, 4) for n, t in ((512, "c64"), (1024, "c64"), (512, "c128"))]
    rows = [(f, n, e, p, load(d, f)) for f, n, e, p in slabs]
    rows = [r for r in rows if r[4]]
    # g by least relative squares: T_measured = base + g x tail.
    num = den = 0.0
    for f, n, e, p, r in rows:
        s, a, z, hbm, links = slab_parts(n, e, p, rates)
        base, tail = max(hbm, links), (a + z) / r["chunks"]
        t = r["forward_us"] * 1e-6
        num += tail * (t - base) / t ** 2
        den += tail * tail / t ** 2
    g = num / den
    print(f"fitted g = {g:.2f}\n")
    print("| ranks | array | grid | chunks | measured (µs) | model (µs) | error | HBM bound (µs) | link bound (µs) |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f, n, e, p, r in rows:
        s, a, z, hbm, links = slab_parts(n, e, p, rates)
        model, _ = slab_time(n, e, p, rates, g, r["chunks"])
        t = r["forward_us"] * 1e-6
        print(f"| {p} | {n}³ {'c64' if e == 8 else 'c128'} | 1×{p} | {r['chunks']} | {t * 1e6:.0f} | {model * 1e6:.0f} | "
              f"{(model - t) / t * 100:+.1f} % | {hbm * 1e6:.0f} | {links * 1e6:.0f} |")
    for name, grid, p in (("fft3d-2x2-512-c64.json", (2, 2), 4), ("fft3d-4x1-512-c64.json", (4, 1), 4)):
        r = load(d, name)
        t = r["forward_us"] * 1e-6
        model = pencil_time(512, 8, grid, one_pass, pass_rate)
        print(f"| {p} | 512³ c64 | {grid[0]}×{grid[1]} | 1 | {t * 1e6:.0f} | {model * 1e6:.0f} | {(model - t) / t * 100:+.1f} % | – | – |")

    print("\nPredicted for 8 GPUs of one node (NVLink as on the 4-GPU machine, each GPU's links and HBM as measured):\n")
    print("| array | grid | chunks | predicted (µs) | HBM bound (µs) | link bound (µs) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for n, e in ((512, 8), (1024, 8), (512, 16)):
        s, a, z, hbm, links = slab_parts(n, e, 8, rates)
        model, c = slab_time(n, e, 8, rates, g)
        print(f"| {n}³ {'c64' if e == 8 else 'c128'} | 1×8 slabs | {c} | {model * 1e6:.0f} | {hbm * 1e6:.0f} | {links * 1e6:.0f} |")
        for grid in ((2, 4), (4, 2), (8, 1)):
            m = pencil_time(n, e, grid, one_pass, pass_rate)
            print(f"| {n}³ {'c64' if e == 8 else 'c128'} | {grid[0]}×{grid[1]} pencils | 1 | {m * 1e6:.0f} | – | – |")
    print("\nPredicted, the forward slab route delivering as it goes against the copies route (both by this model; "
          "the SMs' stores at the copy engines' rate and at 300 GB/s sent a GPU):\n")
    print("| GPUs | array | chunks | copies route (µs) | delivering, stores at 389 GB/s (µs) | at 300 GB/s (µs) | ÷ copies route "
          "| rounds | with rounds, 389 GB/s (µs) | at 300 GB/s (µs) | ÷ copies route |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in (4, 8):
        for n, e in ((512, 8), (1024, 8), (512, 16)):
            copies, c = slab_time(n, e, p, rates, g)
            fast, slow = at_both_rates(deliver_time, n, e, p, rates, c)
            rfast, rslow = at_both_rates(deliver_rounds_time, n, e, p, rates, c)
            print(f"| {p} | {n}³ {'c64' if e == 8 else 'c128'} | {c} | {copies * 1e6:.0f} | {fast * 1e6:.0f} | {slow * 1e6:.0f} | "
                  f"{fast / copies:.2f}–{slow / copies:.2f} | {deliver_rounds(p, c)} | {rfast * 1e6:.0f} | {rslow * 1e6:.0f} | "
                  f"{rfast / copies:.2f}–{rslow / copies:.2f} |")
    print("\nPredicted, the inverse slab route gathering as it goes (DTR_FFT_GATHER) against the copies route (the "
          "copies route's inverse taken as its forward; loads over the links at 389 and 300 GB/s a GPU):\n")
    print("| GPUs | array | chunks | rounds | copies route (µs) | gathering, 389 GB/s (µs) | at 300 GB/s (µs) | ÷ copies route |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in (4, 8):
        for n, e in ((512, 8), (1024, 8), (512, 16)):
            copies, c = slab_time(n, e, p, rates, g)
            fast, slow = at_both_rates(gather_time, n, e, p, rates, c)
            print(f"| {p} | {n}³ {'c64' if e == 8 else 'c128'} | {c} | {deliver_rounds(p, c)} | {copies * 1e6:.0f} | "
                  f"{fast * 1e6:.0f} | {slow * 1e6:.0f} | {fast / copies:.2f}–{slow / copies:.2f} |")
    return 0


def exchange_rate(one_pass, g):
    """The one-pass rate among g ranks: measured for 2 and 4, the 4-rank one beyond."""
    return one_pass[2] if g <= 2 else one_pass[4]


def pencil_time(n, e, grid, one_pass, pass_rate):
    """Three passes, X<->Y among the pr ranks that share a z range, Y<->Z among the pc that share an x
    range (on P x 1 the pass along y makes it)."""
    pr, pc = grid
    s = slab_bytes(n, e, pr * pc)
    t = 3 * 2 * s / pass_rate
    for g in (pr, pc):
        if g > 1:
            t += s * (g - 1) / g / exchange_rate(one_pass, g)
    return t


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
