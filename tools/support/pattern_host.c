#include "pattern_host.h"

#include "launch.h"
#include "support.h"

uint64_t dtrHostPatternBox(dtrPatternRole role, void* data, const dtrPatternBox* box, size_t e) {
  uint8_t* p = data;
  uint64_t wrong = 0;
  const int64_t n = box->size[0] * box->size[1] * box->size[2];
  for (int64_t x = 0; x < n; x++, p += e) {
    const uint64_t index = dtrPatternBoxIndex(box, x);
    int ok = 1;
    for (size_t b = 0; b < e; b++) {
      const uint8_t v = (uint8_t)(dtrPatternWordAt(index, b) >> (8 * (b & 7)));
      if (role == dtrPatternFill) p[b] = v;
      else if (role == dtrPatternPoison) p[b] = (uint8_t)~v;
      else ok &= p[b] == v;
    }
    wrong += !ok;
  }
  return wrong;
}

void dtrHostPatternFill(void* slab, int64_t rows, int64_t cols, int64_t row_start, size_t e) {
  const dtrPatternBox box = dtrPatternSlabA(rows, cols, row_start);
  dtrHostPatternBox(dtrPatternFill, slab, &box, e);
}

void dtrHostPatternPoison(void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols, size_t e) {
  const dtrPatternBox box = dtrPatternSlabB(rows, cols, row_start, a_cols);
  dtrHostPatternBox(dtrPatternPoison, slab, &box, e);
}

uint64_t dtrHostPatternCheck(const void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols, size_t e) {
  const dtrPatternBox box = dtrPatternSlabB(rows, cols, row_start, a_cols);
  return dtrHostPatternBox(dtrPatternCheck, (void*)slab, &box, e);
}

dtrPatternBox dtrPatternBoxOfPencil(const dtrBox_t* box, const int64_t shape[3]) {
  const int64_t global[3] = {1, shape[0], shape[0] * shape[1]};
  dtrPatternBox p;
  for (int d = 0; d < 3; d++) {
    const int axis = box->order[d];
    p.size[d] = box->size[axis];
    p.start[d] = box->start[axis];
    p.stride[d] = global[axis];
  }
  return p;
}

cudaError_t dtrPatternApply(int gpu, dtrPatternRole role, void* data, const dtrPatternBox* box, size_t e,
                            unsigned long long* counter, cudaStream_t stream, uint64_t* wrong) {
  if (!data) return cudaSuccess;
  if (!gpu) {
    const uint64_t w = dtrHostPatternBox(role, data, box, e);
    if (role == dtrPatternCheck) *wrong += w;
    return cudaSuccess;
  }
  cudaError_t err;
  if (role == dtrPatternCheck && (err = cudaMemsetAsync(counter, 0, sizeof *counter, stream)) != cudaSuccess) return err;
  if ((err = dtrPatternBoxLaunch(role, data, box, e, counter, stream)) != cudaSuccess || role != dtrPatternCheck) return err;
  unsigned long long w = 0;
  if ((err = cudaMemcpyAsync(&w, counter, sizeof w, cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
      (err = cudaStreamSynchronize(stream)) != cudaSuccess)
    return err;
  *wrong += w;
  return cudaSuccess;
}
