#include "local_fft.h"

#include <stdio.h>
#include <stdlib.h>

#include <cufft.h>
#ifdef FFT3D_HAVE_FFTW
#include <fftw3.h>
#endif

struct LocalFft {
  int gpu, dbl, empty;
  cufftHandle plan;
  void* data;
#ifdef FFT3D_HAVE_FFTW
  fftw_plan hostD[2]; /* [0] forward, [1] inverse */
  fftwf_plan hostF[2];
#endif
};

int localFftHaveHost(void) {
#ifdef FFT3D_HAVE_FFTW
  return 1;
#else
  return 0;
#endif
}

LocalFft* localFftCreate(int gpu, int dbl, int rank, const int n[2], long long batch, void* data, cudaStream_t stream,
                         char* err, size_t errlen) {
  LocalFft* f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, errlen, "out of host memory");
    return NULL;
  }
  f->gpu = gpu, f->dbl = dbl, f->data = data;
  if (batch == 0) {
    f->empty = 1;
    return f;
  }
  int dims[2] = {n[0], n[1]};
  const long long dist = rank == 2 ? (long long)n[0] * n[1] : n[0];
  if (gpu) {
    long long nn[2] = {n[0], n[1]};
    size_t work = 0;
    cufftResult r = cufftCreate(&f->plan);
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany64(f->plan, rank, nn, NULL, 1, dist, NULL, 1, dist, dbl ? CUFFT_Z2Z : CUFFT_C2C, batch, &work);
    if (r == CUFFT_SUCCESS) r = cufftSetStream(f->plan, stream);
    if (r != CUFFT_SUCCESS) {
      snprintf(err, errlen, "cuFFT plan of %d-D size %d x %d, batch %lld: error %d", rank, n[0], rank == 2 ? n[1] : 1,
               batch, (int)r);
      free(f);
      return NULL;
    }
    return f;
  }
#ifdef FFT3D_HAVE_FFTW
  for (int s = 0; s < 2; s++) {
    const int sign = s ? FFTW_BACKWARD : FFTW_FORWARD;
    if (dbl)
      f->hostD[s] = fftw_plan_many_dft(rank, dims, (int)batch, data, NULL, 1, (int)dist, data, NULL, 1, (int)dist, sign,
                                       FFTW_ESTIMATE);
    else
      f->hostF[s] = fftwf_plan_many_dft(rank, dims, (int)batch, data, NULL, 1, (int)dist, data, NULL, 1, (int)dist, sign,
                                        FFTW_ESTIMATE);
    if (dbl ? !f->hostD[s] : !f->hostF[s]) {
      snprintf(err, errlen, "FFTW could not plan a %d-D transform of batch %lld", rank, batch);
      localFftDestroy(f);
      return NULL;
    }
  }
  return f;
#else
  (void)dims;
  snprintf(err, errlen, "this build has no FFTW: the host passes need it (install libfftw3-dev and rebuild)");
  free(f);
  return NULL;
#endif
}

int localFftExecute(LocalFft* f, int sign) {
  if (f->empty) return 0;
  if (f->gpu) {
    const int dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
    return f->dbl ? (int)cufftExecZ2Z(f->plan, f->data, f->data, dir) : (int)cufftExecC2C(f->plan, f->data, f->data, dir);
  }
#ifdef FFT3D_HAVE_FFTW
  if (f->dbl) fftw_execute(f->hostD[sign > 0]);
  else fftwf_execute(f->hostF[sign > 0]);
#endif
  return 0;
}

void localFftDestroy(LocalFft* f) {
  if (!f) return;
  if (f->gpu && !f->empty) cufftDestroy(f->plan);
#ifdef FFT3D_HAVE_FFTW
  for (int s = 0; s < 2; s++) {
    if (f->hostD[s]) fftw_destroy_plan(f->hostD[s]);
    if (f->hostF[s]) fftwf_destroy_plan(f->hostF[s]);
  }
#endif
  free(f);
}

int referenceFft3d(int gpu, int dbl, const long long n[3], void* data, cudaStream_t stream) {
  if (gpu) {
    cufftHandle plan;
    long long dims[3] = {n[2], n[1], n[0]}; /* slowest first: z, y, x */
    size_t work = 0;
    if (cufftCreate(&plan) != CUFFT_SUCCESS) return -1;
    cufftResult r = cufftMakePlanMany64(plan, 3, dims, NULL, 1, 0, NULL, 1, 0, dbl ? CUFFT_Z2Z : CUFFT_C2C, 1, &work);
    if (r == CUFFT_SUCCESS) r = cufftSetStream(plan, stream);
    if (r == CUFFT_SUCCESS)
      r = dbl ? cufftExecZ2Z(plan, data, data, CUFFT_FORWARD) : cufftExecC2C(plan, data, data, CUFFT_FORWARD);
    if (r == CUFFT_SUCCESS && cudaStreamSynchronize(stream) != cudaSuccess) r = CUFFT_EXEC_FAILED;
    cufftDestroy(plan);
    return r == CUFFT_SUCCESS ? 0 : r == CUFFT_ALLOC_FAILED ? 1 : -1;
  }
#ifdef FFT3D_HAVE_FFTW
  if (dbl) {
    fftw_plan p = fftw_plan_dft_3d((int)n[2], (int)n[1], (int)n[0], data, data, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) return -1;
    fftw_execute(p);
    fftw_destroy_plan(p);
  } else {
    fftwf_plan p = fftwf_plan_dft_3d((int)n[2], (int)n[1], (int)n[0], data, data, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) return -1;
    fftwf_execute(p);
    fftwf_destroy_plan(p);
  }
  return 0;
#else
  return -1;
#endif
}
