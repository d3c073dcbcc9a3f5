/*
 * The halo adjoint's arithmetic on the host (the cpu backend): boxes added into boxes scalar by scalar,
 * bit for bit as the GPU backends' kernel adds them (kernels/halo_launch.h says how each type adds).
 */
#ifndef DTR_HALO_SUM_H
#define DTR_HALO_SUM_H

#include <stddef.h>

#include "disttranspose.h"
#include "halo_geometry.h"
#include "halo_launch.h"

/* The scalar a data type's entries are made of. */
dtrHaloScalar dtrHaloScalarOf(dtrDataType_t type);

/* dst += src over the strided box c of entries of `e` bytes, each scalar in `scalar`'s arithmetic;
 * `move`: src = 0 afterwards. */
void dtrHaloHostSum(dtrHaloScalar scalar, char* src, char* dst, dtrHaloStrided c, size_t e, int move);

#endif
