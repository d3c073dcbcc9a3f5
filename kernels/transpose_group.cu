/*
 * Several transposes of one entry size in one launch (dtrTransposeGroupLaunch): the one-pass path
 * stores each peer's block straight into that peer's memory, and one grid serves all peers at once
 * so that every NVLink carries traffic from the start. Blocks are dealt to members in turn and each
 * member's blocks loop over its tiles (and matrices of its batch): a fixed, small number of blocks
 * per peer, which stores into peer memory prefer (more blocks contend on the links).
 */
#include <stdint.h>

#include "group.h"
#include "launch.h"
#include "simt16_tile.cuh"
#include "variants.h"

namespace dtr {
namespace {

template <int S>
__global__ void __launch_bounds__(kSimt16Threads) simt16GroupKernel(const __grid_constant__ TransposeGroup g) {
  constexpr uint32_t T = (S == 1) ? 256 : 128;
  uint8_t* stage = simt16Stage();
  forEachGroupTile(g, [&](const TransposeGroupMember& m, uint64_t k, uint32_t tx, uint32_t ty) {
    simt16Tile<S>(m.src + k * m.srcBatchBytes, m.ldsBytes, m.dst + k * m.dstBatchBytes, m.lddBytes, m.rows, m.cols, tx,
                  ty, stage, stage + T * 128);
  });
}

template <int S>
cudaError_t launchGroupTyped(TransposeGroup& g, int ctas, cudaStream_t stream) {
  constexpr uint32_t T = (S == 1) ? 256 : 128, box = 128 / S;
  for (int i = 0; i < g.count; i++) transposeGroupTiles(&g.m[i], T, box);
  const size_t smem = 1024 + 2 * T * 128;
  cudaError_t err = allowDynamicSmem((const void*)simt16GroupKernel<S>, (int)smem);
  if (err != cudaSuccess) return err;
  if ((err = groupBlocksPerMember((const void*)simt16GroupKernel<S>, kSimt16Threads, smem, g, 0, &ctas)) != cudaSuccess)
    return err;
  /* Whole tile rows where the columns of tiles are short (groupTileOrder); the span rule is not
   * measured for this kernel. */
  g.tileGroup = groupTileOrder(g, (uint32_t)tuningFor(dtrKernelSimt16, S).tileGroup, ctas, 0);
  simt16GroupKernel<S><<<(unsigned)(ctas * g.count), kSimt16Threads, smem, stream>>>(g);
  return cudaGetLastError();
}

cudaError_t launchVectorGroup(TransposeGroup& g, int ctas, cudaStream_t stream) {
  switch (g.m[0].entryBytes) {
    case 1: return launchGroupTyped<1>(g, ctas, stream);
    case 2: return launchGroupTyped<2>(g, ctas, stream);
    case 4: return launchGroupTyped<4>(g, ctas, stream);
    case 8: return launchGroupTyped<8>(g, ctas, stream);
    case 16: return launchGroupTyped<16>(g, ctas, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t groupBlocksPerMember(const void* kernel, int threads, size_t smem, const TransposeGroup& g, int cap,
                                 int* ctas) {
  if (*ctas > 0) return cudaSuccess;
  DeviceInfo d;
  int perSm = 0;
  cudaError_t err = deviceInfo(&d);
  if (err == cudaSuccess) err = residentBlocks(kernel, threads, smem, &perSm);
  if (err != cudaSuccess) return err;
  *ctas = perSm * d.sms / g.count > 0 ? perSm * d.sms / g.count : 1;
  if (cap > 0 && *ctas > cap) *ctas = cap;
  uint64_t work = 1;
  for (int i = 0; i < g.count; i++) work = g.m[i].work > work ? g.m[i].work : work;
  if ((uint64_t)*ctas > work) *ctas = (int)work;
  return cudaSuccess;
}

}  // namespace dtr

using namespace dtr;

/* Thin members (few rows or few columns) go alone to the thin kernels (thinServes). The others go to the
 * 16-byte kernel's group where both pitches are whole 128-byte lines and, for
 * entries the word kernel's group also serves (4, 8 and 16 bytes, aligned), whole 1024-byte multiples;
 * to the word kernel's group where their entries are aligned words; to the word-wide kernel's group
 * where they are 1 or 2 bytes (or 4 off their alignment); and the rest (tuples) one by one.
 * At other pitches the 16-byte kernel, storing into the peers with all its resident blocks,
 * collapsed, where the word group, its blocks capped, held (docs/design.md#group-dispatch). */
static int vectorGroupEligible(const dtrTransposeArgs* a) {
  const uint64_t line = wordGroupEligible(a) ? 1024 : 128;
  return dtrTransposeSupported(dtrKernelSimt16, a) && ((uint64_t)a->lds * a->entry_bytes) % line == 0 &&
         ((uint64_t)a->ldd * a->entry_bytes) % line == 0;
}

extern "C" cudaError_t dtrTransposeGroupLaunch(dtrKernel_t kernel, const dtrTransposeArgs* members, int count, int ctas,
                                               const dtrPeerFlags* sync, cudaStream_t stream) {
  if (count < 0 || count > DTR_GROUP_MAX || (count && !members)) return cudaErrorInvalidValue;
  if (sync && (sync->nranks < 1 || sync->nranks > DTR_GROUP_MAX || sync->rank < 0 || sync->rank >= sync->nranks))
    return cudaErrorInvalidValue;
  TransposeGroup vector = {}, word = {}, subword = {};
  int alone[DTR_GROUP_MAX], na = 0;
  for (int i = 0; i < count; i++) {
    const dtrTransposeArgs* a = &members[i];
    if (a->entry_bytes != members[0].entry_bytes || a->rows < 0 || a->cols < 0) return cudaErrorInvalidValue;
    if (!a->rows || !a->cols || a->batch == 0) continue;
    if (thinServes(a)) alone[na++] = i;
    else if (kernel != dtrKernelSimt && vectorGroupEligible(a)) vector.m[vector.count++] = transposeGroupMember(a);
    else if (wordGroupEligible(a)) word.m[word.count++] = transposeGroupMember(a);
    else if (subwordServes(a)) subword.m[subword.count++] = transposeGroupMember(a);
    else alone[na++] = i;
  }
  /* The barriers go into the pass kernel where it is the only launch; else they run around the
   * launches as kernels of their own. */
  const int groups = (vector.count > 0) + (word.count > 0) + (subword.count > 0);
  TransposeGroup* only = groups != 1 || na ? NULL : vector.count ? &vector : word.count ? &word : &subword;
  cudaError_t err = cudaSuccess;
  if (sync && only) {
    only->synced = 1;
    only->sync = *sync;
  } else if (sync && (err = dtrPeerBarrierLaunch(sync, dtrPeerArrive, stream)) != cudaSuccess) {
    return err;
  }
  if (vector.count && (err = launchVectorGroup(vector, ctas, stream)) != cudaSuccess) return err;
  if (word.count && (err = launchWordGroup(word, ctas, stream)) != cudaSuccess) return err;
  if (subword.count && (err = launchSubwordGroup(subword, ctas, stream)) != cudaSuccess) return err;
  for (int i = 0; i < na; i++)
    if ((err = dtrTransposeLaunch(dtrKernelSimt, &members[alone[i]], stream, NULL)) != cudaSuccess) return err;
  if (sync && !only) err = dtrPeerBarrierLaunch(sync, dtrPeerFinish, stream);
  return err;
}
