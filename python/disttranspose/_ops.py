"""Plans as operations of JAX and PyTorch programs (_jax.py, _torch.py): each plan has a number, by
which a compiled program names it (an XLA custom call's attribute, a PyTorch custom op's argument), and
the plans a trace derives from it (its adjoint for gradients, a batched one for vmap).

What a plan offers the frameworks (Plan and PencilPlan, each direction of an FFT plan, fft._FftOp, and
a halo plan and its adjoint, halo._Adjoint; any other kind of plan may join by offering the same): `_op`
(its number), `in_shape`, `out_shape`, `dtype`, `_handle`, `_device`, `_comm` (agreement at trace time),
`_executor` (the address of the C function that runs it: dtrExecute's signature where `_direction` is
0, else dtrFftExecute's, called with that direction; dtrHaloExecute's where `_in_place`, its result
written over its input, with that function as `_c_execute`), `_spatial` (the axes of its arrays before
the trailing howmany axis), `_expected(adapter)` and `_expected_out(adapter)` (its input's and its
result's element types as an array library names them: an R2C forward takes reals and gives complex
numbers), `_run` (its own execute path, for PyTorch's op), `_adjoint()`, `_adjoint_weights` and
`_batched(n)`.

The adjoint (Hermitian: PyTorch's backward) is `after * _adjoint()(before * g)`, `(before, after) =
_adjoint_weights`, each a number, a tuple of real arrays that broadcast against the arrays (the factor
is their product: an FFT's weights along each axis, kept apart rather than multiplied out into a whole
box), or None; None for both where the adjoint is `_adjoint()` itself and real (a transpose). JAX's
transpose rule is the bilinear transpose, conj(adjoint(conj(ct))): the same for real plans.
`_batched(n)` is None where the plan gives no batched plan (the FFT): vmap then runs one execute per
element, in order.

Derived plans are made at trace time, collectively, the first time a trace asks for one: every rank
traces the same functions in the same order (the same program), so every rank asks together. They are
kept by the plan they come from, keyed by what they are (a plan's own shape, type, communicator or grid
and options fix the rest), and closed with it.
"""

import itertools
import weakref

from .errors import RESULT_INVALID_ARGUMENT, Error

_numbers = itertools.count(1)
_live = weakref.WeakValueDictionary()


def add(plan):
    """A number for a new plan."""
    op = next(_numbers)
    _live[op] = plan
    return op


def get(op):
    """The plan numbered op, or Error where it has been closed (or collected)."""
    plan = _live.get(op)
    if plan is None or plan._handle is None:
        raise Error(RESULT_INVALID_ARGUMENT, f"operation {op}: its plan has been closed")
    return plan


# What the frameworks keep of a plan by its number (_torch.py's fast path), dropped with it.
forgetters = []


def forget(op):
    _live.pop(op, None)
    for f in forgetters:
        f(op)


_grid_numbers = itertools.count(1)
_grids = weakref.WeakValueDictionary()


def grid_number(grid):
    """A number for a new grid, by which a compiled program names it: torch.compile folds only plain
    values into constants (a Grid object is not one before PyTorch 2.15)."""
    number = next(_grid_numbers)
    _grids[number] = grid
    return number


def grid_of(number):
    grid = _grids.get(number)
    if grid is None:
        raise Error(RESULT_INVALID_ARGUMENT, f"grid {number} has been closed (or collected)")
    return grid


def fft_operation(*args):
    """The FFT call's operation and its result's factor (fft._framework_op, put here by fft.py as it
    loads): the frameworks' modules reach it here, since fft.py imports them."""
    raise Error(RESULT_INVALID_ARGUMENT, "disttranspose.fft is not loaded")
