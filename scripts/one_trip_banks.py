#!/usr/bin/env python3
"""Shared-memory wavefronts of the one-trip kernel's FFT over lines side by side (kernels/stockham_fft.cuh,
kernels/axis_one_trip.cu), counted from its addresses: each warp instruction's 8-byte accesses, split into
half-warps, each half taking as many wavefronts as the most distinct words on one 8-byte bank (of 16).
A warp holds four points of eight lines (thread t of line r is thread 8 t + r); the accesses counted are
the loads into shared memory and the reads into registers, then each exchange's writes and reads. A
model, not a measurement: what it ranks is for a profiler to confirm.

    scripts/one_trip_banks.py [N:P:SPREAD[:LAYOUT] ...]
        (default: 512:8:8 1024:8:8 1024:16:8 1024:16:16 512:8:8:interleaved 1024:16:16:interleaved)

N points a line, P points a thread (8 or 16), a spare slot every SPREAD points (8 or 16). LAYOUT: rows
(default; a line a row, the rows n + n / SPREAD + 2 slots apart) or interleaved (slot i of line r at
8 i + r: the kernel's layout for the fixed lengths' DFTs over lines side by side).
"""
import math
import sys

LINES = 8  # a block's lines side by side: 64 bytes of single precision's complex points


def wavefronts(words):
    total = 0
    for half in (words[:16], words[16:]):
        banks = {}
        for w in set(half):
            banks.setdefault(w % 16, set()).add(w)
        total += max(len(b) for b in banks.values())
    return total


def passes(n, points):
    logn = int(math.log2(n))
    if points == 16:
        return [16] + [8] * ((logn - 4) // 3)
    first = {1: [2], 2: [4]}.get(logn % 3, [])
    return first + [8] * (logn // 3)


def count(n, points, spread, layout="rows"):
    T = n // points
    pitch = n + n // spread + 2

    def slot(i):
        return i + i // spread

    def word(r, s):  # the 8-byte word of line r's slot s
        return s * LINES + r if layout == "interleaved" else r * pitch + s

    def instruction(address):  # address(t) of each thread's access: the warps' wavefronts
        got = 0
        for w in range(LINES * T // 32):
            threads = range(32 * w, 32 * w + 32)
            got += wavefronts([word(x % LINES, address(x // LINES)) for x in threads])
        return got

    def points_of():  # a thread's points t + m T: loaded into shared memory, read back after each exchange
        return sum(instruction(lambda t, m=m: slot(t + m * T)) for m in range(points))

    rows = [("points in", points_of(), points)]
    p = 1
    for q, R in enumerate(passes(n, points)[:-1]):
        c = points // R
        writes = 0
        for i in range(c):
            for s in range(R):
                def address(t, i=i, s=s, p=p, R=R):
                    b = t + i * T
                    k = b & (p - 1)
                    return slot((b - k) * R + k + s * p)
                writes += instruction(address)
        rows.append((f"exchange {q + 1} (radix {R}, p {p}) writes", writes, points))
        rows.append((f"exchange {q + 1} reads", points_of(), points))
        p *= R
    return rows


def main(args):
    cases = []
    for case in args or ["512:8:8", "1024:8:8", "1024:16:8", "1024:16:16", "512:8:8:interleaved", "1024:16:16:interleaved"]:
        fields = case.split(":")
        layout = fields[3] if len(fields) > 3 else "rows"
        if len(fields) not in (3, 4) or layout not in ("rows", "interleaved"):
            print(f"{case!r}: not N:P:SPREAD[:rows|interleaved]", file=sys.stderr)
            return 2
        cases.append((*(int(v) for v in fields[:3]), layout))
    print("| line | points a thread | spare slot every | layout | access | wavefronts a block's round | ideal |")
    print("| ---: | ---: | ---: | --- | --- | ---: | ---: |")
    for n, points, spread, layout in cases:
        rows = count(n, points, spread, layout)
        ideal_each = 2 * LINES * (n // points) // 32  # two wavefronts a warp instruction
        for name, got, accesses in rows:
            print(f"| {n} | {points} | {spread} | {layout} | {name} | {got} | {ideal_each * accesses} |")
        total = sum(g for _, g, _ in rows)
        ideal = sum(ideal_each * a for _, _, a in rows)
        print(f"| {n} | {points} | {spread} | {layout} | **all** | **{total}** | {ideal} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
