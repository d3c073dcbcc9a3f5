#include "halo_geometry.h"

#include <stdlib.h>
#include <string.h>

#include "core/geometry.h"

void dtrHaloAxisGroup(int pencil, int axis, int pr, int pc, int a, int b, int* nranks, int* rank) {
  const int split = dtrPencilAxisSplit(pencil, axis);
  *nranks = split == 1 ? pr : split == 2 ? pc : 1;
  *rank = split == 1 ? a : split == 2 ? b : 0;
}

/* A run of halo cells along one axis that come from one owner's consecutive cells. */
typedef struct {
  int owner;
  int64_t dst;   /* first padded coordinate in the receiver's array */
  int64_t src;   /* first padded coordinate in the owner's array */
  int64_t count;
} Run;

/* The runs of the halo of group rank t along an axis of extent n, split over np ranks, width h: the low
 * side first, then the high side, each in increasing coordinates. Returns how many (at most 2 h). */
static int haloRuns(int64_t n, int np, int t, int64_t h, int periodic, Run* runs) {
  const dtrRange mine = dtrSplit(n, np, t);
  int nruns = 0;
  for (int side = 0; side < 2; side++) {
    /* Not periodic: only the cells inside the domain; the others are left untouched. */
    int64_t k = 0, end = h;
    if (!periodic && !side && mine.start < h) k = h - mine.start;
    if (!periodic && side && n - mine.start - mine.count < h) end = n - mine.start - mine.count;
    for (; k < end; k++) {
      const int64_t dst = side ? h + mine.count + k : k;
      int64_t g = side ? mine.start + mine.count + k : mine.start - h + k;
      g = ((g % n) + n) % n;
      const int owner = dtrSplitOwner(n, np, g);
      const int64_t src = h + g - dtrSplit(n, np, owner).start;
      Run* last = nruns ? &runs[nruns - 1] : NULL;
      if (last && last->owner == owner && last->dst + last->count == dst && last->src + last->count == src) {
        last->count++;
        continue;
      }
      runs[nruns++] = (Run){owner, dst, src, 1};
    }
  }
  return nruns;
}

int64_t dtrHaloBoxEntries(const dtrHaloBox* box) { return box->count[0] * box->count[1] * box->count[2]; }

/* The entry of `cell` in an array of extents `padded` (x, y, z) laid out in memory order `o`. */
static int64_t offsetIn(const int64_t padded[3], const int o[3], const int64_t cell[3]) {
  return cell[o[0]] + padded[o[0]] * (cell[o[1]] + padded[o[1]] * cell[o[2]]);
}

int64_t dtrHaloOffset(const dtrHaloLayout* l, const int64_t cell[3]) { return offsetIn(l->padded, l->order, cell); }

int dtrHaloBoxContiguous(const dtrHaloLayout* l, const dtrHaloBox* box) {
  const int* o = l->order;
  const int64_t c0 = box->count[o[0]], c1 = box->count[o[1]], c2 = box->count[o[2]];
  if (!c0 || !c1 || !c2) return 1;
  if (c1 == 1 && c2 == 1) return 1;
  return c0 == l->padded[o[0]] && (c2 == 1 || c1 == l->padded[o[1]]);
}

static dtrHaloStrided strided(const dtrHaloLayout* l, const int64_t count[3]) {
  const int* o = l->order;
  dtrHaloStrided s;
  memset(&s, 0, sizeof s);
  for (int d = 0; d < 3; d++) s.count[d] = count[o[d]];
  s.srcPitch[0] = s.dstPitch[0] = l->padded[o[0]];
  s.srcPitch[1] = s.dstPitch[1] = l->padded[o[0]] * l->padded[o[1]];
  return s;
}

dtrHaloStrided dtrHaloPackOf(const dtrHaloLayout* l, const dtrHaloBox* box, int64_t offset) {
  dtrHaloStrided s = strided(l, box->count);
  s.srcOffset = dtrHaloOffset(l, box->start);
  s.dstOffset = offset;
  s.dstPitch[0] = s.count[0];
  s.dstPitch[1] = s.count[0] * s.count[1];
  return s;
}

