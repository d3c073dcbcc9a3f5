#!/usr/bin/env python3
"""Markdown tables of the Python binding's benchmarks (python/benchmarks/bench.py --json):

  overhead FILE...   the cost per execute over the C call, per array library (and way of calling,
                     for bench.py compiled's rows) and size: the range over the files (runs)
  fft FILE...        fftn / ifftn beside examples/fft3d (a file of fft3d's --json) at the same size:
                     times and the ratio to fft3d, forward and inverse, and the forward's stages
  compare FILE...    disttranspose.fft beside mpi4py-fft (bench.py fft --compare mpi4py-fft), in ms
  versus FILE...     the same with the library's call from C (bench.py fft --c-loop), one row a file
                     (a run), and mpi4py-fft's time over ours
  fft-overhead FILE... fftn's and rfftn's cost per call over the C call (median and least over the
                     reps), and the machine's load: the range over the files
  compiled FILE...   bench.py compiled's jitted and compiled calls beside the C call and the framework's
                     floor of the same run, one row a file and call

    scripts/python_table.py overhead docs/results/python/1xH100-overhead-*.json
"""
import json
import sys

LIBS = {"numpy": "NumPy (cpu backend)", "cupy": "CuPy", "torch": "PyTorch", "jax": "JAX"}
MODES = {"jit": "a `jax.jit` call", "eager": "an eager call", "compile": "a `torch.compile` call",
         "autograd": "an eager call, autograd"}


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


def span(values, digits=1):
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if round(lo, digits) == round(hi, digits) else f"{lo:.{digits}f} – {hi:.{digits}f}"


def overhead(paths):
    rows = [r for p in paths for r in load(p)]
    print("| arrays | matrix | Python (µs) | C (µs) | overhead (µs) |")
    print("|---|---|---|---|---|")
    for lib in [l for l in LIBS if any(r["lib"] == l for r in rows)]:
        for mode in [m for m in [None, *MODES] if any(r["lib"] == lib and r.get("mode") == m for r in rows)]:
            label = LIBS[lib] if mode is None else f"{LIBS[lib]}: {MODES[mode]}"
            for side in sorted({r["rows"] for r in rows if r["lib"] == lib and r.get("mode") == mode}):
                mine = [r for r in rows if r["lib"] == lib and r.get("mode") == mode and r["rows"] == side]
                print(f"| {label} | {side}² {mine[0]['dtype']} | {span([r['python_us'] for r in mine])} | "
                      f"{span([r['c_us'] for r in mine])} | {span([r['overhead_us'] for r in mine])} |")


def fft(paths):
    ref, rows = None, []
    for p in paths:
        for r in load(p):
            if "layout" in r:  # examples/fft3d's JSON
                ref = r
            else:
                rows.append(r)
    print("| transform | forward (µs) | inverse (µs) | × fft3d forward | × fft3d inverse | forward stages (µs) |")
    print("|---|---|---|---|---|---|")
    if ref:
        stages = ", ".join(f"{s['stage']} {s['forward_us']:.0f}" for s in ref["stages"])
        print(f"| `examples/fft3d` (cuFFT in place; GPU events) | {ref['forward_us']:.0f} | {ref['inverse_us']:.0f} | 1 | 1 "
              f"| {stages} |")
    for r in rows:
        lib = LIBS.get(r["lib"], r["lib"])
        norm = r.get("inverse_norm", "backward")
        stages = ", ".join(f"{s['stage']} {s['forward_us']:.0f}" for s in r.get("stages", [])) or "–"
        timings = [("wall", "forward_us", "inverse_us")]
        if "forward_gpu_us" in r:
            timings.append(("GPU events", "forward_gpu_us", "inverse_gpu_us"))
        for how, f, i in timings:
            fwd = f"{r[f] / ref['forward_us']:.3f}" if ref else "–"
            inv = f"{r[i] / ref['inverse_us']:.3f}" if ref else "–"
            print(f"| `fftn` / `ifftn` ({lib}, inverse norm \"{norm}\"; {how}) | {r[f]:.0f} | {r[i]:.0f} | {fwd} | {inv} "
                  f"| {stages if how == 'wall' else '–'} |")


