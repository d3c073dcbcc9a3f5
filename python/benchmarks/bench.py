"""Benchmarks of the Python binding, written as JSON (results are data; docs tables come from them).

  overhead      the binding's cost per execute over the C call: plan.execute(a, out) in a Python loop
                against dtrExecute in a C loop (c_loop.c, built beside the tools) on the same plan and
                arrays; small matrices, so that the host's calls, not the GPU, set the pace
  fft-overhead  the same for fftn and rfftn against dtrFftExecute, on small arrays
  compiled      the same for a call of a compiled function: jax.jit(plan.execute) and
                torch.compile(plan.execute, fullgraph=True), results fresh arrays; and, beside them, the
                frameworks' eager calls through the same operations (a JAX array, a tensor that requires
                grad)
  fft           fftn and ifftn (rfftn and irfftn for a real dtype) of an N^3 array on a grid; with
                --c-loop the same plan's dtrFftExecute called from C, with --compare mpi4py-fft
                mpi4py-fft's PFFT on the same ranks, shape and decomposition; timed in turn

  mpirun -np 4 python bench.py fft --shape 128 --grid 2x2 --c-loop build/libdtr_c_loop.so --compare mpi4py-fft --json f.json
  mpirun -np 1 python bench.py overhead --c-loop build/libdtr_c_loop.so --libs numpy,cupy,torch --json o.json
  mpirun -np 1 python bench.py fft-overhead --c-loop build/libdtr_c_loop.so --libs numpy,cupy,torch --json fo.json
  mpirun -np 1 python bench.py compiled --c-loop build/libdtr_c_loop.so --frameworks jax,torch --device gpu --json c.json
"""

import argparse
import ctypes
import json
import os
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


def against_c(python_call, c_calls, lib, args, finish=None):
    """A call made args.iters times in a Python loop against the C loop of the same call (c_calls(n):
    seconds for n calls, -1 on a failure), in turn, args.reps times after one warm-up: per call in us,
    the median over the reps of the slowest rank's time, and the least (the load of a shared machine
    only adds to it). `finish` waits for the loops' work (default: the library's stream)."""
    finish = finish or (lambda: sync(lib))
    py, cc = [], []
    for rep in range(args.reps + 1):
        COMM.Barrier()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            python_call()
        t = time.perf_counter() - t0
        finish()
        COMM.Barrier()
        s = c_calls(args.iters)
        finish()
        if s < 0:
            raise dt.Error(1, _lib.last_error())
        if rep:
            py.append(t / args.iters * 1e6)
            cc.append(s / args.iters * 1e6)
    py_us = COMM.allreduce(statistics.median(py), op=MPI.MAX)
    c_us = COMM.allreduce(statistics.median(cc), op=MPI.MAX)
    least = COMM.allreduce(min(p - c for p, c in zip(py, cc)), op=MPI.MAX)
    return {"python_us": round(py_us, 3), "c_us": round(c_us, 3), "overhead_us": round(py_us - c_us, 3),
            "overhead_least_us": round(least, 3), "load": round(os.getloadavg()[0], 2)}


def overhead(args):
    c = c_loop(args.c_loop)
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
                t = against_c(lambda: plan.execute(a, out=out),
                              lambda n: c.dtrBenchExecuteLoop(plan._handle, aptr, optr, stream, n), lib, args)
                rows.append({"lib": lib, "backend": plan.backend, "rows": side, "cols": side, "dtype": "float32",
                             "ranks": COMM.Get_size(), **t, "iters": args.iters, "reps": args.reps})
                log(f"  {lib:6s} {plan.backend:5s} {side:6d}^2 fp32  python {t['python_us']:8.2f} us  C {t['c_us']:8.2f} us  "
                    f"overhead {t['overhead_us']:6.2f} us")
    return rows


