"""Argument checks that happen in Python before a collective call: a problem on one rank must stop
every rank (with that rank's message), not leave the others waiting in the library."""

from .errors import RESULT_INVALID_ARGUMENT, Error


def agree(comm, problem):
    """Collective over comm: raises Error on every rank where any rank's `problem` is not None (the
    lowest such rank's message; on the other ranks prefixed with its rank), as the library does."""
    from mpi4py import MPI
    # The common case in one small reduction; the messages only where some rank has a problem.
    if not comm.allreduce(problem is not None, op=MPI.LOR):
        return
    problems = comm.allgather(problem)
    for rank, found in enumerate(problems):
        if found is not None:
            mine = comm.Get_rank() == rank
            raise Error(RESULT_INVALID_ARGUMENT, found if mine else f"rank {rank}: {found}")


def checked(comm, convert):
    """Collective over comm: convert() on every rank; a ValueError or TypeError it raises on any rank
    becomes Error on every rank. Returns convert()'s value."""
    try:
        value, problem = convert(), None
    except (ValueError, TypeError, OverflowError) as e:
        value, problem = None, str(e)
    agree(comm, problem)
    return value


def integer(name, value, low=None):
    """value as an int (numbers of any integral type), at least `low` where given."""
    try:
        n = value.__index__()
    except AttributeError:
        raise TypeError(f"{name} = {value!r}: expected a whole number") from None
    if low is not None and n < low:
        raise ValueError(f"{name} = {n}: must be at least {low}")
    return n
