/* Cache-blocked transpose on the host (the CPU backend's local step). Pitches and sizes in entries. */
#ifndef DTR_HOST_TRANSPOSE_H
#define DTR_HOST_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/geometry.h"

/* dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols; entries of `entry_bytes`. */
void dtrHostTranspose(const void* src, int64_t lds, void* dst, int64_t ldd, int64_t rows, int64_t cols,
                      size_t entry_bytes);

/* rows rows of `row_entries` entries from a pitch of lds into a pitch of ldd. */
void dtrHostCopy2d(const void* src, int64_t lds, void* dst, int64_t ldd, int64_t rows, int64_t row_entries,
                   size_t entry_bytes);

/* One local step of the distribution (geometry.h's dtrBlock, every batch) from src into dst. */
void dtrHostBlock(const void* src, void* dst, dtrBlock b, size_t entry_bytes);

#endif