def compare(paths):
    print("| array, grid | disttranspose.fft (ms) | its local passes | mpi4py-fft (ms) | forward, inverse × mpi4py-fft |")
    print("|---|---|---|---|---|")
    for p in paths:
        rows = {r["impl"]: r for r in load(p)}
        d, m = rows["disttranspose"], rows["mpi4py-fft"]
        pr, pc = d["grid"]
        n = d["shape"][0]
        where = f"{n}³ {d['dtype']}, {pr} × {pc} {'slabs' if pr == 1 else 'pencils'}"
        print(f"| {where} | {d['forward_us'] / 1e3:.1f} / {d['inverse_us'] / 1e3:.1f} | {d.get('local', 'numpy.fft')} | "
              f"{m['forward_us'] / 1e3:.1f} / {m['inverse_us'] / 1e3:.1f} | "
              f"{d['forward_us'] / m['forward_us']:.2f}, {d['inverse_us'] / m['inverse_us']:.2f} |")


def versus(paths):
    print("| array, grid | transform | run | fftn (ms) | C call (ms) | mpi4py-fft (ms) | its own arrays (ms) "
          "| mpi4py-fft ÷ fftn |")
    print("|---|---|---|---|---|---|---|---|")
    for p in paths:
        rows = {r["impl"]: r for r in load(p)}
        d = rows["disttranspose"]
        pr, pc = d["grid"]
        where = f"{d['shape'][0]}³ {d['dtype']}, {pr} × {pc} {'slabs' if pr == 1 else 'pencils'}"
        run = p.rsplit("-", 1)[-1].split(".")[0]

        def both(impl):
            r = rows.get(impl)
            return f"{r['forward_us'] / 1e3:.1f} / {r['inverse_us'] / 1e3:.1f}" if r else "–"
        m = rows["mpi4py-fft"]
        print(f"| {where} | {d['call']} | {run} | {both('disttranspose')} | {both('C')} | {both('mpi4py-fft')} | "
              f"{both('mpi4py-fft own arrays')} | {m['forward_us'] / d['forward_us']:.2f}, "
              f"{m['inverse_us'] / d['inverse_us']:.2f} |")


def fft_overhead(paths):
    rows = [r for p in paths for r in load(p)]
    print("| arrays | call | array | ranks | Python (µs) | C (µs) | overhead (µs) | least (µs) | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    keys = sorted({(r["lib"], r["call"], r["shape"][0], r["dtype"], r["ranks"]) for r in rows},
                  key=lambda k: (list(LIBS).index(k[0]), k[4], k[1], k[2]))
    for lib, call, n, dtype, ranks in keys:
        mine = [r for r in rows if (r["lib"], r["call"], r["shape"][0], r["dtype"], r["ranks"]) == (lib, call, n, dtype, ranks)]
        print(f"| {LIBS[lib]} | {call} | {n}³ {dtype} | {ranks} | {span([r['python_us'] for r in mine])} | "
              f"{span([r['c_us'] for r in mine])} | {span([r['overhead_us'] for r in mine])} | "
              f"{span([r['overhead_least_us'] for r in mine])} | {span([r['load'] for r in mine])} |")


def compiled(paths):
    """bench.py compiled's rows beside their framework's floor (a compiled multiplication of the same
    array, in the same run): one row a file, framework, kernels, call and array."""
    print("| device | framework | call | array | its kernels | compiled call (µs) | C call (µs) | floor (µs) "
          "| call − floor (µs) |")
    print("|---|---|---|---|---|---:|---:|---:|---:|")
    for p in paths:
        rows = load(p)
        for r in rows:
            if r["mode"] not in ("jit", "compile"):
                continue
            floor = next(f for f in rows if f["lib"] == r["lib"] and f["op"] == r["op"] and f["mode"] == r["mode"] + " floor"
                         and f.get("shape") == r.get("shape") and f.get("rows") == r.get("rows"))
            array = f"{r['shape'][0]}³" if "shape" in r else f"{r['rows']}²"
            device = "cpu" if r["backend"] == "cpu" else f"gpu {r['backend']}"
            print(f"| {device} | {LIBS[r['lib']]}: {MODES[r['mode']]} | {r['op']} | {array} {r['dtype']} | "
                  f"{r.get('torch_kernels', 'XLA custom call')} | {r['python_us']:.1f} | {r['c_us']:.1f} | "
                  f"{floor['python_us']:.1f} | {r['python_us'] - floor['python_us']:+.1f} |")


TABLES = {"overhead": overhead, "compiled": compiled, "fft": fft, "compare": compare, "versus": versus, "fft-overhead": fft_overhead}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in TABLES:
        sys.exit(__doc__)
    TABLES[sys.argv[1]](sys.argv[2:])
