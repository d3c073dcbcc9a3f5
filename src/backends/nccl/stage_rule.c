#include "stage_rule.h"

/*
 * More than one stage only where every piece is 16-byte aligned (where not, NCCL slowed by up to
 * 70 %).
 *   unregistered: two from 2 GiB per rank (on 2 H200s two stages cut the ratio to the all-to-all
 *     from about 1.4 to 1.3 from 2 GiB per rank up, did nothing at 1 GiB and cost below);
 *   registered (the messages go straight between the ranks' buffers): by the bytes each rank sends
 *     each peer, two from 96 MiB and four from 1.5 GiB. Each round costs a group of messages whose
 *     start waits for its packs, so rounds pay only where a round's messages are large. Measured on
 *     2 H200s (2026-11-23), ratio to the all-to-all for 1 / 2 / 3 / 4 / 6 / 8 stages:
 *       fp32 (odd sides) 256 MiB per rank 1.47 / 1.38 / 1.40 / 1.42 / 1.53 / 1.63,
 *                        1 GiB 1.34 / 1.19 / 1.25 / 1.26 / 1.31 / 1.34, 4 GiB 1.34 / 1.18 / 1.13 / 1.13 / 1.17 / 1.25;
 *       c64 256 MiB 1.48 / 1.45 / 1.47 / 1.48 / 1.58 / 1.68, 1 GiB 1.36 / 1.34 / 1.33 / 1.32 / 1.35 / 1.38,
 *           4 GiB 1.34 / 1.18 / 1.13 / 1.12 / 1.16 / 1.28;
 *     on 4 H200s (fp32) two stages cost 2 % at 256 MiB per rank (64 MiB a peer) and gained 12 % at
 *     1 GiB (256 MiB a peer).
 */
static const double kStagesMinBytes = 2.0 * 1073741824;
static const double kTwoStagesPeerBytes = 96.0 * 1048576, kFourStagesPeerBytes = 1.5 * 1073741824;

int dtrStagesBySize(const dtrGeometry* g, int registered) {
  const double bytesPerRank = (double)g->rows * (double)g->cols * (double)g->batch * (double)g->entry_bytes / g->nranks;
  const double bytesPerPeer = bytesPerRank / g->nranks;
  if (!dtrPiecesAligned(g, 16)) return 1;
  if (!registered) return bytesPerRank >= kStagesMinBytes ? 2 : 1;
  return bytesPerPeer >= kFourStagesPeerBytes ? 4 : bytesPerPeer >= kTwoStagesPeerBytes ? 2 : 1;
}
