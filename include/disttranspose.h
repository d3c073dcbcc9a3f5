/*
 * disttranspose: distributed matrix transpose over MPI ranks, one GPU per rank.
 *
 * A global matrix A (rows x cols, row-major; each entry is `howmany` contiguous elements of one
 * type) is distributed by rows: rank r holds rows [in_row_start, in_row_start + in_rows). The
 * result B = A^T (cols x rows) is distributed the same way over its own rows. The default split
 * is balanced (counts differ by at most one); a rank may own zero rows. This is the contract of
 * FFTW's fftw_mpi_plan_many_transpose, on GPUs.
 *
 * Usage, as in FFTW-MPI: query the local sizes, allocate, create a plan (collective), execute it
 * as often as needed (stream-ordered), destroy it (collective).
 *
 * 3-D arrays (FFT codes): a process grid over a communicator, pencil boxes per rank, and plans that
 * move an array between x-, y- and z-pencils on the grid's row or column sub-communicators; the
 * same execute and destroy.
 *
 * Devices, as in NCCL and cuFFT: a plan works on the device that is current when it is created
 * (or config.device), and no call returns with the caller's current device changed.
 */
#ifndef DISTTRANSPOSE_H
#define DISTTRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DTR_VERSION_MAJOR 0
#define DTR_VERSION_MINOR 1
#define DTR_VERSION_PATCH 0
#define DTR_VERSION_STRING "0.1.0"

/* Result codes. Every collective call returns the same code on every rank. */
typedef enum {
  dtrSuccess = 0,
  dtrInvalidArgument = 1,  /* a bad size, type, pointer or option; the message names it */
  dtrMismatch = 2,         /* the ranks passed different arguments to a collective call */
  dtrNoDevice = 3,         /* no usable GPU for this rank (none, or one shared with another rank where
                              the backend needs one per rank: NCCL) */
  dtrOutOfMemory = 4,      /* a workspace allocation failed */
  dtrCudaError = 5,        /* the CUDA runtime reported an error */
  dtrNcclError = 6,        /* NCCL reported an error */
  dtrMpiError = 7,         /* MPI reported an error */
  dtrInternalError = 8,    /* a bug in disttranspose */
  dtrRemoteError = 9,      /* not used as a final result: see dtrGetLastError */
  dtrTimeout = 10,         /* another rank did not take part within the timeout (config.timeout,
                              DTR_TIMEOUT): it stalled or died. Returned by the ranks that waited;
                              the plan can then only be destroyed. Not agreed: the others cannot
                              be reached */
  dtrNumResults
} dtrResult_t;

typedef enum {
  dtrInt8 = 0,
  dtrFloat16 = 1,
  dtrBfloat16 = 2,
  dtrFloat32 = 3,
  dtrFloat64 = 4,
  dtrComplex64 = 5,   /* two float32 */
  dtrComplex128 = 6,  /* two float64 */
  dtrNumTypes
} dtrDataType_t;

typedef enum {
  dtrBackendAuto = 0,  /* p2p where every rank has a GPU and all are on one host (NCCL where p2p
                          cannot serve, unless ranks share a GPU), NCCL across hosts, CPU where a
                          rank has no GPU */
  dtrBackendNccl = 1,  /* device buffers, NCCL grouped send/recv; one GPU per rank (NCCL's rule) */
  dtrBackendCpu = 2,   /* host buffers, MPI_Alltoallv */
  dtrBackendP2p = 3,   /* device buffers on GPUs of one host that reach each other's memory (NVLink,
                          PCIe peer-to-peer): one kernel per rank stores transposed tiles straight
                          into every rank's B; no staging buffers. out must be memory that CUDA IPC
                          can export (cudaMalloc); each new out buffer is mapped once, on first use.
                          Ranks may share a GPU (CUDA IPC within one device): correct, but the GPU
                          time-slices their processes, so an execute then takes milliseconds */
  dtrNumBackends
} dtrBackend_t;

