#include "geometry.h"

dtrGeometry dtrGeometryMatrix(int64_t rows, int64_t cols, size_t entry_bytes, int nranks) {
  dtrGeometry g = {rows, cols, entry_bytes, nranks, 1, dtrBatchOuter, 1, 1, 1};
  return g;
}

int64_t dtrInEntries(const dtrGeometry* g, int r) { return g->batch * dtrInRows(g, r).count * g->cols; }
int64_t dtrOutEntries(const dtrGeometry* g, int r) { return g->batch * dtrOutRows(g, r).count * g->rows; }

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    const int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* The pitch of a segment row of `entries` entries: padded to segment_align bytes. */
static int64_t segmentPitch(const dtrGeometry* g, int64_t entries) {
  if (g->segment_align <= 1) return entries;
  const int64_t a = (int64_t)g->segment_align, unit = a / gcd64(a, (int64_t)g->entry_bytes);
  return (entries + unit - 1) / unit * unit;
}

/*
 * A segment is a matrix of segment rows: rows of B (outer layout: [j][k][i], one row of B's
 * columns per batch) or rows of A (middle layout: [i][k][j]). Its rows and row pitch, for the
 * segment r sends to p (r's A rows, p's B rows); r == p has none.
 */
static dtrRange segmentShape(const dtrGeometry* g, int r, int p) {
  dtrRange shape = {0, 0}; /* start: rows, count: entries per row, padding included */
  if (r == p) return shape;
  const int64_t in = dtrInRows(g, r).count, out = dtrOutRows(g, p).count;
  shape.start = g->batch_layout == dtrBatchOuter ? out : in;
  shape.count = segmentPitch(g, g->batch * (g->batch_layout == dtrBatchOuter ? in : out));
  return shape;
}

void dtrExchangeLayoutFill(const dtrGeometry* g, int rank, dtrExchangeLayout* layout) {
  int64_t send = 0, recv = 0;
  layout->nranks = g->nranks;
  for (int p = 0; p < g->nranks; p++) {
    const dtrRange s = segmentShape(g, rank, p), q = segmentShape(g, p, rank);
    layout->send_count[p] = s.start * s.count;
    layout->send_offset[p] = send;
    layout->recv_count[p] = q.start * q.count;
    layout->recv_offset[p] = recv;
    send += layout->send_count[p];
    recv += layout->recv_count[p];
  }
  layout->send_total = send;
  layout->recv_total = recv;
}

static dtrBlock block(int64_t so, int64_t sld, int64_t dof, int64_t dld, int64_t rows, int64_t cols, int transpose) {
  dtrBlock b = {so, sld, dof, dld, rows, cols, transpose, 1, 0, 0};
  return b;
}

/*
 * A batch of copies as one: where the batch interleaves the rows on both sides (row i of copy k at
 * i * ld + k * stride, ld = batch * stride), one copy of rows (i, k); where it follows them (stride =
 * rows * ld), one copy of rows (k, i). Otherwise, as with padded segment rows, the batch stays.
 */
static dtrBlock foldBatch(dtrBlock b) {
  if (b.transpose || b.batch <= 1) return b;
  if (b.src_stride == b.rows * b.src_ld && b.dst_stride == b.rows * b.dst_ld) {
    b.rows *= b.batch;
    b.batch = 1;
  } else if (b.src_ld == b.batch * b.src_stride && b.dst_ld == b.batch * b.dst_stride) {
    b.rows *= b.batch;
    b.src_ld = b.src_stride;
    b.dst_ld = b.dst_stride;
    b.batch = 1;
  }
  return b;
}

/*
 * The blocks as whole segment rows (rows of a copy: one per segment row, the batch as the copy's
 * batch; pipeline stages cut these), before foldBatch.
 * Outer layout: the pack transposes A's rows (k, i), uniformly strided by cols, into the segment
 * [j][k][i]; the unpack copies each segment row j's batch of rows k into B's rows (j, k).
 * Middle layout: the pack copies A's rows (i, k) into segment row i's batch of rows k; the unpack
 * transposes the segment, seen as rows i of (k, j), into B's rows (k, j).
 */
static dtrBlock packRows(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p) {
  const int64_t nIn = dtrInRows(g, r).count, k = g->batch, out = dtrOutRows(g, p).count, j0 = dtrOutRows(g, p).start;
  const int64_t pitch = segmentShape(g, r, p).count;
  dtrBlock b;
  if (g->batch_layout == dtrBatchOuter) b = block(j0, g->cols, l->send_offset[p], pitch, k * nIn, out, 1);
  else {
    b = block(j0, k * g->cols, l->send_offset[p], pitch, nIn, out, 0);
    b.batch = k;
    b.src_stride = g->cols;
    b.dst_stride = out;
  }
  if (p == r) b.rows = b.cols = 0;
  return b;
}

