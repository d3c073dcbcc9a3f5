"""Benchmarks of the Python binding, written as JSON (results are data; docs tables come from them).

  overhead  the binding's cost per execute over the C call: plan.execute(a, out) in a Python loop
            against dtrExecute in a C loop (c_loop.c, built beside the tools) on the same plan and
            arrays; small matrices, so that the host's calls, not the GPU, set the pace
  fft       disttranspose.fft.fftn (and ifftn) of an N^3 array on a grid; with --compare mpi4py-fft,
            mpi4py-fft's PFFT on the same ranks, shape and decomposition

  mpirun -np 4 python bench.py fft --shape 128 --dtype complex128 --grid 1x4 --compare mpi4py-fft --json f.json
  mpirun -np 1 python bench.py overhead --c-loop build/libdtr_c_loop.so --libs numpy,cupy,torch --json o.json
"""

import argparse
import ctypes
import json
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI

import disttranspose as dt
from disttranspose import _arrays, _lib

COMM = MPI.COMM_WORLD


def log(*args):
    if COMM.Get_rank() == 0:
        print(*args, flush=True)


def sync(lib):
    if lib == "cupy":
        import cupy
        cupy.cuda.get_current_stream().synchronize()
    elif lib == "torch":
        import torch
        torch.cuda.synchronize()


def make(lib, shape, dtype):
    a = np.ones(shape, dtype=dtype)
    if lib == "cupy":
        import cupy
        return cupy.asarray(a)
    if lib == "torch":
        import torch
        return torch.from_numpy(a).cuda()
    return a


def pick_gpu():
    local = COMM.Split_type(MPI.COMM_TYPE_SHARED)
    rank = local.Get_rank()
    local.Free()
    for name in ("cupy", "torch"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        n = mod.cuda.runtime.getDeviceCount() if name == "cupy" else mod.cuda.device_count()
        if n:
            if name == "cupy":
                mod.cuda.Device(rank % n).use()
            else:
                mod.cuda.set_device(rank % n)


def overhead(args):
    c = ctypes.CDLL(args.c_loop)
    c.dtrBenchExecuteLoop.restype = ctypes.c_double
    c.dtrBenchExecuteLoop.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int]
    rows = []
    for lib in args.libs.split(","):
        backend = "cpu" if lib == "numpy" else args.backend
        for side in args.sides:
            with dt.Plan(side, side, "float32", COMM, backend=backend) as plan:
                a, out = make(lib, plan.in_shape, np.float32), make(lib, plan.out_shape, np.float32)
                ad = _arrays.adapter(a)
                stream = ad.stream(a, None, -1 if plan.device is None else plan.device) or None
                cache = _arrays.PointerCache()
                aptr, optr = ad.describe(a, cache).ptr or None, ad.describe(out, cache).ptr or None
                py, cc = [], []
                for rep in range(args.reps + 1):  # the first of each is a warm-up
                    COMM.Barrier()
                    t0 = time.perf_counter()
                    for _ in range(args.iters):
                        plan.execute(a, out=out)
                    t = time.perf_counter() - t0
                    sync(lib)
                    COMM.Barrier()
                    s = c.dtrBenchExecuteLoop(plan._handle, aptr, optr, stream, args.iters)
                    sync(lib)
                    if s < 0:
                        raise dt.Error(1, _lib.last_error())
                    if rep:
                        py.append(t / args.iters * 1e6)
                        cc.append(s / args.iters * 1e6)
                py_us = COMM.allreduce(statistics.median(py), op=MPI.MAX)
                c_us = COMM.allreduce(statistics.median(cc), op=MPI.MAX)
                row = {"lib": lib, "backend": plan.backend, "rows": side, "cols": side, "dtype": "float32",
                       "ranks": COMM.Get_size(), "python_us": round(py_us, 3), "c_us": round(c_us, 3),
                       "overhead_us": round(py_us - c_us, 3), "iters": args.iters, "reps": args.reps}
                rows.append(row)
                log(f"  {lib:6s} {plan.backend:5s} {side:6d}^2 fp32  python {py_us:8.2f} us  C {c_us:8.2f} us  "
                    f"overhead {py_us - c_us:6.2f} us")
    return rows