/* Local tile-transpose kernels. Auto measures the candidates at plan time and keeps the fastest. */
typedef enum {
  dtrKernelAuto = 0,
  dtrKernelSimt = 1,    /* element-wise shared-memory tiles: any pitch, any alignment */
  dtrKernelSimt16 = 2,  /* 16-byte vector accesses through a swizzled tile */
  dtrKernelTma = 3,     /* TMA loads/stores, 128-byte swizzle, mbarrier ring */
  dtrKernelTmaMc2 = 4,  /* TMA with .multicast::cluster loads, clusters of 2 CTAs */
  dtrKernelTmaMc4 = 5,  /* the same, clusters of 4 CTAs */
  dtrNumKernels
} dtrKernel_t;

/* Most pipeline stages a plan may have (dtrConfig_t.stages). */
#define DTR_MAX_STAGES 64

/* Where a plan's exchange buffers come from (dtrConfig_t.workspace). */
typedef enum {
  dtrWorkspaceOwn = 0,  /* the plan allocates its own */
  dtrWorkspaceGrid = 1, /* pencil plans of one grid on one device share one set, sized for the
                           largest: only for plans whose executes never overlap (one stream, as an
                           FFT's transposes); plans made without a grid own theirs */
  dtrNumWorkspaces
} dtrWorkspace_t;

typedef struct {
  dtrBackend_t backend; /* default dtrBackendAuto (env DTR_BACKEND overrides auto) */
  dtrKernel_t kernel;   /* default dtrKernelAuto (env DTR_KERNEL overrides auto) */
  int device;           /* CUDA device of this rank; -1 (default): the device current at plan
                           creation (cudaGetDevice), as NCCL and cuFFT do */
  int stages;           /* pipeline stages: the exchange cut into this many rounds, each round's
                           packs, messages and unpacks overlapping the next and previous ones;
                           1: no pipeline; 0 (default): by size (env DTR_STAGES overrides 0) */
  dtrWorkspace_t workspace; /* default dtrWorkspaceOwn */
  int inplace;          /* 0 (default): in and out are separate buffers; 1: dtrExecute also takes
                           in == out, one buffer of max(in_bytes, out_bytes). The workspace then
                           holds a copy of the rank's own block as well (p2p: of its whole slab of
                           A); dtrPlanGetWorkspaceSize counts it */
  double timeout;       /* seconds a rank waits for the others in a collective call of this plan
                           before it gives up with dtrTimeout (and aborts the plan's NCCL
                           communicator); 0 (default): DTR_TIMEOUT's value, which is off unless
                           set. With a timeout, dtrExecute returns once its work on the stream is
                           done (it polls the stream and NCCL's asynchronous error), except while
                           the stream is being captured into a graph */
} dtrConfig_t;

/* What a rank owns and must allocate. Sizes in bytes; counts in rows of A or of B. */
typedef struct {
  int64_t in_rows;       /* rows of A on this rank */
  int64_t in_row_start;  /* global index of its first row */
  int64_t out_rows;      /* rows of B (= columns of A) on this rank */
  int64_t out_row_start;
  size_t in_bytes;       /* in_rows * cols * entry size */
  size_t out_bytes;      /* out_rows * rows * entry size */
  size_t entry_bytes;    /* element size * howmany */
} dtrLocalSize_t;

typedef struct dtrPlan* dtrPlan_t;

void dtrConfigInit(dtrConfig_t* config);

/* Not collective; every rank may ask about any rank's share (rank = -1: the caller's). */
dtrResult_t dtrLocalSize(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany,
                         MPI_Comm comm, int rank, dtrLocalSize_t* size);

/* Collective over comm (duplicated inside). config may be NULL for the defaults. */
dtrResult_t dtrPlanCreate(dtrPlan_t* plan, int64_t rows, int64_t cols, dtrDataType_t type,
                          int64_t howmany, MPI_Comm comm, const dtrConfig_t* config);

/* Collective. NCCL backend: device pointers, ordered on `stream`, no host synchronisation, CUDA
 * graph capturable. CPU backend: host pointers, returns when done (stream unused). in and out do not
 * overlap, except in == out on a plan made with config.inplace (in-place: one buffer holds A before
 * and B after). Plans on different communicators (a grid's rows and columns, halves of a split)
 * coexist; their executes may interleave on one stream or run on different streams. Where plans
 * that share ranks run on different streams, every rank issues their executes in the same order, as
 * NCCL asks of its collectives: a GPU filled by one plan's kernels, waiting for their peers, cannot
 * start another plan's that those peers wait for. */
