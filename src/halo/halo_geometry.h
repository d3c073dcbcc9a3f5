/*
 * The index math of a halo exchange on a pencil, in one place, for every backend: which cells of the
 * padded array each rank receives from whom, sends to whom and copies within itself, and the local
 * wraps of the axes no rank shares. Coordinates are padded ones (0 is the first halo cell) along x, y,
 * z; the split of each axis is geometry.h's (dtrSplit, dtrSplitOwner).
 *
 * The axes run one after another. A split axis (its grid group has more than one rank) is a step of
 * its own: every halo cell along it, over the written range of the other two axes, comes from the
 * rank that owns its global cell (several ranks where the halo is wider than the neighbours' boxes;
 * this rank itself where a periodic halo wraps onto its own box). An axis of one rank (the pencil's
 * own axis, or a grid dimension of 1) only wraps locally, if periodic: those wraps run in one local
 * pass over the written ranges of all axes, part of it beside the steps (the cells no step reads or
 * writes) and the rest after them. A later step or pass rewrites every halo cell that an earlier
 * step carried before its own axis was done, so that each step may move whole padded planes.
 *
 * The adjoint (every halo cell added into the cell it copies) is the same pieces backwards: the passes
 * and steps in reverse order, each piece sent back to its owner and added there, each copy's cells
 * added into its source; the order of the sums into one cell is dtrHaloSumOrder's.
 */
#ifndef DTR_HALO_GEOMETRY_H
#define DTR_HALO_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A box of the padded array: first cell and extent along x, y, z. */
typedef struct {
  int64_t start[3];
  int64_t count[3];
} dtrHaloBox;

/* A copy within the padded array (a step's own cells, or a local wrap). */
typedef struct {
  dtrHaloBox dst;
  int64_t src[3]; /* the first source cell; the source box has dst's extent */
} dtrHaloCopy;

/* One message piece: a box of the sender's array (send) or of the receiver's (receive), at `offset`
 * entries into the segment of that pair of ranks (its pieces one after another, each dense in the
 * pencil's memory order). */
typedef struct {
  int peer;       /* group rank */
  dtrHaloBox box;
  int64_t offset; /* entries into the pair's segment */
  int64_t entries;
  int64_t remote; /* a send's first cell along the step's axis in its receiver's padded array */
} dtrHaloPiece;

typedef struct {
  int axis;
  int split;            /* geometry.h's dtrPencilAxisSplit: 1 the grid's column group, 2 its row group */
  int nranks, rank;     /* of the group */
  dtrHaloPiece* recvs;  /* in the order the pieces travel, peer by peer */
  int nrecvs;
  dtrHaloPiece* sends;
  int nsends;
  dtrHaloCopy* selfs;   /* cells of this rank's own box */
  int nselfs;
  int64_t* sendCount;   /* [nranks] entries to each group rank (0 to itself) */
  int64_t* sendOffset;  /* [nranks] its segment in the send buffer */
  int64_t* recvCount;   /* [nranks] */
  int64_t* recvOffset;  /* [nranks] */
  int64_t* peerOffset;  /* [nranks] where this rank's segment starts in each receiver's receive buffer */
  int64_t* ownerOffset; /* [nranks] where this rank's segment starts in each sender's send layout: the
                           adjoint sends the pieces back the way they came, there */
  int64_t sendTotal, recvTotal;
  int64_t safe[2];      /* padded range along the axis that no piece of this step reads or writes */
} dtrHaloStep;

typedef struct {
  int64_t shape[3];
  int halo[3], periodic[3];
  int64_t start[3], size[3]; /* this rank's box */
  int order[3];              /* memory order, fastest first */
  int64_t padded[3];         /* size + 2 halo along x, y, z */
  int64_t lo[3], hi[3];      /* the written range along each axis: the interior and the halo cells some
                                step or wrap writes (all of them where periodic; those inside the domain
                                where not) */
  dtrHaloStep steps[3];
  int nsteps;
  dtrHaloCopy* beside;       /* local wraps that run beside the steps */
  int nbeside;
  dtrHaloCopy* after;        /* and those after them */
  int nafter;
} dtrHaloLayout;

/* The group of the axis's split for a rank at grid coordinates (a, b): its size and rank in it. */
void dtrHaloAxisGroup(int pencil, int axis, int pr, int pc, int a, int b, int* nranks, int* rank);

/*
 * The layout of rank (a, b) of a pr x pc grid. Widths must be >= 0, and at most the axis's extent
 * where it is periodic (the door checks). Returns 0, or -1 where a host allocation failed.
 */
int dtrHaloLayoutMake(const int64_t shape[3], int pencil, int pr, int pc, int a, int b, const int halo[3],
                      const int periodic[3], dtrHaloLayout* layout);
void dtrHaloLayoutFree(dtrHaloLayout* layout);

/*
 * The adjoint's order of a step's sums into this rank's box: the group's ranks in group order, this
 * rank's own cells (selfs) in its place among them, each rank's pieces in their order (the low side's
 * runs, then the high side's). The k-th of the nsends + nselfs sums: i < nsends is sends[i] (the cells
 * that came back from that receiver), else selfs[i - nsends].
 */
int dtrHaloSumOrder(const dtrHaloStep* s, int k);

/* Whether two boxes share a cell. */
int dtrHaloBoxesMeet(const dtrHaloBox* a, const dtrHaloBox* b);
/* The cells a copy reads. */
dtrHaloBox dtrHaloSourceOf(const dtrHaloCopy* copy);

/* Entries of a box and its first entry's offset in the padded array. */
int64_t dtrHaloBoxEntries(const dtrHaloBox* box);
int64_t dtrHaloOffset(const dtrHaloLayout* l, const int64_t cell[3]);
/* Whether the box's cells are one contiguous run of the padded array (a step may send or receive it
 * in place, without a pack). */
int dtrHaloBoxContiguous(const dtrHaloLayout* l, const dtrHaloBox* box);

/* A copy of a box between two arrays laid out in the pencil's memory order, in that order's terms:
 * width entries (the fastest axis), rows of them, planes of rows; pitches in entries; offsets of the
 * first entry. A dense segment has pitches width and width x rows. */
typedef struct {
  int64_t srcOffset, dstOffset;
  int64_t srcPitch[2], dstPitch[2];
  int64_t count[3];
} dtrHaloStrided;

/* Box -> its dense segment at `offset` (pack), segment -> box (unpack), box -> box (a copy). */
dtrHaloStrided dtrHaloPackOf(const dtrHaloLayout* l, const dtrHaloBox* box, int64_t offset);
/* A send piece of step s from this rank's array straight into its receiver's padded array: the same
 * cells, at the receiver's coordinates along the step's axis and in its pitches. (The ranks of a step's
 * group have the same extent along the other two axes; along the step's axis the receiver's box is
 * its part of the split.) */
dtrHaloStrided dtrHaloRemoteOf(const dtrHaloLayout* l, const dtrHaloStep* s, const dtrHaloPiece* send);
dtrHaloStrided dtrHaloUnpackOf(const dtrHaloLayout* l, const dtrHaloBox* box, int64_t offset);
dtrHaloStrided dtrHaloCopyOf(const dtrHaloLayout* l, const dtrHaloCopy* copy);
/* The same cells the other way, the adjoint's: the copy's destination read, its source written. */
dtrHaloStrided dtrHaloCopyBackOf(const dtrHaloLayout* l, const dtrHaloCopy* copy);

#ifdef __cplusplus
}
#endif

#endif
