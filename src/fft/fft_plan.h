/*
 * The FFT plan behind dtrFftPlan_t: the pencils its data passes through, a local pass on each, the
 * pencil plans between them, its intermediate arrays and, on GPUs, the stream its exchanges run on.
 * The FFT wing sits on the pencil plans (and the plan layer's chunked executes); nothing below calls it.
 */
#ifndef DTR_FFT_PLAN_H
#define DTR_FFT_PLAN_H

#include "disttranspose.h"
#include "core/geometry.h"
#include "local_fft.h"
#include "pad_launch.h"

/* The most counts of rows the delivering and gathering passes' pieces may have (a plan each). */
#define DTR_FFT_ROW_PASSES 8

struct dtrFftPlan {
  dtrGrid_t grid;              /* a reference: the execute agrees on its communicator */
  int64_t shape[3];            /* of the input (real for R2C): the padded grid where the plan pads */
  int64_t cshape[3];           /* of the complex array the exchanges move: x halved for R2C */
  dtrFftKind_t kind;
  dtrFftAxis_t axes[3];        /* per axis: periodic or a real-to-real kind */
  int realPass;                /* the first pass is real-to-complex (R2C, x periodic) */
  int realPlan;                /* R2C whose every axis is real-to-real: real data throughout */
  dtrDataType_t type, ctype;   /* of the input side, and of the complex side (real in a real plan) */
  dtrFftNorm_t norm;
  int64_t howmany;             /* fields, interleaved at every point: the entries of every box and exchange */
  int npencils;                /* 2 on slabs (X, Z), 3 on pencils (X, Y, Z) */
  dtrPencil_t path[3];
  dtrBox_t box[3];             /* this rank's complex boxes along the path */
  dtrBox_t input;              /* its box of the input side */
  dtrLocalFft* pass[3];        /* the local pass on each pencil of the path */
  int64_t length[3];           /* complex entries of one of its transforms */
  int64_t transforms[3];       /* its transforms in this rank's box */
  dtrPlan_t forward[2];        /* path[i] -> path[i + 1] */
  dtrPlan_t inverse[2];        /* path[i + 1] -> path[i] */
  int gpu, device;             /* device -1 on the cpu backend */
  int chunks, ctas;            /* the pipeline's chunks; blocks per peer of the p2p chunks (0: default) */
  char* work;                  /* the intermediate arrays (two, `half` bytes each; the second where a
                                  route needs it) and then the local passes' work area */
  size_t half, area, workBytes;
  cudaStream_t exchange;       /* the exchanges, beside the caller's stream (the passes) */
  cudaEvent_t start, passed, exchanged;
  double timeout;
  int broken;                  /* an execute timed out: the plan can only be destroyed */
  int copies;                  /* the slab route (slab_copies.c): its staging array at `work`, then the area */
  int messages;                /* the slab route over NCCL (slab_messages.c): its 2-D pass's planes at `work` */
  dtrRange* pieces;            /* its groups' messages ([2 pc]: sends, receives) */
  char* message[2];            /* its message buffers: of the X box, of the Z box (registered with NCCL) */
  void* messageHandle[2];
  dtrLocalFft* zFrom;          /* the slab routes' passes along z: from planes of rows into the Z-pencil */
  dtrLocalFft* zInto;          /* and from the Z-pencil into them */
  int rounds[2];               /* its first pass's chunks whose copies go out in rounds: forward, inverse */
  int lanes;                   /* its copy streams, the peers dealt over them */
  cudaStream_t* lane;
  cudaEvent_t* laneDone;       /* a lane's copies of an execute are done */
  cudaEvent_t arrived;         /* its arrive barrier has run */
  int passStreams;             /* its passes' chunks on 1 or 2 streams: the odd ones on `side` where 2 */
  dtrLocalFft* sidePass;       /* the plans of the chunks on `side`, a work area of their own (a plan's */
  dtrLocalFft* sideZFrom;      /* area serves one stream at a time): the 2-D pass's (NULL where it runs */
  dtrLocalFft* sideZInto;      /* whole, R2C of an odd length), and those of the passes along z */
  size_t sideArea;
  int deliver;                 /* its forward 2-D pass delivers as it goes (DTR_FFT_DELIVER): y, then x */
  int deliverRounds;           /* into each rank's S; its chunks of lines sent in rounds after y (0: none) */
  int gather;                  /* its inverse 2-D pass gathers as it goes (DTR_FFT_GATHER): x, then y */
  int gatherRounds;            /* from each rank's S; its chunks of lines read in rounds as they come */
  /* The delivering and gathering passes, on the library's one-trip kernel, which needs no work area, so
   * that both pass streams share these plans: y over a plane's columns, x over pieces of a rank's rows
   * (a plan for each count of rows a piece has). */
  dtrLocalFft* columnPass;
  dtrLocalFft* rowPass[DTR_FFT_ROW_PASSES];
  int64_t rowPassRows[DTR_FFT_ROW_PASSES];
  int rowPasses;
  dtrRange* rowPieces[2];      /* the pieces each peer's x pass moves, delivering [0] and gathering [1]
                                  (slab_pieces.h), made once with the plans: rank q's of round c, or
                                  outside the rounds (c = -1), at dtrFftPieceIndex */
  cudaStream_t side;
  cudaEvent_t sideStart, sideDone;
  int fused;                   /* pencils on a P x 1 grid: Y<->Z is one rank's own transpose, which the
                                  pass along y makes as it writes (reads) the Z-pencil, and no plan runs */
  dtrLocalFft* yInto;          /* those passes along y: from the Y-pencil into the Z-pencil */
  dtrLocalFft* yFrom;          /* and from the Z-pencil into the Y-pencil */
  /* Padding (padding.c): everything above is the plan of the padded shape; the caller's spectral side
   * holds the kept modes of the modes' grid. */
  int64_t modes[3];            /* the modes' grid, the caller's shape (shape above where nothing pads) */
  int padded;                  /* some axis has more points than modes: the padding layer runs */
  dtrBox_t output;             /* this rank's box of the output side (box[npencils - 1] unless padded) */
  dtrPadArgs pad;              /* the pad's and the truncation's pieces (their pointers and factors per execute) */
  char* padArray;              /* the padded Z-pencil, in the workspace after the intermediate arrays */
};

