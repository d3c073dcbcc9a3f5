"""The 2-D transpose through the binding: every element type, odd shapes, howmany, in place, on
sub-communicators; bit for bit against the pattern of global indices, outputs poisoned first."""

import numpy as np
import pytest
from conftest import COMM, DTYPES, everywhere, gathered, pattern, poison, same_bits

import disttranspose as dt


def shapes():
    p = COMM.Get_size()
    return [(1, 1), (7, 5), (31, 17), (2 * p + 1, 3), (max(p - 1, 1), 11), (64, 64 * p)]


def slabs(rows, cols, dtype, howmany, ls):
    """This rank's A and the B it must get, from the pattern."""
    i = np.arange(ls.in_row_start, ls.in_row_start + ls.in_rows)[:, None]
    a = pattern(i * cols + np.arange(cols)[None, :], dtype, howmany)
    p = np.arange(ls.out_row_start, ls.out_row_start + ls.out_rows)[:, None]
    b = pattern(np.arange(rows)[None, :] * cols + p, dtype, howmany)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_type_and_shape(lib, dtype):
    if not lib.supports(dtype):
        pytest.skip(f"{lib} has no {dtype}")
    ok = True
    for rows, cols in shapes():
        for howmany in (1, 3):
            with dt.Plan(rows, cols, dtype, COMM, howmany=howmany, backend=lib.backend) as plan:
                a, want = slabs(rows, cols, dtype, howmany, plan.local)
                ok &= plan.in_shape == a.shape and plan.out_shape == want.shape
                out = lib.out(poison(plan.out_shape, dtype))
                got = plan.execute(lib.put(a), out=out)
                ok &= out is None or got is out
                ok &= same_bits(lib.get(got), want)
                # and once more into a result the binding allocates
                ok &= same_bits(lib.get(plan.execute(lib.put(a))), want)
    assert everywhere(ok)


def test_plan_properties(lib):
    with dt.Plan(10, 6, "float32", COMM, backend=lib.backend) as plan:
        props = (plan.backend, plan.kernel, plan.stages, plan.device, plan.workspace_size, plan.dtype)
        ok = (plan.backend == "cpu") == (not lib.gpu) and plan.stages >= 1 and plan.dtype == "float32"
        ok &= (plan.device is None) == (not lib.gpu) and plan.workspace_size >= 0
        assert everywhere(ok), props
    assert "closed" in repr(plan)


def test_local_size():
    p, r = COMM.Get_size(), COMM.Get_rank()
    rows, cols = 2 * p + 1, 3
    ls = dt.local_size(rows, cols, "complex128", COMM, howmany=2)
    starts = gathered((ls.in_row_start, ls.in_rows, ls.out_row_start, ls.out_rows))
    ok = sum(s[1] for s in starts) == rows and sum(s[3] for s in starts) == cols
    ok &= all(abs(s[1] - starts[0][1]) <= 1 for s in starts)
    ok &= ls.in_bytes == ls.in_rows * cols * 32 and ls.entry_bytes == 32 and ls.in_shape == (ls.in_rows, cols, 2)
    other = dt.local_size(rows, cols, "complex128", COMM, howmany=2, rank=(r + 1) % p)
    ok &= (other.in_row_start, other.in_rows) == starts[(r + 1) % p][:2]
    assert everywhere(ok)


@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128"])
def test_in_place(lib, dtype):
    if lib.name == "jax":
        pytest.skip("JAX arrays are immutable")
    ok = True
    for rows, cols in shapes():
        with dt.Plan(rows, cols, dtype, COMM, howmany=2, inplace=True, backend=lib.backend) as plan:
            a, want = slabs(rows, cols, dtype, 2, plan.local)
            buf = poison((plan.inplace_size,), dtype)
            buf[: a.size] = a.reshape(-1)
            dev = lib.put(buf)
            got = plan.execute_inplace(dev)
            ok &= got.shape == plan.out_shape and same_bits(lib.get(got), want)
    assert everywhere(ok)


def test_sub_communicators(lib):
    """Plans on halves of the world beside one on the world, executed in turn."""
    r, p = COMM.Get_rank(), COMM.Get_size()
    half = COMM.Split(r < p // 2, r)
    ok = True
    with dt.Plan(13, 9, "float64", half, backend=lib.backend) as h, dt.Plan(9, 13, "float64", COMM, backend=lib.backend) as w:
        for _ in range(2):
            for plan, rows, cols in ((h, 13, 9), (w, 9, 13)):
                a, want = slabs(rows, cols, "float64", 1, plan.local)
                ok &= same_bits(lib.get(plan.execute(lib.put(a))), want)
    half.Free()
    assert everywhere(ok)


def test_dtype_spellings():
    ok = True
    for spelling in ("float32", "fp32", np.float32, np.dtype("float32"), "FLOAT32"):
        with dt.Plan(4, 4, spelling, COMM, backend="cpu") as plan:
            ok &= plan.dtype == "float32"
    assert everywhere(ok)
