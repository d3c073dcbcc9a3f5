#include "local_fft.h"

#include <stdio.h>
#include <stdlib.h>

#include <cufft.h>
#ifdef FFT3D_HAVE_FFTW
#include <fftw3.h>
#endif

struct LocalFft {
  int gpu, dbl, real, empty;
  cufftHandle plan[2]; /* [0] forward, [1] inverse (the same for complex transforms) */
  void *in, *out;
#ifdef FFT3D_HAVE_FFTW
  fftw_plan hostD[2];
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

static cufftType gpuType(int dbl, int real, int s) {
  if (!real) return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  if (s == 0) return dbl ? CUFFT_D2Z : CUFFT_R2C;
  return dbl ? CUFFT_Z2D : CUFFT_C2R;
}

LocalFft* localFftCreate(int gpu, int dbl, int real, int rank, const int n[2], long long batch, void* in, void* out,
                         cudaStream_t stream, char* err, size_t errlen) {
  LocalFft* f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, errlen, "out of host memory");
    return NULL;
  }
  f->gpu = gpu, f->dbl = dbl, f->real = real, f->in = in, f->out = out;
  if (batch == 0) {
    f->empty = 1;
    return f;
  }
  if (gpu) {
    long long nn[2] = {n[0], n[1]};
    for (int s = 0; s < (real ? 2 : 1); s++) {
      size_t work = 0;
      cufftResult r = cufftCreate(&f->plan[s]);
      if (r == CUFFT_SUCCESS) r = cufftMakePlanMany64(f->plan[s], rank, nn, NULL, 1, 0, NULL, 1, 0, gpuType(dbl, real, s), batch, &work);
      if (r == CUFFT_SUCCESS) r = cufftSetStream(f->plan[s], stream);
      if (r != CUFFT_SUCCESS) {
        snprintf(err, errlen, "cuFFT plan of %d-D size %d x %d, batch %lld: error %d", rank, n[0], rank == 2 ? n[1] : 1,
                 batch, (int)r);
        localFftDestroy(f);
        return NULL;
      }
    }
    if (!real) f->plan[1] = f->plan[0];
    return f;
  }
#ifdef FFT3D_HAVE_FFTW
  int dims[2] = {n[0], n[1]};
  const int last = real ? n[rank - 1] / 2 + 1 : n[rank - 1];
  const int rdist = rank == 2 ? n[0] * n[1] : n[0], cdist = rank == 2 ? n[0] * last : last;
  for (int s = 0; s < 2; s++) {
    const int sign = s ? FFTW_BACKWARD : FFTW_FORWARD;
    if (real && dbl)
      f->hostD[s] = s ? fftw_plan_many_dft_c2r(rank, dims, (int)batch, out, NULL, 1, cdist, in, NULL, 1, rdist, FFTW_ESTIMATE)
                      : fftw_plan_many_dft_r2c(rank, dims, (int)batch, in, NULL, 1, rdist, out, NULL, 1, cdist, FFTW_ESTIMATE);
    else if (real)
      f->hostF[s] = s ? fftwf_plan_many_dft_c2r(rank, dims, (int)batch, out, NULL, 1, cdist, in, NULL, 1, rdist, FFTW_ESTIMATE)
                      : fftwf_plan_many_dft_r2c(rank, dims, (int)batch, in, NULL, 1, rdist, out, NULL, 1, cdist, FFTW_ESTIMATE);
    else if (dbl)
      f->hostD[s] = fftw_plan_many_dft(rank, dims, (int)batch, in, NULL, 1, cdist, out, NULL, 1, cdist, sign, FFTW_ESTIMATE);
    else
      f->hostF[s] = fftwf_plan_many_dft(rank, dims, (int)batch, in, NULL, 1, cdist, out, NULL, 1, cdist, sign, FFTW_ESTIMATE);
    if (dbl ? !f->hostD[s] : !f->hostF[s]) {
      snprintf(err, errlen, "FFTW could not plan a %d-D transform of batch %lld", rank, batch);
      localFftDestroy(f);
      return NULL;
    }
  }
  return f;
