/*
 * The distribution's index math, in one place: who owns which rows of A and of B, where each
 * block lives in A, in the send and receive segments and in B, and which boxes the pencils of a
 * 3-D array are. Every backend, the CLI's verification and the tests use these functions; nothing
 * else computes an offset of the distribution.
 */
#ifndef DTR_GEOMETRY_H
#define DTR_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t start;
  int64_t count;
} dtrRange;

/* Balanced split of n items over `parts`: the first n % parts parts get one more. */
static inline dtrRange dtrSplit(int64_t n, int parts, int part) {
  int64_t base = n / parts, extra = n % parts;
  dtrRange r;
  r.start = part * base + (part < extra ? part : extra);
  r.count = base + (part < extra ? 1 : 0);
  return r;
}

/* The part of that split that holds item i (0 <= i < n): the inverse of dtrSplit. */
static inline int dtrSplitOwner(int64_t n, int parts, int64_t i) {
  const int64_t base = n / parts, extra = n % parts;
  /* The first `extra` parts hold base + 1 items each, the rest base. */
  if (i < extra * (base + 1)) return (int)(i / (base + 1));
  return (int)(extra + (i - extra * (base + 1)) / base);
}

/* The same split in whole granules of g items (n a multiple of g). */
static inline dtrRange dtrSplitGranules(int64_t n, int64_t g, int parts, int part) {
  dtrRange r = dtrSplit(n / g, parts, part);
  r.start *= g;
  r.count *= g;
  return r;
}

/*
 * A batch of `batch` matrices transposed together (the third axis of a pencil, the same on every
 * rank); batch 1 is the plain 2-D transpose. Where the batch axis sits in memory, indices as
 * (slowest, ..., fastest), i = a row of A (split over the ranks in A), j = a column of A (split
 * over the ranks in B), k = the batch:
 *   dtrBatchOuter  A[k][i][j] -> B[j][k][i]   (X->Y, Y->Z of pencils whose own axis is fastest)
 *   dtrBatchMiddle A[i][k][j] -> B[k][j][i]   (the inverses: Y->X, Z->Y)
 */
typedef enum { dtrBatchOuter = 0, dtrBatchMiddle = 1 } dtrBatchLayout;

typedef struct {
  int64_t rows;        /* of A */
  int64_t cols;        /* of A */
  size_t entry_bytes;  /* element size * howmany */
  int nranks;
  int64_t batch;       /* >= 1 */
  dtrBatchLayout batch_layout;
  /* A's rows (B's rows) are split over the ranks in whole granules of this many: a slab of a 3-D
   * array seen as a matrix whose rows or columns are planes. rows % row_granule == 0, likewise. */
  int64_t row_granule, col_granule;
  /* Bytes to which every segment row is padded, so that every message and stage piece starts aligned
   * (NCCL slows down by up to 70 % on unaligned ones); 1: none. A padded segment row of a batch holds
   * one row per matrix of the batch, then the padding: its packs or unpacks copy the batch as a batch
   * of 2-D copies (dtrBlock.batch) instead of one 2-D copy of uniformly strided rows. */
  size_t segment_align;
} dtrGeometry;

/* The 2-D transpose of a rows x cols matrix on nranks ranks (segments unpadded). */
dtrGeometry dtrGeometryMatrix(int64_t rows, int64_t cols, size_t entry_bytes, int nranks);

/* Rows of A held by rank r, and rows of B (= columns of A) held by rank r. */
static inline dtrRange dtrInRows(const dtrGeometry* g, int r) {
  return dtrSplitGranules(g->rows, g->row_granule, g->nranks, r);
}
static inline dtrRange dtrOutRows(const dtrGeometry* g, int r) {
  return dtrSplitGranules(g->cols, g->col_granule, g->nranks, r);
}
/* The bytes of A a rank holds on average (rows x cols x batch x entry / nranks): what the size rules
 * go by. */
static inline double dtrBytesPerRank(const dtrGeometry* g) {
  return (double)g->rows * (double)g->cols * (double)g->batch * (double)g->entry_bytes / g->nranks;
}
/* Entries of rank r's slab of A and of B (batch included). */
int64_t dtrInEntries(const dtrGeometry* g, int r);
int64_t dtrOutEntries(const dtrGeometry* g, int r);

/*
 * Block (r, p) is A[batch, rows of r, columns owned by p in B]. Rank r packs it (transposed or
 * copied, by batch layout) into its send segment for p; rank p receives it into its receive
 * segment from r and unpacks it (copied or transposed) into B. Segments are laid out in peer
 * order; the self block has no segment (it goes straight A -> B). Counts and offsets are in
 * entries.
 */
