/* The complex type of a real one in the kernels that move complex numbers as pairs of reals (float2,
 * double2), shared by the axis passes' kernels. */
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