dtrResult_t dtrExecute(dtrPlan_t plan, const void* in, void* out, cudaStream_t stream);

/* Collective, in place of dtrExecute, for language bindings: this rank's own checks of its arrays
 * failed (`problem` says how). Every rank's execute then fails with dtrInvalidArgument and this
 * rank's message (with DTR_EXECUTE_AGREE=0 only this rank's), and nothing runs. */
dtrResult_t dtrExecuteRefuse(dtrPlan_t plan, const char* problem);

/* Collective. Waits for nothing: destroy after the last execute's stream work has finished. A plan
 * that has timed out is destroyed without talking to the other ranks. */
dtrResult_t dtrPlanDestroy(dtrPlan_t plan);

/* What the plan resolved from its config: the backend, the kernel used for the packs, the device. */
dtrResult_t dtrPlanGetBackend(dtrPlan_t plan, dtrBackend_t* backend);
dtrResult_t dtrPlanGetKernel(dtrPlan_t plan, dtrKernel_t* kernel);
dtrResult_t dtrPlanGetDevice(dtrPlan_t plan, int* device);
dtrResult_t dtrPlanGetStages(dtrPlan_t plan, int* stages);
/* Bytes of exchange buffers the plan holds (device memory on the GPU backends, host on the CPU), the
 * in-place copy of config.inplace included; with dtrWorkspaceGrid, shared with the grid's other plans. */
dtrResult_t dtrPlanGetWorkspaceSize(dtrPlan_t plan, size_t* bytes);

/* ---- 3-D arrays on process grids ------------------------------------------------------------ */

/*
 * A global nx x ny x nz array on a pr x pc grid of ranks; a rank's grid coordinates (a, b). Each
 * pencil holds all of one axis, the fastest in memory, the others following cyclically (cuDecomp's
 * axis-contiguous layout), so the axis an FFT transforms is always the contiguous one:
 *   dtrPencilX: x whole, y split over pr (by a), z over pc (by b); memory [z][y][x]
 *   dtrPencilY: y whole, x split over pr (by a), z over pc (by b); memory [x][z][y]
 *   dtrPencilZ: z whole, x split over pr (by a), y over pc (by b); memory [y][x][z]
 * X<->Y runs among the pr ranks of one b, Y<->Z among the pc ranks of one a. A 1 x P grid is a slab
 * decomposition (z-slabs in X, y-slabs in Z): there X<->Z is one exchange among all ranks. Splits
 * are balanced (counts differ by at most one); boxes may be empty.
 */
typedef struct dtrGrid* dtrGrid_t;

typedef enum { dtrPencilX = 0, dtrPencilY = 1, dtrPencilZ = 2, dtrNumPencils } dtrPencil_t;

typedef struct {
  int64_t start[3];   /* global index of the box's first element along x, y, z */
  int64_t size[3];    /* extent along x, y, z */
  int order[3];       /* the axes in memory, fastest first (0 = x, 1 = y, 2 = z) */
  size_t entry_bytes; /* element size * howmany */
  size_t bytes;       /* size[0] * size[1] * size[2] * entry_bytes */
} dtrBox_t;

/* Collective over comm. pr * pc must be its size; pr = pc = 0 chooses the squarest grid with
 * pr <= pc (1 x P for a prime P), one of them 0 is taken from the other. A communicator with a 2-D
 * Cartesian topology gives the grid its dimensions and coordinates; otherwise rank = a * pc + b.
 * The row and column sub-communicators are made here, once. */
dtrResult_t dtrGridCreate(dtrGrid_t* grid, MPI_Comm comm, int pr, int pc);
/* Local. Plans made on the grid stay valid after it is destroyed. */
dtrResult_t dtrGridDestroy(dtrGrid_t grid);
/* The grid's dimensions and this rank's coordinates (any pointer may be NULL). */
dtrResult_t dtrGridGetDims(dtrGrid_t grid, int* pr, int* pc, int* a, int* b);

