"""Benchmarks of the Python binding, written as JSON (results are data; docs tables come from them).

  overhead      the binding's cost per execute over the C call: plan.execute(a, out) in a Python loop
                against dtrExecute in a C loop (c_loop.c, built beside the tools) on the same plan and
                arrays; small matrices, so that the host's calls, not the GPU, set the pace
  fft-overhead  the same for fftn and rfftn against dtrFftExecute, on small arrays
  compiled      the same for a call of a compiled function: jax.jit(plan.execute) and
                torch.compile(plan.execute, fullgraph=True), results fresh arrays; and, beside them, the
                frameworks' eager calls through the same operations (a JAX array, a tensor that requires
                grad); with --ops fftn,rfftn the same for jitted and compiled fftn and rfftn against
                dtrFftExecute on the same plan (N^3 for N in --sides); and each framework's floor, a
                compiled call of one multiplication of the same array (what the framework's dispatch
                costs with no call of ours)
  fft           fftn and ifftn (rfftn and irfftn for a real dtype) of an N^3 array on a grid; with
                --c-loop the same plan's dtrFftExecute called from C, with --compare mpi4py-fft
                mpi4py-fft's PFFT on the same ranks, shape and decomposition; timed in turn
  jaxdecomp     jitted fftn (and ifftn) on JAX arrays, each process's local X-pencil, against jitted
                jaxdecomp.fft.pfft3d (pifft3d) of jaxdecomp's pure-JAX backend on the global array of the
                same shape and type, sharded over a mesh of the same processes (jax.distributed, one
                device a process) with pdims = the grid's (pr, pc); timed in turn, medians of the slowest
                process; Parseval's sums of both results checked against each other (--against xla:
                jnp.fft.fftn of the sharded array instead, XLA's own partitioning)
  jit-chain     our calls inside compiled code, apart from JAX's dispatch: k round trips of fftn and
                ifftn in one jitted lax.fori_loop, and unrolled (k and 2 k of them: what one call more
                costs), against the same calls from C on the same plans and arrays; a lone jitted fftn
                and a lone C call beside them, and JAX's own dispatch of v * 2 on the same array

  mpirun -np 4 python bench.py fft --shape 128 --grid 2x2 --c-loop build/libdtr_c_loop.so --compare mpi4py-fft --json f.json
  mpirun -np 1 python bench.py overhead --c-loop build/libdtr_c_loop.so --libs numpy,cupy,torch --json o.json
  mpirun -np 1 python bench.py fft-overhead --c-loop build/libdtr_c_loop.so --libs numpy,cupy,torch --json fo.json
  mpirun -np 1 python bench.py compiled --c-loop build/libdtr_c_loop.so --frameworks jax,torch --device gpu --json c.json
  mpirun -np 1 python bench.py compiled --c-loop build/libdtr_c_loop.so --ops fftn,rfftn --sides 4 8 --json cf.json
  mpirun -np 2 python bench.py jaxdecomp --shape 512 --grid 1x2 --dtype complex64 --json jd.json
  mpirun -np 2 python bench.py jit-chain --shape 512 --grid 1x2 --k 10 --c-loop build/libdtr_c_loop.so --json jc.json
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


GPU = [0]  # this process's GPU (pick_gpu)


def pick_gpu():
    local = COMM.Split_type(MPI.COMM_TYPE_SHARED)
    rank = local.Get_rank()
    local.Free()
    GPU[0] = rank
    for name in ("cupy", "torch"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        n = mod.cuda.runtime.getDeviceCount() if name == "cupy" else mod.cuda.device_count()
        if n:
            GPU[0] = rank % n
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
    through the same operations; the same for the FFT calls of --ops; and the frameworks' floors."""
    c = c_loop(args.c_loop)
    gpu = args.device == "gpu"
    rows = []
    for fw in args.frameworks.split(","):
        try:
            __import__(fw)
        except ImportError:
            log(f"  {fw}: not installed, left out")
            continue
        for what in args.ops.split(","):
            for side in args.sides:
                if what == "transpose":
                    rows += _compiled_transpose(args, c, fw, gpu, side)
                else:
                    rows += _compiled_fft(args, c, fw, gpu, side, what)
    return rows


