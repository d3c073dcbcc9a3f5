#include "geometry.h"

void dtrExchangeLayoutFill(const dtrGeometry* g, int rank, dtrExchangeLayout* layout) {
  int64_t mine_in = dtrInRows(g, rank).count, mine_out = dtrOutRows(g, rank).count;
  int64_t send = 0, recv = 0;
  layout->nranks = g->nranks;
  for (int p = 0; p < g->nranks; p++) {
    int64_t sc = (p == rank) ? 0 : dtrOutRows(g, p).count * mine_in;
    int64_t rc = (p == rank) ? 0 : mine_out * dtrInRows(g, p).count;
    layout->send_count[p] = sc;
    layout->send_offset[p] = send;
    layout->recv_count[p] = rc;
    layout->recv_offset[p] = recv;
    send += sc;
    recv += rc;
  }
  layout->send_total = send;
  layout->recv_total = recv;
}

dtrBlock dtrPackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p) {
  const int64_t nIn = dtrInRows(g, r).count;
  dtrBlock b = {dtrOutRows(g, p).start, g->cols, l->send_offset[p], nIn, nIn, dtrOutRows(g, p).count};
  if (p == r) b.rows = b.cols = 0;
  return b;
}

dtrBlock dtrSelfBlock(const dtrGeometry* g, int r) {
  dtrBlock b = {dtrOutRows(g, r).start, g->cols, dtrInRows(g, r).start, g->rows, dtrInRows(g, r).count,
                dtrOutRows(g, r).count};
  return b;
}

dtrBlock dtrUnpackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q) {
  const int64_t width = dtrInRows(g, q).count;
  dtrBlock b = {l->recv_offset[q], width, dtrInRows(g, q).start, g->rows, dtrOutRows(g, r).count, width};
  if (q == r) b.rows = b.cols = 0;
  return b;
}

dtrBlock dtrPackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s) {
  dtrBlock b = dtrPackBlock(g, l, r, p);
  /* The pack's columns are the segment's rows (rows of B). */
  const dtrRange piece = dtrSplit(b.cols, stages, s);
  b.src_offset += piece.start;
  b.dst_offset += piece.start * b.dst_ld;
  b.cols = piece.count;
  return b;
}

dtrBlock dtrUnpackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s) {
  dtrBlock b = dtrUnpackBlock(g, l, r, q);
  const dtrRange piece = dtrSplit(b.rows, stages, s);
  b.src_offset += piece.start * b.src_ld;
  b.dst_offset += piece.start * b.dst_ld;
  b.rows = piece.count;
  return b;
}

dtrRange dtrSendStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s) {
  const dtrBlock b = dtrPackStage(g, l, r, p, stages, s);
  const dtrRange piece = {b.dst_offset, b.rows * b.cols};
  return piece;
}

dtrRange dtrRecvStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s) {
  const dtrBlock b = dtrUnpackStage(g, l, r, q, stages, s);
  const dtrRange piece = {b.src_offset, b.rows * b.cols};
  return piece;
}

int dtrPiecesAligned(const dtrGeometry* g, size_t align) {
  for (int r = 0; r < g->nranks; r++)
    if (((size_t)dtrInRows(g, r).count * g->entry_bytes) % align) return 0;
  return 1;
}

int dtrGeometryOverflows(int64_t rows, int64_t cols, size_t entry_bytes) {
  /* The whole matrix must be addressable in bytes by int64: every local offset then is too. */
  if (rows <= 0 || cols <= 0 || entry_bytes == 0) return 1;
  if ((uint64_t)rows > (uint64_t)INT64_MAX / (uint64_t)cols) return 1;
  uint64_t entries = (uint64_t)rows * (uint64_t)cols;
  if (entries > (uint64_t)INT64_MAX / entry_bytes) return 1;
  if (entries * entry_bytes > (uint64_t)SIZE_MAX) return 1;
  return 0;
}