/* Not collective: the box of `pencil` held by grid rank `rank` (-1: the caller). */
dtrResult_t dtrPencilBox(dtrGrid_t grid, const int64_t shape[3], dtrPencil_t pencil, dtrDataType_t type,
                         int64_t howmany, int rank, dtrBox_t* box);

/* Collective over the grid. A plan that moves the array from `from` pencils to `to` pencils
 * (X->Y, Y->X, Y->Z, Z->Y; X<->Z on 1 x P grids). dtrExecute's in is this rank's from-box, out its
 * to-box. Every element type and howmany; every backend. */
dtrResult_t dtrPlanCreatePencil(dtrPlan_t* plan, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t from,
                                dtrPencil_t to, dtrDataType_t type, int64_t howmany, const dtrConfig_t* config);

/* ---- Distributed 3-D FFTs on process grids ------------------------------------------------- */

/*
 * The FFT of a global nx x ny x nz array on a grid. Forward: from this rank's X-pencil of the input
 * to its Z-pencil of the transform (the transposed output, as cuFFTMp's and mpi4py-fft's); inverse:
 * back. On pencils (pr > 1): passes along x, X->Y, along y, Y->Z, along z; on slabs (1 x P): 2-D
 * passes over the (y, x) planes, X->Z, along z. Local passes by cuFFT on the GPU backends, by FFTW
 * on the cpu backend. Real-to-complex halves x first: every later pass and exchange moves the
 * (nx/2 + 1) x ny x nz complex array. The sign is FFTW's: forward exp(-2 pi i ...), unscaled unless
 * the config's norm says otherwise.
 *
 * Overlap: the planes (the pencil's slowest axis) are cut into chunks; chunk k's local pass runs on
 * the caller's stream while chunk k - 1 is exchanged on the plan's own stream (p2p: the one-pass
 * kernel of that chunk; nccl: its packs, messages and unpacks; cpu: one after the other), ordered
 * by events, so that the time approaches max(passes, exchanges). An execute agrees across the ranks
 * once (its checks, the p2p backend's out pointers); every chunk after that is stream-ordered work,
 * and on GPUs the whole execute can be captured into a CUDA graph.
 */
typedef struct dtrFftPlan* dtrFftPlan_t;

typedef enum {
  dtrFftC2C = 0, /* complex to complex: type dtrComplex64 or dtrComplex128 */
  dtrFftR2C = 1, /* real to complex forward, complex to real inverse: type dtrFloat32 or dtrFloat64 (the
                    real side; the complex side is c64 or c128) */
  dtrNumFftKinds
} dtrFftKind_t;

typedef enum { dtrFftForward = -1, dtrFftInverse = 1 } dtrFftDirection_t;

typedef enum {
  dtrFftNormNone = 0,    /* no direction scales: a round trip multiplies by N = nx ny nz (FFTW, cuFFT); padded:
                            by M = mx my mz */
  dtrFftNormInverse = 1, /* the inverse scales by 1/N: a round trip gives the input back (NumPy's default);
                            padded: the inverse by 1/N, the forward by N/M (a round trip gives the modes back) */
  dtrFftNormOrtho = 2,   /* both directions scale by 1/sqrt(N); refused with padding */
  dtrNumFftNorms
} dtrFftNorm_t;

/*
 * What a plan does along each axis (dtrFftConfig_t.axes): the DFT, or a real-to-real transform for an
 * axis with walls, FFTW's kinds of the same names. Each real-to-real kind's inverse is the other of
 * its pair (a DCT-II's a DCT-III), so a round trip multiplies that axis by 2n, FFTW's logical size;
 * on complex data it acts on the real and the imaginary parts alike.
 */
