/*
 * The distribution's index math, in one place: who owns which rows of A and of B, where each
 * block lives in A, in the send and receive segments and in B. Every backend, the CLI's
 * verification and the tests use these functions; nothing else computes an offset of the
 * distribution.
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

typedef struct {
  int64_t rows;        /* of A */
  int64_t cols;        /* of A */
  size_t entry_bytes;  /* element size * howmany */
  int nranks;
} dtrGeometry;

/* Rows of A held by rank r, and rows of B (= columns of A) held by rank r. */
static inline dtrRange dtrInRows(const dtrGeometry* g, int r) { return dtrSplit(g->rows, g->nranks, r); }
static inline dtrRange dtrOutRows(const dtrGeometry* g, int r) { return dtrSplit(g->cols, g->nranks, r); }

/*
 * Block (r, p) is A[rows of r, columns owned by p in B]. Rank r packs it transposed
 * (outRows(p).count x inRows(r).count entries, contiguous) into its send segment for p; rank p
 * receives it into its receive segment from r and copies it into B[rows of p, columns inRows(r)].
 * Segments are laid out in peer order; the self block has no segment (it goes straight A -> B).
 * Counts and offsets are in entries.
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
 * One local step of rank r, as a block of `rows` x `cols` entries read at src_offset with pitch
 * src_ld and written at dst_offset with pitch dst_ld (offsets and pitches in entries). A pack and
 * the self block are transposed (the result is cols x rows); an unpack is a plain copy. Empty
 * blocks have rows or cols 0.
 */
typedef struct {
  int64_t src_offset, src_ld;
  int64_t dst_offset, dst_ld;
  int64_t rows, cols;
} dtrBlock;

/* A's block for peer p, into r's send segment for p (p != r). */
dtrBlock dtrPackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p);
/* A's block for r itself, straight into B. */
dtrBlock dtrSelfBlock(const dtrGeometry* g, int r);
/* The segment received from q, into B's columns of q (q != r). */
dtrBlock dtrUnpackBlock(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q);

/*
 * Pipeline stages: stage s of `stages` moves, of every segment, the rows of B that
 * dtrSplit(rows of the segment, stages, s) gives, a contiguous piece of the segment. The pack of
 * that piece reads those columns of A's block; the unpack writes those rows of B. Sender and
 * receiver cut a segment the same way, so their message sizes match. stages = 1: the whole blocks.
 */
dtrBlock dtrPackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s);
dtrBlock dtrUnpackStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s);
/* The piece of r's send segment for p (of its receive segment from q) in stage s, in entries. */
dtrRange dtrSendStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int p, int stages, int s);
dtrRange dtrRecvStage(const dtrGeometry* g, const dtrExchangeLayout* l, int r, int q, int stages, int s);

/* Whether every segment and every stage piece starts on a multiple of `align` bytes in the send and
 * receive buffers: they are sums of multiples of each rank's A rows times the entry size. */
int dtrPiecesAligned(const dtrGeometry* g, size_t align);

/* 0 when rows * cols * entry_bytes and every local buffer fit in int64 / size_t. */
int dtrGeometryOverflows(int64_t rows, int64_t cols, size_t entry_bytes);

#ifdef __cplusplus
}
#endif

#endif