def _framework_arrays(fw, gpu, device, shapes_dtypes):
    """Arrays of ones of each (shape, dtype), the framework's own, on the plan's device."""
    if fw == "jax":
        import jax
        import jax.numpy as jnp
        dev = jax.devices("gpu")[device] if gpu else jax.devices("cpu")[0]
        return [jax.device_put(jnp.ones(s, d), dev) for s, d in shapes_dtypes]
    import torch
    dev = torch.device("cuda", device) if gpu else torch.device("cpu")
    return [torch.ones(s, dtype=getattr(torch, d), device=dev) for s, d in shapes_dtypes]


def _kernels(fw):
    """Which kernels run the package's PyTorch ops: the C++ ones, or the Python ones."""
    if fw != "torch":
        return {}
    from disttranspose import _torch
    return {"torch_kernels": "python" if _torch._kernels is None else "native"}


def _pointer(fw, a):
    return a.unsafe_buffer_pointer() if fw == "jax" else a.data_ptr()


def _modes(fw, args, gpu, a, compiled_fn, eager_fn):
    """The timed calls of a framework: compiled (and its floor), eager through the same operation; and
    what waits for their work."""
    if fw == "jax":
        import jax
        jitted, floor, last = jax.jit(compiled_fn), jax.jit(lambda v: v * 2), [None]
        # JAX runs a device's computations in the order they were dispatched: the last result ready,
        # every one is.
        finish = lambda: last[0].block_until_ready()  # noqa: E731
        return finish, [("jit", lambda: last.__setitem__(0, jitted(a))),
                        ("eager", lambda: last.__setitem__(0, eager_fn(a))),
                        ("jit floor", lambda: last.__setitem__(0, floor(a)))]
    import torch
    g = torch.compile(compiled_fn, fullgraph=True, backend=args.torch_backend)
    floor = torch.compile(lambda t: t * 2, fullgraph=True, backend=args.torch_backend)
    ag = a.clone().requires_grad_(True)
    finish = lambda: sync("torch" if gpu else "numpy")  # noqa: E731
    return finish, [("compile", lambda: g(a)), ("autograd", lambda: eager_fn(ag)), ("compile floor", lambda: floor(a))]


def _compiled_transpose(args, c, fw, gpu, side):
    rows = []
    with dt.Plan(side, side, "float32", COMM, backend=args.backend if gpu else "cpu") as plan:
        a, out = _framework_arrays(fw, gpu, plan.device, [(plan.in_shape, "float32"), (plan.out_shape, "float32")])
        aptr, optr = _pointer(fw, a), _pointer(fw, out)
        stream = None
        if fw == "torch" and gpu:
            import torch
            stream = torch.cuda.current_stream(a.device).cuda_stream
        finish, modes = _modes(fw, args, gpu, a, plan.execute, plan.execute)
        for mode, call in modes:
            call()
            finish()
            t = against_c(call, lambda n: c.dtrBenchExecuteLoop(plan._handle, aptr, optr, stream, n), fw, args, finish)
            rows.append({"lib": fw, "op": "transpose", "mode": mode, "backend": plan.backend, "rows": side,
                         "cols": side, "dtype": "float32", "ranks": COMM.Get_size(), **t, "iters": args.iters,
                         "reps": args.reps, **_kernels(fw)})
            log(f"  {fw:5s} {mode:13s} transpose {plan.backend:5s} {side:6d}^2 fp32  call {t['python_us']:8.2f} us  "
                f"C {t['c_us']:8.2f} us  overhead {t['overhead_us']:6.2f} us")
    return rows


