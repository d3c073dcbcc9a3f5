/*
 * The C entry points into the padding kernels (kernels/pad_copy.cu): a rank's kept modes of a spectrum
 * put into its box of the padded spectrum (zeros everywhere else), and taken back out of it. Both boxes
 * are Z-pencils ([y][x][z], z fastest) of complex numbers; along each axis the kept modes sit in at
 * most two pieces of the padded box (src/core/geometry.h's dtrPadPieces, worked out on the host). The
 * cpu backend's loops (src/fft/padding.c) take the same arguments.
 */
#ifndef DTR_PAD_LAUNCH_H
#define DTR_PAD_LAUNCH_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Along one axis: piece p is count[p] entries at kept[p] in the kept box and padded[p] in the padded
 * one (local indices). */
typedef struct {
  int pieces;
  int64_t kept[2], padded[2], count[2];
} dtrPadAxisPieces;

/* Extents and pieces along x, y, z (index 0, 1, 2); along z they count complex numbers, a point's
 * fields included (its `howmany` numbers follow one another). A value moved in either direction is
 * multiplied by `factor`, and those of the kept box's x plane `nyquist` (-1: none) by `factor` times
 * `nyquistFactor` as well (the real-to-complex Nyquist plane). */
typedef struct {
  void* padded;
  void* kept;
  int64_t paddedSize[3], keptSize[3];
  dtrPadAxisPieces axis[3];
  int64_t nyquist;
  double factor, nyquistFactor;
  int dbl; /* complex doubles, else complex floats */
} dtrPadArgs;

/* The padded box from the kept one: every entry written, the kept modes (scaled) and zeros. */
cudaError_t dtrPadLaunch(const dtrPadArgs* args, cudaStream_t stream);
/* The kept box from the padded one (scaled); the padded box is only read. */
cudaError_t dtrTruncateLaunch(const dtrPadArgs* args, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
