/*
 * Test and benchmark support on the GPU, in a library of its own (dtr_support) that the shipped one
 * does not contain: the copy the kernels are measured against, the verification pattern of global
 * indices (pattern.h), and one raw step of the vector kernels for the layout test.
 */
#ifndef DTR_SUPPORT_H
#define DTR_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "support/pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copy with 16-byte accesses (1-byte ones on an unaligned head or tail). `unroll` 1: one load and one
 * store per thread, a block of 256 threads per 4 KB; 4: four independent loads per thread before
 * the stores, a persistent grid-stride loop; 0: TMA bulk copies through shared memory, one CTA per
 * multiprocessor. */
cudaError_t dtrCopyLaunch(void* dst, const void* src, size_t bytes, int unroll, cudaStream_t stream);

/*
 * Verification pattern (pattern.h): `slab` holds `rows` rows of `cols` entries, its first row being
 * global row `row_start`.
 *   Fill  : writes the pattern of A.
 *   Poison: writes the complement of B's expected values, so that an entry left unwritten is wrong.
 *   Check : counts the entries of B that differ from the transpose of A's pattern, adding to *wrong
 *           (a device counter).
 * For B, `cols` is the number of rows of A and `a_cols` the number of columns of A.
 */
cudaError_t dtrPatternFillLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start, size_t entry_bytes,
                                 cudaStream_t stream);
cudaError_t dtrPatternPoisonLaunch(void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols,
                                   size_t entry_bytes, cudaStream_t stream);
cudaError_t dtrPatternCheckLaunch(const void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols,
                                  size_t entry_bytes, unsigned long long* wrong, cudaStream_t stream);

/* The same on any box of an array (pattern.h): a pencil, a slab of A or of B. */
cudaError_t dtrPatternBoxLaunch(dtrPatternRole role, void* data, const dtrPatternBox* box, size_t entry_bytes,
                                unsigned long long* wrong, cudaStream_t stream);

/* For the layout test: one stage of the vector kernels' shared-memory step on a tile already in
 * swizzled layout (`stage`, tile_rows x 128 bytes), writing the raw swizzled result buffer. */
cudaError_t dtrDebugStageTranspose(const void* stage, void* result, uint32_t element_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
