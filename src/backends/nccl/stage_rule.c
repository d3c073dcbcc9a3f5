#include "stage_rule.h"

/*
 * More than one stage only where every piece is 16-byte aligned (where not, NCCL slows down a lot).
 *   unregistered: two from 2 GiB per rank;
 *   registered (the messages go straight between the ranks' buffers): by the bytes each rank sends
 *     each peer, two from 96 MiB and four from 1.5 GiB. Each round costs a group of messages whose
 *     start waits for its packs, so rounds pay only where a round's messages are large.
 * Measurements: docs/design.md#stage-rule.
 */
static const double kStagesMinBytes = 2.0 * 1073741824;
static const double kTwoStagesPeerBytes = 96.0 * 1048576, kFourStagesPeerBytes = 1.5 * 1073741824;

int dtrStagesBySize(const dtrGeometry* g, int registered) {
  const double bytesPerRank = dtrBytesPerRank(g);
  const double bytesPerPeer = bytesPerRank / g->nranks;
  if (!dtrPiecesAligned(g, 16)) return 1;
  if (!registered) return bytesPerRank >= kStagesMinBytes ? 2 : 1;
  return bytesPerPeer >= kFourStagesPeerBytes ? 4 : bytesPerPeer >= kTwoStagesPeerBytes ? 2 : 1;
}
