/*
 * How many chunks an FFT cuts its planes into, where neither its config nor DTR_FFT_CHUNKS says
 * (measured on 2 x H100, docs/fft.md#overlap):
 *   - the slab route (slab_copies.c), whose copy engines run beside the passes: enough chunks that the
 *     first pass and the last copy, which nothing hides, are short, few enough that each chunk's pass
 *     still fills the GPU (4, 8 and 16 within 1 % of each other at 512^3 c64; 8 from 256 MiB a rank);
 *   - the NCCL backend, whose packs, messages and unpacks take few SMs beside the passes: 4 (0.965 of
 *     one chunk's time at 512^3 c64 on 1 x 2);
 *   - one elsewhere: the p2p backend's pass kernel needs the whole GPU for the links' bandwidth (with
 *     16 blocks a peer it took 3.1 times as long), so that beside the passes it slowed both; the cpu
 *     backend's exchange blocks the host.
 */
#include "fft_plan.h"

/* Bytes of a chunk below which cutting further costs more in launches and partial waves than it hides. */
static const double kSmallestChunk = 32.0 * 1024 * 1024;
static const int kMostChunks = 8;
static const int kNcclChunks = 4;

int dtrFftChunksByRule(int copies, dtrBackend_t backend, int peers, double bytesPerRank) {
  if (!peers) return 1;
  if (copies) {
    int chunks = 2;
    while (chunks < kMostChunks && bytesPerRank / (2.0 * chunks) >= kSmallestChunk) chunks *= 2;
    return chunks;
  }
  return backend == dtrBackendNccl ? kNcclChunks : 1;
}