typedef enum {
  dtrFftPeriodic = 0, /* the DFT along the axis (default) */
  dtrFftDct2 = 1,     /* forward DCT-II (REDFT10: y_k = 2 sum x_j cos(pi (j + 1/2) k / n)), inverse DCT-III */
  dtrFftDct3 = 2,     /* forward DCT-III (REDFT01), inverse DCT-II */
  dtrFftDst2 = 3,     /* forward DST-II (RODFT10: y_k = 2 sum x_j sin(pi (j + 1/2) (k + 1) / n)), inverse DST-III */
  dtrFftDst3 = 4,     /* forward DST-III (RODFT01), inverse DST-II */
  dtrNumFftAxes
} dtrFftAxis_t;

/* The two sides of a plan, named after the forward transform. */
typedef enum {
  dtrFftInputSide = 0,  /* the X-pencil of the real (R2C) or complex (C2C) array; padded: of mx x my x mz */
  dtrFftOutputSide = 1, /* the Z-pencil of the complex transform, (nx/2 + 1) x ny x nz for R2C; padded: this
                           rank's kept modes of it (config.padding) */
  dtrNumFftSides
} dtrFftSide_t;

/* Most chunks an FFT plan cuts its planes into (dtrFftConfig_t.chunks). */
#define DTR_FFT_MAX_CHUNKS 64

typedef struct {
  dtrConfig_t transpose; /* the exchanges' settings (backend, kernel, device, stages, timeout); its
                            workspace and inplace fields are the FFT's own business and must stay at
                            their defaults */
  int chunks;            /* 0 (default): by the rule measured on the GPUs (DTR_FFT_CHUNKS overrides 0);
                            1: every pass and exchange one after the other; n: n chunks (at most
                            DTR_FFT_MAX_CHUNKS; chunks beyond a rank's planes are empty) */
  dtrFftNorm_t norm;     /* default dtrFftNormNone */
  int64_t howmany;       /* fields transformed together, one exchange for all (default 1; 0 means 1): a
                            trailing interleaved axis, every point of a box holding `howmany` consecutive
                            numbers (complex, or real on the real side), one of each field, as FFTW-MPI's
                            howmany; dtrFftGetBox's entry_bytes is the element's size times howmany */
  dtrFftAxis_t axes[3];  /* per axis x, y, z (default dtrFftPeriodic). C2C: any kinds. R2C: x periodic (the
                            real-to-complex axis; y and z any kinds, acting on the complex side), or every
                            axis real-to-real (then both sides are real arrays of the input's shape and
                            type, and in == out is allowed). The norm's N counts 2n for a real-to-real
                            axis; dtrFftNormOrtho is refused with one (it would not make the DCT orthonormal) */
  double padding[3];     /* dealiasing (the 3/2 rule: 1.5), per axis x, y, z: 0 or 1 (default 0) none, else a
                            factor >= 1. The physical side is then the grid of m = floor(n * padding) points
                            per axis (dtrFftInputSide: mx x my x mz), the spectral side keeps the modes of the
                            n of shape (dtrFftOutputSide): the inverse puts them among zeros (numpy order: k <
                            ceil(n/2) at index k, the others at k + m - n; R2C's x keeps 0..nx/2 at their index,
                            the Nyquist nx/2 of an even nx halved where mx > nx) and transforms the m points; the
                            forward transforms the m points and keeps those modes (R2C's Nyquist doubled back).
                            Periodic axes only (refused on a real-to-real axis of config.axes, whose N counts
                            2n in both grids). Not with dtrFftNormOrtho; out of place only. A rank's kept box follows its padded
                            box (it may hold no mode along an axis): ask dtrFftGetBox or dtrFftLocalBox */
} dtrFftConfig_t;

void dtrFftConfigInit(dtrFftConfig_t* config);

/*
 * Collective over the grid. shape = {nx, ny, nz} of the real (R2C) or complex (C2C) array; config may
 * be NULL for the defaults. The plan holds the pencil plans it needs, the local FFT plans and its
 * workspace (dtrFftGetWorkspaceSize); it stays valid after the grid is destroyed.
 */
dtrResult_t dtrFftPlanCreate(dtrFftPlan_t* plan, dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind,
                             dtrDataType_t type, const dtrFftConfig_t* config);

