/*
 * Result propagation in NCCL's style: each call returns a dtrResult_t; these macros turn the
 * results of CUDA, NCCL and MPI into ours, with file:line in the message, and return or jump.
 */
#ifndef DTR_CHECKS_H
#define DTR_CHECKS_H

#include "debug.h"

#define DTRCHECK(call)                               \
  do {                                               \
    dtrResult_t res_ = (call);                       \
    if (res_ != dtrSuccess) {                        \
      TRACE("%s failed: %d", #call, (int)res_);      \
      return res_;                                   \
    }                                                \
  } while (0)

#define DTRCHECKGOTO(call, res, label)               \
  do {                                               \
    (res) = (call);                                  \
    if ((res) != dtrSuccess) {                       \
      TRACE("%s failed: %d", #call, (int)(res));     \
      goto label;                                    \
    }                                                \
  } while (0)

#define DTR_CUDA_RESULT(err) \
  ((err) == cudaErrorMemoryAllocation ? dtrOutOfMemory : \
   ((err) == cudaErrorNoDevice || (err) == cudaErrorInsufficientDriver) ? dtrNoDevice : dtrCudaError)

#define CUDACHECK(call)                                                                       \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess)                                                                  \
      return dtrSetError(DTR_CUDA_RESULT(err_), "%s:%d %s: CUDA error %s (%s)", __FILE__,     \
                         __LINE__, #call, cudaGetErrorName(err_), cudaGetErrorString(err_));  \
  } while (0)

#define CUDACHECKGOTO(call, res, label)                                                       \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      (res) = dtrSetError(DTR_CUDA_RESULT(err_), "%s:%d %s: CUDA error %s (%s)", __FILE__,    \
                          __LINE__, #call, cudaGetErrorName(err_), cudaGetErrorString(err_)); \
      goto label;                                                                             \
    }                                                                                         \
  } while (0)

#define NCCLCHECKGOTO(call, res, label)                                                       \
  do {                                                                                        \
    ncclResult_t nres_ = (call);                                                              \
    if (nres_ != ncclSuccess && nres_ != ncclInProgress) {                                    \
      (res) = dtrSetError(dtrNcclError, "%s:%d %s: NCCL error %d (%s)", __FILE__, __LINE__,   \
                          #call, (int)nres_, ncclGetErrorString(nres_));                      \
      goto label;                                                                             \
    }                                                                                         \
  } while (0)

#define NCCLCHECK(call)                                                                       \
  do {                                                                                        \
    ncclResult_t nres_ = (call);                                                              \
    if (nres_ != ncclSuccess && nres_ != ncclInProgress)                                      \
      return dtrSetError(dtrNcclError, "%s:%d %s: NCCL error %d (%s)", __FILE__, __LINE__,    \
                         #call, (int)nres_, ncclGetErrorString(nres_));                       \
  } while (0)

#define MPICHECK(call)                                                                        \
  do {                                                                                        \
    int merr_ = (call);                                                                       \
    if (merr_ != MPI_SUCCESS) {                                                               \
      char mstr_[MPI_MAX_ERROR_STRING];                                                       \
      int mlen_ = 0;                                                                          \
      MPI_Error_string(merr_, mstr_, &mlen_);                                                 \
      return dtrSetError(dtrMpiError, "%s:%d %s: MPI error %s", __FILE__, __LINE__, #call,    \
                         mstr_);                                                              \
    }                                                                                         \
  } while (0)

#endif
