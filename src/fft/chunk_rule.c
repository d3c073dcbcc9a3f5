/*
 * How many chunks an FFT cuts its planes into, where neither its config nor DTR_FFT_CHUNKS says.
 * The cpu backend's exchange blocks the host, so there is nothing for a chunk to overlap: one. On GPUs
 * with peers to exchange with, enough chunks that the first pass and the last exchange, which nothing
 * hides, are short, and few enough that each chunk's pass and exchange still fill the GPU and the
 * links (docs/fft.md#overlap has the measurements behind the numbers).
 */
#include "fft_plan.h"

/* Blocks per peer of the p2p backend's one-pass kernel in a chunk: few enough to leave most of the
 * GPU to the next chunk's pass, enough to keep the links busy. */
static const int kChunkCtas = 16;

int dtrFftCtasByRule(void) { return kChunkCtas; }

/* Bytes of a chunk below which cutting further costs more in launches and partial waves than it hides. */
static const double kSmallestChunk = 32.0 * 1024 * 1024;
static const int kMostChunks = 8;

int dtrFftChunksByRule(int gpu, int peers, double bytesPerRank) {
  if (!gpu || !peers) return 1;
  int chunks = 2;
  while (chunks < kMostChunks && bytesPerRank / (2.0 * chunks) >= kSmallestChunk) chunks *= 2;
  return chunks;
}