/* Transforms of pass i in chunk k of the exchange that follows (forward) or precedes (inverse) it:
 * the local pass over exactly the part of the pencil that the chunk's exchange moves. */
typedef struct {
  int64_t first, count;
} dtrFftChunk;
dtrFftChunk dtrFftChunkOf(const struct dtrFftPlan* f, dtrPlan_t exchange, int pencilIndex, int chunks, int k);
/* The same for rank `rank` of the exchange's communicator (the slab route sends into other ranks' chunks). */
dtrFftChunk dtrFftChunkOfRank(const struct dtrFftPlan* f, dtrPlan_t exchange, int pencilIndex, int rank, int chunks, int k);

/* On a 1 x P slab grid, of the rank at column b (rank b of the exchanges' communicator): its planes
 * (X-pencil, global z), its rows (Z-pencil, global y), and its chunks [k0, k1) of planes (global z). */
dtrRange dtrFftSlabPlanes(const struct dtrFftPlan* f, int b);
dtrRange dtrFftSlabRows(const struct dtrFftPlan* f, int b);
dtrRange dtrFftSlabPlaneChunks(const struct dtrFftPlan* f, int b, int k0, int k1);
/* Whether a plane is within the pitch a 2-D copy of the copy engines takes (cudaMemcpy2DAsync's pitches
 * are below 2^31 bytes): the slab routes copy rows of planes; beyond it the exchanges' own chunks run. */