static dtrBlock unpackRows(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q) {
  const int64_t nOut = dtrOutRows(g, r).count, k = g->batch, in = dtrInRows(g, q).count, i0 = dtrInRows(g, q).start;
  const int64_t pitch = segmentShape(g, q, r).count;
  dtrBlock b;
  if (g->batch_layout == dtrBatchOuter) {
    b = block(l->recv_offset[q], pitch, i0, k * g->rows, nOut, in, 0);
    b.batch = k;
    b.src_stride = in;
    b.dst_stride = g->rows;
  } else b = block(l->recv_offset[q], pitch, i0, g->rows, in, k * nOut, 1);
  if (q == r) b.rows = b.cols = 0;
  return b;
}

dtrBlock dtrPackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p) {
  return foldBatch(packRows(g, l, r, p));
}

dtrBlock dtrUnpackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q) {
  return foldBatch(unpackRows(g, l, r, q));
}

/* A direct block is a batch of transposes: A's (i, j) of batch k lands in p's B, whose rows interleave
 * the batch with the rows of other ranks (outer) or whose batch interleaves A's rows (middle). */
dtrBlock dtrDirectBlock(const dtrGeometry* g, int r, int p) {
  const dtrRange in = dtrInRows(g, r), out = dtrOutRows(g, p);
  const int64_t k = g->batch;
  dtrBlock b;
  if (g->batch_layout == dtrBatchOuter) {
    b = block(out.start, g->cols, in.start, k * g->rows, in.count, out.count, 1);
    b.src_stride = in.count * g->cols;
    b.dst_stride = g->rows;
  } else {
    b = block(out.start, k * g->cols, in.start, g->rows, in.count, out.count, 1);
    b.src_stride = g->cols;
    b.dst_stride = out.count * g->rows;
  }
  b.batch = k;
  if (k == 0) b.rows = b.cols = 0;
  return b;
}

dtrBlock dtrSelfBlock(const dtrGeometry* g, int r) { return dtrDirectBlock(g, r, r); }

/* The stash's pitch and batch stride: rows interleaved with the batch where A has them so (the
 * middle layout, A[i][k][j]), else batch by batch. */
static void stashLayout(dtrBlock k, int64_t* ld, int64_t* stride) {
  if (k.batch > 1 && k.src_ld == k.batch * k.src_stride) {
    *ld = k.batch * k.cols;
    *stride = k.cols;
  } else {
    *ld = k.cols;
    *stride = k.rows * k.cols;
  }
}

dtrBlock dtrStashBlock(const dtrGeometry* g, int r) {
  dtrBlock s = dtrSelfBlock(g, r);
  if (!s.rows || !s.cols || !s.batch) return s;
  s.transpose = 0;
  s.dst_offset = 0;
  stashLayout(s, &s.dst_ld, &s.dst_stride);
  return foldBatch(s);
}

dtrBlock dtrUnstashBlock(const dtrGeometry* g, int r) {
  dtrBlock k = dtrSelfBlock(g, r);
  stashLayout(k, &k.src_ld, &k.src_stride);
  k.src_offset = 0;
  return k;
}

int64_t dtrStashEntries(const dtrGeometry* g, int r) {
  const dtrBlock k = dtrSelfBlock(g, r);
  return k.rows * k.cols * k.batch;
}

/* Chunks cut the batch where it is A's outermost axis (and more than one matrix), else A's rows. */
static int chunksCutBatch(const dtrGeometry* g) { return g->batch_layout == dtrBatchOuter && g->batch > 1; }

/* Chunk k of r's A along the cut axis: batch indices, or rows (whole granules). */
static dtrRange chunkRange(const dtrGeometry* g, int r, int chunks, int k) {
  if (chunksCutBatch(g)) return dtrSplit(g->batch, chunks, k);
  /* Rows counted from r's first (its slab of A starts there). */
  return dtrSplitGranules(dtrInRows(g, r).count, g->row_granule, chunks, k);
}

dtrRange dtrChunkEntries(const dtrGeometry* g, int r, int chunks, int k) {
  const dtrRange c = chunkRange(g, r, chunks, k);
  /* A batch of A is in.count rows of cols; a row of A in the middle layout holds the whole batch. */
  const int64_t unit = chunksCutBatch(g) ? dtrInRows(g, r).count * g->cols : g->batch * g->cols;
  const dtrRange e = {c.start * unit, c.count * unit};
  return e;
}