typedef struct {
  int nranks;
  int64_t* send_count;   /* [nranks] entries this rank sends to p (0 for itself) */
  int64_t* send_offset;  /* [nranks] offset of that segment in the send buffer */
  int64_t* recv_count;   /* [nranks] entries this rank receives from q (0 for itself) */
  int64_t* recv_offset;  /* [nranks] */
  int64_t send_total, recv_total;
} dtrExchangeLayout;

/* Fills a layout whose four arrays the caller provides (nranks each). */
void dtrExchangeLayoutFill(const dtrGeometry* g, int rank, dtrExchangeLayout* layout);

/*
 * One local step of rank r: a block of `rows` x `cols` entries read at src_offset with pitch src_ld
 * and written at dst_offset with pitch dst_ld (offsets and pitches in entries), transposed (the
 * result is cols x rows) or copied; `batch` such blocks, the b-th offset by b * src_stride and
 * b * dst_stride. Empty blocks have rows or cols 0.
 */
typedef struct {
  int64_t src_offset, src_ld;
  int64_t dst_offset, dst_ld;
  int64_t rows, cols;
  int transpose;
  int64_t batch, src_stride, dst_stride;
} dtrBlock;

/* A's block for peer p, into r's send segment for p (p != r). */
dtrBlock dtrPackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p);
/* A's block for r itself, straight into B. */
dtrBlock dtrSelfBlock(const dtrGeometry* g, int r);
/* A's block for p, straight into p's B (the one-pass path; offsets in p's B): dtrSelfBlock for p = r. */
dtrBlock dtrDirectBlock(const dtrGeometry* g, int r, int p);
/* The segment received from q, into B's columns of q (q != r). */
dtrBlock dtrUnpackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q);

/*
 * In-place executes (A and B in one buffer): rank r's own block is set aside in a compact copy, the
 * stash, before anything is written into B, and transposed from there once the exchange is done.
 * The stash keeps the order of A's rows and batch (a copy whose batch folds into its rows where A's
 * layout allows, one 2-D copy then); dtrStashEntries is its size.
 */
dtrBlock dtrStashBlock(const dtrGeometry* g, int r);
dtrBlock dtrUnstashBlock(const dtrGeometry* g, int r);
int64_t dtrStashEntries(const dtrGeometry* g, int r);

/*
 * Pipeline stages: stage s of `stages` moves, of every segment, the segment rows that
 * dtrSplit(rows of the segment, stages, s) gives, a contiguous piece of the segment (a segment's
 * rows are rows of B in the outer batch layout, rows of A in the middle one). Sender and receiver
 * cut a segment the same way, so their message sizes match. stages = 1: the whole blocks.
 */
dtrBlock dtrPackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s);
dtrBlock dtrUnpackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s);
/* The piece of r's send segment for p (of its receive segment from q) in stage s, in entries. */
dtrRange dtrSendStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s);
dtrRange dtrRecvStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s);

/*
 * Chunks: an exchange cut along the slowest axis of A, so that the local FFT pass over one chunk of a
 * pencil can run while another chunk is exchanged. Chunk k of `chunks` is a contiguous range of rank
 * r's A: a range of the batch where the batch is outermost and holds more than one matrix (A[k][i][j]:
 * the pencil transposes X->Y and Y->Z), else a range of A's rows in whole granules (slabs, and the
 * middle layout A[i][k][j] of the inverses). Every rank cuts its own A the same way (dtrSplit), so
 * the pieces of a chunk that reach a rank are known to it from the sender's rank alone.
 */
/* The entries of r's A in chunk k (a contiguous range). */
dtrRange dtrChunkEntries(const dtrGeometry* g, int r, int chunks, int k);
/* r's block for p restricted to chunk k of r's A, straight into p's B (dtrDirectBlock's offsets). */
dtrBlock dtrChunkDirectBlock(const dtrGeometry* g, int r, int p, int chunks, int k);
/* The same block through a message: packed by r into a compact segment at offset 0 (its B rows one
 * after another, each of the chunk's A rows; batch after batch), and unpacked by p from that segment
 * into its B. Their entries: dtrChunkSegmentEntries. */
dtrBlock dtrChunkPackBlock(const dtrGeometry* g, int r, int p, int chunks, int k);
dtrBlock dtrChunkUnpackBlock(const dtrGeometry* g, int r, int p, int chunks, int k);
int64_t dtrChunkSegmentEntries(const dtrGeometry* g, int r, int p, int chunks, int k);

/* Whether every segment and every stage piece starts on a multiple of `align` bytes in the send and
 * receive buffers: they are sums of multiples of one segment row, whose length is a rank's A rows
 * (outer layout) or B rows (middle layout) times the batch and the entry size. */
int dtrPiecesAligned(const dtrGeometry* g, size_t align);

