#include "p2p_rule.h"

/*
 * p2p stores each rank's piece of every result row straight into the peer: a piece is the rank's
 * rows of A times the entry, as many bytes as that. Pieces of 16-32 bytes travel over NVLink as
 * partial lines, one to every result row, and are slower there than NCCL's whole messages plus its
 * unpack. Measured on 2 H200s (2026-11-23), ratio to the all-to-all, p2p / NCCL, by the piece:
 *   512 MiB per rank: 8 bytes (fp32 4 rows, fp16 8, int8 16) 2.67 / 2.81, 2.65 / 2.72, 3.19 / 3.18;
 *     16 bytes (fp32 8 rows, fp16 16, int8 32, c64 4) 2.55 / 1.69, 2.61 / 1.81, 3.20 / 2.51,
 *     2.63 / 1.84; 32 bytes (fp32 16 rows, fp16 32, int8 64, c64 8) 1.99 / 1.33, 2.13 / 1.57,
 *     3.20 / 1.98, 2.00 / 1.36; 64 bytes (fp32 32 rows, fp16 64, int8 128, c64 16) 1.33 / 1.38,
 *     1.11 / 1.56, 1.43 / 1.44, 1.29 / 1.37;
 *   32 MiB: 16 bytes fp32 1.99 / 1.72, int8 2.71 / 2.36; 32 bytes fp32 1.65 / 1.56, int8 2.37 / 1.81;
 *   16 MiB: 16 bytes fp32 1.95 / 1.75, int8 2.59 / 2.55; 32 bytes fp32 1.66 / 1.73, int8 2.03 / 2.00;
 *   8 MiB and less: p2p ahead or equal (its one launch against NCCL's several).
 * So NCCL for pieces of 16-32 bytes from 32 MiB per rank. Wider pieces are whole lines or nearly,
 * and the few-columns shapes (long pieces, few result rows) are p2p's: fp32 16777216 x 16 1.27 / 1.49.
 */
static const size_t kPartialPieceMin = 16, kPartialPieceMax = 32;
static const double kPartialPieceMinBytesPerRank = 32.0 * 1048576;

size_t dtrRowPieceBytes(const dtrGeometry* g) {
  /* Rank 0 holds the most rows (dtrSplit), so its piece is the widest. */
  return (size_t)dtrInRows(g, 0).count * g->entry_bytes;
}

int dtrP2pSuitsShape(const dtrGeometry* g) {
  const double bytesPerRank = (double)g->rows * (double)g->cols * (double)g->batch * (double)g->entry_bytes / g->nranks;
  const size_t piece = dtrRowPieceBytes(g);
  return !(piece >= kPartialPieceMin && piece <= kPartialPieceMax && bytesPerRank >= kPartialPieceMinBytesPerRank);
}