def compiled(args):
    """A call of jax.jit(plan.execute) and torch.compile(plan.execute) against the C loop on the same plan
    and the frameworks' own arrays (XLA's and PyTorch's allocations), and the frameworks' eager calls
    through the same operations."""
    c = c_loop(args.c_loop)
    gpu = args.device == "gpu"
    rows = []
    for fw in args.frameworks.split(","):
        try:
            __import__(fw)
        except ImportError:
            log(f"  {fw}: not installed, left out")
            continue
        for side in args.sides:
            with dt.Plan(side, side, "float32", COMM, backend=args.backend if gpu else "cpu") as plan:
                stream = None
                if fw == "jax":
                    import jax
                    import jax.numpy as jnp
                    device = jax.devices("gpu")[plan.device] if gpu else jax.devices("cpu")[0]
                    a = jax.device_put(jnp.ones(plan.in_shape, jnp.float32), device)
                    out = jax.device_put(jnp.zeros(plan.out_shape, jnp.float32), device)
                    aptr, optr = a.unsafe_buffer_pointer(), out.unsafe_buffer_pointer()
                    jitted, last = jax.jit(plan.execute), [None]
                    # JAX runs a device's computations in the order they were dispatched: the last
                    # result ready, every one is.
                    finish = lambda: last[0].block_until_ready()  # noqa: E731
                    modes = [("jit", lambda: last.__setitem__(0, jitted(a))),
                             ("eager", lambda: last.__setitem__(0, plan.execute(a)))]
                else:
                    import torch
                    dev = torch.device("cuda", plan.device) if gpu else torch.device("cpu")
                    a = torch.ones(plan.in_shape, dtype=torch.float32, device=dev)
                    out = torch.zeros(plan.out_shape, dtype=torch.float32, device=dev)
                    aptr, optr = a.data_ptr(), out.data_ptr()
                    stream = torch.cuda.current_stream(dev).cuda_stream if gpu else None
                    g = torch.compile(plan.execute, fullgraph=True, backend=args.torch_backend)
                    ag = a.clone().requires_grad_(True)
                    finish = lambda: sync("torch" if gpu else "numpy")  # noqa: E731
                    modes = [("compile", lambda: g(a)), ("autograd", lambda: plan.execute(ag))]
                for mode, call in modes:
                    call()
                    finish()
                    t = against_c(call, lambda n: c.dtrBenchExecuteLoop(plan._handle, aptr, optr, stream, n), fw,
                                  args, finish)
                    rows.append({"lib": fw, "mode": mode, "backend": plan.backend, "rows": side, "cols": side,
                                 "dtype": "float32", "ranks": COMM.Get_size(), **t, "iters": args.iters,
                                 "reps": args.reps})
                    log(f"  {fw:5s} {mode:8s} {plan.backend:5s} {side:6d}^2 fp32  call {t['python_us']:8.2f} us  "
                        f"C {t['c_us']:8.2f} us  overhead {t['overhead_us']:6.2f} us")
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


def alternated(runs, iters, warmup, lib):
    """Each of `runs` (name: callable) timed in turn, the order rotated every iteration, so that drifts of
    the machine fall on all alike. Per name the median over iterations of the slowest rank's wall time
    (from a barrier to the result's end) and of the GPU time between events around the call (None on
    the host), in us."""
    names = list(runs)
    for _ in range(warmup):
        for name in names:
            runs[name]()
    sync(lib)
    ev = events(lib)
    wall = {n: [] for n in names}
    gpu = {n: [] for n in names}
    for i in range(iters):
        for j in range(len(names)):
            name = names[(i + j) % len(names)]
            COMM.Barrier()
            t0 = time.perf_counter()
            if ev:
                ev[0]()
            runs[name]()
            if ev:
                ev[1]()
            sync(lib)
            wall[name].append(time.perf_counter() - t0)
            if ev:
                gpu[name].append(ev[2]() * 1e-3)

    def median(ts):
        if not ts:
            return None
        slowest = np.empty(len(ts))
        COMM.Allreduce(np.array(ts), slowest, op=MPI.MAX)
        return round(float(np.median(slowest) * 1e6), 1)
    return {n: (median(wall[n]), median(gpu[n])) for n in names}


def c_loop(path):
    c = ctypes.CDLL(path)
    c.dtrBenchExecuteLoop.restype = ctypes.c_double
    c.dtrBenchExecuteLoop.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int]
    c.dtrBenchFftLoop.restype = ctypes.c_double
    c.dtrBenchFftLoop.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    return c


def pointer(a):
    return _arrays.adapter(a).describe(a, _arrays.PointerCache()).ptr or None


def fft_plan(grid, name, x, shape, **kw):
    """The library plan (dtrFftPlan_t) that the call `name` on x ran last, as the binding keeps it."""
    return dt.fft._plan_of(grid, name, x, shape, **kw)


