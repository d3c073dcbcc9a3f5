/*
 * Environment parameters, read in one place and logged at INFO:
 *   DTR_DEBUG        WARN|INFO|TRACE|NONE   log level (read by debug.c)
 *   DTR_BACKEND      auto|nccl|cpu|p2p      replaces a config's dtrBackendAuto
 *   DTR_KERNEL       auto|simt|simt16|tma|tma-mc2|tma-mc4   replaces a config's dtrKernelAuto
 *   DTR_STAGES       pipeline stages of the exchange; replaces a config's 0 (by size)
 *   DTR_TUNE_ITERS   timed runs per candidate kernel at plan time (default 3; 0: no measurement,
 *                    take the first eligible of tma, simt16, simt)
 *   DTR_TUNE_MIB     the most MiB per buffer the plan-time kernel measurement takes (default 128;
 *                    0: the plan's largest transpose whole), never past a quarter of the device's
 *                    free memory; a block within it is measured at its own pitches, a larger one
 *                    shrunk, its aspect ratio kept
 *   DTR_TMA_BOXES    column boxes per TMA stage, 1 or 2
 *   DTR_TILE_GROUP   width in tiles of the column groups the kernels take tiles in (1: column by
 *                    column); set, it also replaces the word kernel's whole tile rows for long
 *                    columns at odd pitches (tileGroupForShape) and the p2p groups' order by shape
 *                    (groupTileOrder: whole rows for short columns, narrower groups for tall shapes)
 *   DTR_STREAMING    1: evict-first loads and stores in the element-wise kernel (default 0)
 *   DTR_TILES_PER_CTA  tiles each block of a transpose kernel takes (-1: persistent blocks, as many
 *                    as fit at once)
 *   DTR_SEGMENT_ALIGN  bytes to which the exchange's segment rows are padded (single matrices;
 *                    default 16; 1: packed), so that every message starts aligned
 *   DTR_P2P_CTAS     blocks per peer of the p2p backend's one-pass kernel (default 0: the device's
 *                    resident blocks shared out evenly)
 *   DTR_P2P_FUSED_BARRIERS  1 (default): the p2p backend's two barriers between the GPUs run inside
 *                    its pass kernel (its blocks wait for every rank to begin, the last one to end
 *                    waits for every rank's stores); 0: as kernels of their own before and after
 *                    it, as they also run with DTR_PERF_REPORT=1, which times them apart
 *   DTR_EXECUTE_AGREE  1 (default): every execute agrees across the ranks on its local checks (one
 *                    MPI_Allreduce), so that a bad buffer on one rank fails every rank instead of
 *                    leaving the others in the exchange; 0: the checks stay local (a rank whose
 *                    checks fail returns alone). The p2p backend folds the agreement into the
 *                    exchange of its out pointers and takes no extra collective either way
 *   DTR_NCCL_REGISTER  1 (default): the NCCL backend's send and receive workspace, and the bare
 *                    all-to-all's buffers, come from ncclMemAlloc and are registered with the
 *                    communicator (ncclCommRegister), so that NCCL moves messages straight between
 *                    the ranks' buffers instead of through its own staging buffers; 0: cudaMalloc,
 *                    unregistered. The ranks agree (registered only where all of them ask)
 *   DTR_HOST_MEMORY  the most host memory (bytes, K/M/G/T suffixes) the ranks of one host may take
 *                    together for plans' host workspaces and the CLI's buffers, where it is less
 *                    than what the kernel and the cgroup report available (default: what they report)
 *   DTR_PERF_REPORT  1: the GPU backends record every execute's phases (CUDA events, timeline.h) and
 *                    each rank prints their medians when the plan is destroyed (default 0)
 *   DTR_FFT_CHUNKS   chunks an FFT plan cuts its planes into, for config.chunks 0 (default 0: by the
 *                    rule of src/fft/chunk_rule.c)
 *   DTR_FFT_CTAS     blocks per peer of the p2p backend's one-pass kernel in an FFT's chunks (default
 *                    0: the backend's own, DTR_P2P_CTAS)
 *   DTR_FFT_COPIES   1 (default): slab FFTs take a slab route where every rank has the memory (p2p:
 *                    the copy engines through a staging array of the whole array's planes; nccl:
 *                    messages between registered buffers laid out for the passes); 0: the
 *                    exchanges' own chunks
 *   DTR_FFT_COPY_STREAMS  streams the slab route's copies run on (default 0: the rule of
 *                    src/fft/chunk_rule.c; 1: one, the peers in turn; n: the peers dealt over n)
 *   DTR_FFT_PASS_STREAMS  streams the slab route's passes run their chunks on (default 0: the rule of
 *                    src/fft/chunk_rule.c); 2: alternating over the caller's stream and one of the
 *                    plan's, each with plans and a work area of its own; 1: the caller's alone
 *   DTR_FFT_DELIVER  1: the slab route's forward 2-D pass writes each rank's rows straight into that
 *                    rank's staging array as it makes them (the library's one-trip kernel, y then x),
 *                    where it can (one field of complex numbers, x and y lengths that kernel takes);
 *                    0 (default): cuFFT's 2-D pass, then the copy engines
 *   DTR_FFT_PASS_ASYNC  how the library's one-trip passes over single precision's complex lines under a
 *                    DFT or a type III load them (0-64, default 3): n > 1, by asynchronous copies into
 *                    shared memory, each block taking n rounds of lines and copying the next round's
 *                    while it transforms the current one; 1, the copies a round at a time; 0, each
 *                    thread into its registers (as the other kernels always do)
 *   DTR_FFT_ROUNDS   chunks of the slab route's first pass whose copies go out in rounds, a chunk of
 *                    the second pass's at a time, rather than whole as the first pass makes them
 *                    (default 0: the rule of src/fft/chunk_rule.c; at most the chunks)
 *   DTR_HALO_DIRECT  1 (default): on the p2p backend a halo exchange stores each piece straight into
 *                    its receiver's padded array (mapped through CUDA IPC per array); 0: into the
 *                    receiver's own receive buffer, which it unpacks (as it does for an array that
 *                    CUDA IPC cannot share)
 *   DTR_TIMEOUT      seconds a rank waits for the others in a collective call before it gives up with
 *                    dtrTimeout, for plans whose config.timeout is 0 (default 0: off; see timeout.h)
 * For DTR_TMA_BOXES, DTR_TILE_GROUP, DTR_STREAMING and DTR_TILES_PER_CTA, 0 (the default) leaves
 * each kernel at what was measured best for it.
 */
