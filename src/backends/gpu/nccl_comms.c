#include "nccl_comms.h"

#include <stdlib.h>

#include "core/checks.h"
#include "core/comm.h"
#include "core/params.h"
#include "nccl_loader.h"

typedef struct Entry {
  MPI_Comm comm; /* a private duplicate, kept to compare later communicators against */
  int device;
  int aborted;     /* ncclCommAbort has freed it: no new plan takes it, its plans fail */
  ncclComm_t nccl;
  int refs;
  int registers; /* DTR_NCCL_REGISTER, agreed by the ranks at creation */
  /* The bare all-to-all's buffers as last registered (dtrNcclAlltoall), and their handles. */
  const void* a2aSend;
  void* a2aRecv;
  size_t a2aBytes;
  void* a2aHandles[2];
  struct Entry* next;
} Entry;

static Entry* entries = NULL;
static int finalizeKey = MPI_KEYVAL_INVALID;

static void deregisterAlltoall(Entry* e) {
  for (int i = 0; i < 2; i++)
    if (e->a2aHandles[i]) (void)ncclCommDeregister(e->nccl, e->a2aHandles[i]);
  e->a2aHandles[0] = e->a2aHandles[1] = NULL;
  e->a2aSend = e->a2aRecv = NULL;
  e->a2aBytes = 0;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the moment to destroy what is cached. */
static int destroyAll(MPI_Comm comm, int key, void* value, void* extra) {
  (void)comm, (void)key, (void)value, (void)extra;
  while (entries) {
    Entry* e = entries;
    entries = e->next;
    if (!e->aborted) {
      deregisterAlltoall(e);
      ncclCommDestroy(e->nccl);
    }
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
    if (e->device == device && !e->aborted &&
        MPI_Comm_compare(e->comm, comm, &cmp) == MPI_SUCCESS &&
        (cmp == MPI_IDENT || cmp == MPI_CONGRUENT))
      return e;
  }
  return NULL;
}

static Entry* entryOf(ncclComm_t nccl) {
  for (Entry* e = entries; e; e = e->next)
    if (e->nccl == nccl) return e;
  return NULL;
}

static dtrResult_t create(MPI_Comm comm, int device, Entry** out) {
  int rank, nranks;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  MPICHECK(MPI_Comm_size(comm, &nranks));
  Entry* e = calloc(1, sizeof *e);
  ncclUniqueId id;
  dtrResult_t res = e ? dtrSuccess : dtrSetError(dtrOutOfMemory, "host allocation failed");
  if (res == dtrSuccess) res = dtrNcclLoad();
  if (res == dtrSuccess && rank == 0) NCCLCHECKGOTO(ncclGetUniqueId(&id), res, agree);
agree:
  res = dtrAgree(comm, res);
  if (res != dtrSuccess) {
    free(e);
    return res;
  }
  res = dtrBcast(&id, sizeof id, MPI_BYTE, 0, comm, "rank 0's NCCL id");
  if (res != dtrSuccess) {
    free(e);
    return res;
  }
  /* A blocking communicator, even under a deadline: every rank has just been through the timed
   * agreement and broadcast above, so the initialisation does not wait for a missing one. A
   * nonblocking communicator would also cover a rank that stalls during it, and the connection
   * set-up of each pair's first exchange, but every later group then goes through NCCL's
   * asynchronous launch, several times slower for small messages (docs/design.md#blocking-init). */
  ncclResult_t started = ncclCommInitRank(&e->nccl, nranks, id, rank);
  if (started != ncclSuccess) res = dtrSetError(dtrNcclError, "ncclCommInitRank: NCCL error %d (%s)", (int)started, ncclGetErrorString(started));
  if (res == dtrSuccess && MPI_Comm_dup(comm, &e->comm) != MPI_SUCCESS) res = dtrSetError(dtrMpiError, "MPI_Comm_dup failed");
  res = dtrAgree(comm, res);
  if (res != dtrSuccess) {
    if (e->nccl) ncclCommDestroy(e->nccl);
    free(e);
    return res;
  }
  /* Registered buffers on one rank and not on another are undefined behaviour in NCCL: the ranks
   * take registration only where all of them ask for it. */
  const int want = dtrEnvParamsGet()->nccl_register;
  res = dtrAllreduce(&want, &e->registers, 1, MPI_INT, MPI_MIN, comm, "the ranks' DTR_NCCL_REGISTER");
  if (res != dtrSuccess) {
    ncclCommDestroy(e->nccl);
    MPI_Comm_free(&e->comm);
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
  DTRCHECK(dtrAllreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm, "the other ranks' NCCL communicators"));
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

void dtrNcclCommAbort(ncclComm_t nccl) {
  Entry* e = entryOf(nccl);
  if (!e || e->aborted) return;
  WARN("aborting NCCL communicator %p: its kernels stop, and the plans on it can only be destroyed", (void*)nccl);
  ncclCommAbort(nccl);
  e->aborted = 1;
}

dtrResult_t dtrNcclCommUsable(ncclComm_t nccl) {
  const Entry* e = entryOf(nccl);
  if (e && e->aborted)
    return dtrSetError(dtrTimeout, "the NCCL communicator of this plan was aborted after a timeout: destroy the plan");
  return dtrSuccess;
}

dtrResult_t dtrNcclAsyncError(ncclComm_t nccl) {
  ncclResult_t state = ncclSuccess;
  if (ncclCommGetAsyncError(nccl, &state) != ncclSuccess) return dtrSetError(dtrNcclError, "ncclCommGetAsyncError failed");
  if (state != ncclSuccess && state != ncclInProgress)
    return dtrSetError(dtrNcclError, "NCCL reported error %d (%s) while the exchange ran: %s", (int)state,
                       ncclGetErrorString(state), ncclGetLastError(nccl));
  return dtrSuccess;
}

dtrResult_t dtrNcclGroupEnd(ncclComm_t nccl, const char* what) {
  const ncclResult_t res = ncclGroupEnd();
  if (res != ncclSuccess)
    return dtrSetError(dtrNcclError, "ncclGroupEnd of %s: NCCL error %d (%s): %s", what, (int)res,
                       ncclGetErrorString(res), ncclGetLastError(nccl));
  return dtrSuccess;
}

void dtrNcclDeregister(ncclComm_t nccl, void* handle) {
  const Entry* e = entryOf(nccl);
  if (handle && e && !e->aborted) (void)ncclCommDeregister(nccl, handle);
}

int dtrNcclRegisters(ncclComm_t nccl) {
  const Entry* e = entryOf(nccl);
  return e && e->registers;
}

/* The bare all-to-all's buffers registered like the plans' workspaces, so that it is measured the
 * way the exchange runs; registered again only when the caller passes other buffers. */
static dtrResult_t registerAlltoall(ncclComm_t nccl, const void* send, void* recv, size_t bytes) {
  Entry* e = entryOf(nccl);
  if (!e || !e->registers || !bytes || (e->a2aSend == send && e->a2aRecv == recv && e->a2aBytes == bytes))
    return dtrSuccess;
  deregisterAlltoall(e);
  NCCLCHECK(ncclCommRegister(nccl, (void*)send, bytes, &e->a2aHandles[0]));
  NCCLCHECK(ncclCommRegister(nccl, recv, bytes, &e->a2aHandles[1]));
  e->a2aSend = send;
  e->a2aRecv = recv;
  e->a2aBytes = bytes;
  return dtrSuccess;
}

void dtrNcclForgetBuffer(const void* ptr) {
  if (!ptr) return;
  int device = -1;
  const int restore = cudaGetDevice(&device) == cudaSuccess;
  for (Entry* e = entries; e; e = e->next)
    if (!e->aborted && (e->a2aSend == ptr || e->a2aRecv == ptr)) deregisterAlltoall(e);
  /* ncclCommDeregister moves to the communicator's device, and not back on every path. */
  if (restore) (void)cudaSetDevice(device);
}

dtrResult_t dtrNcclAlltoall(ncclComm_t nccl, int nranks, const void* send, void* recv, size_t bytes_per_peer,
                            cudaStream_t stream) {
  dtrResult_t res = dtrSuccess;
  DTRCHECK(registerAlltoall(nccl, send, recv, bytes_per_peer * (size_t)nranks));
  NCCLCHECK(ncclGroupStart());
  for (int q = 0; q < nranks; q++) {
    NCCLCHECKGOTO(ncclSend((const char*)send + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, nccl, stream), res,
                  group);
    NCCLCHECKGOTO(ncclRecv((char*)recv + q * bytes_per_peer, bytes_per_peer, ncclUint8, q, nccl, stream), res, group);
  }
group:
  if (res != dtrSuccess) {
    (void)ncclGroupEnd();
    return res;
  }
  return dtrNcclGroupEnd(nccl, "the bare all-to-all");
}
