#!/usr/bin/env python3
"""Performance model of the distributed transpose (docs/model.md): fits its parameters to what the
tool measured, prints each measured point beside its prediction, and projects to 8..1024 GPUs.

    scripts/model.py [--plot docs/model.png]        (the tables in docs/model.md come from it)
    scripts/model.py --against FOLDER               (the 4 x H100 prediction beside a run's JSON: the
                                                     targets stage of scripts/device-check.sh)

Parameters, all from committed result data:
  B_k     the bandwidth of the kernel a run used, for its element size: transpose-bench's copy
          bandwidth (bytes read + written / s) times that kernel's % of copy
  a, b    per rank count p: the bare NCCL all-to-all's latency and bandwidth, fitted to
          t = a + S (p - 1) / p / b over its points from 16 MiB per rank up (S: bytes per rank),
          least relative squares
  c       fixed costs of each path and rank count (launches, the p2p barriers and pointer exchange,
          the NCCL path's per-peer launches): the mean over the 1 and 4 MiB points of the time
          less the transfer time (and less a, on the NCCL path)
Model (the local passes at B_k: a pass reads and writes what it moves):
  1 rank                t = c + 2 S / B_k                        (one transpose pass)
  p2p, p ranks (1 host) t = c + max(2 S / B_k, S (p-1)/p / b)    (one pass, bound by NVLink egress)
  nccl, p ranks, n stages (the run's own: the JSON's "stages")
                        t = c + a + pack / n + max(E, (pack + unpack) (n-1)/n + self') + unpack / n + self''
      pack = unpack = (p-1)/p 2 S / B_k (the peers' blocks), self = 2 S / p / B_k (the own block),
      E = S (p-1)/p / b; below 4 ranks the own block runs beside the exchange (self' = self,
      self'' = 0), from 4 up after the unpacks (self' = 0, self'' = self), as backend_nccl.c does.
      With n stages the packs of round s + 1 and the unpacks of round s - 1 run while round s is on
      the wire: only the first round's pack and the last round's unpack stay in series.
Corrected NCCL path, for the prediction of 4 H100s (predict_4xh100): each of the n rounds pays the
all-to-all's latency a, the messages slow down by kappa seconds per second of local pass beside them
(fitted to the execute reports of 2 H200s), and executes of up to 4 MiB a rank run on one stream:
                        t = c + pack / n + max(n a + E + kappa beside, beside) + unpack / n + self''
                        beside = (pack + unpack) (n-1)/n + self';  small: c_s + all-to-all + 2 S / B_k (2p-1)/p
Projection (corrected_projection: the corrected NCCL path on 8 GPUs a host, NVLink inside at the fitted
4-GPU b, one 400 Gb/s NIC a GPU across, 2 us more latency per network peer: an assumption, not measured
here; only the NVLink share of the messages slows down beside the passes):
  exchange among P ranks on H = P/8 hosts: n (a + (P-8) l) + max(S 7/P / b_nv + kappa beside, S (P-8)/P / b_nic)
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20
NIC_BYTES_PER_S = 400e9 / 8  # one 400 Gb/s NIC per GPU
NET_PEER_LATENCY = 2e-6      # per network peer of an all-to-all: assumed
ENTRY = {"int8": 1, "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "c64": 8, "c128": 16}
GPUS_PER_HOST = 8
SELF_LAST_RANKS = 4          # backend_nccl.c: from 4 ranks up the own block follows the unpacks


def rows(pattern):
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
        out += json.load(open(path))
    return out


def fit_line(xs, ys):
    """Least relative squares y = a + x / b (weights 1 / y^2); returns (a, b)."""
    w = [1 / (y * y) for y in ys]
    sw = sum(w)
    mx = sum(wi * x for wi, x in zip(w, xs)) / sw
    my = sum(wi * y for wi, y in zip(w, ys)) / sw
    sxx = sum(wi * (x - mx) ** 2 for wi, x in zip(w, xs))
    slope = sum(wi * (x - mx) * (y - my) for wi, x, y in zip(w, xs, ys)) / sxx if sxx else 0
    return my - slope * mx, (1 / slope if slope > 0 else float("inf"))


class Model:
    def __init__(self):
        k = json.load(open(os.path.join(ROOT, "docs/results/4xH200-scaling/kernels.json")))
        self.kernel_bw = {(r["elem"], r["kernel"]): r["copy_gbs"] * r["pct_copy"] / 100 * 1e9 for r in k["rows"]}
        self.hbm = max(r["copy_gbs"] for r in k["rows"]) * 1e9  # a copy: bytes read + written per second
        self.points = [r for r in rows("docs/results/4xH200-scaling/weak-*.json") if r["dtype"] == "fp32"]
        # Not fitted to: the strong-scaling runs (the same matrices on 1, 2 and 4 GPUs, up to 4 GiB
        # per rank and two stages), predicted with the parameters of the weak ones.
        self.unseen = [r for r in rows("docs/results/4xH200-scaling/strong-*.json") if r["dtype"] == "fp32"]
        self.link = {}
        for p in sorted({r["ranks"] for r in self.points if r["ranks"] > 1}):
            pts = [(r["bytes_per_rank"] * (p - 1) / p, r["alltoall_us"] * 1e-6) for r in self.points
                   if r["ranks"] == p and r["bytes_per_rank"] >= 16 * MIB]
            pts = sorted(set(pts))
            self.link[p] = fit_line([x for x, _ in pts], [y for _, y in pts])
        spare = {}
        for r in self.points:
            if r["bytes_per_rank"] <= 4 * MIB:
                spare.setdefault((r["ranks"], r["backend"]), []).append(r["time_us"] * 1e-6 - self.startup(r) - self.transfer(r))
        self.fixed = {k: sum(v) / len(v) for k, v in spare.items()}
        # Small messages: the 1 MiB all-to-all less its transfer, at the most ranks measured.
        p4 = max(self.link)
        r4 = min((r for r in self.points if r["ranks"] == p4), key=lambda r: r["bytes_per_rank"])
        self.latency = r4["alltoall_us"] * 1e-6 - r4["bytes_per_rank"] * (p4 - 1) / p4 / self.link[p4][1]

    def exchange(self, p, s):
        a, b = self.link[p]
        return a + s * (p - 1) / p / b

    def bandwidth(self, r):
        return self.kernel_bw.get((ENTRY[r["dtype"]] * r["howmany"], r["kernel"]), self.hbm)

    def startup(self, r):
        """The exchange's latency, where the path has one."""
        return self.link[r["ranks"]][0] if r["ranks"] > 1 and r["backend"] != "p2p" else 0

    def transfer(self, r):
        """The time of moving the bytes, without fixed costs."""
        p, s = r["ranks"], r["bytes_per_rank"]
        local = 2 * s / self.bandwidth(r)
        if p == 1:
            return local
        wire = s * (p - 1) / p / self.link[p][1]
        if r["backend"] == "p2p":
            return max(local, wire)
        n = r.get("stages", 1)
        pack = unpack = local * (p - 1) / p
        own = local / p
        beside, after = (own, 0) if p < SELF_LAST_RANKS else (0, own)
        return pack / n + max(wire, (pack + unpack) * (n - 1) / n + beside) + unpack / n + after

    def predict(self, r):
        return self.fixed.get((r["ranks"], r["backend"]), 0) + self.startup(r) + self.transfer(r)


