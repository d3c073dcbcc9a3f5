/* A local pass by FFTW on the host (local_fft.h's cpu-backend implementation), where the build has FFTW. */
#ifndef DTR_FFT_FFTW_PASS_H
#define DTR_FFT_FFTW_PASS_H

#include "disttranspose.h"
#include "transform_shape.h"

typedef struct dtrFftwPass dtrFftwPass;
int dtrFftwAvailable(void);
dtrResult_t dtrFftwPassCreate(const dtrLocalFftShape* shape, dtrFftwPass** out);
dtrResult_t dtrFftwPassRun(dtrFftwPass* p, int direction, int64_t count, const void* in, void* out);
void dtrFftwPassDestroy(dtrFftwPass* p);

#endif
