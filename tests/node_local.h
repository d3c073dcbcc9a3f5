/* The node-local rank and the ranks on this node, and the GPU a test rank takes by them, as programs
 * do: the node-local rank's, modulo the GPUs, so that more ranks than GPUs share them (the p2p
 * backend serves that; NCCL allows one rank per GPU). */
#ifndef DTR_TEST_NODE_LOCAL_H
#define DTR_TEST_NODE_LOCAL_H

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

static inline void dtrTestNodeLocal(int* localRank, int* localSize) {
  int rank;
  MPI_Comm local;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, localRank);
  MPI_Comm_size(local, localSize);
  MPI_Comm_free(&local);
}

/* Collective: this rank's GPU made current (node-local rank modulo the GPUs). Returns the GPUs
 * this rank sees (0: none, nothing made current); *shared: whether ranks of some host share a GPU. */
static inline int dtrTestPickGpu(int* shared) {
  int count = 0, localRank, localSize;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  dtrTestNodeLocal(&localRank, &localSize);
  int mine = count > 0 && localSize > count;
  MPI_Allreduce(&mine, shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (count > 0) cudaSetDevice(localRank % count);
  return count;
}

/* Collective, for a test's GPU mode: picks this rank's GPU and returns 0, or, where a rank sees none,
 * says `name` is skipped (rank 0) and returns 1 on every rank. */
static inline int dtrTestGpuOrSkip(const char* name) {
  int shared = 0, rank = 0;
  int none = dtrTestPickGpu(&shared) == 0, any = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&none, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && rank == 0) printf("%s: a rank sees no GPU: skipped\n", name);
  return any;
}

/* How the FFT, real-to-real, halo and autotune tests start: MPI, this rank's place, the mode (argv[1]
 * "gpu", argv[2] "-v") and in GPU mode this rank's GPU (*device). Returns 1 on every rank, MPI finalized,
 * where GPU mode finds a rank without a GPU (`name` skipped); the caller then exits as skipped. */
static inline int dtrTestStart(int* argc, char*** argv, const char* name, int* rank, int* nranks, int* gpu,
                               int* verbose, int* device) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, nranks);
  *gpu = *argc > 1 && !strcmp((*argv)[1], "gpu");
  *verbose = *argc > 2 && !strcmp((*argv)[2], "-v");
  if (!*gpu) return 0;
  char mode[96];
  snprintf(mode, sizeof mode, "%s gpu", name);
  if (dtrTestGpuOrSkip(mode)) {
    MPI_Finalize();
    return 1;
  }
  cudaGetDevice(device);
  return 0;
}

/* The pr x pc grids of `nranks` ranks, pr ascending (at most 8): *count of them into grids. */
static inline int dtrTestGrids(int nranks, int grids[8][2]) {
  int n = 0;
  for (int pr = 1; pr <= nranks; pr++)
    if (nranks % pr == 0 && n < 8) grids[n][0] = pr, grids[n][1] = nranks / pr, n++;
  return n;
}

#endif