/*
 * Collective. Forward: in is this rank's input box, out its output box; inverse the other way round
 * (dtrFftGetBox). GPU backends: device pointers, ordered on `stream`, no host synchronisation, CUDA
 * graph capturable (p2p: once the buffers have been through one execute outside the capture); cpu
 * backend: host pointers, returns when done. Out of place, `in` is left unchanged; in place (in ==
 * out, C2C only) the buffer must hold the larger of the two boxes.
 */
dtrResult_t dtrFftExecute(dtrFftPlan_t plan, const void* in, void* out, dtrFftDirection_t direction, cudaStream_t stream);

/* Collective, in place of dtrFftExecute, for language bindings: this rank's own checks of its arrays
 * failed (`problem` says how). Every rank's execute then fails with dtrInvalidArgument and this rank's
 * message, and nothing runs. */
dtrResult_t dtrFftExecuteRefuse(dtrFftPlan_t plan, const char* problem);

/* Not collective: this rank's box of one side (entry_bytes: the real or complex element, times howmany). */
dtrResult_t dtrFftGetBox(dtrFftPlan_t plan, dtrFftSide_t side, dtrBox_t* box);

/* Not collective: the box of one side that a plan of these arguments (config NULL: the defaults) gives grid
 * rank `rank` (-1: the caller), before the plan is made, to allocate its arrays (FFTW-MPI's local-size
 * query); the same as dtrFftGetBox's. The arguments are checked as dtrFftPlanCreate checks them locally. */
dtrResult_t dtrFftLocalBox(dtrGrid_t grid, const int64_t shape[3], dtrFftKind_t kind, dtrDataType_t type,
                           const dtrFftConfig_t* config, dtrFftSide_t side, int rank, dtrBox_t* box);

/* Bytes the plan holds besides the caller's buffers: its intermediate arrays, the exchanges'
 * workspace and the local FFT plans' work area (device memory on GPUs, host memory on the cpu backend). */
dtrResult_t dtrFftGetWorkspaceSize(dtrFftPlan_t plan, size_t* bytes);

/* What the plan resolved: the chunks, and the backend of its exchanges. */
dtrResult_t dtrFftGetChunks(dtrFftPlan_t plan, int* chunks);
dtrResult_t dtrFftGetBackend(dtrFftPlan_t plan, dtrBackend_t* backend);

/* Collective. Waits for nothing: destroy after the last execute's stream work has finished. */
dtrResult_t dtrFftPlanDestroy(dtrFftPlan_t plan);

/* ---- A process grid chosen by measurement --------------------------------------------------- */

/*
 * dtrGridAutotune times the work of `what` on every pr x pc grid of the communicator's size (and, with
 * config.transpose.backend auto, on every GPU backend that can serve) for the caller's shape and type,
 * and returns the fastest grid, the same on every rank. Each candidate is built, run once untimed and
 * `iterations` times timed, and freed before the next; one that cannot be built or run (out of memory,
 * a backend that cannot serve these ranks) is skipped on every rank. A candidate's time is the median
 * over its iterations of the slowest rank's time (host clock around iterations synchronized on a stream
 * of the tuner's, or on the host for the cpu backend); ties go to the earlier candidate (pr ascending,
 * then p2p, nccl, cpu). DTR_DEBUG=INFO logs the table.
 */
typedef enum {
  dtrAutotuneFft = 0,        /* the FFT (config.fft_kind, type its input's), forward then inverse */
  dtrAutotuneTransposes = 1, /* the pencil chain X->Y->Z->Y->X (X->Z->X on 1 x P), howmany entries */
  dtrAutotuneHalo = 2,       /* a halo exchange of config.halo_pencil (config.halo, config.periodic) */
  dtrNumAutotuneTargets
} dtrAutotuneTarget_t;

/* One candidate of the report. */
typedef struct {
  int pr, pc;
  dtrBackend_t backend; /* the backend the candidate's plans were made with (never auto) */
  dtrResult_t result;   /* dtrSuccess, or why the candidate was skipped */
  double seconds;       /* one iteration: median over iterations of the slowest rank; 0 where skipped */
} dtrAutotuneTiming_t;

