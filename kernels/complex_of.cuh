/* The complex type of a real one in the kernels that move complex numbers as CUDA's aligned pairs
 * (float2, double2: one 8- or 16-byte load or store), shared by the FFT's kernels. */
#ifndef DTR_COMPLEX_OF_CUH
#define DTR_COMPLEX_OF_CUH

#include <cuda_runtime.h>

template <typename E>
struct ComplexOf;
template <>
struct ComplexOf<float> {
  using type = float2;
};
template <>
struct ComplexOf<double> {
  using type = double2;
};

#endif
