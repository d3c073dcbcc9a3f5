#include "nccl_comms.h"

#include <stdlib.h>

#include "checks.h"
#include "comm.h"

typedef struct Entry {
  MPI_Comm comm; /* a private duplicate, kept to compare later communicators against */
  int device;
  ncclComm_t nccl;
  int refs;
  struct Entry* next;
} Entry;

static Entry* entries = NULL;
static int finalizeKey = MPI_KEYVAL_INVALID;

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the moment to destroy what is cached. */
static int destroyAll(MPI_Comm comm, int key, void* value, void* extra) {
  (void)comm, (void)key, (void)value, (void)extra;
  while (entries) {
    Entry* e = entries;
    entries = e->next;
    ncclCommDestroy(e->nccl);
    MPI_Comm_free(&e->comm);
    free(e);
  }
  return MPI_SUCCESS;
}

static void destroyAtFinalize(void) {
  if (finalizeKey != MPI_KEYVAL_INVALID) return;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, destroyAll, &finalizeKey, NULL) == MPI_SUCCESS)
    MPI_Comm_set_attr(MPI_COMM_SELF, finalizeKey, NULL);
}

static Entry* find(MPI_Comm comm, int device) {
  for (Entry* e = entries; e; e = e->next) {
    int cmp;
    if (e->device == device && MPI_Comm_compare(e->comm, comm, &cmp) == MPI_SUCCESS &&
        (cmp == MPI_IDENT || cmp == MPI_CONGRUENT))
      return e;
  }
  return NULL;
}

static dtrResult_t create(MPI_Comm comm, int device, Entry** out) {
  int rank, nranks;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  MPICHECK(MPI_Comm_size(comm, &nranks));
  Entry* e = calloc(1, sizeof *e);
  ncclUniqueId id;
  dtrResult_t res = e ? dtrSuccess : dtrSetError(dtrOutOfMemory, "host allocation failed");
  if (res == dtrSuccess && rank == 0) NCCLCHECKGOTO(ncclGetUniqueId(&id), res, agree);
agree:
  res = dtrAgree(comm, res);
  if (res != dtrSuccess) {
    free(e);
    return res;
  }
  MPICHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm));
  NCCLCHECKGOTO(ncclCommInitRank(&e->nccl, nranks, id, rank), res, done);
  if (MPI_Comm_dup(comm, &e->comm) != MPI_SUCCESS) res = dtrSetError(dtrMpiError, "MPI_Comm_dup failed");
done:
  res = dtrAgree(comm, res);
  if (res != dtrSuccess) {
    if (e->nccl) ncclCommDestroy(e->nccl);
    free(e);
    return res;
  }
  e->device = device;
  destroyAtFinalize();
  e->next = entries;
  entries = e;
  *out = e;
  return dtrSuccess;
}

dtrResult_t dtrNcclCommAcquire(MPI_Comm comm, int device, ncclComm_t* nccl) {
  Entry* e = find(comm, device);
  int mine = e != NULL, all = 0;
  MPICHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  if (!all) DTRCHECK(create(comm, device, &e));
  e->refs++;
  *nccl = e->nccl;
  INFO("NCCL communicator %p on device %d: %s (%d plans)", (void*)e->nccl, device, all ? "shared" : "created", e->refs);
  return dtrSuccess;
}

void dtrNcclCommRelease(ncclComm_t nccl) {
  /* An idle communicator stays for the next plan: code that creates and destroys plans in a loop
   * would otherwise pay an NCCL initialisation each time. MPI_Finalize destroys it. */
  for (Entry* e = entries; e; e = e->next)
    if (e->nccl == nccl) {
      e->refs--;
      return;
    }
}

dtrResult_t dtrNcclAlltoall(ncclComm_t nccl, int nranks, const void* send, void* recv, size_t bytes_per_peer,
                            cudaStream_t stream) {
  dtrResult_t res = dtrSuccess;
  NCCLCHECK(ncclGroupStart());
  for (int q = 0; q < nranks; q++) {
    NCCLCHECKGOTO(ncclSend((const char*)send + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, nccl, stream), res,
                  group);
    NCCLCHECKGOTO(ncclRecv((char*)recv + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, nccl, stream), res, group);
  }
group:
  NCCLCHECK(ncclGroupEnd());
  return res;
}