def events(lib):
    """A pair of timing events on the library's current stream (None on the host): record, record,
    elapsed milliseconds, as examples/fft3d times its stages with CUDA events."""
    if lib == "cupy":
        import cupy
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        return a.record, b.record, lambda: (b.synchronize(), cupy.cuda.get_elapsed_time(a, b))[1]
    if lib == "torch":
        import torch
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        return a.record, b.record, lambda: (b.synchronize(), a.elapsed_time(b))[1]
    return None


def fft_times(run, iters, warmup, lib, gpu_too=False):
    """Median over iterations of the slowest rank's wall time (from a barrier to the result's end), in
    us; with gpu_too also the median of the GPU time between events around the call (None on the host)."""
    for _ in range(warmup):
        run()
    sync(lib)
    ev = events(lib)
    ts, gs = [], []
    for _ in range(iters):
        COMM.Barrier()
        t0 = time.perf_counter()
        if ev:
            ev[0]()
        run()
        if ev:
            ev[1]()
        sync(lib)
        ts.append(time.perf_counter() - t0)
        if ev:
            gs.append(ev[2]() * 1e-3)
    slowest = np.empty(len(ts))
    COMM.Allreduce(np.array(ts), slowest, op=MPI.MAX)
    wall = float(np.median(slowest) * 1e6)
    if not gpu_too:
        return wall
    if not ev:
        return wall, None
    COMM.Allreduce(np.array(gs), slowest, op=MPI.MAX)
    return wall, float(np.median(slowest) * 1e6)


def local_pass(f, lib, a, two):
    """One forward pass of the library's fft module over a's last axis (two: its last two)."""
    if lib == "torch":
        return (lambda: f.fft2(a, dim=(-2, -1))) if two else (lambda: f.fft(a, dim=-1))
    return (lambda: f.fft2(a, axes=(-2, -1))) if two else (lambda: f.fft(a, axis=-1))


def local_name(args):
    """Who ran fftn's local passes (as disttranspose.fft chooses them)."""
    if args.lib == "numpy" and args.local != "library":
        try:
            import pyfftw  # noqa: F401
            return "fftw"
        except ImportError:
            pass
    return f"{args.lib}.fft"


def fft_stages(grid, shape, x, args):
    """The forward transform's steps timed one by one, as examples/fft3d reports its stages: the
    library's local passes (out of place, fresh results) and the transposes (into arrays made once)."""
    lib = args.lib
    if lib == "numpy":
        if local_name(args) == "fftw":
            return []  # fftn's passes are FFTW's here, not numpy.fft's
        import numpy.fft as f
    elif lib == "cupy":
        import cupy.fft as f
    elif lib == "torch":
        import torch.fft as f
    else:
        return []
    path = ["x", "z"] if grid.pr == 1 else ["x", "y", "z"]
    stages, a = [], x
    for i, pencil in enumerate(path):
        if i:
            with dt.PencilPlan(grid, shape, path[i - 1], pencil, args.dtype) as plan:
                out = make(lib, plan.out_shape, args.dtype)
                t = fft_times(lambda: plan.execute(a, out=out), args.iters, args.warmup, lib)
                stages.append({"stage": f"{path[i - 1].upper()}->{pencil.upper()} {plan.backend}",
                               "forward_us": round(t, 1)})
                a = out
        two = grid.pr == 1 and i == 0  # slabs: the (y, x) planes first
        t = fft_times(local_pass(f, lib, a, two), args.iters, args.warmup, lib)
        stages.append({"stage": "fft yx" if two else f"fft {pencil}", "forward_us": round(t, 1)})
    return stages


