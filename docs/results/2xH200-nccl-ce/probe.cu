// Probe: NCCL's all-to-all by SMs (default CTA policy) against the copy engines (CTA policy zero,
// symmetric windows), alone and beside a memory-heavy copy kernel on another stream.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { printf("NCCL %s at %d: %s (%s)\n", #x, __LINE__, ncclGetErrorString(r_), ncclGetLastError(NULL)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

__global__ void copyKernel(const int4* __restrict__ s, int4* __restrict__ d, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}

struct Comm { ncclComm_t c; const char* name; int ce; };

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, P, ndev;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  CK(cudaGetDeviceCount(&ndev));
  CK(cudaSetDevice(rank % ndev));
  int ver; ncclGetVersion(&ver);
  if (!rank) printf("NCCL %d, %d ranks\n", ver, P);
  Comm comms[2] = {{0, "sm", 0}, {0, "ce", 1}};
  for (int k = 0; k < 2; k++) {
    ncclUniqueId id;
    if (!rank) NK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    if (comms[k].ce) cfg.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    NK(ncclCommInitRankConfig(&comms[k].c, P, id, rank, &cfg));
  }
  cudaStream_t st, side;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t a, b, c2, d2;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); CK(cudaEventCreate(&c2)); CK(cudaEventCreate(&d2));
  const size_t big = (size_t)1 << 30;
  int4 *cs, *cd;
  CK(cudaMalloc(&cs, big)); CK(cudaMalloc(&cd, big));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank % ndev));
  const size_t sizes[] = {(size_t)1 << 20, (size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20, (size_t)1 << 30};
  for (size_t S : sizes) {
    const size_t per = S / P;
    for (int k = 0; k < 2; k++) {
      Comm& cm = comms[k];
      void *sb, *rb;
      NK(ncclMemAlloc(&sb, S)); NK(ncclMemAlloc(&rb, S));
      ncclWindow_t ws = NULL, wr = NULL;
      ncclResult_t wres = ncclCommWindowRegister(cm.c, sb, S, &ws, NCCL_WIN_COLL_SYMMETRIC);
      if (wres == ncclSuccess) wres = ncclCommWindowRegister(cm.c, rb, S, &wr, NCCL_WIN_COLL_SYMMETRIC);
      if (wres != ncclSuccess) { if (!rank) printf("window register on %s failed: %s\n", cm.name, ncclGetErrorString(wres)); }
      for (int mode = 0; mode < 2; mode++) { // 0: alone; 1: beside a copy kernel of the same duration
        // the copy's bytes: about what HBM moves while the all-to-all runs alone (measured below in mode 0)
        static size_t copyBytes = 0;
        std::vector<float> t, tc;
        for (int it = 0; it < 25; it++) {
          MPI_Barrier(MPI_COMM_WORLD);
          if (mode) {
            CK(cudaEventRecord(c2, side));
            copyKernel<<<sms * 4, 256, 0, side>>>(cs, cd, copyBytes / 16);
            CK(cudaEventRecord(d2, side));
          }
          CK(cudaEventRecord(a, st));
          NK(ncclAlltoAll(sb, rb, per, ncclUint8, cm.c, st));
          CK(cudaEventRecord(b, st));
          CK(cudaStreamSynchronize(st)); CK(cudaStreamSynchronize(side));
          float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (it >= 5) t.push_back(ms * 1000);
          if (mode) { CK(cudaEventElapsedTime(&ms, c2, d2)); if (it >= 5) tc.push_back(ms * 1000); }
        }
        static float alone = 0;
        float m = median(t), mm = m;
        MPI_Allreduce(&m, &mm, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
        if (mode == 0) {
          // a copy that alone takes about as long as this all-to-all: at ~3.5 TB/s read + write
          copyBytes = std::min(big, (size_t)(mm * 1e-6 * 3.5e12 / 2) / 16 * 16);
          alone = mm;
          if (!rank) printf("%-3s S=%8zu KiB  a2a alone %9.1f us", cm.name, S >> 10, mm);
        } else {
          float cmed = median(tc), cmax;
          MPI_Allreduce(&cmed, &cmax, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
          if (!rank) printf("   beside a copy of %6zu MiB: a2a %9.1f us (x%.2f), copy %9.1f us\n", copyBytes >> 20, mm, mm / alone, cmax);
        }
      }
      if (ws) ncclCommWindowDeregister(cm.c, ws);
      if (wr) ncclCommWindowDeregister(cm.c, wr);
      ncclMemFree(sb); ncclMemFree(rb);
    }
  }
  // the copy alone, for reference
  for (size_t mb : {64, 256, 1024}) {
    std::vector<float> t;
    for (int it = 0; it < 15; it++) {
      CK(cudaEventRecord(c2, side)); copyKernel<<<sms * 4, 256, 0, side>>>(cs, cd, (mb << 20) / 16); CK(cudaEventRecord(d2, side));
      CK(cudaStreamSynchronize(side)); float ms; CK(cudaEventElapsedTime(&ms, c2, d2)); if (it >= 3) t.push_back(ms * 1000);
    }
    if (!rank) printf("copy alone %4zu MiB: %9.1f us (%.0f GB/s read+write)\n", mb, median(t), 2.0 * (mb << 20) / (median(t) * 1e-6) / 1e9);
  }
  for (int k = 0; k < 2; k++) ncclCommDestroy(comms[k].c);
  MPI_Finalize();
  return 0;
}
