"""The shared library through ctypes: where it is, the prototypes of the public header, and results
turned into exceptions. Nothing here knows about arrays."""

import ctypes
import os

from .errors import RESULT_INVALID_ARGUMENT, Error

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find():
    # A library of one's own (a development build) first, then the one installed with the package.
    explicit = os.environ.get("DISTTRANSPOSE_LIBRARY")
    if explicit:
        return explicit
    for name in sorted(os.listdir(_HERE)):
        if name.startswith("libdisttranspose.so"):
            return os.path.join(_HERE, name)
    raise ImportError(
        "disttranspose: libdisttranspose.so is not installed beside the package (install it with "
        "'pip install ./python'), and DISTTRANSPOSE_LIBRARY does not name one")


class Config(ctypes.Structure):
    """dtrConfig_t."""
    _fields_ = [("backend", ctypes.c_int), ("kernel", ctypes.c_int), ("device", ctypes.c_int),
                ("stages", ctypes.c_int), ("workspace", ctypes.c_int), ("inplace", ctypes.c_int),
                ("timeout", ctypes.c_double)]


class LocalSize(ctypes.Structure):
    """dtrLocalSize_t."""
    _fields_ = [("in_rows", ctypes.c_int64), ("in_row_start", ctypes.c_int64), ("out_rows", ctypes.c_int64),
                ("out_row_start", ctypes.c_int64), ("in_bytes", ctypes.c_size_t), ("out_bytes", ctypes.c_size_t),
                ("entry_bytes", ctypes.c_size_t)]


class Box(ctypes.Structure):
    """dtrBox_t."""
    _fields_ = [("start", ctypes.c_int64 * 3), ("size", ctypes.c_int64 * 3), ("order", ctypes.c_int * 3),
                ("entry_bytes", ctypes.c_size_t), ("bytes", ctypes.c_size_t)]


class FftConfig(ctypes.Structure):
    """dtrFftConfig_t."""
    _fields_ = [("transpose", Config), ("chunks", ctypes.c_int), ("norm", ctypes.c_int), ("howmany", ctypes.c_int64),
                ("axes", ctypes.c_int * 3), ("padding", ctypes.c_double * 3)]


class AutotuneTiming(ctypes.Structure):
    """dtrAutotuneTiming_t."""
    _fields_ = [("pr", ctypes.c_int), ("pc", ctypes.c_int), ("backend", ctypes.c_int), ("result", ctypes.c_int),
                ("seconds", ctypes.c_double)]


class AutotuneConfig(ctypes.Structure):
    """dtrAutotuneConfig_t."""
    _fields_ = [("transpose", Config), ("fft_kind", ctypes.c_int), ("howmany", ctypes.c_int64),
                ("halo_pencil", ctypes.c_int), ("halo", ctypes.c_int * 3), ("periodic", ctypes.c_int * 3),
                ("iterations", ctypes.c_int), ("timings", ctypes.POINTER(AutotuneTiming)), ("capacity", ctypes.c_int),
                ("count", ctypes.POINTER(ctypes.c_int))]