typedef struct {
  dtrConfig_t transpose;   /* the plans' settings: backend (auto: each GPU backend that serves, or cpu
                              where a rank has no GPU; DTR_BACKEND overrides auto), kernel, device,
                              stages, timeout; workspace and inplace are the tuner's and must stay at
                              their defaults */
  dtrFftKind_t fft_kind;   /* dtrAutotuneFft: C2C (default; type c64, c128) or R2C (type fp32, fp64) */
  int64_t howmany;         /* entries of `type` per point (default 1): the transposes' and the halo's,
                              the FFT's fields (dtrFftConfig_t.howmany) */
  dtrPencil_t halo_pencil; /* dtrAutotuneHalo: the pencil whose halos are exchanged (default X) */
  int halo[3];             /* dtrAutotuneHalo: halo width along x, y, z (default 1, 1, 1) */
  int periodic[3];         /* dtrAutotuneHalo: periodic axes (default 1, 1, 1) */
  int iterations;          /* timed iterations per candidate, after one untimed (default 3, at most 1000) */
  dtrAutotuneTiming_t* timings; /* optional report (NULL: none): the first `capacity` candidates, in the */
  int capacity;                 /* order they were timed, on every rank */
  int* count;                   /* optional: the number of candidates (may exceed capacity) */
} dtrAutotuneConfig_t;

void dtrAutotuneConfigInit(dtrAutotuneConfig_t* config);

/*
 * Collective over comm: the fastest pr x pc grid (pr * pc = the communicator's size) for `what` on a
 * global array of `shape` and `type`, and the backend it ran on (backend may be NULL); pass them to
 * dtrGridCreate and config.backend. config may be NULL for the defaults. Every argument is agreed across
 * the ranks first; when no candidate runs, the last candidate's failure is returned on every rank. The
 * caller's current device is left as it was.
 */
dtrResult_t dtrGridAutotune(MPI_Comm comm, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                            const dtrAutotuneConfig_t* config, int* pr, int* pc, dtrBackend_t* backend);

/* ---- Halo exchanges on pencils ------------------------------------------------------------- */

/*
 * The cells around each rank's pencil box, for stencils, filters and particle-mesh steps: a padded local
 * array is the box plus halo[a] cells on both sides of every axis a, in the pencil's memory order, each
 * entry `howmany` elements of `type`. An execute fills every halo cell with the value of the global cell
 * it stands for (the interior of the rank that owns it), edges and corners included: the axes are
 * exchanged one after another, each over the padded extent of the others. A periodic axis wraps (one
 * that no grid dimension splits, locally); at a domain edge of an axis that is not periodic the halo
 * cells are left untouched. A halo wider than a neighbour's box takes its cells from the ranks beyond
 * (empty boxes too); a periodic halo is at most the whole axis. Backends as for pencil plans: cpu (MPI,
 * host buffers), nccl (pack kernels and NCCL send/recv; faces that are whole planes of the padded array
 * travel in place), p2p (one host: the pieces stored straight into the peers' receive buffers, mapped
 * through CUDA IPC; ranks may share a GPU).
 *
 * The adjoint (dtrHaloExecuteAdjoint) is the transpose of that map: every halo cell an execute writes is
 * added into the interior cell it would copy (the wrapped one where periodic; corners and edges through
 * the same neighbours as the execute's, halos wider than a neighbour's box to the ranks beyond) and then
 * zeroed; the halo cells an execute leaves untouched (beyond a domain edge that is not periodic) are left
 * as they are, added nowhere. So <execute(x), y> = <x, adjoint(y)> over the padded arrays of all ranks,
 * the "sum the ghosts into their owners" of particle-mesh and finite-volume codes, and a halo exchange's
 * gradient. The sums into one cell run in a fixed order, the same on every backend and every run: the
 * local wraps' first (by the halo's position along the unsplit axes, x's fastest), then each exchanged
 * axis in the reverse of the execute's order (from its ranks in the order of their grid coordinate, a
 * rank's low halo before its high one). Integers wrap around (two's complement); floating-point sums are
 * each rounded to nearest in the element's type (fp16 and bf16 correctly rounded) and never contracted:
 * the same bits on every backend, NaN payloads aside.
 */
