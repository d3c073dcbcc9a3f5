/* Whether auto's first choice inside a host, the one-pass p2p backend, suits a shape. */
#ifndef DTR_BACKEND_RULE_H
#define DTR_BACKEND_RULE_H

#include "core/geometry.h"

/* The widest piece of a result row that one rank writes (its rows of A times the entry), in bytes. */
size_t dtrRowPieceBytes(const dtrGeometry* g);

/* 1 where p2p is expected to be the faster backend for `g`, 0 where NCCL is. Depends only on the
 * global shape, so every rank decides alike. */
int dtrP2pSuitsShape(const dtrGeometry* g);

#endif