dtrBlock dtrChunkDirectBlock(const dtrGeometry* g, int r, int p, int chunks, int k) {
  dtrBlock b = dtrDirectBlock(g, r, p);
  const dtrRange c = chunkRange(g, r, chunks, k);
  if (chunksCutBatch(g)) {
    b.src_offset += c.start * b.src_stride;
    b.dst_offset += c.start * b.dst_stride;
    b.batch = c.count;
  } else {
    /* A's rows are the transpose's rows: B's columns from the chunk's first row on. */
    b.src_offset += c.start * b.src_ld;
    b.dst_offset += c.start;
    b.rows = c.count;
  }
  if (!b.rows || !b.cols || !b.batch) b.rows = b.cols = b.batch = 0;
  return b;
}

dtrBlock dtrChunkPackBlock(const dtrGeometry* g, int r, int p, int chunks, int k) {
  dtrBlock b = dtrChunkDirectBlock(g, r, p, chunks, k);
  b.dst_offset = 0;
  b.dst_ld = b.rows;
  b.dst_stride = b.rows * b.cols;
  return b;
}

dtrBlock dtrChunkUnpackBlock(const dtrGeometry* g, int r, int p, int chunks, int k) {
  const dtrBlock d = dtrChunkDirectBlock(g, r, p, chunks, k);
  /* Each of the block's B rows (its columns) is one compact row of the chunk's A rows. */
  dtrBlock b = block(0, d.rows, d.dst_offset, d.dst_ld, d.cols, d.rows, 0);
  b.batch = d.batch;
  b.src_stride = d.rows * d.cols;
  b.dst_stride = d.dst_stride;
  return foldBatch(b);
}

int64_t dtrChunkSegmentEntries(const dtrGeometry* g, int r, int p, int chunks, int k) {
  const dtrBlock d = dtrChunkDirectBlock(g, r, p, chunks, k);
  return d.rows * d.cols * d.batch;
}

/* Restricts a block of whole segment rows (packRows, unpackRows) to the segment rows of `piece`: the
 * columns of a transpose that writes the segment, else its rows (a transpose that reads the segment
 * starts its result rows further in, a copy its rows). */
static dtrBlock cutBlock(dtrBlock b, dtrRange piece, int segmentIsDst) {
  if (b.transpose && segmentIsDst) {
    b.src_offset += piece.start;
    b.dst_offset += piece.start * b.dst_ld;
    b.cols = piece.count;
  } else {
    b.src_offset += piece.start * b.src_ld;
    b.dst_offset += piece.start * (b.transpose ? 1 : b.dst_ld);
    b.rows = piece.count;
  }
  return b;
}

dtrBlock dtrPackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s) {
  const dtrBlock b = packRows(g, l, r, p);
  if (p == r) return b;
  return foldBatch(cutBlock(b, dtrSplit(segmentShape(g, r, p).start, stages, s), 1));
}

dtrBlock dtrUnpackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s) {
  const dtrBlock b = unpackRows(g, l, r, q);
  if (q == r) return b;
  return foldBatch(cutBlock(b, dtrSplit(segmentShape(g, q, r).start, stages, s), 0));
}

static dtrRange stagePiece(int64_t offset, dtrRange shape, int stages, int s) {
  const dtrRange rows = dtrSplit(shape.start, stages, s);
  const dtrRange piece = {offset + rows.start * shape.count, rows.count * shape.count};
  return piece;
}

dtrRange dtrSendStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s) {
  return stagePiece(l->send_offset[p], segmentShape(g, r, p), stages, s);
}

dtrRange dtrRecvStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s) {
  return stagePiece(l->recv_offset[q], segmentShape(g, q, r), stages, s);
}

int dtrPiecesAligned(const dtrGeometry* g, size_t align) {
  for (int r = 0; r < g->nranks; r++) {
    const int64_t rows = g->batch_layout == dtrBatchOuter ? dtrInRows(g, r).count : dtrOutRows(g, r).count;
    if (((size_t)segmentPitch(g, g->batch * rows) * g->entry_bytes) % align) return 0;
  }
  return 1;
}