int dtrFftSlabPlanesCopyable(const struct dtrFftPlan* f);

/* The transforms of the forward's first pass that chunk k runs: its chunk's, except where cuFFT cannot
 * start a real-to-complex chunk at an odd real entry (an odd real length: the whole pass runs with
 * chunk 0, and the exchanges' chunks still overlap the passes after it). */
dtrFftChunk dtrFftFirstPassChunk(const struct dtrFftPlan* f, dtrPlan_t exchange, int chunks, int k);
/* The same for the inverse's last pass on the slab route, in chunks of planes as they arrive: its real
 * output cannot start at an odd real entry either, and where it would, the whole pass runs with the
 * last chunk. */
dtrFftChunk dtrFftLastPassChunk(const struct dtrFftPlan* f, dtrPlan_t exchange, int chunks, int k);

/* Local, before the execute's agreements, once this rank's own checks passed: the first chunk of the
 * first local pass, on GPU plans (*launched = 1; not in place, except on the slab route), so that the
 * GPU starts while the host agrees. It reads `in` and writes the plan's workspace only: an agreement
 * that fails after it leaves nothing of the caller's written. */
dtrResult_t dtrFftRunEarly(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                           cudaStream_t stream, int* launched);

/* Collective: the pipeline of one execute whose arguments every rank has checked and agreed on;
 * `early`: dtrFftRunEarly launched its first chunk. */
dtrResult_t dtrFftRun(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction, cudaStream_t stream,
                      int early);

/* Whether a plan has a real-to-real axis; the real numbers of an entry of its complex side (1 in a real plan). */
int dtrFftHasRealToReal(const struct dtrFftPlan* f);
/* Whether pencil i's pass is the first of a direction whose normalization scales (on GPUs, unpadded):
 * the inverse's (the last pencil's) and, orthonormal, the forward's too. Its shape says so
 * (dtrLocalFftShape.scaled), so that the pass may fold the factor in. */
int dtrFftPassScales(const struct dtrFftPlan* f, int i);
/* The slab routes' passes along z, which transpose as they go: `from` the planes of this rank's rows
 * (lines side by side, points `planeStride` apart) into the Z-pencil, `into` back, the inverse's first,
 * which scales where the normalization asks; z's kind where it has walls (real data where every axis
 * has). */
void dtrFftSlabZShapes(const struct dtrFftPlan* f, int64_t planeStride, dtrLocalFftShape* from, dtrLocalFftShape* into);
int dtrFftNumbersPerEntry(const struct dtrFftPlan* f);

/* x[i] *= factor for `reals` real numbers of the complex side: on the stream on GPUs, else now. */
dtrResult_t dtrFftScale(const struct dtrFftPlan* f, char* x, size_t reals, double factor, cudaStream_t stream);

/* The same over planes [first, first + count) of the input side's X-pencil x (real ones for R2C), on a
 * slab: the inverse's result as its last pass writes it. */
dtrResult_t dtrFftScaleInputPlanes(const struct dtrFftPlan* f, void* x, dtrFftChunk planes, double factor, cudaStream_t stream);

/* `event` recorded on `recorded`, and `waits` waiting for it. */
dtrResult_t dtrFftEventThen(cudaEvent_t event, cudaStream_t recorded, cudaStream_t waits);

/* The slab route (slab_copies.c). Choose: collective, whether every rank takes it (`wanted`: the
 * environment allows it; `area`: the passes' work area besides its staging array). Passes: its two
 * transposing passes along z. Run: one execute on it, the normalization `factor` included (`early`:
 * Early launched its first chunk's pass, which writes only the staging array). */
