/* The verification pattern (kernels/pattern.h) on host slabs: the CPU backend's checks in the CLI
 * and in the tests. Same arguments as the GPU launchers in kernels/launch.h; dtrPatternApply serves
 * either kind of memory. */
#ifndef DTR_PATTERN_HOST_H
#define DTR_PATTERN_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "disttranspose.h"
#include "pattern.h"

void dtrHostPatternFill(void* slab, int64_t rows, int64_t cols, int64_t row_start, size_t entry_bytes);
void dtrHostPatternPoison(void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols, size_t entry_bytes);
/* Entries of B that differ from the transpose of A's pattern. */
uint64_t dtrHostPatternCheck(const void* slab, int64_t rows, int64_t cols, int64_t row_start, int64_t a_cols,
                             size_t entry_bytes);

/* Any box (pattern.h): fills, poisons, or returns the entries that differ from the pattern. */
uint64_t dtrHostPatternBox(dtrPatternRole role, void* data, const dtrPatternBox* box, size_t entry_bytes);

/* Fill, poison or check a box on the GPU (gpu != 0; `counter` a device word; ordered on `stream`, and
 * waited for when checking) or on the host; a check adds the wrong entries to *wrong. NULL data: no
 * entries. The tests and the CLI use it on the memory of either backend. */
cudaError_t dtrPatternApply(int gpu, dtrPatternRole role, void* data, const dtrPatternBox* box, size_t entry_bytes,
                            unsigned long long* counter, cudaStream_t stream, uint64_t* wrong);

/* The pattern box of a pencil box of a global nx x ny x nz array (index x + nx * (y + ny * z)). */
dtrPatternBox dtrPatternBoxOfPencil(const dtrBox_t* box, const int64_t shape[3]);

#endif
