#include "peer_book.h"

#include <stdlib.h>
#include <string.h>

#include "core/checks.h"
#include "peer_memory.h"

static int listed(const uint64_t* ids, int n, uint64_t id) {
  for (int i = 0; i < n; i++)
    if (ids[i] == id) return 1;
  return 0;
}

static dtrResult_t append(uint64_t** ids, int* n, uint64_t id) {
  uint64_t* grown = realloc(*ids, (size_t)(*n + 1) * sizeof *grown);
  if (!grown) return dtrSetError(dtrOutOfMemory, "host allocation failed");
  *ids = grown;
  grown[(*n)++] = id;
  return dtrSuccess;
}

int dtrPeerBookPublished(const dtrPeerBook* b, uint64_t id) { return listed(b->published, b->npublished, id); }

int dtrPeerBookCannotShare(dtrPeerBook* b, const void* p, uint64_t id) {
  if (listed(b->published, b->npublished, id)) return 0;
  if (listed(b->unshareable, b->nunshareable, id)) return 1;
  if (dtrPeerBufferShareable(p)) return 0;
  /* Not remembered where the host is out of memory: asked again next time. */
  (void)append(&b->unshareable, &b->nunshareable, id);
  INFO("p2p: CUDA IPC cannot share the allocation of %p (a stream-ordered pool's or a framework's allocator's): the "
       "peers store into a buffer of the plan's instead, copied or unpacked into it",
       p);
  return 1;
}

dtrResult_t dtrPeerBookPublish(dtrPeerBook* b, uint64_t id) {
  if (listed(b->published, b->npublished, id)) return dtrSuccess;
  return append(&b->published, &b->npublished, id);
}

dtrResult_t dtrPeerBookHold(dtrPeerBook* b, const int* mappings, int n) {
  /* Grown only when a new allocation could not fit: executes on buffers already held allocate nothing. */
  if (b->nheld + n > b->heldCapacity) {
    const int capacity = 2 * (b->nheld + n);
    int* held = realloc(b->held, (size_t)capacity * sizeof *held);
    if (!held) return dtrSetError(dtrOutOfMemory, "host allocation failed");
    b->held = held;
    b->heldCapacity = capacity;
  }
  for (int q = 0; q < n; q++) {
    if (mappings[q] < 0) continue;
    int dup = 0;
    for (int i = 0; i < b->nheld && !dup; i++) dup = b->held[i] == mappings[q];
    if (dup) dtrPeerBufferUnmap(mappings[q]); /* a reference this book already holds */
    else b->held[b->nheld++] = mappings[q];
  }
  return dtrSuccess;
}

void dtrPeerBookClear(dtrPeerBook* b) {
  for (int i = 0; i < b->nheld; i++) dtrPeerBufferUnmap(b->held[i]);
  free(b->published);
  free(b->unshareable);
  free(b->held);
  memset(b, 0, sizeof *b);
}