#ifndef DTR_PARAMS_H
#define DTR_PARAMS_H

#include <stdint.h>

#include "comm.h"
#include "disttranspose.h"

typedef struct {
  dtrBackend_t backend;  /* dtrBackendAuto when unset */
  dtrKernel_t kernel;    /* dtrKernelAuto when unset */
  int tune_iters;
  int tune_mib;
  int tma_boxes;
  int tile_group;
  int streaming;
  int tiles_per_cta;
  int stages;
  int segment_align;
  int p2p_ctas;
  int p2p_fused_barriers;
  int execute_agree;
  int nccl_register;
  int perf_report;
  int fft_chunks;
  int fft_ctas;
  int fft_copies;
  int fft_copy_streams;
  int fft_rounds;
  int fft_pass_streams;
  int fft_deliver;
  int fft_gather;
  int fft_pass_async;
  int halo_direct;
  uint64_t host_memory;  /* 0: no cap of its own */
  double timeout;        /* seconds; 0: off */
  int bad;               /* a variable was set to a value it cannot take */
  char bad_message[512];
} dtrEnvParams;

/* Read once per process; later calls return the same values. An unset or empty variable keeps its
 * default; a value a variable cannot take (numbers.h's strict parsing) marks the parameters bad, and
 * every plan then fails naming it. */
const dtrEnvParams* dtrEnvParamsGet(void);

/* The variables above that reach a plan, for its ranks to agree on before anything is exchanged (a
 * rank that saw another value would exchange otherwise, or wait elsewhere: DTR_STAGES cuts the
 * messages, DTR_EXECUTE_AGREE adds a collective, DTR_P2P_FUSED_BARRIERS and DTR_PERF_REPORT change
 * the barriers; the kernel knobs are agreed too, so that every rank runs what was asked; DTR_FFT_CHUNKS,
 * DTR_FFT_CTAS, DTR_FFT_COPY_STREAMS, DTR_FFT_ROUNDS, DTR_FFT_PASS_STREAMS and DTR_FFT_DELIVER cut an
 * FFT's exchanges and passes). Not among them: DTR_DEBUG (logging), DTR_HOST_MEMORY (the memory check takes the least
 * of a host's ranks) and DTR_TIMEOUT (agreed with config.timeout as the plan's deadline). Returns how
 * many. */
#define DTR_ENV_AGREED 25
int dtrEnvParamsAgreed(const dtrEnvParams* p, dtrAgreedValue out[DTR_ENV_AGREED]);

#endif