def report_kappa():
    """The messages' slowdown per second of local passes beside them, from the NCCL path's execute
    reports on 2 H200s (DTR_PERF_REPORT, rank 0): (exchange - all-to-all - (n - 1) a) / (local - head
    - tail), one value a report; their median and quartiles."""
    import re
    paths = glob.glob(os.path.join(ROOT, "docs/results/2xH200-report/[cf]*.log"))
    paths += glob.glob(os.path.join(ROOT, "docs/results/2xH200-nccl-pace/run*/rep-before-*.txt"))
    paths += glob.glob(os.path.join(ROOT, "docs/results/2xH200-nccl-pace/run*/rep-*-c-1.txt"))
    a = 19.7e-6  # the 2-rank all-to-all's latency (fitted above on the same kind of machine)
    values = []
    for path in sorted(paths):
        text = open(path).read()
        n = int(re.search(r":0 DTR REPORT nccl .*?(\d) stages?", text).group(1))
        head, exch, tail = (float(x) * 1e-6 for x in re.search(
            r":0 DTR REPORT execute [\d.]+ = before the first message ([\d.]+) \+ exchange ([\d.]+) "
            r"\+ after the last arrival ([\d.]+)", text).groups())
        local = float(re.search(r":0 DTR REPORT local passes ([\d.]+)", text).group(1)) * 1e-6
        row = next(line.split() for line in text.split("\n") if re.match(r"^ +\d+ ", line))
        size_, a2a = int(row[0]), float(row[13]) * 1e-6
        beside = local - head - tail
        if 64 * MIB * 0.99 <= size_ <= (1 << 30) and beside > 0:
            values.append((exch - a2a - (n - 1) * a) / beside)
    values.sort()
    q = len(values) // 4
    return values[len(values) // 2], values[q], values[-1 - q], len(values)


def small_fixed(bw):
    """The fixed cost of the NCCL path's small executes on one stream (up to 4 MiB a rank, 2 H200s):
    time less the all-to-all and the local passes at `bw`, the mean over the committed version's runs."""
    spare = [r["time_us"] * 1e-6 - r["alltoall_us"] * 1e-6 - 2 * r["bytes_per_rank"] / bw * (1 + 1 / 2)
             for r in rows("docs/results/2xH200-nccl-small/final-[cf]*.json")
             if r["bytes_per_rank"] <= 4 * MIB]
    return sum(spare) / len(spare)


def h100_kernels():
    """The H100's kernels' bandwidths (bytes read + written a second) by (element size, kernel), square
    matrices: transpose-bench on one H100."""
    k = json.load(open(os.path.join(ROOT, "docs/results/1xH100-kernels/kernels.json")))
    return {(r["elem"], r["kernel"]): r["copy_gbs"] * r["pct_copy"] / 100 * 1e9 for r in k["rows"] if r.get("shape") == "square"}


def predict_4xh100(m, show=True):
    """The NCCL path's target rows on 4 H100s, predicted before the run (returned, and printed where show): the corrected NCCL-path model (each round
    pays the all-to-all's latency; the messages slow down by kappa per second of local pass beside them;
    small executes on one stream) and the p2p model, with the H100's kernels and the 4-rank all-to-all
    fitted on 4 H200s (both NVLink4 x 18)."""
    bw = h100_kernels()
    kappa, lo, hi, count = report_kappa()
    c_small = small_fixed(m.kernel_bw[(4, "simt")])
    a, b = m.link[4]
    p = 4
    out = []
    say = print if show else (lambda *args, **kwargs: None)
    say(f"kappa {kappa:.2f} (median of {count} reports, 64 MiB-1 GiB a rank on 2 H200s; quartiles {lo:.2f}-{hi:.2f}); "
        f"small executes' fixed cost {c_small * 1e6:.1f} us; H100 kernels: fp32 simt {bw[(4, 'simt')] / 1e9:.0f}, "
        f"simt16 {bw[(4, 'simt16')] / 1e9:.0f}, c64 simt {bw[(8, 'simt')] / 1e9:.0f} GB/s")
    say()
    say("| dtype | bytes/rank | shape | stages | all-to-all, model (µs) | nccl, predicted (µs) | ÷ all-to-all | with kappa "
        f"{lo:.2f}-{hi:.2f} | p2p, predicted (µs) | ÷ all-to-all |")
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    cases = [("fp32", 4, 1024, 1024), ("fp32", 4, 2048, 2048), ("fp32", 4, 8192, 8192), ("fp32", 4, 16384, 16384),
             ("fp32", 4, 32768, 32768), ("c64", 8, 23170, 23170), ("c64", 8, 32768, 16384), ("fp32", 4, 65536, 65536)]
    for dtype, e, rows_, cols in cases:
        s = rows_ * cols * e / p
        wire = s * (p - 1) / p / b
        a2a = a + wire
        aligned = all((dtrsplit(rows_, p, q) * e) % 16 == 0 for q in range(p))
        per_peer = s / p
        n = 1 if not aligned else 4 if per_peer >= 1.5 * (1 << 30) else 2 if per_peer >= 96 * MIB else 1
        local = 2 * s / bw[(e, "simt")]
        pack = unpack = local * (p - 1) / p
        own = local / p

        def nccl(kap):
            if n == 1 and s <= 4 * MIB:
                return c_small + a2a + pack + own + unpack
            beside_own, after = (own, 0) if (n > 1 or p < SELF_LAST_RANKS) else (0, own)
            beside = (pack + unpack) * (n - 1) / n + beside_own
            return m.fixed[(p, "nccl")] + pack / n + max(n * a + wire + kap * beside, beside) + unpack / n + after

        t = nccl(kappa)
        p2p = m.fixed[(p, "p2p")] + max(2 * s / bw[(e, "simt16")], wire)
        say(f"| {dtype} | {size(s)} | {rows_} × {cols} | {n} | {a2a * 1e6:.1f} | {t * 1e6:.1f} | {t / a2a:.2f} | "
            f"{nccl(lo) / a2a:.2f}-{nccl(hi) / a2a:.2f} | {p2p * 1e6:.1f} | {p2p / a2a:.2f} |")
        out.append({"dtype": dtype, "rows": rows_, "cols": cols, "bytes": s, "stages": n, "a2a": a2a, "nccl": t, "p2p": p2p})
    return out


def against(m, folder):
    """The prediction beside a run: every row of the JSON files in `folder` (disttranspose -J) on 4 ranks
    whose matrix the prediction has, its measured time and ratio to the all-to-all measured in the same run
    against the predicted ones."""
    predicted = {(r["dtype"], r["rows"], r["cols"]): r for r in predict_4xh100(m, show=False)}
    runs = [r for path in sorted(glob.glob(os.path.join(folder, "*.json"))) for r in json.load(open(path))
            if isinstance(r, dict) and r.get("ranks") == 4 and (r.get("dtype"), r.get("rows"), r.get("cols")) in predicted]
    print(f"the prediction against {folder} ({len(runs)} rows)")
    print()
    print("| backend | dtype | bytes/rank | shape | stages | measured (µs) | predicted (µs) | error | measured ÷ all-to-all |"
          " predicted ÷ all-to-all |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in sorted(runs, key=lambda r: (r["backend"], r["dtype"], r["bytes_per_rank"], r["rows"])):
        p = predicted[(r["dtype"], r["rows"], r["cols"])]
        t = p[r["backend"]] if r["backend"] in ("nccl", "p2p") else None
        if t is None:
            continue
        print(f"| {r['backend']} | {r['dtype']} | {size(r['bytes_per_rank'])} | {r['rows']} × {r['cols']} | {r.get('stages', 1)} | "
              f"{r['time_us']:.1f} | {t * 1e6:.1f} | {(t * 1e6 / r['time_us'] - 1) * 100:+.1f} % | "
              f"{r['time_us'] / r['alltoall_us']:.2f} | {t / p['a2a']:.2f} |")


def corrected_projection(m):
    """The projection with the corrected NCCL path (predict_4xh100's terms), 1 GiB fp32 a rank on H100s:
    each of the n rounds (the stage rule's) pays the all-to-all's latency, and the messages that cross
    NVLink slow down by kappa per second of local pass beside them; those that cross the network do not
    (NCCL's network transport measured 0.98-1.10 x on one host, its copies at a NIC's rate beside HBM's).
    A group of `ranks` with `host` of them in each host (8 for a slab or an X<->Y exchange, 1 for the
    pencils' Y<->Z among one GPU of each host) moves (host - 1) / ranks of its bytes over NVLink and
    (ranks - host) / ranks over the network."""
    bw = h100_kernels()
    kappa, _, _, _ = report_kappa()
    a, b_nv = m.link[max(m.link)]
    c = m.fixed[(max(m.link), "nccl")]
    s = 1 << 30
    local = 2 * s / bw[(4, "simt")]

    def transpose(ranks, host, rounds=None):
        per_peer = s / ranks
        n = rounds or (4 if per_peer >= 1.5 * (1 << 30) else 2 if per_peer >= 96 * MIB else 1)
        latency = a + (ranks - host) * NET_PEER_LATENCY
        inside = s * (host - 1) / ranks / b_nv
        across = s * (ranks - host) / ranks / NIC_BYTES_PER_S
        pack = unpack = local * (ranks - 1) / ranks
        own = local / ranks
        beside_own, after = (own, 0) if (n > 1 or ranks < SELF_LAST_RANKS) else (0, own)
        beside = (pack + unpack) * (n - 1) / n + beside_own
        wire = n * latency + max(inside + kappa * beside, across)
        t = c + pack / n + max(wire, beside) + unpack / n + after
        return t, latency + max(inside, across), n

    print(f"corrected projection: kappa {kappa:.2f}, round latency {a * 1e6:.1f} us (+{NET_PEER_LATENCY * 1e6:.0f} us a "
          f"network peer), NVLink {b_nv / 1e9:.0f} GB/s, NIC {NIC_BYTES_PER_S / 1e9:.0f} GB/s a GPU, H100 fp32 kernel "
          f"{bw[(4, 'simt')] / 1e9:.0f} GB/s")
    print()
    print("| GPUs | hosts | stages | transpose, slabs (ms) | bare all-to-all (ms) | ÷ all-to-all | rounds sized for the "
          "network: stages, ÷ all-to-all | 3-D FFT's two pencil transposes (ms) | ÷ their all-to-alls |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    out = []
    for ranks in (8, 16, 32, 64, 128, 256, 512, 1024):
        host = min(ranks, GPUS_PER_HOST)
        t, a2a, n = transpose(ranks, host)
        # The stage rule sizes rounds by the bytes a peer, for NVLink; across hosts the fewest of 1-8 rounds
        # (of at least 1 MiB a peer) that take the least time.
        net = "–"
        if ranks > GPUS_PER_HOST:
            best = min((transpose(ranks, host, r)[0], r) for r in (1, 2, 4, 8) if s / ranks / r >= MIB)
            net = f"{best[1]}, {best[0] / a2a:.2f}"
        pencil, ratio, pencils = "–", "–", None
        if ranks > GPUS_PER_HOST:
            xy, xy_a2a, _ = transpose(GPUS_PER_HOST, GPUS_PER_HOST)
            yz, yz_a2a, _ = transpose(ranks // GPUS_PER_HOST, 1)
            pencils = xy + yz
            pencil, ratio = f"{pencils * 1e3:.2f}", f"{pencils / (xy_a2a + yz_a2a):.2f}"
        out.append((ranks, t, a2a, pencils))
        print(f"| {ranks} | {max(1, ranks // GPUS_PER_HOST)} | {n} | {t * 1e3:.2f} | {a2a * 1e3:.2f} | {t / a2a:.2f} | "
              f"{net} | {pencil} | {ratio} |")
    return out


def dtrsplit(n, parts, part):
    """Rows of part `part` in geometry.h's balanced split."""
    return n // parts + (1 if part < n % parts else 0)


def size(b):
    return f"{b / (1 << 30):.0f} GiB" if b >= (1 << 30) * 0.99 else f"{b / MIB:.0f} MiB"


def main(argv):
    m = Model()
    if "--against" in argv:
        against(m, argv[argv.index("--against") + 1])
        return 0
    print(f"copy bandwidth {m.hbm / 1e9:.0f} GB/s (read + written); fp32 kernels: simt "
          f"{m.kernel_bw[(4, 'simt')] / 1e9:.0f}, simt16 {m.kernel_bw[(4, 'simt16')] / 1e9:.0f} GB/s")
    for p, (a, b) in sorted(m.link.items()):
        print(f"all-to-all among {p}: a = {a * 1e6:.1f} us, b = {b / 1e9:.0f} GB/s")
    print("fixed costs: " + ", ".join(f"{p} rank(s) {be} {c * 1e6:.1f} us" for (p, be), c in sorted(m.fixed.items())))
    print(f"small all-to-all latency {m.latency * 1e6:.1f} us")
    print()
    print("| ranks | backend | bytes/rank | stages | run | measured (µs) | model (µs) | error |")
    print("| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |")
    worst = 0
    seen = set()
    points = [dict(r, run="weak (fitted)") for r in m.points] + [dict(r, run="strong (not fitted)") for r in m.unseen]
    for r in sorted(points, key=lambda r: (r["ranks"], r["backend"], r["bytes_per_rank"], r["run"])):
        key = (r["ranks"], r["backend"], r["bytes_per_rank"], r["run"])
        if r["bytes_per_rank"] < 0.99 * 16 * MIB or key in seen:
            continue
        seen.add(key)
        t = m.predict(r)
        err = t / (r["time_us"] * 1e-6) - 1
        worst = max(worst, abs(err))
        print(f"| {r['ranks']} | {r['backend']} | {size(r['bytes_per_rank'])} | {r.get('stages', 1)} | {r['run']} | {r['time_us']:.1f} | {t * 1e6:.1f} | {err * 100:+.1f} % |")
    print(f"\nlargest error from 16 MiB per rank up: {worst * 100:.1f} %\n")
    predict_4xh100(m)
    print()
    proj = corrected_projection(m)
    if "--plot" in argv:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
        for (p, be), mark in ((k, "o" if k[1] == "nccl" else "s") for k in sorted({(r["ranks"], r["backend"]) for r in m.points})):
            pts = sorted((r["bytes_per_rank"], r["time_us"], m.predict(r) * 1e6) for r in m.points
                         if r["ranks"] == p and r["backend"] == be)
            line = ax1.plot([x for x, _, _ in pts], [y for _, y, _ in pts], mark, label=f"{p} GPU, {be}: measured")[0]
            ax1.plot([x for x, _, _ in pts], [z for _, _, z in pts], "-", color=line.get_color(), alpha=0.6)
        ax1.set_xscale("log", base=2)
        ax1.set_yscale("log")
        ax1.set_xlabel("bytes per rank")
        ax1.set_ylabel("time (µs); lines: model")
        ax1.set_title("Model against the measured H200 points", fontsize=9)
        ax1.grid(True, which="both", alpha=0.3)
        ax1.legend(fontsize=7)
        n = [x[0] for x in proj]
        ax2.plot(n, [x[1] * 1e3 for x in proj], "o-", label="transpose, slabs (NCCL path)")
        ax2.plot(n, [x[2] * 1e3 for x in proj], "k--", label="bare all-to-all")
        ax2.plot(n[1:], [x[3] * 1e3 for x in proj[1:]], "s-", label="two pencil transposes (8 x P/8 grid)")
        ax2.axvline(8, color="grey", lw=0.8)
        ax2.text(9, ax2.get_ylim()[1] * 0.9 if ax2.get_ylim()[1] else 1, "network-bound beyond one host", fontsize=8)
        ax2.set_xscale("log", base=2)
        ax2.set_xlabel("GPUs (8 a host, one 400 Gb/s NIC a GPU)")
        ax2.set_ylabel("ms, 1 GiB per rank")
        ax2.set_title("Projection", fontsize=9)
        ax2.grid(True, which="both", alpha=0.3)
        ax2.legend(fontsize=8)
        fig.tight_layout()
        out = argv[argv.index("--plot") + 1]
        fig.savefig(out, dpi=110)
        print(f"\nmodel.py: plot in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