dtrHaloStrided dtrHaloUnpackOf(const dtrHaloLayout* l, const dtrHaloBox* box, int64_t offset) {
  dtrHaloStrided s = strided(l, box->count);
  s.dstOffset = dtrHaloOffset(l, box->start);
  s.srcOffset = offset;
  s.srcPitch[0] = s.count[0];
  s.srcPitch[1] = s.count[0] * s.count[1];
  return s;
}

dtrHaloStrided dtrHaloRemoteOf(const dtrHaloLayout* l, const dtrHaloStep* s, const dtrHaloPiece* send) {
  const int* o = l->order;
  int64_t theirs[3], cell[3];
  for (int d = 0; d < 3; d++) theirs[d] = l->padded[d], cell[d] = send->box.start[d];
  theirs[s->axis] = dtrSplit(l->shape[s->axis], s->nranks, send->peer).count + 2 * (int64_t)l->halo[s->axis];
  cell[s->axis] = send->remote;
  dtrHaloStrided r = strided(l, send->box.count);
  r.srcOffset = dtrHaloOffset(l, send->box.start);
  r.dstOffset = offsetIn(theirs, o, cell);
  r.dstPitch[0] = theirs[o[0]];
  r.dstPitch[1] = theirs[o[0]] * theirs[o[1]];
  return r;
}

dtrHaloStrided dtrHaloCopyOf(const dtrHaloLayout* l, const dtrHaloCopy* copy) {
  dtrHaloStrided s = strided(l, copy->dst.count);
  s.dstOffset = dtrHaloOffset(l, copy->dst.start);
  s.srcOffset = dtrHaloOffset(l, copy->src);
  return s;
}

dtrHaloStrided dtrHaloCopyBackOf(const dtrHaloLayout* l, const dtrHaloCopy* copy) {
  dtrHaloStrided s = strided(l, copy->dst.count);
  s.dstOffset = dtrHaloOffset(l, copy->src);
  s.srcOffset = dtrHaloOffset(l, copy->dst.start);
  return s;
}

dtrHaloBox dtrHaloSourceOf(const dtrHaloCopy* copy) {
  dtrHaloBox b = copy->dst;
  memcpy(b.start, copy->src, sizeof b.start);
  return b;
}

int dtrHaloBoxesMeet(const dtrHaloBox* a, const dtrHaloBox* b) {
  if (!dtrHaloBoxEntries(a) || !dtrHaloBoxEntries(b)) return 0;
  for (int d = 0; d < 3; d++)
    if (a->start[d] + a->count[d] <= b->start[d] || b->start[d] + b->count[d] <= a->start[d]) return 0;
  return 1;
}

int dtrHaloSumOrder(const dtrHaloStep* s, int k) {
  /* The sends run receiver by receiver: this rank's place among them is after those to lower ranks. */
  int before = 0;
  while (before < s->nsends && s->sends[before].peer < s->rank) before++;
  if (k < before) return k;
  if (k < before + s->nselfs) return s->nsends + k - before;
  return k - s->nselfs;
}

/* The box of a piece along `axis` (first coordinate `first`, `count` cells) over the written ranges of
 * the other axes. */
static dtrHaloBox stepBox(const dtrHaloLayout* l, int axis, int64_t first, int64_t count) {
  dtrHaloBox b;
  for (int d = 0; d < 3; d++) {
    b.start[d] = d == axis ? first : l->lo[d];
    b.count[d] = d == axis ? count : l->hi[d] - l->lo[d];
  }
  return b;
}

