/* Prints the number of visible CUDA devices (0 without a driver): the GPU tests' skip decision. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  printf("%d\n", n);
  return 0;
}