#else
  snprintf(err, errlen, "this build has no FFTW: the host passes need it (install libfftw3-dev and rebuild)");
  free(f);
  return NULL;
#endif
}

int localFftExecute(LocalFft* f, int sign) {
  if (f->empty) return 0;
  if (f->gpu) {
    const cufftHandle h = f->plan[sign > 0];
    if (!f->real) {
      const int dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
      return f->dbl ? (int)cufftExecZ2Z(h, f->in, f->out, dir) : (int)cufftExecC2C(h, f->in, f->out, dir);
    }
    if (sign < 0) return f->dbl ? (int)cufftExecD2Z(h, f->in, f->out) : (int)cufftExecR2C(h, f->in, f->out);
    return f->dbl ? (int)cufftExecZ2D(h, f->out, f->in) : (int)cufftExecC2R(h, f->out, f->in);
  }
#ifdef FFT3D_HAVE_FFTW
  if (f->dbl) fftw_execute(f->hostD[sign > 0]);
  else fftwf_execute(f->hostF[sign > 0]);
#endif
  return 0;
}

void localFftDestroy(LocalFft* f) {
  if (!f) return;
  if (f->gpu && !f->empty) {
    if (f->plan[0]) cufftDestroy(f->plan[0]);
    if (f->plan[1] && f->plan[1] != f->plan[0]) cufftDestroy(f->plan[1]);
  }
#ifdef FFT3D_HAVE_FFTW
  for (int s = 0; s < 2; s++) {
    if (f->hostD[s]) fftw_destroy_plan(f->hostD[s]);
    if (f->hostF[s]) fftwf_destroy_plan(f->hostF[s]);
  }
#endif
  free(f);
}

int referenceFft3d(int gpu, int dbl, int real, const long long n[3], void* data, void* out, cudaStream_t stream) {
  if (gpu) {
    cufftHandle plan;
    long long dims[3] = {n[2], n[1], n[0]}; /* slowest first: z, y, x */
    size_t work = 0;
    if (cufftCreate(&plan) != CUFFT_SUCCESS) return -1;
    cufftResult r = cufftMakePlanMany64(plan, 3, dims, NULL, 1, 0, NULL, 1, 0, gpuType(dbl, real, 0), 1, &work);
    if (r == CUFFT_SUCCESS) r = cufftSetStream(plan, stream);
    if (r == CUFFT_SUCCESS && !real)
      r = dbl ? cufftExecZ2Z(plan, data, data, CUFFT_FORWARD) : cufftExecC2C(plan, data, data, CUFFT_FORWARD);
    else if (r == CUFFT_SUCCESS)
      r = dbl ? cufftExecD2Z(plan, data, out) : cufftExecR2C(plan, data, out);
    if (r == CUFFT_SUCCESS && cudaStreamSynchronize(stream) != cudaSuccess) r = CUFFT_EXEC_FAILED;
    cufftDestroy(plan);
    return r == CUFFT_SUCCESS ? 0 : r == CUFFT_ALLOC_FAILED ? 1 : -1;
  }
#ifdef FFT3D_HAVE_FFTW
  if (dbl) {
    fftw_plan p = real ? fftw_plan_dft_r2c_3d((int)n[2], (int)n[1], (int)n[0], data, out, FFTW_ESTIMATE)
                       : fftw_plan_dft_3d((int)n[2], (int)n[1], (int)n[0], data, data, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) return -1;
    fftw_execute(p);
    fftw_destroy_plan(p);
  } else {
    fftwf_plan p = real ? fftwf_plan_dft_r2c_3d((int)n[2], (int)n[1], (int)n[0], data, out, FFTW_ESTIMATE)
                        : fftwf_plan_dft_3d((int)n[2], (int)n[1], (int)n[0], data, data, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) return -1;
    fftwf_execute(p);
    fftwf_destroy_plan(p);
  }
  return 0;
#else
  (void)out;
  return -1;
#endif
}
