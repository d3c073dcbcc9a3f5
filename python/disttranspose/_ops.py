"""Plans as operations of JAX and PyTorch programs (_jax.py, _torch.py): each plan has a number, by
which a compiled program names it (an XLA custom call's attribute, a PyTorch custom op's argument), and
the plans a trace derives from it (its adjoint for gradients, a batched one for vmap).

What a plan offers the frameworks (Plan and PencilPlan; any other kind of plan may join by offering the
same): `_op` (its number), `in_shape`, `out_shape`, `dtype`, `_handle`, `_device`, `_comm` (agreement
at trace time), `_executor` (the address of the C function that runs it: dtrExecute's signature where
`_direction` is 0, else dtrFftExecute's, called with that direction), `_spatial` (the axes of its
arrays before the trailing howmany axis), `_expected(adapter)` (its element type as an array library
names it), `_run` (its own execute path, for PyTorch's op), `_adjoint()` and `_batched(n)`.

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


def forget(op):
    _live.pop(op, None)
