"""The library's failures as Python exceptions."""


class Error(RuntimeError):
    """A call of the library failed.

    ``code`` is the library's result code (an ``int``, one of the ``RESULT_*`` constants) and the
    message the library's own, naming the problem (and the rank it came from when another rank
    failed). Collective calls raise the same code on every rank.
    """

    def __init__(self, code, message):
        super().__init__(message)
        self.code = int(code)
        self.message = message

    def __reduce__(self):
        return (type(self), (self.code, self.message))


# The result codes of include/disttranspose.h.
RESULT_SUCCESS = 0
RESULT_INVALID_ARGUMENT = 1
RESULT_MISMATCH = 2
RESULT_NO_DEVICE = 3
RESULT_OUT_OF_MEMORY = 4
RESULT_CUDA_ERROR = 5
RESULT_NCCL_ERROR = 6
RESULT_MPI_ERROR = 7
RESULT_INTERNAL_ERROR = 8
RESULT_REMOTE_ERROR = 9
RESULT_TIMEOUT = 10
