/*
 * The C entry points into the library's CUDA kernels: local sub-block transposes (every variant
 * behind one call), the p2p backend's barriers and the unpack's 2-D copies. (The benchmarks' copy and
 * the verification pattern are the tools' own: tools/support/support.h.)
 */
#ifndef DTR_LAUNCH_H
#define DTR_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "disttranspose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[b * dst_stride + c * ldd + r] = src[b * src_stride + r * lds + c] for r < rows, c < cols and
 * b < batch; pitches, strides and sizes in entries. batch 0 is taken as 1 (a single matrix). */
typedef struct {
  const void* src;
  int64_t lds;
  void* dst;
  int64_t ldd;
  int64_t rows;
  int64_t cols;
  size_t entry_bytes;
  int64_t batch;
  int64_t src_stride, dst_stride;
} dtrTransposeArgs;

/* Whether `kernel` can serve these arguments on the current device (alignment, pitch, size). */
int dtrTransposeSupported(dtrKernel_t kernel, const dtrTransposeArgs* args);

/* Launches `kernel` (Auto: the first of tma, simt16, simt that can serve), or the SIMT kernel where
 * the one asked for cannot serve these arguments. *ran (may be NULL) says which one ran. Batches run
 * on the SIMT kernels (the TMA variants take one matrix), as the third grid dimension. */
cudaError_t dtrTransposeLaunch(dtrKernel_t kernel, const dtrTransposeArgs* args, cudaStream_t stream,
                               dtrKernel_t* ran);

/* Most transposes in one grouped launch, and most ranks of a one-pass (peer-to-peer) plan. */
#define DTR_GROUP_MAX 16

/*
 * Cross-GPU ordering of the one-pass path. Each rank owns one flags array in its device memory,
 * mapped into every peer: [0] its epoch (executes begun; where the barriers are folded into the
 * pass kernel, executes finished), [1 + q] the epoch at which rank q last arrived, [1 + n + q] the
 * epoch at which rank q last finished its stores, [1 + 2 n] two 32-bit counts of the blocks of a
 * pass kernel with the barriers folded in, those that have begun and those that are done, and
 * [2 + 2 n + q] the last chunk of an epoch that rank q has finished storing here (the epoch times
 * 2^16 plus the chunk's number plus one: it only grows). peer[q] is rank q's array as mapped here
 * (peer[rank] is this rank's own).
 */
typedef struct {
  uint64_t* peer[DTR_GROUP_MAX];
  int rank, nranks;
  const volatile unsigned* abort; /* host memory mapped for the device (may be NULL): once nonzero, the
                                     barriers stop waiting (a rank timed out; nothing is ordered then) */
} dtrPeerFlags;

/* 64-bit words of a flags array of n ranks: the epoch, the slots, and a count of the blocks of a
 * pass kernel that carries the barriers itself. */
#define DTR_PEER_FLAG_WORDS(n) (2 + 3 * (size_t)(n))

typedef enum {
  dtrPeerArrive = 0, /* begins an epoch; returns once every rank has begun it: every rank's stream
                        has finished what came before, so its B may be overwritten */
  dtrPeerFinish = 1  /* returns once every rank has finished this epoch's stores: B is complete */
} dtrPeerPhase;

/* One block that signals every rank and waits for every rank's signal, in stream order. */
cudaError_t dtrPeerBarrierLaunch(const dtrPeerFlags* flags, dtrPeerPhase phase, cudaStream_t stream);

/* Chunks of an epoch begun by the arrive barrier, signalled one by one rather than all at the finish:
 * Signal tells each rank of `peers` (a bit a rank) that this rank's stores of chunk `chunk` into it
 * are done (those before it on `stream`); Wait returns, in stream order, once every other rank has
 * signalled `chunk` here. The epoch is the one the arrive barrier began: both run after it. */
cudaError_t dtrPeerChunkSignalLaunch(const dtrPeerFlags* flags, unsigned peers, int chunk, cudaStream_t stream);
cudaError_t dtrPeerChunkWaitLaunch(const dtrPeerFlags* flags, int chunk, cudaStream_t stream);

