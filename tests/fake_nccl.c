/* A stand-in libnccl.so.2 for test_nccl_loader.c: the functions the library calls, doing nothing, and a
 * version no real NCCL has, so the test can tell that this copy, already in the process, was taken. */
#include <nccl.h>

#define FAKE_NCCL_VERSION 99999

ncclResult_t ncclGetVersion(int* version) {
  *version = FAKE_NCCL_VERSION;
  return ncclSuccess;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId* id) { (void)id; return ncclSuccess; }
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  (void)comm, (void)nranks, (void)id, (void)rank;
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { (void)comm; return ncclSuccess; }
ncclResult_t ncclCommAbort(ncclComm_t comm) { (void)comm; return ncclSuccess; }
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* state) {
  (void)comm;
  *state = ncclSuccess;
  return ncclSuccess;
}
ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle) {
  (void)comm, (void)buff, (void)size, (void)handle;
  return ncclSuccess;
}
ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle) { (void)comm, (void)handle; return ncclSuccess; }
ncclResult_t ncclMemAlloc(void** ptr, size_t size) { (void)ptr, (void)size; return ncclSystemError; }
ncclResult_t ncclMemFree(void* ptr) { (void)ptr; return ncclSuccess; }
ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }
ncclResult_t ncclSend(const void* buff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  (void)buff, (void)count, (void)type, (void)peer, (void)comm, (void)stream;
  return ncclSuccess;
}
ncclResult_t ncclRecv(void* buff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  (void)buff, (void)count, (void)type, (void)peer, (void)comm, (void)stream;
  return ncclSuccess;
}
const char* ncclGetErrorString(ncclResult_t result) { return result == ncclSuccess ? "fake success" : "fake error"; }
const char* ncclGetLastError(ncclComm_t comm) { (void)comm; return ""; }