/* 0 when rows * cols * batch * entry_bytes and every local buffer fit in int64 / size_t. */
int dtrGeometryOverflows(int64_t rows, int64_t cols, int64_t batch, size_t entry_bytes);

/* ---- 3-D arrays on a pr x pc process grid ---------------------------------------------------- */

/*
 * A global nx x ny x nz array; grid coordinates (a, b), a < pr, b < pc. Each pencil holds all of its
 * own axis, which is the fastest in memory (the others follow cyclically, cuDecomp's
 * axis-contiguous layout):
 *   X-pencil: x all, y split over pr by a, z over pc by b; memory [z][y][x]
 *   Y-pencil: y all, x split over pr by a, z over pc by b; memory [x][z][y]
 *   Z-pencil: z all, x split over pr by a, y over pc by b; memory [y][x][z]
 * So X<->Y runs among the ranks of one b (pr of them), Y<->Z among those of one a (pc of them), and
 * on a 1 x pc grid (slabs) X<->Z among all ranks.
 */
typedef struct {
  int64_t start[3];  /* first global index along x, y, z */
  int64_t size[3];   /* extent along x, y, z */
  int order[3];      /* the axes in memory, fastest first (0 = x, 1 = y, 2 = z) */
} dtrPencilExtent;

dtrPencilExtent dtrPencilBoxOf(const int64_t shape[3], int pr, int pc, int a, int b, int pencil);

/* Which grid dimension splits `axis` (0 = x, 1 = y, 2 = z) of `pencil`: 1 pr (by a: the ranks of a
 * grid column, dtrGridColumn), 2 pc (by b: a grid row, dtrGridRow), 0 none (the pencil's own axis). */
int dtrPencilAxisSplit(int pencil, int axis);

/* The sub-communicator a pencil transpose runs on. */
typedef enum { dtrGridColumn = 0 /* the ranks of one b */, dtrGridRow = 1 /* the ranks of one a */ } dtrGridGroup;

/*
 * A pencil transpose as a batched distributed transpose: its geometry (nranks: the group's size)
 * and group, for a rank at (a, b). Returns 0, or -1 where the pair of pencils is not a transpose
 * of this grid (the same pencil, or X<->Z with pr != 1).
 */
int dtrPencilTransposeGeometry(const int64_t shape[3], int pr, int pc, int a, int b, int from, int to,
                               size_t entry_bytes, dtrGeometry* g, dtrGridGroup* group);

/* ---- Kept modes of a padded spectrum (the 3/2 rule) ------------------------------------------ */

/*
 * Along one axis of a spectrum padded for dealiasing: `kept` modes within `padded` (>= kept) padded
 * ones. The first `low` kept modes sit at their own index, the other kept - low at the top, shifted by
 * the gap g = padded - kept; the g padded modes between them are zero. The padded axis is what the
 * pencils split, so a rank's range of it holds a contiguous range of kept modes (maybe none), in at
 * most two pieces, one below the gap and one above.
 */
typedef struct {
  int64_t kept, padded, low;
} dtrPadAxis;

/* A complex axis of n modes padded to m, in NumPy's order: k < ceil(n / 2) low, the rest (the negative
 * frequencies, and for an even n the Nyquist mode as NumPy's order puts it, at -n / 2) high. An axis
 * that real-to-complex halves, of n real points padded to m: n / 2 + 1 of m / 2 + 1 modes, all low. */
static inline dtrPadAxis dtrPadAxisComplex(int64_t n, int64_t m) {
  const dtrPadAxis a = {n, m, (n + 1) / 2};
  return a;
}
static inline dtrPadAxis dtrPadAxisHalved(int64_t n, int64_t m) {
  const dtrPadAxis a = {n / 2 + 1, m / 2 + 1, n / 2 + 1};
  return a;
}

/* Kept modes among padded indices [0, i). */
static inline int64_t dtrPadKeptBelow(dtrPadAxis a, int64_t i) {
  const int64_t gap = a.padded - a.kept;
  if (i <= a.low) return i;
  if (i <= a.low + gap) return a.low;
  return i - gap;
}

/* The kept modes of the padded range r, as a range of kept indices. */
static inline dtrRange dtrPadKeptRange(dtrPadAxis a, dtrRange r) {
  const int64_t first = dtrPadKeptBelow(a, r.start);
  const dtrRange k = {first, dtrPadKeptBelow(a, r.start + r.count) - first};
  return k;
}

/* The pieces of the padded range r that hold kept modes: piece p is count[p] modes, at kept[p] from the
 * start of r's kept range and at padded[p] from the start of r. */
typedef struct {
  int pieces;
  int64_t kept[2], padded[2], count[2];
} dtrPadPieces;
dtrPadPieces dtrPadPiecesOf(dtrPadAxis a, dtrRange r);

#ifdef __cplusplus
}
#endif

#endif