def _compiled_fft(args, c, fw, gpu, side, name):
    """jitted / compiled fftn or rfftn of an N^3 array (complex128, float64) on the default grid."""
    rows = []
    shape = (side,) * 3
    dtype = "float64" if name == "rfftn" else "complex128"
    cshape = ((side // 2 + 1) if name == "rfftn" else side, side, side)
    backend = args.backend if gpu else "cpu"
    call = getattr(dt.fft, name)
    with dt.Grid(COMM, device=GPU[0] if gpu else None) as grid:  # a traced call's plans: the grid's GPU
        device = GPU[0] if gpu else -1
        x, y = _framework_arrays(fw, gpu, device, [(grid.box(shape, "x", dtype).shape, dtype),
                                                   (grid.box(cshape, "z", "complex128").shape, "complex128")])

        def fn(v):
            return call(v, grid, shape, backend=backend)
        if fw == "torch":
            import torch
            with torch.no_grad():
                fn(x)  # the plan, made eagerly (the direct path)
        else:
            fn(x)
        plan = fft_plan(grid, name, x, shape, backend=backend)
        xp, yp = _pointer(fw, x), _pointer(fw, y)
        stream = None
        if fw == "torch" and gpu:
            import torch
            stream = torch.cuda.current_stream(x.device).cuda_stream
        finish, modes = _modes(fw, args, gpu, x, fn, fn)
        for mode, run in modes:
            run()
            finish()
            t = against_c(run, lambda n: c.dtrBenchFftLoop(plan.handle, xp, yp, _lib.FFT_FORWARD, stream, n), fw, args,
                          finish)
            rows.append({"lib": fw, "op": name, "mode": mode, "backend": plan.backend, "shape": list(shape),
                         "dtype": dtype, "grid": list(grid.dims), "ranks": COMM.Get_size(), **t, "iters": args.iters,
                         "reps": args.reps, **_kernels(fw)})
            log(f"  {fw:5s} {mode:13s} {name:9s} {plan.backend:5s} {side:6d}^3 {dtype:10s} "
                f"call {t['python_us']:8.2f} us  "
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
    c.dtrBenchFftRoundTrips.restype = ctypes.c_double
    c.dtrBenchFftRoundTrips.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int]
    c.dtrBenchNothing.restype = ctypes.c_int
    c.dtrBenchStampedFftExecute.restype = ctypes.c_int
    c.dtrBenchStampedFftExecute.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p]
    c.dtrBenchStamps.argtypes = [ctypes.POINTER(ctypes.c_double)] * 2 + [ctypes.POINTER(ctypes.c_long)]
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


def _start_jax_distributed():
    """jax.distributed over the MPI job (one device a process: the process's GPU), before JAX computes
    anything: jaxdecomp's arrays are global ones, sharded over every process's device."""
    import socket

    import jax
    port = COMM.bcast(20000 + os.getpid() % 20000 if COMM.Get_rank() == 0 else None)
    host = COMM.bcast(socket.gethostname() if COMM.Get_rank() == 0 else None)
    kw = {}
    if os.path.exists("/dev/nvidiactl") and os.environ.get("JAX_PLATFORMS", "") != "cpu":
        kw["local_device_ids"] = [GPU[0]]  # this process's GPU only: one device a process
    else:  # the host: XLA's collectives between processes through gloo
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"{host}:{port}", num_processes=COMM.Get_size(), process_id=COMM.Get_rank(), **kw)


def _c_stream():
    """A non-blocking stream for the C calls (as the caller's stream of a C program; the legacy default
    stream would wait for every other stream of the device) and the wait for it."""
    import cupy
    s = cupy.cuda.Stream(non_blocking=True)
    _c_stream.keep = s
    return s.ptr, s.synchronize


def _values(jnp, dtype, starts, sizes):
    """The array of global values sin(0.1 i + 0.2 j + 0.3 k) (+ cos as the imaginary part) on the box
    starts/sizes of axes [z][y][x] (memory order), the same function for both libraries."""
    z, y, x = (jnp.arange(s0, s0 + n, dtype=jnp.float32) for s0, n in zip(starts, sizes))
    phase = 0.3 * z[:, None, None] + 0.2 * y[None, :, None] + 0.1 * x[None, None, :]
    v = jnp.sin(phase)
    if "complex" in dtype:
        v = v + 1j * jnp.cos(phase)
    return v.astype(dtype)