typedef struct dtrHaloPlan* dtrHaloPlan_t;

/* Collective over the grid. halo[a]: cells on both sides of axis a (0 = x, 1 = y, 2 = z); periodic[a] != 0
 * wraps. config may be NULL for the defaults (its backend, device and timeout apply; workspace, inplace
 * and stages must stay at their defaults). The plan stays valid after the grid is destroyed. */
dtrResult_t dtrHaloPlanCreate(dtrHaloPlan_t* plan, dtrGrid_t grid, const int64_t shape[3], dtrPencil_t pencil,
                              dtrDataType_t type, int64_t howmany, const int halo[3], const int periodic[3],
                              const dtrConfig_t* config);
/* Collective. In place on the padded local array (dtrHaloGetBox), stream-ordered on GPUs (no host sync,
 * graph-capturable where the backend allows), returns when done on cpu. */
dtrResult_t dtrHaloExecute(dtrHaloPlan_t plan, void* buf, cudaStream_t stream);
/* Collective, the adjoint of dtrHaloExecute (above): in place on the same padded array, stream-ordered
 * alike; afterwards the interior holds its own cells plus the halo cells that copy them, the written halo
 * cells zero. Every rank calls the same one of the two: ranks that mix them fail with dtrMismatch on
 * every rank, and nothing is exchanged. */
dtrResult_t dtrHaloExecuteAdjoint(dtrHaloPlan_t plan, void* buf, cudaStream_t stream);
/* Collective, in place of dtrHaloExecute or dtrHaloExecuteAdjoint, for language bindings: this rank's own
 * checks of its array failed (`problem` says how). Every rank's execute then fails with
 * dtrInvalidArgument and this rank's message, and nothing is exchanged. */
dtrResult_t dtrHaloExecuteRefuse(dtrHaloPlan_t plan, const char* problem);
/* Not collective: this rank's padded box: start = box.start - halo, size = box.size + 2 halo, order = the pencil's. */
dtrResult_t dtrHaloGetBox(dtrHaloPlan_t plan, dtrBox_t* padded);
dtrResult_t dtrHaloGetBackend(dtrHaloPlan_t plan, dtrBackend_t* backend);
/* The GPU the plan exchanges on (config.device, else the device current at creation); -1 on the cpu backend. */
dtrResult_t dtrHaloGetDevice(dtrHaloPlan_t plan, int* device);
/* Collective. Waits for nothing: destroy after the last execute's stream work has finished. */
dtrResult_t dtrHaloPlanDestroy(dtrHaloPlan_t plan);

/* The same calls with the communicator as a Fortran handle (MPI_Comm_c2f's value: an mpi_f08
 * communicator's MPI_VAL, mpi4py's comm.py2f()), for the Fortran and Python bindings. */
dtrResult_t dtrLocalSizeF(int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Fint comm, int rank,
                          dtrLocalSize_t* size);
dtrResult_t dtrPlanCreateF(dtrPlan_t* plan, int64_t rows, int64_t cols, dtrDataType_t type, int64_t howmany, MPI_Fint comm,
                           const dtrConfig_t* config);
dtrResult_t dtrGridCreateF(dtrGrid_t* grid, MPI_Fint comm, int pr, int pc);
dtrResult_t dtrGridAutotuneF(MPI_Fint comm, const int64_t shape[3], dtrDataType_t type, dtrAutotuneTarget_t what,
                             const dtrAutotuneConfig_t* config, int* pr, int* pc, dtrBackend_t* backend);

const char* dtrGetErrorString(dtrResult_t result);
/* The message of the last failed call on this thread, naming the problem (and the rank it came
 * from when another rank failed). */
const char* dtrGetLastError(void);

const char* dtrDataTypeName(dtrDataType_t type);
const char* dtrBackendName(dtrBackend_t backend);
const char* dtrKernelName(dtrKernel_t kernel);
const char* dtrPencilName(dtrPencil_t pencil); /* "X", "Y", "Z" */
size_t dtrDataTypeSize(dtrDataType_t type);

#ifdef __cplusplus
}
#endif

#endif /* DISTTRANSPOSE_H */