def fft(args):
    shape = (args.shape,) * 3
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    rows = []
    with dt.Grid(COMM, pr, pc) as grid:
        pr, pc = grid.dims
        bx = grid.box(shape, "x", args.dtype)
        x = make(args.lib, bx.shape, args.dtype)
        # NumPy: results into arrays made once, as mpi4py-fft's forward(u, u_hat) is timed below (fresh
        # host memory costs page faults). GPU libraries: fresh results, from their pools, cost nothing.
        y = dt.fft.fftn(x, grid, shape, local=args.local)
        back = dt.fft.ifftn(y, grid, shape, local=args.local)
        host = args.lib == "numpy"
        fwd, fwd_gpu = fft_times(lambda: dt.fft.fftn(x, grid, shape, out=y if host else None, local=args.local),
                                 args.iters, args.warmup, args.lib, gpu_too=True)
        inv, inv_gpu = fft_times(lambda: dt.fft.ifftn(y, grid, shape, norm=args.inverse_norm,
                                                      out=back if host else None, local=args.local),
                                 args.iters, args.warmup, args.lib, gpu_too=True)
        row = {"impl": "disttranspose", "lib": args.lib, "shape": list(shape), "dtype": args.dtype, "grid": [pr, pc],
               "ranks": COMM.Get_size(), "forward_us": round(fwd, 1), "inverse_us": round(inv, 1),
               "inverse_norm": args.inverse_norm, "local": local_name(args)}
        if fwd_gpu is not None:
            row.update(forward_gpu_us=round(fwd_gpu, 1), inverse_gpu_us=round(inv_gpu, 1))
        if args.stages:
            row["stages"] = fft_stages(grid, shape, x, args)
        rows.append(row)
        gpu = f" (GPU events: {fwd_gpu:.0f} us, {inv_gpu:.0f} us)" if fwd_gpu is not None else ""
        log(f"  disttranspose.fft ({args.lib}, {row['local']}) {args.shape}^3 {args.dtype} on {pr} x {pc}: forward {fwd:.0f} us, "
            f"inverse {inv:.0f} us{gpu}")
        for st in row.get("stages", []):
            log(f"    {st['stage']:10s} {st['forward_us']:9.1f} us")
    if args.compare == "mpi4py-fft":
        from mpi4py_fft import PFFT, newDistArray
        # The same decomposition: slabs (-1,) on 1 x P, else pencils (pr, pc).
        f = PFFT(COMM, shape, axes=(0, 1, 2), dtype=np.dtype(args.dtype), grid=(-1,) if pr == 1 else (pr, pc))
        u = newDistArray(f, False)
        u[:] = 1
        u_hat = newDistArray(f, True)
        fwd = fft_times(lambda: f.forward(u, u_hat), args.iters, args.warmup, "numpy")
        inv = fft_times(lambda: f.backward(u_hat, u), args.iters, args.warmup, "numpy")
        rows.append({"impl": "mpi4py-fft", "lib": "numpy", "shape": list(shape), "dtype": args.dtype,
                     "grid": [pr, pc], "ranks": COMM.Get_size(), "forward_us": round(fwd, 1),
                     "inverse_us": round(inv, 1)})
        log(f"  mpi4py-fft PFFT {args.shape}^3 {args.dtype} on {pr} x {pc}: forward {fwd:.0f} us, inverse {inv:.0f} us")
        f.destroy()
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    o = sub.add_parser("overhead")
    o.add_argument("--c-loop", required=True, help="the built libdtr_c_loop.so")
    o.add_argument("--libs", default="numpy")
    o.add_argument("--backend", default="auto", help="of the GPU libraries' plans")
    o.add_argument("--sides", type=int, nargs="+", default=[64, 256])
    o.add_argument("--iters", type=int, default=2000)
    o.add_argument("--reps", type=int, default=7)
    f = sub.add_parser("fft")
    f.add_argument("--shape", type=int, default=128)
    f.add_argument("--dtype", default="complex128")
    f.add_argument("--grid", default="")
    f.add_argument("--lib", default="numpy")
    f.add_argument("--compare", default="")
    f.add_argument("--iters", type=int, default=10)
    f.add_argument("--warmup", type=int, default=2)
    f.add_argument("--inverse-norm", default="backward",
                   help="ifftn's norm: 'forward' scales nothing, as examples/fft3d's inverse (the like-for-like time)")
    f.add_argument("--local", default="auto", help="fftn's local passes: auto, fftw or library")
    f.add_argument("--stages", action="store_true", help="also time the forward transform's steps one by one")
    for s in (o, f):
        s.add_argument("--json", default="")
    args = p.parse_args()
    pick_gpu()
    log(f"# disttranspose {dt.__version__} bench {args.what}: {COMM.Get_size()} ranks, Python {sys.version.split()[0]}, "
        f"numpy {np.__version__}")
    rows = overhead(args) if args.what == "overhead" else fft(args)
    if args.json and COMM.Get_rank() == 0:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