def jaxdecomp_compare(args):
    """Jitted fftn and ifftn against jaxdecomp's pfft3d and pifft3d (pure-JAX backend), one device a
    process, the same global shape, type and process grid, timed in turn."""
    if args.against != "none":
        _start_jax_distributed()
    import jax
    import jax.numpy as jnp
    shape = (args.shape,) * 3
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    dtype = args.dtype
    on_gpu = jax.default_backend() != "cpu"
    backend = args.backend if on_gpu else "cpu"
    device = jax.local_devices()[0]
    jax.config.update("jax_default_device", device)  # where jax.numpy makes the arrays
    rows = []
    # Our traced calls run on the grid's GPU: this process's, which JAX does not make CUDA's current one.
    with dt.Grid(COMM, pr, pc, device=device.local_hardware_id if on_gpu else None) as grid:
        pr, pc = grid.dims
        bx = grid.box(shape, "x", dtype)
        # the X-pencil [z][y][x]: starts and sizes along (x, y, z) reversed
        x = jax.device_put(_values(jnp, dtype, bx.start[::-1], bx.size[::-1]), device)
        ours_f = jax.jit(lambda v: dt.fft.fftn(v, grid, shape, backend=backend))
        ours_i = jax.jit(lambda v: dt.fft.ifftn(v, grid, shape, backend=backend))
        y = ours_f(x).block_until_ready()
        back = ours_i(y).block_until_ready()
        roundtrip = COMM.allreduce(float(jnp.abs(back - x).max()) if x.size else 0.0, op=MPI.MAX)
        energy = COMM.allreduce(float(jnp.sum(jnp.abs(y) ** 2)) if y.size else 0.0)
        runs = {"disttranspose": (lambda: ours_f(x), lambda: ours_i(y))}
        if args.c_loop:
            # The same plans called from C on the same arrays (written over: they are ours), timed alike.
            c = c_loop(args.c_loop)
            fplan = fft_plan(grid, "fftn", x, shape, backend=backend)
            iplan = fft_plan(grid, "ifftn", y, shape, backend=backend)
            y_c, back_c = ours_f(x).block_until_ready(), ours_i(y).block_until_ready()
            stream, sync = _c_stream() if on_gpu else (None, lambda: None)

            class _Done:
                def block_until_ready(self):
                    sync()

            def c_call(plan, a, b, direction):
                pa, pb = a.unsafe_buffer_pointer() if a.size else None, b.unsafe_buffer_pointer() if b.size else None

                def run():
                    if c.dtrBenchFftLoop(plan.handle, pa, pb, direction, stream, 1) < 0:
                        raise dt.Error(1, _lib.last_error())
                    return _Done()
                return run
            runs["C"] = (c_call(fplan, x, y_c, _lib.FFT_FORWARD), c_call(iplan, y, back_c, _lib.FFT_INVERSE))
        jd_info = {}
        if args.against != "none":
            from jax.sharding import NamedSharding
            from jax.sharding import PartitionSpec as P
            pdims = tuple(int(v) for v in args.pdims.split("x")) if args.pdims else (pr, pc)
            # jaxdecomp's layout (its documentation's): axis 0 over the mesh's first axis (pdims[0]), axis 1
            # over its second, axis 2 whole (its first pass); Auto axis types, which its partitioning needs
            from jax.sharding import AxisType
            mesh = jax.make_mesh(pdims, ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))
            sharding = NamedSharding(mesh, P("x", "y"))

            def block(index):
                starts = [sl.start or 0 for sl in index]
                sizes = [(sl.stop if sl.stop is not None else n) - st for sl, st, n in zip(index, starts, shape)]
                return _values(jnp, dtype, starts, sizes)
            g = jax.make_array_from_callback(shape, sharding, block)
            if args.against == "jaxdecomp":
                import jaxdecomp
                jd_f, jd_i = jax.jit(jaxdecomp.fft.pfft3d), jax.jit(jaxdecomp.fft.pifft3d)
                version = getattr(jaxdecomp, "__version__", "?")
            else:  # XLA's own SPMD partitioning of jnp.fft.fftn over the same mesh
                jd_f, jd_i = jax.jit(jnp.fft.fftn), jax.jit(jnp.fft.ifftn)
                version = jax.__version__
            k = jd_f(g).block_until_ready()
            jd_back = jd_i(k).block_until_ready()
            jd_energy = float(jax.jit(lambda a: jnp.sum(jnp.abs(a) ** 2))(k))
            jd_roundtrip = float(jax.jit(lambda a, b: jnp.abs(a - b).max())(jd_back, g))
            runs[args.against] = (lambda: jd_f(g), lambda: jd_i(k))
            jd_info = {"version": version, "pdims": list(pdims), "energy_rel_diff": abs(jd_energy - energy) / max(energy, 1e-300),
                       "jaxdecomp_roundtrip_err": jd_roundtrip}
            log(f"  Parseval: ours {energy:.6e}, {args.against} {jd_energy:.6e}; round trips {roundtrip:.2e}, "
                f"{jd_roundtrip:.2e}")
        timed = {}
        for d, direction in enumerate(("forward", "inverse")):
            names = list(runs)
            for _ in range(args.warmup):
                for n in names:
                    runs[n][d]().block_until_ready()
            wall = {n: [] for n in names}
            for i in range(args.iters):
                for j in range(len(names)):
                    n = names[(i + j) % len(names)]
                    COMM.Barrier()
                    t0 = time.perf_counter()
                    runs[n][d]().block_until_ready()
                    wall[n].append(time.perf_counter() - t0)
            for n in names:
                slowest = np.empty(len(wall[n]))
                COMM.Allreduce(np.array(wall[n]), slowest, op=MPI.MAX)
                timed.setdefault(n, {})[direction] = round(float(np.median(slowest) * 1e6), 1)
        plan = fft_plan(grid, "fftn", x, shape, backend=backend)
        for impl, t in timed.items():
            row = {"impl": impl, "shape": list(shape), "dtype": dtype, "grid": [pr, pc], "ranks": COMM.Get_size(),
                   "device": device.platform, "forward_us": t["forward"], "inverse_us": t["inverse"],
                   "iters": args.iters, "warmup": args.warmup, "jax": jax.__version__}
            if impl in ("disttranspose", "C"):
                row.update(backend=plan.backend, chunks=plan.chunks)
                if impl == "disttranspose":
                    row.update(roundtrip_err=roundtrip)
            else:
                row.update(jd_info)
            rows.append(row)
            log(f"  {impl:14s} fftn {args.shape}^3 {dtype} on {pr} x {pc}: forward {t['forward']:.0f} us, "
                f"inverse {t['inverse']:.0f} us")
    return rows