dtrResult_t dtrFftCopiesChoose(struct dtrFftPlan* f, size_t area, int wanted);
dtrResult_t dtrFftCopiesPasses(struct dtrFftPlan* f);
/* Its streams and events (GPU, f->lanes set), and their release. */
dtrResult_t dtrFftCopiesStreams(struct dtrFftPlan* f, int priority);
void dtrFftCopiesStreamsFree(struct dtrFftPlan* f);
size_t dtrFftCopiesStagingBytes(const struct dtrFftPlan* f);
/* The work area of its chunks on the side stream (f->sideArea bytes, 0 where it has none): set once the
 * workspace is allocated. */
dtrResult_t dtrFftCopiesSetSideArea(struct dtrFftPlan* f, char* area);
dtrResult_t dtrFftCopiesEarly(struct dtrFftPlan* f, const void* in, dtrFftDirection_t direction, cudaStream_t stream,
                              double factor);
dtrResult_t dtrFftRunCopies(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                            cudaStream_t stream, double factor, int early);

/* The slab route over NCCL (slab_messages.c), alike: whether every rank takes it (with its buffers),
 * their release, its passes along z, an execute (`early`: Early launched its first pass). */
dtrResult_t dtrFftMessagesChoose(struct dtrFftPlan* f, size_t area, int wanted);
void dtrFftMessagesFree(struct dtrFftPlan* f);
dtrResult_t dtrFftMessagesPasses(struct dtrFftPlan* f);
dtrResult_t dtrFftMessagesEarly(struct dtrFftPlan* f, const void* in, dtrFftDirection_t direction, cudaStream_t stream,
                                double factor);
dtrResult_t dtrFftRunMessages(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                              cudaStream_t stream, double factor, int early);

/* Padding (padding.c). Check: local, the config's padding against the caller's shape; sets the padded
 * shape m (the shape itself on axes that do not pad). SideBox: not collective, a side's box of an FFT of
 * the modes' grid n on the padded grid m (m = n: no padding) for grid rank `rank` (-1: the caller): the
 * input side the X-pencil of m, the output side the kept modes of the Z-pencil of m's complex array.
 * Prepare: once the plan's boxes are made, its output box and the pieces of its kept modes (sets
 * f->padded). Bytes: of the padded array in the workspace (0 unless padded). Early and Run: an execute
 * of a padded plan, in place of dtrFftRunEarly and dtrFftRun. */
dtrResult_t dtrFftCheckPadding(const dtrFftConfig_t* cfg, const int64_t shape[3], int64_t padded[3]);
dtrResult_t dtrFftSideBox(dtrGrid_t grid, const int64_t n[3], const int64_t m[3], dtrFftKind_t kind, dtrDataType_t type,
                          int64_t howmany, dtrFftSide_t side, int rank, dtrBox_t* box);
dtrResult_t dtrFftPaddingPrepare(struct dtrFftPlan* f);
size_t dtrFftPaddingBytes(const struct dtrFftPlan* f);
dtrResult_t dtrFftPaddedEarly(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                              cudaStream_t stream, int* launched);
dtrResult_t dtrFftPaddedRun(struct dtrFftPlan* f, const void* in, void* out, dtrFftDirection_t direction,
                            cudaStream_t stream, int early);

/* The rules (chunk_rule.c), from what every rank knows alike. The chunks of a plan whose config and
 * DTR_FFT_CHUNKS leave them to the rule: from whether it takes a slab route, its exchanges' backend,
 * the ranks of its largest exchange and the bytes of the complex array per rank. The slab route's
 * copy streams for `ranks` ranks, its passes' streams for `chunks` chunks, and its rounds in a
 * direction of `chunks` chunks. */
int dtrFftChunksByRule(int slabRoute, dtrBackend_t backend, int ranks, double bytesPerRank);
int dtrFftCopyLanesByRule(int ranks);
int dtrFftPassStreamsByRule(int chunks);
int dtrFftRoundsByRule(int ranks, int chunks, dtrFftDirection_t direction);
/* The delivering 2-D pass's rounds (slab_copies.c): its chunks of lines sent after the y pass. */
int dtrFftDeliverRoundsByRule(int ranks, int chunks);

#endif
