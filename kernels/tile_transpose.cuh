/*
 * The shared-memory step of the vector kernels: each thread takes 16-byte micro-blocks (m rows x
 * one chunk of the swizzled source stage), transposes them in registers and writes m chunks of the
 * swizzled result buffer. Used by the TMA kernels and by the 16-byte SIMT kernel alike, so both
 * move bytes through exactly the layout that tile_layout.h describes (and the tests emulate).
 */
#ifndef DTR_TILE_TRANSPOSE_CUH
#define DTR_TILE_TRANSPOSE_CUH

#include <stdint.h>

#include "tile_layout.h"

namespace dtr {

/* in[i] is source row i of an m x m block (m = 16/S elements of S bytes, as four 32-bit words);
 * out[j] becomes result row j: element j of every source row. */
template <int S>
struct MicroTranspose;

template <>
struct MicroTranspose<16> {
  __device__ __forceinline__ static void run(const uint32_t (&in)[1][4], uint32_t (&out)[1][4]) {
#pragma unroll
    for (int w = 0; w < 4; w++) out[0][w] = in[0][w];
  }
};

template <>
struct MicroTranspose<8> {
  __device__ __forceinline__ static void run(const uint32_t (&in)[2][4], uint32_t (&out)[2][4]) {
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        out[j][2 * i] = in[i][2 * j];
        out[j][2 * i + 1] = in[i][2 * j + 1];
      }
  }
};

template <>
struct MicroTranspose<4> {
  __device__ __forceinline__ static void run(const uint32_t (&in)[4][4], uint32_t (&out)[4][4]) {
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int i = 0; i < 4; i++) out[j][i] = in[i][j];
  }
};

template <>
struct MicroTranspose<2> {
  /* Word w of result row j pairs half (j & 1) of word j/2 from source rows 2w and 2w+1. */
  __device__ __forceinline__ static void run(const uint32_t (&in)[8][4], uint32_t (&out)[8][4]) {
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
      for (int w = 0; w < 4; w++)
        out[j][w] = __byte_perm(in[2 * w][j >> 1], in[2 * w + 1][j >> 1], (j & 1) ? 0x7632 : 0x5410);
  }
};

template <>
struct MicroTranspose<1> {
  /* Word w of result row j gathers byte j of source rows 4w..4w+3: two pair-gathers, one merge. */
  __device__ __forceinline__ static void run(const uint32_t (&in)[16][4], uint32_t (&out)[16][4]) {
#pragma unroll
    for (int j = 0; j < 16; j++) {
      const uint32_t b = j & 3, pick = b | ((b + 4) << 4);
#pragma unroll
      for (int w = 0; w < 4; w++) {
        uint32_t lo = __byte_perm(in[4 * w][j >> 2], in[4 * w + 1][j >> 2], pick);
        uint32_t hi = __byte_perm(in[4 * w + 2][j >> 2], in[4 * w + 3][j >> 2], pick);
        out[j][w] = __byte_perm(lo, hi, 0x5410);
      }
    }
  }
};

/*
 * Transposes this thread's micro-blocks of one share: `na` micro-rows starting at micro-row a0 of
 * the source stage (tile_rows rows, nbox boxes) into the share's result buffer.
 */
template <int S>
__device__ __forceinline__ void transposeShare(const uint8_t* src, uint8_t* dst, uint32_t tile_rows, uint32_t na,
                                               uint32_t a0, uint32_t nbox, uint32_t tid, uint32_t nthreads) {
  constexpr uint32_t m = 16 / S;
  const uint32_t items = dtrShareItems(na, nbox);
  for (uint32_t w = tid; w < items; w += nthreads) {
    const dtrMicroBlock mb = dtrMicroBlockOf(w, S, na);
    uint32_t in[m][4], out[m][4];
#pragma unroll
    for (uint32_t k = 0; k < m; k++) {
      const uint4 v = *reinterpret_cast<const uint4*>(src + dtrSrcOffset(S, tile_rows, mb, a0, k));
      in[k][0] = v.x, in[k][1] = v.y, in[k][2] = v.z, in[k][3] = v.w;
    }
    MicroTranspose<S>::run(in, out);
#pragma unroll
    for (uint32_t k = 0; k < m; k++)
      *reinterpret_cast<uint4*>(dst + dtrDstOffset(S, nbox, mb, k)) = make_uint4(out[k][0], out[k][1], out[k][2], out[k][3]);
  }
}

}  // namespace dtr

#endif
