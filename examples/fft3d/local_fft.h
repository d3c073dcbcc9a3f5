/*
 * The local passes of a 3-D FFT as the example times them apart from the library's FFT (what the
 * overlap is measured against), and the single-process reference: batches of 1-D (or, on slabs,
 * 2-D) transforms along the contiguous axes of a pencil, by cuFFT on GPUs and by FFTW on the host.
 * Complex single (c64) or double (c128) precision, or real to complex; unnormalised.
 */
#ifndef FFT3D_LOCAL_FFT_H
#define FFT3D_LOCAL_FFT_H

#include <stddef.h>

#include <cuda_runtime_api.h>

typedef struct LocalFft LocalFft;

/* Whether this build has FFTW (the host passes and the host reference). */
int localFftHaveHost(void);

/* `rank` 1 or 2 transforms of sizes n[0] (n[0] x n[1] for 2-D, n[1] fastest) over `batch` arrays from
 * `in` into `out` (in place where equal); real: R2C forward from the real `in` into the complex `out`,
 * C2R inverse from `out` back into `in` (n the real sizes). gpu: cuFFT on `stream`; else FFTW planned on
 * the arrays. Returns NULL with a message in err on failure; batch 0 gives a pass that does nothing. */
LocalFft* localFftCreate(int gpu, int dbl, int real, int rank, const int n[2], long long batch, void* in, void* out,
                         cudaStream_t stream, char* err, size_t errlen);
/* sign -1: forward, +1: inverse. 0 on success. */
int localFftExecute(LocalFft* f, int sign);
void localFftDestroy(LocalFft* f);

/* The whole nx x ny x nz array (x fastest) transformed forward on one GPU or the host: complex in
 * place, or real (`data`, nx reals a row) into `out` (nx / 2 + 1 complex a row). Returns 0, 1 where it
 * does not fit (GPU memory), -1 on other failure. */
int referenceFft3d(int gpu, int dbl, int real, const long long n[3], void* data, void* out, cudaStream_t stream);

#endif
