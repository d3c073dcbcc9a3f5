/*
 * The kernels of a real-to-real pass along one axis (src/fft/axis_pass.c), and of a DFT over lines that
 * cuFFT's one batch dimension cannot describe: a chunk's lines gathered into packed scratch rows (one
 * row a transform of one number of one field), cuFFT on the rows, and the rows scattered back, the
 * transform's pre- and post-processing fused into the gather and the scatter.
 *
 * The data: `units` transforms of `lines` lines of `n` points; line l of unit u starts at
 * u * unit + l * line points and its point j lies j * point points further, every distance in points
 * of `fields` fields of `parts` numbers (2: the real and imaginary parts of complex data under a
 * real-to-real kind; 1 otherwise). Rows are numbered s = ((u * lines + l) * fields + f) * parts + c.
 */
#ifndef DTR_AXIS_LAUNCH_H
#define DTR_AXIS_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t unit, line, point;
} dtrAxisSide;

typedef struct {
  int64_t n, units, lines, fields;
  int parts;
  int dbl;
  int complexNumbers; /* the numbers are complex (a DFT's rows), not real */
} dtrAxisRows;

/* How the gather orders (and signs) a line's points into its row. */
typedef enum {
  dtrAxisGatherCopy = 0,    /* row[j] = x[j] */
  dtrAxisGatherEvenOdd = 1, /* the evens up, the odds down (Makhoul's order for a DCT-II by one DFT) */
  dtrAxisGatherEvenOddAlternating = 2, /* the same of (-1)^j x[j] (a DST-II as a reversed DCT-II) */
  dtrAxisGatherReversed = 3            /* row[j] = x[n - 1 - j] (a DST-III as a DCT-III) */
} dtrAxisGather;

/* How the scatter makes point p of a line from its row (then times the launch's factor). */
typedef enum {
  dtrAxisScatterCopy = 0,      /* row[p] */
  dtrAxisScatterEvenOdd = 1,   /* back from Makhoul's order */
  dtrAxisScatterEvenOddAlternating = 2, /* the same times (-1)^p */
  dtrAxisScatterCosine = 3,    /* 2 Re(exp(-i pi k / 2n) V[k]), k = p, from the half spectrum V of a real row */
  dtrAxisScatterSine = 4       /* the same with k = n - 1 - p */
} dtrAxisScatter;

/* What a one-trip pass runs: a real-to-real kind (a kind forward, the other of its pair inverse), or a
 * DFT (over a plane's columns; unnormalized both ways). */
typedef enum {
  dtrAxisDct2 = 0,
  dtrAxisDct3 = 1,
  dtrAxisDst2 = 2,
  dtrAxisDst3 = 3,
  dtrAxisDftForward = 4,
  dtrAxisDftInverse = 5
} dtrAxisKind;

/* A pass in one trip through HBM (axis_one_trip.cu): one field, n a power of two from 8 to 4096, each
 * side's lines either packed (a line's points contiguous) or side by side (consecutive lines 1 point
 * apart: a plane's columns, or the Z-pencil's lines in a slab's planes) where enough of them fit a
 * block; a side of each kind is a pass that transposes. A real-to-real kind or the DFT, whose output
 * the launch's `scale` multiplies (a normalization folded in: 1.0 for none). Its table (FFT twiddles and
 * post-twiddles, made on the host once per pass) lies in device memory. Prepare, once per pass on its
 * device, lets the kernels take the shared memory they need. `async`, for the kernels that take it
 * (single precision's complex lines under a DFT or a type III): 0, each thread loads its points into
 * registers; 1, the points go into the lines' shared memory by asynchronous copies before the threads
 * take theirs; n > 1, each block takes n rounds of lines and copies the next round's while it
 * transforms the current one. */
int dtrAxisOneTripFits(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into);
cudaError_t dtrAxisOneTripPrepare(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into);
size_t dtrAxisOneTripTableBytes(int64_t n, int dbl);
void dtrAxisOneTripTable(int64_t n, int dbl, void* host);
cudaError_t dtrAxisOneTripLaunch(const dtrAxisRows* r, dtrAxisSide from, dtrAxisSide into, const void* in, void* out,
                                 int kind, double scale, const void* table, int async, cudaStream_t stream);

cudaError_t dtrAxisGatherLaunch(const dtrAxisRows* r, dtrAxisSide side, const void* data, void* rows,
                                dtrAxisGather how, cudaStream_t stream);
cudaError_t dtrAxisScatterLaunch(const dtrAxisRows* r, dtrAxisSide side, const void* rows, void* data,
                                 dtrAxisScatter how, double factor, cudaStream_t stream);
/* A DCT-III's input rows X (real, n a row) into the half spectra V (n / 2 + 1 complex a row) whose
 * inverse real DFT is Makhoul's order of the result: V[k] = exp(i pi k / 2n) (X[k] - i X[n - k]), X[n] = 0. */
cudaError_t dtrAxisTwiddleLaunch(const dtrAxisRows* r, const void* rows, void* spectra, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