static int makeStep(dtrHaloLayout* l, int axis, int split, int np, int me) {
  dtrHaloStep* s = &l->steps[l->nsteps++];
  memset(s, 0, sizeof *s);
  s->axis = axis, s->split = split, s->nranks = np, s->rank = me;
  const int64_t n = l->shape[axis], h = l->halo[axis];
  const int periodic = l->periodic[axis];
  int64_t* counts = calloc(6 * (size_t)np, sizeof *counts);
  /* Runs: each of one cell at least, at most min(h, n) a side (a periodic halo is at most n wide, the
   * cells of one that is not lie inside the domain). */
  const int64_t most = 2 * (h < n ? h : n) + 1;
  Run* runs = malloc((size_t)most * sizeof *runs);
  s->recvs = malloc((size_t)most * sizeof *s->recvs);
  s->selfs = malloc((size_t)most * sizeof *s->selfs);
  s->sends = malloc((size_t)most * (size_t)np * sizeof *s->sends);
  int64_t* theirs = calloc((size_t)np, sizeof *theirs);
  if (!counts || !runs || !s->recvs || !s->selfs || !s->sends || !theirs) {
    free(counts), free(runs), free(theirs);
    return -1;
  }
  s->sendCount = counts, s->sendOffset = counts + np, s->recvCount = counts + 2 * np;
  s->recvOffset = counts + 3 * np, s->peerOffset = counts + 4 * np, s->ownerOffset = counts + 5 * np;
  const dtrHaloBox unit = stepBox(l, axis, 0, 1);
  const int64_t cross = dtrHaloBoxEntries(&unit);
  /* What this rank receives, peer by peer in group order, each peer's runs in their order; and its own. */
  const int nruns = haloRuns(n, np, me, h, periodic, runs);
  for (int i = 0; i < nruns; i++)
    if (runs[i].owner == me) {
      dtrHaloCopy* c = &s->selfs[s->nselfs++];
      c->dst = stepBox(l, axis, runs[i].dst, runs[i].count);
      memcpy(c->src, c->dst.start, sizeof c->src);
      c->src[axis] = runs[i].src;
    } else {
      s->recvCount[runs[i].owner] += runs[i].count * cross;
    }
  for (int q = 0; q < np; q++) {
    s->recvOffset[q] = s->recvTotal;
    int64_t at = s->recvTotal;
    for (int i = 0; i < nruns; i++) {
      if (runs[i].owner != q || q == me) continue;
      dtrHaloPiece* p = &s->recvs[s->nrecvs++];
      p->peer = q, p->box = stepBox(l, axis, runs[i].dst, runs[i].count), p->offset = at;
      p->entries = runs[i].count * cross;
      p->remote = runs[i].dst;
      at += p->entries;
    }
    s->recvTotal = at;
  }
  /* What each other rank t receives from this one, in t's order, and where it lands in t's buffer; and,
   * from the ranks before this one, how much each owner sends them (the owner's send layout is by
   * receiver). */
  for (int t = 0; t < np; t++) {
    s->sendOffset[t] = s->sendTotal;
    if (t == me) continue;
    const int tr = haloRuns(n, np, t, h, periodic, runs);
    memset(theirs, 0, (size_t)np * sizeof *theirs);
    for (int i = 0; i < tr; i++) theirs[runs[i].owner] += runs[i].owner == t ? 0 : runs[i].count * cross;
    for (int q = 0; q < me; q++) s->peerOffset[t] += theirs[q];
    for (int q = 0; q < np && t < me; q++) s->ownerOffset[q] += theirs[q];
    for (int i = 0; i < tr; i++) {
      if (runs[i].owner != me) continue;
      dtrHaloPiece* p = &s->sends[s->nsends++];
      p->peer = t, p->box = stepBox(l, axis, runs[i].src, runs[i].count), p->offset = s->sendTotal;
      p->entries = runs[i].count * cross;
      p->remote = runs[i].dst;
      s->sendTotal += p->entries;
      s->sendCount[t] += p->entries;
    }
  }
  free(runs);
  free(theirs);
  /* The cells this step reads lie within `reach` of either end of the box (a halo run ends next to its
   * receiver's box, so it covers an end of the owner's box or all of it); the rest of the interior is
   * safe for the local wraps beside the step. Checked rather than assumed. */
  const int64_t size = l->size[axis], reach = h < size ? h : size;
  int64_t sLo = h + reach, sHi = h + size - reach;
  for (int i = 0; i < s->nsends + s->nselfs; i++) {
    const int64_t first = i < s->nsends ? s->sends[i].box.start[axis] : s->selfs[i - s->nsends].src[axis];
    const int64_t count = i < s->nsends ? s->sends[i].box.count[axis] : s->selfs[i - s->nsends].dst.count[axis];
    if (first + count > sLo && first < sHi) sLo = sHi = h;
  }
  if (sLo >= sHi) sLo = sHi = h;
  s->safe[0] = sLo, s->safe[1] = sHi;
  return 0;
}

/* The local wraps over the combinations of ranges: along each local axis its low halo, interior or high
 * halo (not all interior); along each step's axis its written range cut at the safe range (`beside`:
 * only the safe range; else every combination but the one of all safe ranges); along the others their
 * written range. */
