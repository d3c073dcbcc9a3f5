#include "p2p_rule.h"

/*
 * p2p stores each rank's piece of every result row straight into the peer: a piece is the rank's
 * rows of A times the entry, as many bytes as that. Pieces of 16-32 bytes travel over NVLink as
 * partial lines, one to every result row, and are slower there than NCCL's whole messages plus its
 * unpack from 32 MiB per rank; narrower pieces and wider ones stay on p2p, and so do the few-columns
 * shapes (docs/design.md#p2p-rule).
 */
static const size_t kPartialPieceMin = 16, kPartialPieceMax = 32;
static const double kPartialPieceMinBytesPerRank = 32.0 * 1048576;

size_t dtrRowPieceBytes(const dtrGeometry* g) {
  /* Rank 0 holds the most rows (dtrSplit), so its piece is the widest. */
  return (size_t)dtrInRows(g, 0).count * g->entry_bytes;
}

int dtrP2pSuitsShape(const dtrGeometry* g) {
  const double bytesPerRank = dtrBytesPerRank(g);
  const size_t piece = dtrRowPieceBytes(g);
  return !(piece >= kPartialPieceMin && piece <= kPartialPieceMax && bytesPerRank >= kPartialPieceMinBytesPerRank);
}