def fft(args):
    """fftn and ifftn (rfftn and irfftn for a real dtype) beside the same library call made from C and,
    with --compare mpi4py-fft, beside mpi4py-fft's PFFT; like with like: the forwards scale nothing
    (ours: norm "backward"; mpi4py-fft: normalize=False), nor do the inverses (ours: --inverse-norm
    "forward", the default; mpi4py-fft's backward does not normalize)."""
    shape = (args.shape,) * 3
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    real = args.dtype in ("float32", "float64")
    names = ("rfftn", "irfftn") if real else ("fftn", "ifftn")
    forward_call, inverse_call = (getattr(dt.fft, n) for n in names)
    c = c_loop(args.c_loop) if args.c_loop else None
    rows = []
    with dt.Grid(COMM, pr, pc) as grid:
        pr, pc = grid.dims
        pfft = None
        if args.compare == "mpi4py-fft":
            # Made before the library's first transform: mpi4py-fft sets up FFTW's threads when it plans
            # (fftw_plan_with_nthreads), which FFTW expects before any plan exists; made after, the
            # library's FFTW plans crashed when they were freed (one process, one FFTW).
            from mpi4py_fft import PFFT, newDistArray
            # The same decomposition: slabs (-1,) on 1 x P, else pencils (pr, pc).
            pfft = PFFT(COMM, shape, axes=(0, 1, 2), dtype=np.dtype(args.dtype), grid=(-1,) if pr == 1 else (pr, pc))
        ctype = {"float32": "complex64", "float64": "complex128"}.get(args.dtype, args.dtype)
        bx = grid.box(shape, "x", args.dtype)
        bz = grid.box(((shape[0] // 2 + 1) if real else shape[0],) + shape[1:], "z", ctype)
        x = make(args.lib, bx.shape, args.dtype)
        y = make(args.lib, bz.shape, ctype)
        back = make(args.lib, bx.shape, args.dtype)
        kw = {"chunks": args.chunks}
        forward_call(x, grid, shape, out=y, **kw)
        inverse_call(y, grid, shape, out=back, norm=args.inverse_norm, **kw)
        fplan = fft_plan(grid, names[0], x, shape, **kw)
        iplan = fft_plan(grid, names[1], y, shape, norm=args.inverse_norm, **kw)
        runs = {"disttranspose": (lambda: forward_call(x, grid, shape, out=y, **kw),
                                  lambda: inverse_call(y, grid, shape, out=back, norm=args.inverse_norm, **kw))}
        if c:
            ad = _arrays.adapter(x)
            stream = ad.stream(x, None, -1 if fplan.device < 0 else fplan.device) or None
            xp, yp, bp = pointer(x), pointer(y), pointer(back)

            def c_call(plan, a, b, direction):
                def run():
                    if c.dtrBenchFftLoop(plan.handle, a, b, direction, stream, 1) < 0:
                        raise dt.Error(1, _lib.last_error())
                return run
            runs["C"] = (c_call(fplan, xp, yp, _lib.FFT_FORWARD), c_call(iplan, yp, bp, _lib.FFT_INVERSE))
        if pfft is not None:
            u = newDistArray(pfft, False)
            u[:] = 1
            u_hat = newDistArray(pfft, True)
            runs["mpi4py-fft"] = (lambda: pfft.forward(u, u_hat, normalize=False), lambda: pfft.backward(u_hat, u))
            # Its floor: on the arrays it planned with (the call above copies u in and the result out).
            runs["mpi4py-fft own arrays"] = (lambda: pfft.forward(normalize=False), lambda: pfft.backward())
        timed = {}
        load = round(os.getloadavg()[0], 2)  # the machine's (others' jobs too), under which the times were taken
        for d, direction in enumerate(("forward", "inverse")):
            for impl, (wall, gpu) in alternated({k: v[d] for k, v in runs.items()}, args.iters, args.warmup,
                                                args.lib).items():
                timed.setdefault(impl, {})[direction] = (wall, gpu)
        for impl, t in timed.items():
            host = impl.startswith("mpi4py-fft")
            row = {"impl": impl, "call": names[0], "lib": "numpy" if host else args.lib, "shape": list(shape),
                   "dtype": args.dtype, "grid": [pr, pc], "ranks": COMM.Get_size(), "forward_us": t["forward"][0],
                   "inverse_us": t["inverse"][0], "iters": args.iters, "warmup": args.warmup, "load": load}
            if not host:
                row.update(inverse_norm=args.inverse_norm, backend=fplan.backend, chunks=fplan.chunks)
                if t["forward"][1] is not None:
                    row.update(forward_gpu_us=t["forward"][1], inverse_gpu_us=t["inverse"][1])
            rows.append(row)
            log(f"  {impl:21s} {names[0]:6s} {args.shape}^3 {args.dtype} on {pr} x {pc}: forward {row['forward_us']:.0f} us, "
                f"inverse {row['inverse_us']:.0f} us")
        if pfft is not None:
            pfft.destroy()
    return rows


def fft_overhead(args):
    """The binding's cost per fftn (rfftn) over dtrFftExecute called from C in a loop, on the same plan
    and arrays; small arrays, so that the host's calls, not the transform, set the pace."""
    c = c_loop(args.c_loop)
    rows = []
    for lib in args.libs.split(","):
        for side in args.sides:
            shape = (side,) * 3
            with dt.Grid(COMM, *((int(v) for v in args.grid.split("x")) if args.grid else (0, 0))) as grid:
                for name, dtype, ctype in (("fftn", "complex128", "complex128"), ("rfftn", "float64", "complex128")):
                    call = getattr(dt.fft, name)
                    x = make(lib, grid.box(shape, "x", dtype).shape, dtype)
                    cshape = ((side // 2 + 1) if name == "rfftn" else side, side, side)
                    y = make(lib, grid.box(cshape, "z", ctype).shape, ctype)
                    call(x, grid, shape, out=y)
                    plan = fft_plan(grid, name, x, shape)
                    ad = _arrays.adapter(x)
                    stream = ad.stream(x, None, -1 if plan.device < 0 else plan.device) or None
                    xp, yp = pointer(x), pointer(y)
                    t = against_c(lambda: call(x, grid, shape, out=y),
                                  lambda n: c.dtrBenchFftLoop(plan.handle, xp, yp, _lib.FFT_FORWARD, stream, n), lib, args)
                    rows.append({"lib": lib, "backend": plan.backend, "call": name, "shape": list(shape), "dtype": dtype,
                                 "grid": list(grid.dims), "ranks": COMM.Get_size(), **t, "iters": args.iters,
                                 "reps": args.reps})
                    log(f"  {lib:6s} {plan.backend:5s} {name:6s} {side}^3 {dtype:10s} python {t['python_us']:8.2f} us  "
                        f"C {t['c_us']:8.2f} us  overhead {t['overhead_us']:6.2f} us (least {t['overhead_least_us']:.2f})")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)

    def against_c_parser(name, sides, iters, reps):
        """A benchmark of calls against the C loop (against_c)."""
        s = sub.add_parser(name)
        s.add_argument("--c-loop", required=True, help="the built libdtr_c_loop.so")
        s.add_argument("--sides", type=int, nargs="+", default=sides)
        s.add_argument("--iters", type=int, default=iters)
        s.add_argument("--reps", type=int, default=reps)
        return s

    o = against_c_parser("overhead", [64, 256], 2000, 7)
    o.add_argument("--libs", default="numpy")
    o.add_argument("--backend", default="auto", help="of the GPU libraries' plans")
    fo = against_c_parser("fft-overhead", [4, 8], 2000, 7)
    fo.add_argument("--libs", default="numpy")
    fo.add_argument("--grid", default="")
    cp = against_c_parser("compiled", [64, 256], 1000, 5)
    cp.add_argument("--frameworks", default="jax,torch")
    cp.add_argument("--device", default="cpu", choices=("cpu", "gpu"))
    cp.add_argument("--backend", default="auto", help="of the plans on GPUs")
    cp.add_argument("--torch-backend", default="inductor", help="torch.compile's backend")
    f = sub.add_parser("fft")
    f.add_argument("--shape", type=int, default=128)
    f.add_argument("--dtype", default="complex128", help="complex: fftn and ifftn; float32, float64: rfftn and irfftn")
    f.add_argument("--grid", default="")
    f.add_argument("--lib", default="numpy")
    f.add_argument("--chunks", type=int, default=0)
    f.add_argument("--c-loop", default="", help="the built libdtr_c_loop.so: also time the C call")
    f.add_argument("--compare", default="")
    f.add_argument("--iters", type=int, default=10)
    f.add_argument("--warmup", type=int, default=2)
    f.add_argument("--inverse-norm", default="forward",
                   help="ifftn's norm: 'forward' (the default) scales nothing, as mpi4py-fft's backward and examples/fft3d's "
                        "inverse")
    for s in (o, fo, cp, f):
        s.add_argument("--json", default="")
    args = p.parse_args()
    pick_gpu()
    log(f"# disttranspose {dt.__version__} bench {args.what}: {COMM.Get_size()} ranks, Python {sys.version.split()[0]}, "
        f"numpy {np.__version__}")
    rows = {"overhead": overhead, "fft-overhead": fft_overhead, "compiled": compiled, "fft": fft}[args.what](args)
    if args.json and COMM.Get_rank() == 0:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