class _BenchOp:
    """An operation of the frameworks (_ops.py) on a C function of the benchmarks' (c_loop.c) with a plan's
    signature: with `executor` dtrBenchNothing, an execute that does nothing (what XLA's dispatch of a
    custom call of ours and of its result costs, apart from the library); with dtrBenchStampedFftExecute,
    an FFT plan's execute with the host's clock read around it."""
    _in_place, _jax_registered = False, False

    def __init__(self, executor, handle, direction, in_shape, out_shape, dtype, device):
        from disttranspose import _ops
        self._executor = ctypes.cast(executor, ctypes.c_void_p).value
        self._handle, self._direction = handle, direction
        self.in_shape, self.out_shape, self.dtype, self._device = tuple(in_shape), tuple(out_shape), dtype, device
        self._op = _ops.add(self)

    def _expected(self, ad):
        return ad.dtype(self.dtype)

    _expected_out = _expected


def _lone_trace(c, call, finish, iters):
    """Where a lone call's time goes (call: one lone fftn through dtrBenchStampedFftExecute; finish: waits
    for it): per iteration, from a barrier, the host's clock (CLOCK_MONOTONIC, one clock for every
    process of the host) at the call, at the execute's entry and return, when the call returns and when
    its result is ready, on every rank. Medians over the iterations, in us: the slowest rank's time to
    the entry, how far apart the ranks enter, the execute's host time (slowest rank), from its return to
    the call's, the whole call (slowest rank); and whether the execute ran on the calling thread."""
    import threading
    entry, leave, thread = ctypes.c_double(), ctypes.c_double(), ctypes.c_long()
    rows = []
    for _ in range(iters):
        COMM.Barrier()
        t0 = time.monotonic()
        out = call()
        t1 = time.monotonic()
        finish(out)
        t2 = time.monotonic()
        c.dtrBenchStamps(ctypes.byref(entry), ctypes.byref(leave), ctypes.byref(thread))
        rows.append((t0, entry.value, leave.value, t1, t2, thread.value == threading.get_native_id()))
    every = COMM.allgather(rows)  # [rank][iteration]
    per = {"to_entry": [], "entry_spread": [], "execute": [], "to_return": [], "whole": []}
    for i in range(iters):
        r = [every[q][i] for q in range(len(every))]
        per["to_entry"].append(max(x[1] - x[0] for x in r))
        per["entry_spread"].append(max(x[1] for x in r) - min(x[1] for x in r))
        per["execute"].append(max(x[2] - x[1] for x in r))
        per["to_return"].append(max(x[3] - x[2] for x in r))
        per["whole"].append(max(x[4] - x[0] for x in r))
    out = {k: round(float(np.median(v)) * 1e6, 1) for k, v in per.items()}
    out["same_thread"] = all(x[5] for q in every for x in q)
    return out


