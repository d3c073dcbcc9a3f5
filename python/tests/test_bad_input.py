"""Bad input through the binding: an Error (code and the library's message) on every rank, before
anything runs, with no hang; also where only one rank is at fault."""

import numpy as np
import pytest
from conftest import COMM, anywhere, everywhere, poison, raises_everywhere

import disttranspose as dt
from disttranspose.errors import RESULT_INVALID_ARGUMENT, RESULT_MISMATCH

R = COMM.Get_rank()
LAST = COMM.Get_size() - 1


def test_bad_plan_arguments():
    raises_everywhere(lambda: dt.Plan(0, 5, "float32", COMM, backend="cpu"), RESULT_INVALID_ARGUMENT, "rows = 0")
    raises_everywhere(lambda: dt.Plan(5, 5, "float128", COMM, backend="cpu"), RESULT_INVALID_ARGUMENT, "float128")
    raises_everywhere(lambda: dt.Plan(5, 5, "float32", COMM, backend="gpu"), RESULT_INVALID_ARGUMENT, "backend")
    raises_everywhere(lambda: dt.Plan(5, 5, "float32", COMM, backend="cpu", kernel="tma"), RESULT_INVALID_ARGUMENT,
                      "applies to the GPU backends")
    raises_everywhere(lambda: dt.Plan(5.5, 5, "float32", COMM, backend="cpu"), RESULT_INVALID_ARGUMENT, "whole number")
    raises_everywhere(lambda: dt.Plan(5, 5, "float32", COMM, backend="cpu", stages=-1), RESULT_INVALID_ARGUMENT, "stages")
    raises_everywhere(lambda: dt.Plan(5, 5, "float32", COMM, backend="cpu", inplace=1), RESULT_INVALID_ARGUMENT, "inplace")
    raises_everywhere(lambda: dt.Plan(5, 5, "float32", "world", backend="cpu"), RESULT_INVALID_ARGUMENT, "communicator")
    raises_everywhere(lambda: dt.Plan(1 << 40, 1 << 40, "float64", COMM, backend="cpu"), RESULT_INVALID_ARGUMENT,
                      "overflows")


def test_arguments_on_one_rank():
    """Faults of one rank (Python's checks and the library's) stop every rank, naming it."""
    raises_everywhere(lambda: dt.Plan(5, 5, "float32" if R != LAST else "nope", COMM, backend="cpu"),
                      RESULT_INVALID_ARGUMENT, "nope")
    raises_everywhere(lambda: dt.Plan(5 if R != LAST else -5, 5, "float32", COMM, backend="cpu"), RESULT_INVALID_ARGUMENT,
                      "rows")
    if COMM.Get_size() > 1:
        raises_everywhere(lambda: dt.Plan(5 if R else 6, 5, "float32", COMM, backend="cpu"), RESULT_MISMATCH,
                          "rows differs between ranks")
        raises_everywhere(lambda: dt.Plan(5, 5, "float32", COMM, backend="cpu", timeout=5 if R == LAST else 0),
                          RESULT_MISMATCH, "timeout")


def test_bad_arrays_everywhere():
    with dt.Plan(9, 7, "float32", COMM, backend="cpu") as plan:
        good = np.zeros(plan.in_shape, np.float32)
        raises_everywhere(lambda: plan.execute(np.zeros(plan.in_shape, np.float64)), RESULT_INVALID_ARGUMENT,
                          "elements of float64")
        raises_everywhere(lambda: plan.execute(np.zeros((plan.in_shape[0] + 1, 7), np.float32)),
                          RESULT_INVALID_ARGUMENT, "shape")
        wide = np.zeros((plan.in_shape[0], 14), np.float32)
        if plan.in_shape[0] > 1:
            raises_everywhere(lambda: plan.execute(wide[:, ::2]), RESULT_INVALID_ARGUMENT, "contiguous")
        raises_everywhere(lambda: plan.execute(good, out=np.zeros((1, 1), np.float32)), RESULT_INVALID_ARGUMENT, "out has shape")
        ro = np.zeros(plan.out_shape, np.float32)
        ro.flags.writeable = False
        if ro.size:
            raises_everywhere(lambda: plan.execute(good, out=ro), RESULT_INVALID_ARGUMENT, "read-only")
        raises_everywhere(lambda: plan.execute_inplace(np.zeros(100, np.float32)), RESULT_INVALID_ARGUMENT,
                          "inplace=True")
        # ... and still fine afterwards
        assert everywhere(plan.execute(good).shape == plan.out_shape)


