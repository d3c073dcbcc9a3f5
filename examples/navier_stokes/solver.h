/*
 * The time stepping of the Taylor-Green example, written once for the distributed run and for the
 * single-process reference: classical RK4 on the velocity's transform, each right-hand side the
 * vorticity by i k x u hat, both back to physical space, u x omega there, its transform dealiased and
 * projected (physics.h). Under the 3/2 rule the physical side is the padded grid (m = floor(3n/2) points
 * per axis) and the transform pads and truncates; the step is the same. What differs between the
 * distributed run and the reference is behind the solver's fields: the boxes (a rank's pencils, or the
 * whole arrays), where the pointwise work runs (host loops or kernels on the stream) and the transform
 * (the library's distributed FFT of three fields, or FFTW on the whole array).
 */
#ifndef NS_SOLVER_H
#define NS_SOLVER_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "common/failure.h"
#include "physics.h"

typedef struct NsSolver NsSolver;

/* The transform of three fields between the solver's sides: forward (the real field on the physical grid
 * to its n^3 modes: unscaled; padded, scaled by n^3/m^3, so that a field the modes hold gets the same
 * modes either way) or inverse (scaled by 1/n^3, so that a round trip gives the field back). 0 on success. A
 * collective transform must fail on every rank alike, and must refuse (fail on every rank) where this
 * rank's solver has failed already (`failure`), so that no rank is left waiting in it. */
typedef int (*NsTransform)(NsSolver* s, const void* in, void* out, int inverse);

struct NsSolver {
  NsBox phys, spec;       /* the physical side's box (real, 3 per point; the padded grid's under the 3/2 rule)
                             and the spectral side's (complex, the kept modes) */
  int dbl;                /* fp64 storage (else fp32) */
  int gpu;                /* device arrays, kernels on `stream` (else host arrays and loops) */
  cudaStream_t stream;
  NsStage stage;          /* nu, dt and the dealiasing rule; `stage` is set by the step */
  void *uh, *next, *acc;  /* spectral: the velocity, the next stage's, the Runge-Kutta sum */
  void* wh;               /* spectral: the vorticity, then the transform of u x omega */
  void *u, *w;            /* physical: the velocity, the vorticity, then u x omega */
  NsTransform transform;
  void* context;          /* the transform's */
  ExFailure failure;      /* this rank's first failure, and what it was */
};

/* Allocates the solver's six arrays for its boxes (device memory where gpu, else host memory aligned
 * for FFTW). 0 on success; on failure `failure` says which. */
int nsSolverAllocate(NsSolver* s);
/* 0, or -1 where cudaFree failed (a kernel's failure surfacing late). */
int nsSolverFree(NsSolver* s);

/* Bytes of one side's array: points x 3 fields x (1 real or 2 for a complex number) x the element. */
size_t nsSideBytes(const NsSolver* s, int spectral);

/* One RK4 step of uh (stream-ordered on GPUs). 0 on success; -1 where a transform failed (on every
 * rank, for the collective one). A pointwise failure is recorded and makes the next transform refuse. */
int nsSolverStep(NsSolver* s);

/* The physical velocity of uh into u. 0 on success, as a step. */
int nsSolverVelocity(NsSolver* s);

#endif