static int makeWraps(dtrHaloLayout* l, const int local[3], int beside, dtrHaloCopy** out, int* count) {
  int stepOf[3] = {-1, -1, -1};
  for (int i = 0; i < l->nsteps; i++) stepOf[l->steps[i].axis] = i;
  *out = malloc(27 * sizeof **out);
  if (!*out) return -1;
  *count = 0;
  for (int combo = 0; combo < 27; combo++) {
    int part[3] = {combo % 3, combo / 3 % 3, combo / 9};
    int localHalo = 0, allSafe = 1, valid = 1;
    dtrHaloCopy c;
    for (int d = 0; d < 3; d++) {
      const int64_t h = l->halo[d], size = l->size[d];
      if (local[d]) {
        const int64_t first[3] = {0, h, h + size}, extent[3] = {h, size, h}, shift[3] = {size, 0, -size};
        c.dst.start[d] = first[part[d]], c.dst.count[d] = extent[part[d]], c.src[d] = first[part[d]] + shift[part[d]];
        localHalo |= part[d] != 1;
      } else if (stepOf[d] >= 0) {
        const int64_t* safe = l->steps[stepOf[d]].safe;
        const int64_t cut[4] = {l->lo[d], safe[0], safe[1], l->hi[d]};
        c.dst.start[d] = c.src[d] = cut[part[d]], c.dst.count[d] = cut[part[d] + 1] - cut[part[d]];
        allSafe &= part[d] == 1;
      } else {
        valid &= part[d] == 0;
        c.dst.start[d] = c.src[d] = l->lo[d], c.dst.count[d] = l->hi[d] - l->lo[d];
      }
    }
    if (!valid || !localHalo || allSafe != beside || !dtrHaloBoxEntries(&c.dst)) continue;
    (*out)[(*count)++] = c;
  }
  return 0;
}

int dtrHaloLayoutMake(const int64_t shape[3], int pencil, int pr, int pc, int a, int b, const int halo[3],
                      const int periodic[3], dtrHaloLayout* l) {
  int widths[3], wraps[3];
  memcpy(widths, halo, sizeof widths); /* they may live in *l */
  memcpy(wraps, periodic, sizeof wraps);
  halo = widths, periodic = wraps;
  memset(l, 0, sizeof *l);
  const dtrPencilExtent box = dtrPencilBoxOf(shape, pr, pc, a, b, pencil);
  int np[3], me[3], local[3];
  for (int d = 0; d < 3; d++) {
    l->shape[d] = shape[d];
    l->halo[d] = halo[d];
    l->periodic[d] = periodic[d] != 0;
    l->start[d] = box.start[d];
    l->size[d] = box.size[d];
    l->order[d] = box.order[d];
    l->padded[d] = box.size[d] + 2 * (int64_t)halo[d];
    const int64_t h = halo[d], below = l->periodic[d] ? h : (box.start[d] < h ? box.start[d] : h);
    const int64_t room = shape[d] - box.start[d] - box.size[d], above = l->periodic[d] ? h : (room < h ? room : h);
    dtrHaloAxisGroup(pencil, d, pr, pc, a, b, &np[d], &me[d]);
    local[d] = np[d] == 1 && l->periodic[d] && h > 0;
    /* An axis of one rank that is not periodic has nothing to write. */
    l->lo[d] = np[d] == 1 && !local[d] ? h : h - below;
    l->hi[d] = np[d] == 1 && !local[d] ? h + box.size[d] : h + box.size[d] + above;
  }
  /* The steps, the slowest axis in memory first. */
  for (int k = 2; k >= 0; k--) {
    const int d = l->order[k];
    if (np[d] > 1 && halo[d] > 0 && makeStep(l, d, dtrPencilAxisSplit(pencil, d), np[d], me[d])) {
      dtrHaloLayoutFree(l);
      return -1;
    }
  }
  if (makeWraps(l, local, 1, &l->beside, &l->nbeside) || makeWraps(l, local, 0, &l->after, &l->nafter)) {
    dtrHaloLayoutFree(l);
    return -1;
  }
  return 0;
}

void dtrHaloLayoutFree(dtrHaloLayout* l) {
  for (int i = 0; i < l->nsteps; i++) {
    dtrHaloStep* s = &l->steps[i];
    free(s->recvs), free(s->sends), free(s->selfs), free(s->sendCount);
  }
  free(l->beside), free(l->after);
  memset(l, 0, sizeof *l);
}