int dtrGeometryOverflows(int64_t rows, int64_t cols, int64_t batch, size_t entry_bytes) {
  /* The whole array must be addressable in bytes by int64: every local offset then is too. */
  if (rows <= 0 || cols <= 0 || batch < 0 || entry_bytes == 0) return 1;
  if ((uint64_t)rows > (uint64_t)INT64_MAX / (uint64_t)cols) return 1;
  uint64_t entries = (uint64_t)rows * (uint64_t)cols;
  if (batch > 1 && entries > (uint64_t)INT64_MAX / (uint64_t)batch) return 1;
  if (batch > 1) entries *= (uint64_t)batch;
  if (entries > (uint64_t)INT64_MAX / entry_bytes) return 1;
  if (entries * entry_bytes > (uint64_t)SIZE_MAX) return 1;
  return 0;
}

/* ---- pencils --------------------------------------------------------------------------------- */

/* The axis split over pr and the one split over pc, per pencil (the third is whole). */
static const int overRows[3] = {1, 0, 0}, overCols[3] = {2, 2, 1};

int dtrPencilAxisSplit(int pencil, int axis) {
  return axis == overRows[pencil] ? 1 : axis == overCols[pencil] ? 2 : 0;
}

dtrPencilExtent dtrPencilBoxOf(const int64_t shape[3], int pr, int pc, int a, int b, int pencil) {
  static const int order[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
  dtrPencilExtent box;
  for (int d = 0; d < 3; d++) {
    box.start[d] = 0;
    box.size[d] = shape[d];
    box.order[d] = order[pencil][d];
  }
  const dtrRange ra = dtrSplit(shape[overRows[pencil]], pr, a), rb = dtrSplit(shape[overCols[pencil]], pc, b);
  box.start[overRows[pencil]] = ra.start;
  box.size[overRows[pencil]] = ra.count;
  box.start[overCols[pencil]] = rb.start;
  box.size[overCols[pencil]] = rb.count;
  return box;
}

int dtrPencilTransposeGeometry(const int64_t shape[3], int pr, int pc, int a, int b, int from, int to,
                               size_t entry_bytes, dtrGeometry* g, dtrGridGroup* group) {
  const int64_t nx = shape[0], ny = shape[1], nz = shape[2];
  const int64_t zb = dtrSplit(nz, pc, b).count, xa = dtrSplit(nx, pr, a).count;
  dtrGeometry m = {0, 0, entry_bytes, 0, 1, dtrBatchOuter, 1, 1, 1};
  /* X<->Y: rows y (X) / x (Y), the batch z; Y<->Z: rows z (Y) / y (Z), the batch x. */
  if (from == 0 && to == 1) m.rows = ny, m.cols = nx, m.batch = zb;
  else if (from == 1 && to == 0) m.rows = nx, m.cols = ny, m.batch = zb, m.batch_layout = dtrBatchMiddle;
  else if (from == 1 && to == 2) m.rows = nz, m.cols = ny, m.batch = xa;
  else if (from == 2 && to == 1) m.rows = ny, m.cols = nz, m.batch = xa, m.batch_layout = dtrBatchMiddle;
  /* Slabs: an X-pencil [z][y][x] is a matrix of z rows of (y, x) planes, split by y in Z [y][x][z]. */
  else if (from == 0 && to == 2 && pr == 1) m.rows = nz, m.cols = ny * nx, m.col_granule = nx;
  else if (from == 2 && to == 0 && pr == 1) m.rows = ny * nx, m.cols = nz, m.row_granule = nx;
  else return -1;
  const int columnGroup = (from == 0 && to == 1) || (from == 1 && to == 0);
  m.nranks = columnGroup ? pr : pc;
  *group = columnGroup ? dtrGridColumn : dtrGridRow;
  *g = m;
  return 0;
}

dtrPadPieces dtrPadPiecesOf(dtrPadAxis a, dtrRange r) {
  dtrPadPieces p = {0, {0, 0}, {0, 0}, {0, 0}};
  const int64_t end = r.start + r.count, top = a.low + (a.padded - a.kept);
  if (top == a.low) { /* no gap: one piece */
    if (r.count) p.pieces = 1, p.count[0] = r.count;
    return p;
  }
  /* Below the gap: padded [start, low) is kept [start, low). */
  if (r.start < a.low && r.count) {
    const int64_t last = end < a.low ? end : a.low;
    p.kept[0] = 0, p.padded[0] = 0, p.count[0] = last - r.start;
    p.pieces = 1;
  }
  /* Above it: padded [top, end) is kept [top - gap, end - gap), after the piece below. */
  if (end > top && r.count) {
    const int64_t first = r.start > top ? r.start : top;
    p.kept[p.pieces] = p.pieces ? p.count[0] : 0;
    p.padded[p.pieces] = first - r.start;
    p.count[p.pieces] = end - first;
    p.pieces++;
  }
  return p;
}
