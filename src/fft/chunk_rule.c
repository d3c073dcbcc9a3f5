/*
 * The FFT's rules, where neither its config nor the environment says (measured on 2 and 4 x H100,
 * docs/fft.md#overlap):
 *
 * Chunks. The slab route (slab_copies.c), whose copy engines run beside the passes: a chunk of 128 MiB
 * a rank or more, from 2 to 8 chunks. Each chunk beyond that costs more than the overlap it adds: on 4
 * GPUs 512^3 c64 (256 MiB a rank) took 1043, 1040, 1139 and 1293 us in 2, 4, 8 and 16 chunks, 1024^3
 * (2 GiB a rank) 6286, 6705 and 7704 us in 8, 16 and 32; on 2 GPUs 512^3 1490, 1567 and 1682 us in
 * 4, 8 and 16. The slab route over NCCL (slab_messages.c): a chunk of 64 MiB a rank or more, from 4
 * to 8 chunks: on 4 GPUs 512^3 c64 took 1336 and 1284 us in 2 and 4 chunks, 1024^3 9108 and 8685 us in 4
 * and 8. The NCCL backend's own chunks (pencils), whose packs, messages and unpacks take few SMs beside
 * the passes: 4 (0.965 of one chunk's time at 512^3 c64 on 1 x 2). One elsewhere: the p2p backend's pass kernel
 * needs the whole GPU for the links' bandwidth (with 16 blocks a peer it took 3.1 times as long), so
 * that beside the passes it slowed both; the cpu backend's exchange blocks the host.
 *
 * Lanes: the slab route's copies on one stream, the peers in a staggered order (slab_copies.c). A
 * stream a peer moved the same bytes as fast in a bare all-to-all (389 GB/s sent a GPU on 4 H100s,
 * against 197 GB/s on one stream with every GPU visiting the peers in the same order), but inside the
 * FFT it took 9190 us at 1024^3 on 4 GPUs, against 6724 us on one stream.
 *
 * Pass streams: the slab route's passes in chunks alternate over two streams, each chunk's kernels
 * starting while the one before drains. On one stream a chunk cost the 2-D pass of 512^3 c64 over 4
 * ranks 11-13 us on one H100 (380 us in one chunk, 428 in 8), on two nothing (363-377 us in 2 to 16);
 * 1024^3 over 4 ranks 2937 us in one chunk, 3164 in 16 on one stream, 2938-2946 on two; the pass along
 * z of 1024^3 over 4 ranks 1661 us in one chunk, 1843 in 16 on one stream, 1657-1663 on two
 * (docs/performance.md, what a chunk of the slab route costs one GPU; the pass along z in chunks).
 *
 * Rounds: of the slab route's C chunks, the first W go out whole as the first pass makes them, the
 * others in rounds once it is done (slab_copies.c). The links must not wait for the first pass: the
 * whole chunks' copies, begun after its first chunk, must last until its end, W / C x copies >=
 * (C - 1) / C x pass. Their times are in the ratio of the bytes each moves at its rate: the first pass
 * reads and writes the slab through HBM (the 2-D pass twice, the transposing pass along z once and a
 * sixth), the copies send (P - 1) / P of it over the links, at about 0.13 of HBM's rate on H100 with
 * NV18 (360 against 2800 GB/s). Every round beyond that lets the last pass start earlier. At 1024^3 on
 * 4 GPUs in 16 chunks the rule's 5 rounds forward took 6705 us against 7182 with 2 and 7710 with 8;
 * its 10 rounds inverse 6904 us against 8393 with 2 and 7105 with 8.
 * The 2-D pass that delivers as it goes takes the same rule with its y pass as the first pass (two
 * passes over the slab): its first W chunks of lines go out as the y pass makes the planes, and their
 * sends must last until that pass's end; not yet measured on several GPUs (docs/model.md).
 */
#include <math.h>

#include "fft_plan.h"

/* Bytes of a chunk below which cutting further costs more in launches and partial waves than it hides. */
static const double kSmallestChunk = 128.0 * 1024 * 1024, kSmallestMessagesChunk = 64.0 * 1024 * 1024;
static const int kMostChunks = 8;
static const int kNcclChunks = 4;
/* The links' rate over HBM's, and the passes over the slab each first pass makes. */
static const double kLinkOverHbm = 0.13;
static const double kForwardFirstPasses = 4.0, kInverseFirstPasses = 2.3, kDeliverFirstPasses = 2.0;

int dtrFftChunksByRule(int slabRoute, dtrBackend_t backend, int ranks, double bytesPerRank) {
  if (ranks < 2) return 1;
  if (slabRoute) {
    /* The route over NCCL: its copy engines pack beside the pass, and more chunks start the messages sooner. */
    const double smallest = backend == dtrBackendNccl ? kSmallestMessagesChunk : kSmallestChunk;
    int chunks = 2;
    while (chunks < kMostChunks && bytesPerRank / (2.0 * chunks) >= smallest) chunks *= 2;
    return chunks;
  }
  return backend == dtrBackendNccl ? kNcclChunks : 1;
}

int dtrFftCopyLanesByRule(int ranks) {
  (void)ranks;
  return 1;
}

int dtrFftPassStreamsByRule(int chunks) { return chunks > 1 ? 2 : 1; }

/* The rounds that leave the links W = C - rounds chunks to send while a first pass of `passes` trips
 * over the slab runs. */
static int roundsFor(int ranks, int chunks, double passes) {
  if (chunks < 2 || ranks < 2) return 1;
  const double passOverCopies = passes * kLinkOverHbm * ranks / (ranks - 1);
  int whole = (int)ceil(passOverCopies * (chunks - 1));
  if (whole > chunks - 1) whole = chunks - 1;
  return chunks - whole;
}

int dtrFftRoundsByRule(int ranks, int chunks, dtrFftDirection_t direction) {
  return roundsFor(ranks, chunks, direction == dtrFftInverse ? kInverseFirstPasses : kForwardFirstPasses);
}

int dtrFftDeliverRoundsByRule(int ranks, int chunks) { return roundsFor(ranks, chunks, kDeliverFirstPasses); }