_p = ctypes.c_void_p
_i = ctypes.c_int
_i64 = ctypes.c_int64
_PROTOTYPES = {
    "dtrConfigInit": (None, [ctypes.POINTER(Config)]),
    "dtrLocalSizeF": (_i, [_i64, _i64, _i, _i64, _i, _i, ctypes.POINTER(LocalSize)]),
    "dtrPlanCreateF": (_i, [ctypes.POINTER(_p), _i64, _i64, _i, _i64, _i, ctypes.POINTER(Config)]),
    "dtrPlanCreatePencil": (_i, [ctypes.POINTER(_p), _p, ctypes.POINTER(_i64), _i, _i, _i, _i64,
                                 ctypes.POINTER(Config)]),
    "dtrExecute": (_i, [_p, _p, _p, _p]),
    "dtrExecuteRefuse": (_i, [_p, ctypes.c_char_p]),
    "dtrPlanDestroy": (_i, [_p]),
    "dtrPlanGetBackend": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrPlanGetKernel": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrPlanGetDevice": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrPlanGetStages": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrPlanGetWorkspaceSize": (_i, [_p, ctypes.POINTER(ctypes.c_size_t)]),
    "dtrGridCreateF": (_i, [ctypes.POINTER(_p), _i, _i, _i]),
    "dtrGridDestroy": (_i, [_p]),
    "dtrGridGetDims": (_i, [_p, ctypes.POINTER(_i), ctypes.POINTER(_i), ctypes.POINTER(_i), ctypes.POINTER(_i)]),
    "dtrPencilBox": (_i, [_p, ctypes.POINTER(_i64), _i, _i, _i64, _i, ctypes.POINTER(Box)]),
    "dtrGetErrorString": (ctypes.c_char_p, [_i]),
    "dtrGetLastError": (ctypes.c_char_p, []),
    "dtrFftConfigInit": (None, [ctypes.POINTER(FftConfig)]),
    "dtrFftPlanCreate": (_i, [ctypes.POINTER(_p), _p, ctypes.POINTER(_i64), _i, _i, ctypes.POINTER(FftConfig)]),
    "dtrFftExecute": (_i, [_p, _p, _p, _i, _p]),
    "dtrFftGetBox": (_i, [_p, _i, ctypes.POINTER(Box)]),
    "dtrFftLocalBox": (_i, [_p, ctypes.POINTER(_i64), _i, _i, ctypes.POINTER(FftConfig), _i, _i, ctypes.POINTER(Box)]),
    "dtrFftGetWorkspaceSize": (_i, [_p, ctypes.POINTER(ctypes.c_size_t)]),
    "dtrFftGetChunks": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrFftGetBackend": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrFftPlanDestroy": (_i, [_p]),
    "dtrHaloPlanCreate": (_i, [ctypes.POINTER(_p), _p, ctypes.POINTER(_i64), _i, _i, _i64, ctypes.POINTER(_i),
                              ctypes.POINTER(_i), ctypes.POINTER(Config)]),
    "dtrHaloExecute": (_i, [_p, _p, _p]),
    "dtrHaloExecuteAdjoint": (_i, [_p, _p, _p]),
    "dtrHaloExecuteRefuse": (_i, [_p, ctypes.c_char_p]),
    "dtrFftExecuteRefuse": (_i, [_p, ctypes.c_char_p]),
    "dtrHaloGetBox": (_i, [_p, ctypes.POINTER(Box)]),
    "dtrHaloGetBackend": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrHaloGetDevice": (_i, [_p, ctypes.POINTER(_i)]),
    "dtrHaloPlanDestroy": (_i, [_p]),
    "dtrAutotuneConfigInit": (None, [ctypes.POINTER(AutotuneConfig)]),
    "dtrGridAutotuneF": (_i, [_i, ctypes.POINTER(_i64), _i, _i, ctypes.POINTER(AutotuneConfig), ctypes.POINTER(_i),
                              ctypes.POINTER(_i), ctypes.POINTER(_i)]),
}

PATH = _find()
lib = ctypes.CDLL(PATH)
for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def companion(name):
    """The path of one of the package's modules for the frameworks (libdisttranspose_jax.so,
    libdisttranspose_torch.so): beside the package's files, or beside the library PATH names (a build
    tree); None where it was not built."""
    for folder in (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(PATH))):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    return None


def refuse(refusal, handle, problem):
    """Collective, in place of a plan's execute on a rank whose own checks failed: every rank's execute
    fails with `problem` (refusal: the plan's dtr*ExecuteRefuse), raised here as Error."""
    raise Error(refusal(handle, problem.encode()) or RESULT_INVALID_ARGUMENT, last_error())


def last_error():
    return lib.dtrGetLastError().decode(errors="replace")


def check(result):
    """Raises Error for a failed call (its code and the library's message)."""
    if result:
        raise Error(result, last_error())


# The library's enums by name.
BACKENDS = ("auto", "nccl", "cpu", "p2p")
KERNELS = ("auto", "simt", "simt16", "tma", "tma-mc2", "tma-mc4")
PENCILS = ("x", "y", "z")
WORKSPACES = ("own", "grid")
FFT_KINDS = ("c2c", "r2c")
FFT_NORMS = ("none", "inverse", "ortho")
FFT_AXES = ("fft", "dct2", "dct3", "dst2", "dst3")  # dtrFftAxis_t: dtrFftPeriodic, dtrFftDct2, ...
FFT_FORWARD, FFT_INVERSE = -1, 1
FFT_INPUT_SIDE, FFT_OUTPUT_SIDE = 0, 1
AUTOTUNE_TARGETS = ("fft", "transposes", "halo")