/*
 * Several transposes in one launch: the one-pass path's blocks, one per rank, each stored straight
 * into that rank's memory. `kernel`: dtrKernelSimt for the element-wise kernels only, anything else
 * lets members go to the 16-byte kernel where their pitches suit it. Member i gets `ctas` blocks (0: the device's resident blocks shared out
 * evenly), numbered i, i + count, ...: every member's stores run at once, each through few blocks.
 * Members of aligned 4-, 8- or 16-byte words that the 16-byte kernel does not take go to a grouped
 * element-wise kernel, members of 1- and 2-byte entries (and 4-byte ones off their alignment) to a
 * grouped word-wide kernel; the rest (tuples) run after, one launch each. Every block ends with a
 * system-scope fence, so that its stores into peer memory are visible before a signal that follows.
 * `sync` (may be NULL): the one-pass path's barriers between the ranks, an arrive before the first
 * store into a peer and a finish after the last, in stream order. They are folded into the kernel
 * where the members take one launch (nearly always: the members differ only in where they store),
 * else launched around it (dtrPeerBarrierLaunch). A rank with no members still takes part.
 */
cudaError_t dtrTransposeGroupLaunch(dtrKernel_t kernel, const dtrTransposeArgs* members, int count, int ctas,
                                    const dtrPeerFlags* sync, cudaStream_t stream);

/* Knobs of the kernels: boxes per TMA stage (1 or 2; for the word-wide kernel of 1- and 2-byte
 * entries, its tiles' width in 128-byte boxes), the width in tiles of the column groups in which
 * the kernels take their tiles, evict-first (streaming) loads and stores in the element-wise kernel,
 * and tiles per block (n: a grid of about tiles / n blocks; -1: persistent, as many blocks as fit at
 * once). 0 leaves a knob at the value measured best for the kernel and entry size. Process-wide. */
void dtrKernelTuningSet(int tma_boxes, int tile_group, int streaming, int tiles_per_cta);

/* A CUDA driver function (CUDA 12.0 ABI) through the runtime, so that nothing links libcuda and the
 * binaries load where there is no driver. NULL where the driver lacks it or is absent. */
void* dtrDriverEntryPoint(const char* name);

/* `batch` 2-D copies, the b-th of `height` rows of `width` bytes from src + b * sstride with a pitch of
 * spitch into dst + b * dstride with a pitch of dpitch (bytes), in one launch: the unpack of received
 * segments into their column blocks (one copy a matrix where padded segment rows hold a row of each
 * matrix of a batch). Where one 16-byte word does not fit every row start, rows of 64 bytes up are
 * stored in aligned 16-byte words shifted out of the source ones, narrower rows in the widest word
 * that fits every row start. */
cudaError_t dtrCopy2dBatchLaunch(void* dst, size_t dpitch, size_t dstride, const void* src, size_t spitch,
                                 size_t sstride, size_t width, size_t height, size_t batch, cudaStream_t stream);

/* One such copy with the method forced (for benchmarks and tests): the widest common word, or
 * shifted 16-byte words. */
typedef enum { dtrCopy2dAuto = 0, dtrCopy2dWords = 1, dtrCopy2dShifted = 2 } dtrCopy2dMethod;
cudaError_t dtrCopy2dLaunchWith(dtrCopy2dMethod method, void* dst, size_t dpitch, const void* src, size_t spitch,
                                size_t width, size_t height, cudaStream_t stream);

/* `points` points of `fields` interleaved numbers of `bytes` (4, 8 or 16) each into field-major copies
 * (split: dst[f * points + p] = src[p * fields + f]), or back (split 0). */
cudaError_t dtrFieldsLaunch(int split, const void* src, void* dst, int64_t points, int fields, size_t bytes,
                            cudaStream_t stream);

/* x[i] *= factor for i < count real numbers (a complex array is twice as many), float (dbl 0) or
 * double: the FFT's normalization, on one chunk at a time. */
cudaError_t dtrScaleLaunch(void* x, size_t count, int dbl, double factor, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
