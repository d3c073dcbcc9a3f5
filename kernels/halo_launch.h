/*
 * The C entry points into the halo exchange's kernels (kernels/halo_copy.cu): boxes of a padded array
 * packed into message segments, unpacked from them, copied within the array (the local wraps) or
 * stored into a peer's mapped buffer; and the adjoint's sums of boxes into the array. Many boxes in
 * one launch.
 */
#ifndef DTR_HALO_LAUNCH_H
#define DTR_HALO_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* planes x rows x `width` bytes from src to dst; pitches in bytes between rows ([0]) and planes ([1]). */
typedef struct {
  const void* src;
  void* dst;
  size_t width, rows, planes;
  size_t srcPitch[2], dstPitch[2];
} dtrHaloCopyArgs;

/* Most boxes one launch takes; dtrHaloCopyLaunch launches again for more. */
#define DTR_HALO_COPIES_PER_LAUNCH 24

/* The `count` copies, in launches of up to DTR_HALO_COPIES_PER_LAUNCH, each in the widest word (up to
 * 16 bytes) that its addresses, width and pitches allow, thread t of a copy taking word t of the box
 * in memory order, so that a face a few entries wide still stores whole sectors of a segment. `fence`:
 * every block ends with a system-scope fence (stores into a peer's memory visible before a barrier
 * that follows on the stream). */
cudaError_t dtrHaloCopyLaunch(const dtrHaloCopyArgs* copies, int count, int fence, cudaStream_t stream);

/* The scalars an entry is made of (a complex number is two), in whose arithmetic the adjoint adds. */
typedef enum { dtrHaloInt8 = 0, dtrHaloFloat16, dtrHaloBfloat16, dtrHaloFloat32, dtrHaloFloat64 } dtrHaloScalar;

/* dst += src over planes x rows x `width` bytes (src NULL: dst = 0); `move`: src = 0 afterwards (halo
 * cells handed back to the cells they copy). Pitches in bytes as dtrHaloCopyArgs'. */
typedef struct {
  void* src;
  void* dst;
  size_t width, rows, planes;
  size_t srcPitch[2], dstPitch[2];
  int move;
} dtrHaloSumArgs;

/* The `count` sums, in launches of up to DTR_HALO_COPIES_PER_LAUNCH, scalar by scalar: int8 wraps
 * around (two's complement), fp16 and bf16 add in fp32 and round to nearest even (the correctly rounded
 * sum), fp32 and fp64 add rounded to nearest, never contracted: halo_sum.h's arithmetic on the host, bit
 * for bit. No two sums of one call may share a cell that either writes: the boxes run at once. */
cudaError_t dtrHaloSumLaunch(const dtrHaloSumArgs* sums, int count, dtrHaloScalar scalar, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