def test_bad_array_on_one_rank():
    with dt.Plan(9, 7, "complex64", COMM, backend="cpu") as plan:
        a = np.zeros(plan.in_shape, np.complex64 if R != LAST else np.complex128)
        out = poison(plan.out_shape, "complex64")
        before = out.copy()
        msg = raises_everywhere(lambda: plan.execute(a, out=out), RESULT_INVALID_ARGUMENT, "complex128")
        assert everywhere(R == LAST or f"rank {LAST}:" in msg), msg
        # nothing was written
        assert everywhere(np.array_equal(out.view(np.uint8), before.view(np.uint8)))


def test_closed_and_wrong_objects():
    plan = dt.Plan(4, 4, "float32", COMM, backend="cpu")
    plan.close()
    plan.close()  # idempotent
    with pytest.raises(dt.Error, match="closed"):
        plan.execute(np.zeros((1, 4), np.float32))
    with dt.Plan(4, 4, "float32", COMM, backend="cpu") as p2:
        with pytest.raises(TypeError, match="not an array"):
            p2.execute([[1.0] * 4])
        # a list on one rank only: TypeError there, and the others must not be left waiting
        a = np.zeros(p2.in_shape, np.float32)
        assert everywhere(p2.execute(a).shape == p2.out_shape)


def test_bad_grids_and_pencils():
    p = COMM.Get_size()
    raises_everywhere(lambda: dt.Grid(COMM, p + 1, 1), RESULT_INVALID_ARGUMENT, "does not match")
    with dt.Grid(COMM) as grid:
        raises_everywhere(lambda: dt.PencilPlan(grid, (4, 4, 4), "x", "x", "float32", backend="cpu"),
                          RESULT_INVALID_ARGUMENT, "two different pencils")
        raises_everywhere(lambda: dt.PencilPlan(grid, (4, 0, 4), "x", "y", "float32", backend="cpu"),
                          RESULT_INVALID_ARGUMENT, "shape[1]")
        raises_everywhere(lambda: dt.PencilPlan(grid, (4, 4), "x", "y", "float32", backend="cpu"),
                          RESULT_INVALID_ARGUMENT, "(nx, ny, nz)")
        raises_everywhere(lambda: dt.PencilPlan(grid, (4, 4, 4), "x", "w", "float32", backend="cpu"),
                          RESULT_INVALID_ARGUMENT, "'x', 'y' or 'z'")
        raises_everywhere(lambda: dt.PencilPlan(grid, (1 << 40, 1 << 40, 2), "x", "y", "complex128", backend="cpu"),
                          RESULT_INVALID_ARGUMENT, "nx x ny x nz")
        with pytest.raises(ValueError, match="pencil"):
            grid.box((4, 4, 4), "q", "float32")


def test_checks_not_skipped_for_changed_arrays():
    """Executes on the arrays the last one checked skip the checks; an array changed in place since
    (reshaped, retyped) is checked again, and refused on every rank."""
    with dt.Plan(12, 10, "float32", COMM, backend="cpu") as plan:
        a = np.zeros(plan.in_shape, np.float32)
        out = np.zeros(plan.out_shape, np.float32)
        for _ in range(3):
            assert everywhere(plan.execute(a, out=out) is out)
        if a.size > 1 and R == LAST:
            a.shape = (a.size,)  # the same object, another shape
        if anywhere(a.size > 1):
            raises_everywhere(lambda: plan.execute(a, out=out), RESULT_INVALID_ARGUMENT, "shape")
        a.shape = plan.in_shape
        out2 = out.view(np.int32)
        raises_everywhere(lambda: plan.execute(a, out=out2), RESULT_INVALID_ARGUMENT, "int32")
        assert everywhere(plan.execute(a, out=out) is out)