def jit_chain(args):
    """The cost of our call inside compiled code, apart from JAX's dispatch: one jitted function that runs
    --k round trips (fftn, then ifftn with norm "forward", which scales nothing) in a lax.fori_loop,
    against the same 2 k calls of the same plans from C on the same arrays (zeros, which a round trip
    keeps) in a C loop, and a jitted single fftn beside them (and when its dispatch returns); JAX's own
    cost of a dispatch on the same array: v * 2 jitted alone against 2 k of it in one loop. Per call: the
    time over 2 k."""
    on_gpu = not os.environ.get("JAX_PLATFORMS", "").startswith("cpu") and os.path.exists("/dev/nvidiactl")
    if on_gpu and COMM.Get_size() > 1:
        _start_jax_distributed()
    import jax
    import jax.numpy as jnp
    shape, k, dtype = (args.shape,) * 3, args.k, args.dtype
    pr, pc = (int(v) for v in args.grid.split("x")) if args.grid else (0, 0)
    device = jax.local_devices()[0]
    jax.config.update("jax_default_device", device)
    backend = args.backend if device.platform != "cpu" else "cpu"
    c = c_loop(args.c_loop)
    rows = []
    with dt.Grid(COMM, pr, pc, device=device.local_hardware_id if device.platform != "cpu" else None) as grid:
        pr, pc = grid.dims
        bx = grid.box(shape, "x", dtype)
        x = jax.device_put(jnp.zeros(bx.shape, dtype), device)

        def trip(_, u):
            return dt.fft.ifftn(dt.fft.fftn(u, grid, shape, backend=backend), grid, shape, norm="forward", backend=backend)
        chained = jax.jit(lambda v: jax.lax.fori_loop(0, k, trip, v))

        def unrolled_trips(n):  # the same calls with no loop: XLA's GPU loops wait for their condition on the host
            def run(v):
                for i in range(n):
                    v = trip(i, v)
                return v
            return jax.jit(run)
        unrolled, unrolled2 = unrolled_trips(k), unrolled_trips(2 * k)
        single = jax.jit(lambda v: dt.fft.fftn(v, grid, shape, backend=backend))
        y = single(x).block_until_ready()
        x2 = chained(x).block_until_ready()
        unrolled(x).block_until_ready()
        unrolled2(x).block_until_ready()
        fplan = fft_plan(grid, "fftn", x, shape, backend=backend)
        iplan = fft_plan(grid, "ifftn", y, shape, norm="forward", backend=backend)
        stream, csync = _c_stream() if device.platform != "cpu" else (None, lambda: None)
        px, py = x2.unsafe_buffer_pointer() or None, y.unsafe_buffer_pointer() or None

        def c_chain(n):
            def run():
                if c.dtrBenchFftRoundTrips(fplan.handle, iplan.handle, px, py, stream, n) < 0:
                    raise dt.Error(1, _lib.last_error())
                csync()
            return run
        # XLA's cost of a custom call of ours with the same operand and result, with nothing to run.
        from disttranspose import _jax
        where = device.local_hardware_id if device.platform != "cpu" else -1
        nothing = _BenchOp(c.dtrBenchNothing, 1, 0, x.shape, y.shape, dtype, where)
        _jax.op_of(nothing)
        nothing_single = jax.jit(lambda v: _jax.execute_p.bind(v, op=nothing._op))
        nothing_single(x).block_until_ready()
        # JAX's own cost of a dispatch, apart from ours: an XLA operation on the same array (a
        # multiplication), alone and 2 k times in one loop; a call's dispatch = single - loop / 2 k.
        xla_chained = jax.jit(lambda v: jax.lax.fori_loop(0, 2 * k, lambda _, u: u * 2, v))
        xla_single = jax.jit(lambda v: v * 2)
        returned = {"jit single": [], "xla single": [], "C single": [], "nothing single": []}  # when each lone call's dispatch returns

        def lone(name, call):
            def run():
                t0 = time.perf_counter()
                y = call()
                returned[name].append(time.perf_counter() - t0)
                y.block_until_ready()
            return run

        class _Done:
            def block_until_ready(self):
                csync()

        def c_single():
            if c.dtrBenchFftLoop(fplan.handle, px, py, _lib.FFT_FORWARD, stream, 1) < 0:
                raise dt.Error(1, _lib.last_error())
            return _Done()
        runs = {"jit chain": lambda: chained(x).block_until_ready(), "C chain": c_chain(k), "C chain 2k": c_chain(2 * k),
                "jit unrolled": lambda: unrolled(x).block_until_ready(),
                "jit unrolled 2k": lambda: unrolled2(x).block_until_ready(),
                "jit single": lone("jit single", lambda: single(x)), "C single": lone("C single", c_single),
                "xla chain": lambda: xla_chained(x).block_until_ready(),
                "xla single": lone("xla single", lambda: xla_single(x)),
                "nothing single": lone("nothing single", lambda: nothing_single(x))}
        for _ in range(args.warmup):
            for run in runs.values():
                run()
        wall = {n: [] for n in runs}
        names = list(runs)
        for i in range(args.iters):
            for j in range(len(names)):
                n = names[(i + j) % len(names)]
                COMM.Barrier()
                t0 = time.perf_counter()
                runs[n]()
                wall[n].append(time.perf_counter() - t0)
        t = {}
        for n in names:
            slowest = np.empty(len(wall[n]))
            COMM.Allreduce(np.array(wall[n]), slowest, op=MPI.MAX)
            t[n] = float(np.median(slowest) * 1e6)
        # The lone calls traced: the same plan's execute, stamped, as a custom call and from C.
        stamped = _BenchOp(c.dtrBenchStampedFftExecute, fplan.handle, _lib.FFT_FORWARD, x.shape, y.shape, dtype, where)
        _jax.op_of(stamped)
        stamped_single = jax.jit(lambda v: _jax.execute_p.bind(v, op=stamped._op))
        stamped_single(x).block_until_ready()

        def c_stamped():
            if c.dtrBenchStampedFftExecute(fplan.handle, px, py, _lib.FFT_FORWARD, stream) != 0:
                raise dt.Error(1, _lib.last_error())
        traces = {"jit": _lone_trace(c, lambda: stamped_single(x), lambda y: y.block_until_ready(), args.iters),
                  "C": _lone_trace(c, c_stamped, lambda _: csync(), args.iters)}
        for name, tr in traces.items():
            log(f"  lone {name:3s}: entry after {tr['to_entry']:.1f} us (ranks {tr['entry_spread']:.1f} us apart), execute "
                f"{tr['execute']:.1f} us, returns {tr['to_return']:.1f} us later, whole {tr['whole']:.1f} us; "
                f"{'the calling thread' if tr['same_thread'] else 'another thread'}")
        per_jit, per_c, per_unrolled = t["jit chain"] / (2 * k), t["C chain"] / (2 * k), t["jit unrolled"] / (2 * k)
        # What one more call costs, apart from what a dispatch costs once: the difference of 4 k and 2 k calls.
        slope_jit, slope_c = (t["jit unrolled 2k"] - t["jit unrolled"]) / (2 * k), (t["C chain 2k"] - t["C chain"]) / (2 * k)
        back = {n: round(float(np.median(v[-args.iters:])) * 1e6, 1) for n, v in returned.items()}
        rows.append({"shape": list(shape), "dtype": dtype, "grid": [pr, pc], "ranks": COMM.Get_size(),
                     "device": device.platform, "backend": fplan.backend, "k": k, "jit_chain_us": round(t["jit chain"], 1),
                     "c_chain_us": round(t["C chain"], 1), "jit_single_fftn_us": round(t["jit single"], 1),
                     "xla_chain_us": round(t["xla chain"], 1), "xla_single_fftn_us": round(t["xla single"], 1),
                     "dispatch_ours_us": round(t["jit single"] - per_jit, 1),
                     "dispatch_xla_us": round(t["xla single"] - t["xla chain"] / (2 * k), 1),
                     "c_single_fftn_us": round(t["C single"], 1), "jit_unrolled_us": round(t["jit unrolled"], 1),
                     "jit_single_returns_us": back["jit single"], "xla_single_returns_us": back["xla single"],
                     "c_single_returns_us": back["C single"], "nothing_single_us": round(t["nothing single"], 1),
                     "nothing_single_returns_us": back["nothing single"],
                     "per_call_jit_us": round(per_jit, 2), "per_call_c_us": round(per_c, 2),
                     "overhead_per_call_us": round(per_jit - per_c, 2), "ratio": round(per_jit / per_c, 4),
                     "per_call_unrolled_us": round(per_unrolled, 2),
                     "overhead_per_call_unrolled_us": round(per_unrolled - per_c, 2),
                     "ratio_unrolled": round(per_unrolled / per_c, 4),
                     "lone_trace": traces, "jit_unrolled_2k_us": round(t["jit unrolled 2k"], 1), "c_chain_2k_us": round(t["C chain 2k"], 1),
                     "added_call_jit_us": round(slope_jit, 2), "added_call_c_us": round(slope_c, 2),
                     "overhead_added_call_us": round(slope_jit - slope_c, 2),
                     "iters": args.iters, "warmup": args.warmup, "jax": jax.__version__})
        log(f"  {args.shape}^3 {dtype} {pr} x {pc} {fplan.backend}: {k} round trips: jitted {t['jit chain']:.0f} us, "
            f"C {t['C chain']:.0f} us; a call {per_jit:.2f} against {per_c:.2f} us ({per_jit / per_c:.4f} x, "
            f"{per_jit - per_c:+.2f} us), unrolled {per_unrolled:.2f} us ({per_unrolled / per_c:.4f} x); one call more "
            f"{slope_jit:.2f} us jitted, {slope_c:.2f} us from C ({slope_jit - slope_c:+.2f} us); a jitted "
            f"single fftn {t['jit single']:.1f} us (returns after {back['jit single']:.1f} us), from C "
            f"{t['C single']:.1f} us (returns after {back['C single']:.1f} us); XLA's v * 2: a call in the loop "
            f"{t['xla chain'] / (2 * k):.1f} us, jitted alone {t['xla single']:.1f} us (returns after "
            f"{back['xla single']:.1f} us); a custom call that runs nothing {t['nothing single']:.1f} us (returns after "
            f"{back['nothing single']:.1f} us)")
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
    cp.add_argument("--ops", default="transpose", help="transpose, fftn, rfftn (comma-separated)")
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
    jd = sub.add_parser("jaxdecomp")
    jd.add_argument("--shape", type=int, default=512)
    jd.add_argument("--dtype", default="complex64", choices=("complex64", "complex128"))
    jd.add_argument("--grid", default="", help="pr x pc of ours (default: the library's choice)")
    jd.add_argument("--pdims", default="", help="jaxdecomp's pdims (default: the grid's pr x pc)")
    jd.add_argument("--c-loop", default="", help="the C loop library (libdtr_c_loop.so): the same plans called from C")
    jd.add_argument("--backend", default="auto", help="of our plans on GPUs")
    jd.add_argument("--iters", type=int, default=20)
    jd.add_argument("--warmup", type=int, default=3)
    jd.add_argument("--against", default="jaxdecomp", choices=("jaxdecomp", "xla", "none"),
                    help="jaxdecomp's pfft3d; xla: jnp.fft.fftn of the sharded array (XLA's SPMD partitioning); none: "
                         "ours only (no jax.distributed)")
    jc = sub.add_parser("jit-chain")
    jc.add_argument("--shape", type=int, default=8)
    jc.add_argument("--dtype", default="complex64", choices=("complex64", "complex128"))
    jc.add_argument("--grid", default="")
    jc.add_argument("--k", type=int, default=100, help="round trips in one jitted function")
    jc.add_argument("--c-loop", required=True, help="the C loop library (libdtr_c_loop.so)")
    jc.add_argument("--backend", default="auto", help="of our plans on GPUs")
    jc.add_argument("--iters", type=int, default=20)
    jc.add_argument("--warmup", type=int, default=3)
    for s in (o, fo, cp, f, jd, jc):
        s.add_argument("--json", default="")
    args = p.parse_args()
    pick_gpu()
    log(f"# disttranspose {dt.__version__} bench {args.what}: {COMM.Get_size()} ranks, Python {sys.version.split()[0]}, "
        f"numpy {np.__version__}")
    rows = {"overhead": overhead, "fft-overhead": fft_overhead, "compiled": compiled, "fft": fft,
            "jaxdecomp": jaxdecomp_compare, "jit-chain": jit_chain}[args.what](args)
    if args.json and COMM.Get_rank() == 0:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
