/*
 * fft-parts: the pieces a slab FFT's overlap is made of, measured on the GPUs of one host from one
 * process, to choose how the exchange should move its bytes:
 *   - on two GPUs: peer copies by the copy engines (one way, both ways at once, 2-D with whole rows),
 *     and by a copy kernel of a given number of blocks; cuFFT's pass along z, contiguous (Z-pencil in
 *     place) and transposing (reading the planes of a [z][y][x] array, writing the [y][x][z]
 *     Z-pencil); a 2-D pass beside a peer copy: how much the two slow each other down;
 *   - on all P GPUs at once (P >= 3), the all-to-all of the slab route's copies, each GPU sending 1/P
 *     of its slab to every peer by the copy engines: on one stream with the peers in the same order
 *     on every GPU (all begin with GPU 0), on one stream in a staggered order (GPU g's s-th peer is
 *     g + s), and on a stream a peer; the same as 2-D copies of narrower and wider rows; then every
 *     GPU's 2-D pass alone, and beside the copies.
 *   - on one GPU, standing for one rank of P slabs: what a chunk of the route costs that rank's GPU
 *     without the links (chunkCosts): its 2-D pass in k chunks on one stream and alternating over
 *     two, and its transposing pass along z in k chunks of lines alike; the 2-D pass with each
 *     chunk's rows for the P - 1 peers copied by the copy engines into a local array at their place
 *     (the peers' staging arrays' stand-in), then the pass along z; and the 2-D pass in pieces of
 *     1-32 planes, on one stream and alternating over two (pieces small enough for L2 let the 2-D
 *     transform's second kernel read what its first wrote there rather than from HBM).
 *   - the 2-D pass that delivers as it goes (scatter; on one GPU for one rank of P, and on all GPUs at
 *     once): cuFFT's 2-D pass then the copy engines' copies of each rank's rows into that rank's array,
 *     against the library's one-trip kernel running y (a plane's columns) first and x last, its x pass a
 *     launch a rank that writes that rank's rows straight into its array (over NVLink where the array
 *     is a peer's); the parts alone, and the results checked against cuFFT's.
 *   fft-parts [n [P [json [parts]]]]   (n: an n^3 c64 array, default 512, on as many slabs as GPUs;
 *   P: the ranks whose one slab the one-GPU parts model, default 4; json: where the times go ("-":
 *   nowhere); parts: a comma list of chunks, pieces, scatter, links (the parts of two GPUs and more),
 *   default all)
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <cufft.h>

#include <mpi.h> /* before the library's C headers, which include it, take C linkage */

#include "axis_launch.h"
extern "C" {
#include "core/params.h"
}

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define FK(x)                                                              \
  do {                                                                     \
    cufftResult r_ = (x);                                                  \
    if (r_ != CUFFT_SUCCESS) {                                             \
      fprintf(stderr, "%s:%d %s: cufft %d\n", __FILE__, __LINE__, #x, r_); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void copyKernel(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t words) {
  const size_t stride = (size_t)gridDim.x * blockDim.x * 4;
  for (size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4; i < words; i += stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u < words) v[u] = src[i + u];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (i + u < words) dst[i + u] = v[u];
  }
}

template <typename F>
static float timeIt(cudaStream_t s, F&& f, int reps = 10) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaStreamSynchronize(s));
  float best = 1e30f, all[64];
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a, s));
    f();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&all[r], a, b));
  }
  std::qsort(all, reps, sizeof(float), [](const void* x, const void* y) {
    return (int)(*(const float*)x > *(const float*)y) - (int)(*(const float*)x < *(const float*)y);
  });
  best = all[reps / 2];
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best * 1e3f; /* microseconds, median */
}

/* Median wall time (us) of `run` on every GPU at once, every GPU synchronized before and after. */
template <typename F>
static float timeAll(int gpus, F&& run, int reps = 10) {
  auto syncAll = [&] {
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      CK(cudaDeviceSynchronize());
    }
  };
  run();
  syncAll();
  std::vector<float> all;
  for (int r = 0; r < reps; r++) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    syncAll();
    all.push_back(std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(all.begin(), all.end());
  return all[all.size() / 2];
}

/* The JSON's top-level fields, each part adding its own ("key": value); main writes them out. */
static std::vector<std::string> jsonFields;
static void jsonField(const char* fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  jsonFields.push_back(line);
}

/* Complex numbers that differ per element (a hash of the index in [-1, 1)), so that a transform's
 * result checks every point. */
__global__ void fillKernel(float2* a, size_t count, unsigned salt) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ salt, k = h * 2246822519u ^ (unsigned)(i >> 32);
    h ^= h >> 15, k ^= k >> 13;
    a[i] = make_float2((float)(h * 3266489917u >> 8) / 8388608.0f - 1.0f, (float)(k * 668265263u >> 8) / 8388608.0f - 1.0f);
  }
}
static void fill(char* a, size_t bytes, unsigned salt) {
  fillKernel<<<1024, 256>>>((float2*)a, bytes / 8, salt);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize()); /* the parts run on streams that do not follow the legacy one */
}

/* max |a - b| / max |b| over two c64 arrays of this GPU (`bytes` each). */
static double maxRelDiff(const char* a, const char* b, size_t bytes) {
  std::vector<float> x(bytes / 4), y(bytes / 4);
  CK(cudaMemcpy(x.data(), a, bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), b, bytes, cudaMemcpyDeviceToHost));
  double diff = 0, big = 0;
  for (size_t i = 0; i < x.size(); i++) diff = std::max(diff, (double)std::fabs(x[i] - y[i])), big = std::max(big, (double)std::fabs(y[i]));
  return big > 0 ? diff / big : diff;
}

/* The library's one-trip kernel (kernels/axis_launch.h) as a forward DFT of c64 lines of n points: its
 * table on the current GPU. */
static void* oneTripTable(long n) {
  std::vector<char> host(dtrAxisOneTripTableBytes(n, 0));
  dtrAxisOneTripTable(n, 0, host.data());
  void* table;
  CK(cudaMalloc(&table, host.size()));
  CK(cudaMemcpy(table, host.data(), host.size(), cudaMemcpyHostToDevice));
  return table;
}
/* units x lines lines of n points from one layout into another (in points), as the library's passes
 * launch it (DTR_FFT_PASS_ASYNC as they read it). prepare: once per layout and GPU before the timed
 * runs (the kernels' shared memory). */
static void dft(long n, long units, long lines, dtrAxisSide from, dtrAxisSide into, const void* in, void* out,
                const void* table, cudaStream_t s, bool prepare = false) {
  const dtrAxisRows r = {n, units, lines, 1, 1, 0, 1};
  if (prepare) {
    if (!dtrAxisOneTripFits(&r, from, into)) {
      fprintf(stderr, "fft-parts: the library's one-trip kernel does not take these lines of %ld points\n", n);
      exit(1);
    }
    CK(dtrAxisOneTripPrepare(&r, from, into));
  }
  CK(dtrAxisOneTripLaunch(&r, from, into, in, out, dtrAxisDftForward, 1.0, table, dtrEnvParamsGet()->fft_pass_async, s));
}

/* One rank's slab of 1 x P slabs of n^3 c64 (`planes` planes of n rows of n points) and the layouts of
 * its 2-D pass that delivers as it goes: y (a plane's columns) first, x (packed rows) last, rank q's
 * `rows` rows of every plane into q's array at their place ([plane][row][x], `rows` rows a plane). */
struct Delivery {
  long n, planes, rows;
  dtrAxisSide columns() const { return {n * n, 1, n}; }
  dtrAxisSide packed() const { return {n * n, n, 1}; }
  dtrAxisSide ranksRows() const { return {rows * n, n, 1}; }
  size_t rowBytes() const { return (size_t)rows * n * 8; }  /* a rank's rows of one plane */
  size_t piece() const { return rowBytes() * planes; }      /* a rank's rows of every plane */
  size_t plane() const { return (size_t)n * n * 8; }
  /* the y pass of the whole slab */
  void yPass(const char* in, char* out, const void* table, cudaStream_t s, bool prepare = false) const {
    dft(n, planes, n, columns(), columns(), in, out, table, s, prepare);
  }
  /* the x pass of rank q's rows into `to` (q's array, or this rank's stand-in of it) */
  void xInto(int q, const char* from, char* to, const void* table, cudaStream_t s, bool prepare = false) const {
    dft(n, planes, rows, packed(), ranksRows(), from + (size_t)q * rowBytes(), to, table, s, prepare);
  }
  /* the copy engines' copy of rank q's rows of the 2-D pass's output into `to` */
  void copyInto(int q, const char* from, char* to, cudaStream_t s) const {
    CK(cudaMemcpy2DAsync(to, rowBytes(), from + (size_t)q * rowBytes(), plane(), rowBytes(), planes, cudaMemcpyDeviceToDevice, s));
  }
};

/* GPU g (the current device) maps the memory of every other of the `gpus` (once a process: a second
 * time is no error). */
static void mapPeers(int g, int gpus) {
  for (int q = 0; q < gpus; q++)
    if (q != g) {
      const cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
      if (e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
      (void)cudaGetLastError();
    }
}

/* The slab route's all-to-all on every GPU at once, and the 2-D passes beside it. */
static void allToAll(int gpus, long n) {
  const long planes = n / gpus;
  const size_t slab = (size_t)n * n * planes * 8, piece = slab / gpus;
  std::vector<char*> src(gpus), dst(gpus);
  std::vector<std::vector<cudaStream_t>> lanes(gpus, std::vector<cudaStream_t>(gpus));
  std::vector<cufftHandle> xy(gpus);
  for (int g = 0; g < gpus; g++) {
    CK(cudaSetDevice(g));
    mapPeers(g, gpus);
    CK(cudaMalloc(&src[g], slab));
    CK(cudaMalloc(&dst[g], slab));
    CK(cudaMemset(src[g], 1, slab));
    for (auto& l : lanes[g]) CK(cudaStreamCreateWithFlags(&l, cudaStreamNonBlocking));
    long long nyx[2] = {n, n};
    size_t work = 0;
    FK(cufftCreate(&xy[g]));
    FK(cufftMakePlanMany64(xy[g], 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, planes, &work));
    FK(cufftSetStream(xy[g], lanes[g][g]));
  }
  const double sent = (double)piece * (gpus - 1); /* bytes each GPU sends */
  printf("# all-to-all of the slab route on %d GPUs: %zu MiB a slab, %zu MiB to each peer\n", gpus, slab >> 20, piece >> 20);
  /* way 0: one stream, peers 0, 1, ... on every GPU; 1: one stream, staggered; 2: a stream a peer. */
  auto copies = [&](int way) {
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      for (int s = 1; s < gpus; s++) {
        const int q = way == 0 ? (s - 1 < g ? s - 1 : s) : (g + s) % gpus;
        cudaStream_t lane = way == 2 ? lanes[g][q] : lanes[g][(g + 1) % gpus];
        CK(cudaMemcpyAsync(dst[q] + (size_t)g * piece, src[g] + (size_t)q * piece, piece, cudaMemcpyDeviceToDevice, lane));
      }
    }
  };
  const char* names[3] = {"one stream, same order", "one stream, staggered", "a stream a peer"};
  for (int way = 0; way < 3; way++) {
    const float us = timeAll(gpus, [&] { copies(way); });
    printf("  copy engines, %-24s %9.1f us  %6.1f GB/s sent a GPU\n", names[way], us, sent / (us * 1e3));
  }
  /* The same bytes as 2-D copies of rows of w bytes, a row of each peer's in turn (as the slab route's
   * blocks of rows within planes): what narrow rows cost the copy engines. */
  for (size_t w : {(size_t)32 << 10, (size_t)128 << 10, (size_t)512 << 10, (size_t)2 << 20}) {
    const size_t rows = piece / w, pitch = w * gpus;
    const float us = timeAll(gpus, [&] {
      for (int g = 0; g < gpus; g++) {
        CK(cudaSetDevice(g));
        for (int s = 1; s < gpus; s++) {
          const int q = (g + s) % gpus;
          CK(cudaMemcpy2DAsync(dst[q] + (size_t)g * w, pitch, src[g] + (size_t)q * w, pitch, w, rows,
                               cudaMemcpyDeviceToDevice, lanes[g][(g + 1) % gpus]));
        }
      }
    });
    printf("  copy engines 2-D, rows of %4zu KiB, staggered %9.1f us  %6.1f GB/s sent a GPU\n", w >> 10, us, sent / (us * 1e3));
  }
  auto passes = [&] {
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      FK(cufftExecC2C(xy[g], (cufftComplex*)dst[g], (cufftComplex*)dst[g], CUFFT_FORWARD));
    }
  };
  const float alone = timeAll(gpus, passes);
  printf("  cuFFT 2-D passes alone (%ld planes a GPU): %9.1f us\n", planes, alone);
  /* The passes work on dst in place while the copies read src and write the peers' src: the bytes of
   * the FFT's overlap, without its order. */
  auto into = [&](int way) {
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      for (int s = 1; s < gpus; s++) {
        const int q = (g + s) % gpus;
        cudaStream_t lane = way == 2 ? lanes[g][q] : lanes[g][(g + 1) % gpus];
        CK(cudaMemcpyAsync(src[q] + (size_t)g * piece, src[g] + (size_t)q * piece, piece, cudaMemcpyDeviceToDevice, lane));
      }
    }
  };
  for (int way = 1; way < 3; way++) {
    const float copiesAlone = timeAll(gpus, [&] { into(way); });
    const float both = timeAll(gpus, [&] {
      into(way);
      passes();
    });
    printf("  passes beside copies (%s): %9.1f us  (copies alone %.1f, passes alone %.1f)\n", names[way], both, copiesAlone,
           alone);
  }
  for (int g = 0; g < gpus; g++) {
    CK(cudaSetDevice(g));
    cufftDestroy(xy[g]);
    for (auto& l : lanes[g]) cudaStreamDestroy(l);
    cudaFree(src[g]);
    cudaFree(dst[g]);
  }
}

/* The 2-D pass that delivers as it goes, on every GPU at once, each a rank of 1 x gpus slabs: (a)
 * cuFFT's 2-D pass then the copy engines' copies of each rank's rows into that rank's array (the peers'
 * over the links, staggered, and its own); (b) the library's y pass then its x pass a launch a rank,
 * writing each rank's rows straight into that rank's array (SM stores over NVLink to the peers). Each
 * GPU's work on one stream. The deliveries alone, the x pass into this GPU's own memory only, and what
 * (b) delivered checked against (a) on every GPU. Then the inverse's mirror, the x pass that gathers: each
 * GPU runs the same x pass over its own rows of every rank's y pass output, reading them from that
 * rank's GPU (SM loads over NVLink), into its own memory; checked against what (b) delivered there. */
static void scatterAcross(int gpus, long n) {
  const Delivery d = {n, n / gpus, n / gpus};
  const size_t slab = d.plane() * d.planes;
  std::vector<char*> in(gpus), S(gpus), T(gpus), copied(gpus), written(gpus), gathered(gpus);
  std::vector<void*> table(gpus);
  std::vector<cudaStream_t> s(gpus);
  std::vector<cufftHandle> xy(gpus);
  for (int g = 0; g < gpus; g++) {
    CK(cudaSetDevice(g));
    mapPeers(g, gpus);
    for (auto* v : {&in, &S, &T, &copied, &written, &gathered}) CK(cudaMalloc(&(*v)[g], slab));
    fill(in[g], slab, 11 + g);
    table[g] = oneTripTable(n);
    CK(cudaStreamCreateWithFlags(&s[g], cudaStreamNonBlocking));
    long long nyx[2] = {n, n};
    size_t work = 0;
    FK(cufftCreate(&xy[g]));
    FK(cufftMakePlanMany64(xy[g], 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, d.planes, &work));
    FK(cufftSetStream(xy[g], s[g]));
  }
  /* Rank g's rows of q go to q's array at g's place; q = g + k, staggered. */
  auto perGpu = [&](auto&& body) {
    for (int g = 0; g < gpus; g++) {
      CK(cudaSetDevice(g));
      body(g);
    }
  };
  auto cufft2d = [&](int g) { FK(cufftExecC2C(xy[g], (cufftComplex*)in[g], (cufftComplex*)S[g], CUFFT_FORWARD)); };
  auto copies = [&](int g) {
    for (int k = 0; k < gpus; k++) {
      const int q = (g + k) % gpus;
      d.copyInto(q, S[g], copied[q] + g * d.piece(), s[g]);
    }
  };
  auto xInto = [&](int g, bool ownGpu, bool prepare) {
    for (int k = 0; k < gpus; k++) {
      const int q = (g + k) % gpus;
      d.xInto(q, T[g], (ownGpu ? written[g] + q * d.piece() : written[q] + g * d.piece()), table[g], s[g], prepare);
    }
  };
  /* GPU g's rows of rank q's output, read from q's GPU into g's memory at q's place. */
  auto xFrom = [&](int g, bool prepare) {
    for (int k = 0; k < gpus; k++) {
      const int q = (g + k) % gpus;
      d.xInto(g, T[q], gathered[g] + q * d.piece(), table[g], s[g], prepare);
    }
  };
  perGpu([&](int g) {
    d.yPass(in[g], T[g], table[g], s[g], true);
    xInto(g, false, true);
    xFrom(g, true);
  });
  const float tCufft = timeAll(gpus, [&] { perGpu(cufft2d); });
  const float tCopies = timeAll(gpus, [&] { perGpu(copies); });
  const float tA = timeAll(gpus, [&] { perGpu([&](int g) { cufft2d(g); copies(g); }); });
  const float tY = timeAll(gpus, [&] { perGpu([&](int g) { d.yPass(in[g], T[g], table[g], s[g]); }); });
  const float tXPeers = timeAll(gpus, [&] { perGpu([&](int g) { xInto(g, false, false); }); });
  const float tXOwn = timeAll(gpus, [&] { perGpu([&](int g) { xInto(g, true, false); }); });
  const float tB = timeAll(gpus, [&] { perGpu([&](int g) { d.yPass(in[g], T[g], table[g], s[g]); xInto(g, false, false); }); });
  const float tXFrom = timeAll(gpus, [&] { perGpu([&](int g) { xFrom(g, false); }); });
  auto synchronize = [&](int) { CK(cudaDeviceSynchronize()); };
  perGpu([&](int g) { cufft2d(g); copies(g); });
  perGpu(synchronize);
  perGpu([&](int g) { d.yPass(in[g], T[g], table[g], s[g]); xInto(g, false, false); });
  perGpu(synchronize);
  double diff = 0;
  perGpu([&](int g) { diff = std::max(diff, maxRelDiff(written[g], copied[g], slab)); });
  perGpu([&](int g) { xFrom(g, false); });
  perGpu(synchronize);
  double gatherDiff = 0;
  perGpu([&](int g) { gatherDiff = std::max(gatherDiff, maxRelDiff(gathered[g], written[g], slab)); });
  const double sent = (double)d.piece() * (gpus - 1);
  printf("# the 2-D pass that delivers as it goes, on %d GPUs at once (%zu MiB a slab, %zu MiB to each rank)\n", gpus, slab >> 20,
         d.piece() >> 20);
  printf("  (a) cuFFT 2-D pass %.1f us, then the copy engines (staggered) %.1f us (%.1f GB/s sent a GPU): %.1f us\n", tCufft, tCopies,
         sent / (tCopies * 1e3), tA);
  printf("  (b) library y pass %.1f us, then its x pass into the ranks' arrays %.1f us (%.1f GB/s sent a GPU): %.1f us  (b / a %.2f)\n",
         tY, tXPeers, sent / (tXPeers * 1e3), tB, tB / tA);
  printf("  the same x pass into this GPU's memory only %.1f us; check: (b) against (a) %.1e\n", tXOwn, diff);
  printf("  the x pass that gathers, reading the ranks' outputs from their GPUs %.1f us (%.1f GB/s read a GPU); check against (b) %.1e\n",
         tXFrom, sent / (tXFrom * 1e3), gatherDiff);
  jsonField("\"scatter_gpus\": {\"gpus\": %d, \"cufft_2d_us\": %.1f, \"copies_us\": %.1f, \"cufft_then_copies_us\": %.1f, "
            "\"y_pass_us\": %.1f, \"x_into_peers_us\": %.1f, \"x_into_own_gpu_us\": %.1f, \"library_into_peers_us\": %.1f, "
            "\"max_rel_diff_delivered\": %.2e, \"x_from_peers_us\": %.1f, \"max_rel_diff_gathered\": %.2e}",
            gpus, tCufft, tCopies, tA, tY, tXPeers, tXOwn, tB, diff, tXFrom, gatherDiff);
  if (gatherDiff > 1e-6) {
    fprintf(stderr, "fft-parts: what the x pass gathered from the peers disagrees with what it delivered (%.1e)\n", gatherDiff);
    exit(1);
  }
  if (diff > 1e-4) {
    fprintf(stderr, "fft-parts: what the x pass delivered to the peers disagrees with the copies' (%.1e)\n", diff);
    exit(1);
  }
  for (int g = 0; g < gpus; g++) {
    CK(cudaSetDevice(g));
    cufftDestroy(xy[g]);
    cudaStreamDestroy(s[g]);
    cudaFree(table[g]);
    for (auto* v : {&in, &S, &T, &copied, &written, &gathered}) cudaFree((*v)[g]);
  }
  CK(cudaSetDevice(0));
}

/* Two pass streams and, where `lane` is not 0, a copy stream, which an alternating run forks from pass[0]
 * and joins back into it. */
struct Alternation {
  cudaStream_t pass[2], lane;
  cudaEvent_t fork, joined[2];
};
static Alternation alternation(const cudaStream_t pass[2], cudaStream_t lane) {
  Alternation a = {{pass[0], pass[1]}, lane, {}, {}};
  for (auto* ev : {&a.fork, &a.joined[0], &a.joined[1]}) CK(cudaEventCreateWithFlags(ev, cudaEventDisableTiming));
  return a;
}
static void release(const Alternation& a) {
  for (auto ev : {a.fork, a.joined[0], a.joined[1]}) cudaEventDestroy(ev);
}
/* body(c, st) for chunks c in [0, count), chunk c on pass[st]: st alternating over the two streams where
 * `streams` is 2, else 0; pass[1] and the lane forked from pass[0] before and joined into it after. */
template <typename F>
static void alternate(const Alternation& a, long count, int streams, F&& body) {
  CK(cudaEventRecord(a.fork, a.pass[0]));
  CK(cudaStreamWaitEvent(a.pass[1], a.fork, 0));
  if (a.lane) CK(cudaStreamWaitEvent(a.lane, a.fork, 0));
  for (long c = 0; c < count; c++) body(c, streams == 2 ? (int)(c & 1) : 0);
  CK(cudaEventRecord(a.joined[0], a.pass[1]));
  CK(cudaStreamWaitEvent(a.pass[0], a.joined[0], 0));
  if (a.lane) {
    CK(cudaEventRecord(a.joined[1], a.lane));
    CK(cudaStreamWaitEvent(a.pass[0], a.joined[1], 0));
  }
}

/* The 2-D pass of a rank's `planes` planes of n x n c64, from `in` into `S`, in pieces of p planes on
 * one stream and alternating over two: its times (us, medians of 10) a piece size. */
struct Pieces {
  long planes;
  float oneStream, twoStreams;
};
static std::vector<Pieces> passInPieces(long n, long planes, char* in, char* S, const Alternation& a) {
  const size_t plane = (size_t)n * n * 8;
  long long nyx[2] = {n, n};
  std::vector<Pieces> out;
  for (long p : {1L, 2L, 4L, 8L, 16L, 32L}) {
    if (p > planes || planes % p) continue;
    cufftHandle h[2];
    size_t work = 0;
    for (int st = 0; st < 2; st++) {
      FK(cufftCreate(&h[st]));
      FK(cufftMakePlanMany64(h[st], 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, p, &work));
      FK(cufftSetStream(h[st], a.pass[st]));
    }
    auto run = [&](int streams) {
      alternate(a, planes / p, streams, [&](long c, int st) {
        FK(cufftExecC2C(h[st], (cufftComplex*)(in + c * p * plane), (cufftComplex*)(S + c * p * plane), CUFFT_FORWARD));
      });
    };
    const float one = timeIt(a.pass[0], [&] { run(1); });
    const float two = timeIt(a.pass[0], [&] { run(2); });
    out.push_back({p, one, two});
    for (auto x : h) cufftDestroy(x);
  }
  return out;
}

/* One rank of a 1 x P slab FFT of n^3 c64 on this GPU, as the slab route orders its work but with every
 * copy staying on this GPU: its n / P planes through the 2-D pass in k chunks, each chunk's rows of the
 * P - 1 peers copied by the copy engines (one 2-D copy a peer, a row a plane) into a second staging array
 * at their place, then the pass along z from its own rows of every plane into its Z-pencil. The chunks'
 * passes on one stream, or alternating over two (their planes are independent), so that a chunk's
 * kernels may start while the one before drains. */
static void chunkCosts(long n, int P, bool chunks, bool inPieces) {
  const long planes = n / P, rows = n / P; /* this rank's planes (X-pencil) and rows (Z-pencil) */
  const size_t e = 8, plane = (size_t)n * n * e, slab = plane * planes, staging = plane * n;
  char *in, *S, *peers, *out;
  CK(cudaMalloc(&in, slab));
  CK(cudaMalloc(&S, staging));
  CK(cudaMalloc(&peers, staging));
  CK(cudaMalloc(&out, slab));
  for (auto [p, bytes] : {std::pair<char*, size_t>{in, slab}, {S, staging}, {peers, staging}, {out, slab}})
    CK(cudaMemset(p, 0, bytes));
  cudaStream_t pass[2], lane;
  for (auto* s : {&pass[0], &pass[1], &lane}) CK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
  const int ks[] = {1, 2, 4, 8, 16};
  int nk = 0; /* the chunk counts that divide the planes */
  while (nk < 5 && planes % ks[nk] == 0) nk++;
  /* A plan per stream and chunk count: a cuFFT plan's work area serves one stream at a time. */
  cufftHandle xy[2][5], z, zc[2][5];
  size_t work = 0;
  long long nyx[2] = {n, n}, nz[1] = {n}, embed[1] = {n};
  for (int st = 0; st < 2; st++)
    for (int i = 0; i < nk; i++) {
      FK(cufftCreate(&xy[st][i]));
      FK(cufftMakePlanMany64(xy[st][i], 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, planes / ks[i], &work));
      FK(cufftSetStream(xy[st][i], pass[st]));
    }
  FK(cufftCreate(&z));
  FK(cufftMakePlanMany64(z, 1, nz, embed, (long long)n * n, 1, embed, 1, n, CUFFT_C2C, (long long)rows * n, &work));
  FK(cufftSetStream(z, pass[0]));
  /* The pass along z in chunks of this rank's (y, x) lines, as the route's last pass takes them. */
  const long lines = rows * n;
  for (int st = 0; st < 2; st++)
    for (int i = 0; i < nk; i++) {
      FK(cufftCreate(&zc[st][i]));
      FK(cufftMakePlanMany64(zc[st][i], 1, nz, embed, (long long)n * n, 1, embed, 1, n, CUFFT_C2C, lines / ks[i], &work));
      FK(cufftSetStream(zc[st][i], pass[st]));
    }
  const Alternation withCopies = alternation(pass, lane), passesOnly = alternation(pass, 0);
  cudaEvent_t done[16];
  for (auto& ev : done) CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  auto copyRows = [&](size_t first, size_t count) { /* planes [first, first + count) to every peer */
    for (int q = 1; q < P; q++) {
      const size_t at = first * plane + (size_t)q * rows * n * e;
      CK(cudaMemcpy2DAsync(peers + at, plane, S + at, plane, (size_t)rows * n * e, count, cudaMemcpyDeviceToDevice, lane));
    }
  };
  auto run = [&](int i, bool copies, int streams) {
    const long per = planes / ks[i];
    alternate(withCopies, ks[i], streams, [&](long c, int st) {
      FK(cufftExecC2C(xy[st][i], (cufftComplex*)(in + c * per * plane), (cufftComplex*)(S + c * per * plane), CUFFT_FORWARD));
      if (copies) {
        CK(cudaEventRecord(done[c], pass[st]));
        CK(cudaStreamWaitEvent(lane, done[c], 0));
        copyRows((size_t)(c * per), (size_t)per);
      }
    });
    if (copies) FK(cufftExecC2C(z, (cufftComplex*)S, (cufftComplex*)out, CUFFT_FORWARD));
  };
  auto runZ = [&](int i, int streams) {
    const long per = lines / ks[i];
    alternate(passesOnly, ks[i], streams, [&](long c, int st) {
      FK(cufftExecC2C(zc[st][i], (cufftComplex*)(S + c * per * e), (cufftComplex*)(out + c * per * n * e), CUFFT_FORWARD));
    });
  };
  const float passAlone = timeIt(pass[0], [&] { run(0, false, 1); });
  const float copiesAlone = timeIt(lane, [&] { copyRows(0, (size_t)planes); });
  const float zAlone = timeIt(pass[0], [&] { FK(cufftExecC2C(z, (cufftComplex*)S, (cufftComplex*)out, CUFFT_FORWARD)); });
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# one rank of 1 x %d slabs of %ld^3 c64 on one %s (%ld planes, %zu MiB; the peers' rows copied on this GPU)\n",
         P, n, prop.name, planes, slab >> 20);
  printf("#   2-D pass alone %.1f us, its copies alone %.1f us, the pass along z alone %.1f us\n", passAlone, copiesAlone, zAlone);
  jsonField("\"pass_us\": %.1f, \"copies_us\": %.1f, \"z_us\": %.1f", passAlone, copiesAlone, zAlone);
  if (chunks) {
    printf("# %6s %16s %16s %16s %16s %18s %18s\n", "chunks", "2-D, 1 stream", "2-D, 2 streams", "z, 1 stream",
           "z, 2 streams", "route, 1 stream", "route, 2 streams");
    std::string rows;
    for (int i = 0; i < nk; i++) {
      float t[4], tz[2];
      for (int m = 0; m < 4; m++) t[m] = timeIt(pass[0], [&] { run(i, m >= 2, 1 + (m & 1)); });
      for (int m = 0; m < 2; m++) tz[m] = timeIt(pass[0], [&] { runZ(i, 1 + m); });
      printf("  %6d %16.1f %16.1f %16.1f %16.1f %18.1f %18.1f\n", ks[i], t[0], t[1], tz[0], tz[1], t[2], t[3]);
      char row[512];
      snprintf(row, sizeof row,
               "%s\n    {\"chunks\": %d, \"pass_one_stream_us\": %.1f, \"pass_two_streams_us\": %.1f, \"z_one_stream_us\": %.1f, "
               "\"z_two_streams_us\": %.1f, \"route_one_stream_us\": %.1f, \"route_two_streams_us\": %.1f}",
               i ? "," : "", ks[i], t[0], t[1], tz[0], tz[1], t[2], t[3]);
      rows += row;
    }
    jsonField("\"chunks\": [%s\n  ]", rows.c_str());
  }
  if (inPieces) {
    const std::vector<Pieces> pieces = passInPieces(n, planes, in, S, passesOnly);
    printf("# the 2-D pass in pieces (L2: %d MiB)\n# %6s %10s %16s %16s\n", prop.l2CacheSize >> 20, "planes", "MiB", "1 stream",
           "2 streams");
    std::string rows;
    for (size_t i = 0; i < pieces.size(); i++) {
      const Pieces& p = pieces[i];
      printf("  %6ld %10zu %16.1f %16.1f\n", p.planes, (size_t)p.planes * plane >> 20, p.oneStream, p.twoStreams);
      char row[256];
      snprintf(row, sizeof row, "%s\n    {\"planes\": %ld, \"bytes\": %zu, \"one_stream_us\": %.1f, \"two_streams_us\": %.1f}",
               i ? "," : "", p.planes, (size_t)p.planes * plane, p.oneStream, p.twoStreams);
      rows += row;
    }
    jsonField("\"pieces\": [%s\n  ]", rows.c_str());
  }
  for (int st = 0; st < 2; st++)
    for (int i = 0; i < nk; i++) cufftDestroy(xy[st][i]), cufftDestroy(zc[st][i]);
  cufftDestroy(z);
  release(withCopies);
  release(passesOnly);
  for (auto ev : done) cudaEventDestroy(ev);
  for (auto s : {pass[0], pass[1], lane}) cudaStreamDestroy(s);
  for (char* p : {in, S, peers, out}) cudaFree(p);
}

/* One rank of 1 x P slabs of n^3 c64 on this GPU: its 2-D pass and the delivery of every rank's rows
 * (the peers' arrays' stand-ins on this GPU, and its own), (a) by cuFFT's 2-D pass then the copy
 * engines, (b) by the library's y pass then its x pass a launch a rank into that rank's array. */
static void scatterCosts(long n, int P) {
  const Delivery d = {n, n / P, n / P};
  const size_t slab = d.plane() * d.planes;
  char *in, *S, *T, *U, *copied, *written;
  for (char** p : {&in, &S, &T, &U, &copied, &written}) CK(cudaMalloc(p, slab));
  fill(in, slab, 7);
  void* table = oneTripTable(n);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cufftHandle xy, x;
  size_t work = 0;
  long long nyx[2] = {n, n}, nx[1] = {n};
  FK(cufftCreate(&xy));
  FK(cufftMakePlanMany64(xy, 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, d.planes, &work));
  FK(cufftSetStream(xy, s));
  FK(cufftCreate(&x));
  FK(cufftMakePlanMany64(x, 1, nx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, d.planes * n, &work));
  FK(cufftSetStream(x, s));
  auto cufft2d = [&] { FK(cufftExecC2C(xy, (cufftComplex*)in, (cufftComplex*)S, CUFFT_FORWARD)); };
  auto copies = [&] {
    for (int q = 0; q < P; q++) d.copyInto(q, S, copied + q * d.piece(), s);
  };
  auto xIntoRanks = [&](bool prepare) {
    for (int q = 0; q < P; q++) d.xInto(q, T, written + q * d.piece(), table, s, prepare);
  };
  auto xWhole = [&](bool prepare) { dft(n, d.planes, n, d.packed(), d.packed(), T, U, table, s, prepare); };
  d.yPass(in, T, table, s, true);
  xWhole(true);
  xIntoRanks(true);
  CK(cudaStreamSynchronize(s));
  const float tCufft = timeIt(s, cufft2d), tCopies = timeIt(s, copies);
  const float tA = timeIt(s, [&] { cufft2d(); copies(); });
  const float tCufftX = timeIt(s, [&] { FK(cufftExecC2C(x, (cufftComplex*)T, (cufftComplex*)U, CUFFT_FORWARD)); });
  const float tY = timeIt(s, [&] { d.yPass(in, T, table, s); });
  const float tX = timeIt(s, [&] { xWhole(false); });
  const float tXRanks = timeIt(s, [&] { xIntoRanks(false); });
  const float tOurs = timeIt(s, [&] { d.yPass(in, T, table, s); xWhole(false); });
  const float tB = timeIt(s, [&] { d.yPass(in, T, table, s); xIntoRanks(false); });
  /* The checks: the library's 2-D pass against cuFFT's, what (b) delivered against what (a) did. */
  cufft2d();
  copies();
  d.yPass(in, T, table, s);
  xWhole(false);
  xIntoRanks(false);
  CK(cudaStreamSynchronize(s));
  const double diff2d = maxRelDiff(U, S, slab), diffDelivered = maxRelDiff(written, copied, slab);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# the 2-D pass that delivers as it goes: one rank of 1 x %d slabs of %ld^3 c64 on one %s\n", P, n, prop.name);
  printf("#   the ranks' arrays stand-ins on this GPU (%zu MiB a rank's rows)\n", d.piece() >> 20);
  printf("  (a) cuFFT 2-D pass %.1f us, then the copy engines' copies %.1f us: %.1f us\n", tCufft, tCopies, tA);
  printf("  (b) library y pass %.1f us, then its x pass into the ranks' arrays %.1f us: %.1f us  (b / a %.2f)\n", tY, tXRanks, tB,
         tB / tA);
  printf("  library x pass whole %.1f us (cuFFT's 1-D pass of the same rows %.1f), library 2-D pass %.1f us (÷ cuFFT %.2f)\n", tX,
         tCufftX, tOurs, tOurs / tCufft);
  printf("  checks: library 2-D pass against cuFFT's %.1e, delivered (b) against (a) %.1e (max |diff| / max |x|)\n", diff2d,
         diffDelivered);
  jsonField("\"scatter\": {\"device\": \"%s\", \"n\": %ld, \"ranks\": %d, \"planes\": %ld, \"cufft_2d_us\": %.1f, \"copies_us\": %.1f, "
            "\"cufft_then_copies_us\": %.1f, \"y_pass_us\": %.1f, \"x_pass_us\": %.1f, \"cufft_x_pass_us\": %.1f, "
            "\"x_into_ranks_us\": %.1f, \"library_2d_us\": %.1f, \"library_into_ranks_us\": %.1f, \"max_rel_diff_2d\": %.2e, "
            "\"max_rel_diff_delivered\": %.2e}",
            prop.name, n, P, d.planes, tCufft, tCopies, tA, tY, tX, tCufftX, tXRanks, tOurs, tB, diff2d, diffDelivered);
  if (diff2d > 1e-4 || diffDelivered > 1e-4) {
    fprintf(stderr, "fft-parts: the library's passes disagree with cuFFT's (%.1e, %.1e)\n", diff2d, diffDelivered);
    exit(1);
  }
  cufftDestroy(xy);
  cufftDestroy(x);
  cudaStreamDestroy(s);
  cudaFree(table);
  for (char* p : {in, S, T, U, copied, written}) cudaFree(p);
}

/* The parts of two GPUs (0 and 1): the copy engines and a copy kernel across the link, cuFFT's passes
 * along z and its 2-D pass, alone and beside a peer copy. */
static void twoGpus(long n) {
  const long half = n / 2;
  const size_t slab = (size_t)n * n * half * 8;  /* one rank's c64 slab */
  const size_t remote = slab / 2;                /* what crosses the link */
  char *a0, *b0, *a1, *b1;
  cudaStream_t s0, s1, t0;
  CK(cudaSetDevice(1));
  CK(cudaDeviceEnablePeerAccess(0, 0));
  CK(cudaMalloc(&a1, slab));
  CK(cudaMalloc(&b1, slab));
  CK(cudaStreamCreate(&s1));
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaMalloc(&a0, slab));
  CK(cudaMalloc(&b0, slab));
  CK(cudaMemset(a0, 1, slab));
  CK(cudaStreamCreate(&s0));
  CK(cudaStreamCreate(&t0));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("# fft-parts: %ld^3 c64 on 2 slabs: %zu MiB a slab, %zu MiB across the link\n", n, slab >> 20, remote >> 20);
  auto gbs = [&](size_t bytes, float us) { return bytes / (us * 1e3); };

  float us = timeIt(s0, [&] { CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, s0)); });
  printf("  copy engine 0 -> 1, %zu MiB:             %9.1f us  %6.1f GB/s\n", remote >> 20, us, gbs(remote, us));
  us = timeIt(s0, [&] {
    CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, s0));
    CK(cudaSetDevice(1));
    CK(cudaMemcpyAsync(b0, a1, remote, cudaMemcpyDeviceToDevice, s1));
    CK(cudaStreamSynchronize(s1));
    CK(cudaSetDevice(0));
  });
  printf("  copy engines both ways at once:           %9.1f us  %6.1f GB/s each way\n", us, gbs(remote, us));
  /* 2-D: half the rows of each plane (the rows a peer owns), plane after plane. */
  const size_t row = (size_t)n * half * 8, pitch = 2 * row;
  us = timeIt(s0, [&] { CK(cudaMemcpy2DAsync(b1, pitch, a0, pitch, row, half, cudaMemcpyDeviceToDevice, s0)); });
  printf("  copy engine 2-D (%zu KiB rows of %ld planes): %9.1f us  %6.1f GB/s\n", row >> 10, half, us, gbs(remote, us));
  for (int ctas : {8, 16, 32, 64, sms}) {
    us = timeIt(s0, [&] { copyKernel<<<ctas, 256, 0, s0>>>((uint4*)b1, (const uint4*)a0, remote / 16); });
    printf("  copy kernel 0 -> 1, %3d blocks:           %9.1f us  %6.1f GB/s\n", ctas, us, gbs(remote, us));
  }

  /* cuFFT along z: the Z-pencil in place, and transposing from [z][y][x] (this rank's y rows of every
   * plane) into the [y][x][z] Z-pencil. */
  const long rows = half * n; /* (y, x) lines of this rank */
  cufftHandle zc, zt, xy;
  size_t work;
  long long nz[1] = {n};
  FK(cufftCreate(&zc));
  FK(cufftMakePlanMany64(zc, 1, nz, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, rows, &work));
  long long inembed[1] = {n}, onembed[1] = {n};
  FK(cufftCreate(&zt));
  FK(cufftMakePlanMany64(zt, 1, nz, inembed, (long long)n * n, 1, onembed, 1, n, CUFFT_C2C, rows, &work));
  long long nyx[2] = {n, n};
  FK(cufftCreate(&xy));
  FK(cufftMakePlanMany64(xy, 2, nyx, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, half, &work));
  FK(cufftSetStream(zc, s0));
  FK(cufftSetStream(zt, s0));
  FK(cufftSetStream(xy, s0));
  /* The transposing pass reads a [z][n][x] array (all n rows of each plane, this rank's half of them):
   * a whole array's worth of rows a plane, which a slab's two buffers hold between them. */
  char* full;
  CK(cudaMalloc(&full, 2 * slab));
  CK(cudaMemset(full, 0, 2 * slab));
  us = timeIt(s0, [&] { FK(cufftExecC2C(zc, (cufftComplex*)a0, (cufftComplex*)a0, CUFFT_FORWARD)); });
  printf("  cuFFT z, Z-pencil in place:               %9.1f us  %6.1f GB/s\n", us, gbs(2 * slab, us));
  us = timeIt(s0, [&] { FK(cufftExecC2C(zt, (cufftComplex*)full, (cufftComplex*)b0, CUFFT_FORWARD)); });
  printf("  cuFFT z, transposing [z][y][x] -> Z:      %9.1f us  %6.1f GB/s\n", us, gbs(2 * slab, us));
  const float xyAlone = timeIt(s0, [&] { FK(cufftExecC2C(xy, (cufftComplex*)a0, (cufftComplex*)b0, CUFFT_FORWARD)); });
  printf("  cuFFT 2-D (y, x), out of place:           %9.1f us  %6.1f GB/s\n", xyAlone, gbs(4 * slab, xyAlone));
  for (int way = 0; way < 3; way++) {
    const char* what = way == 0 ? "copy engine" : way == 1 ? "copy kernel 32 blocks" : "copy kernel all blocks";
    us = timeIt(s0, [&] {
      cudaEvent_t fork, join;
      CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
      CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
      CK(cudaEventRecord(fork, s0));
      CK(cudaStreamWaitEvent(t0, fork, 0));
      if (way == 0) CK(cudaMemcpyAsync(b1, a0, remote, cudaMemcpyDeviceToDevice, t0));
      else copyKernel<<<way == 1 ? 32 : sms, 256, 0, t0>>>((uint4*)b1, (const uint4*)a0, remote / 16);
      FK(cufftExecC2C(xy, (cufftComplex*)full, (cufftComplex*)b0, CUFFT_FORWARD));
      CK(cudaEventRecord(join, t0));
      CK(cudaStreamWaitEvent(s0, join, 0));
      cudaEventDestroy(fork);
      cudaEventDestroy(join);
    });
    printf("  cuFFT 2-D beside a %-24s %9.1f us  (2-D alone %.1f)\n", what, us, xyAlone);
  }
  cufftDestroy(zc);
  cufftDestroy(zt);
  cufftDestroy(xy);
  for (char* p : {a0, b0, full}) cudaFree(p);
  for (auto st : {s0, t0}) cudaStreamDestroy(st);
  CK(cudaSetDevice(1));
  cudaFree(a1);
  cudaFree(b1);
  cudaStreamDestroy(s1);
  CK(cudaSetDevice(0));
}

static const char* const partNames[] = {"chunks", "pieces", "scatter", "links"};

/* Whether the comma list `parts` names `part`. */
static bool wants(const char* parts, const char* part) {
  const size_t len = strlen(part);
  for (const char* p = parts; *p;) {
    const char* end = strchr(p, ',');
    const size_t l = end ? (size_t)(end - p) : strlen(p);
    if (l == len && !strncmp(p, part, len)) return true;
    if (!end) break;
    p = end + 1;
  }
  return false;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 512;
  const int P = argc > 2 ? atoi(argv[2]) : 4;
  const char* json = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
  const char* parts = argc > 4 ? argv[4] : "chunks,pieces,scatter,links";
  if (n < 2 || P < 1 || n % P) {
    fprintf(stderr, "fft-parts: n = %ld and P = %d: n must be at least 2 and a multiple of P\n", n, P);
    return 2;
  }
  size_t named = 0;
  for (const char* part : partNames) named += wants(parts, part) ? strlen(part) + 1 : 0;
  if (named != strlen(parts) + 1) {
    fprintf(stderr, "fft-parts: parts \"%s\": a comma list of chunks, pieces, scatter, links\n", parts);
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    printf("fft-parts: needs a GPU\n");
    return 77;
  }
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  jsonField("\"what\": \"the parts of a slab FFT's overlap (fft-parts %s): one rank of 1 x P slabs on one GPU, and "
            "on every GPU at once (us, medians of 10)\"", parts);
  jsonField("\"device\": \"%s\", \"gpus\": %d, \"n\": %ld, \"ranks\": %d, \"planes\": %ld, \"l2_bytes\": %d", prop.name,
            count, n, P, n / P, prop.l2CacheSize);
  if (wants(parts, "chunks") || wants(parts, "pieces")) chunkCosts(n, P, wants(parts, "chunks"), wants(parts, "pieces"));
  if (wants(parts, "scatter")) scatterCosts(n, P);
  if (wants(parts, "links")) {
    if (count < 2) printf("# the parts of two GPUs and more: not on this machine of one\n");
    else {
      twoGpus(n);
      if (count >= 3) allToAll(count, n);
      if (n % count == 0) scatterAcross(count, n);
    }
  }
  if (json) {
    FILE* fp = fopen(json, "w");
    if (!fp) {
      fprintf(stderr, "fft-parts: cannot write %s\n", json);
      return 1;
    }
    fprintf(fp, "{\n");
    for (size_t f = 0; f < jsonFields.size(); f++) fprintf(fp, "  %s%s\n", jsonFields[f].c_str(), f + 1 < jsonFields.size() ? "," : "");
    fprintf(fp, "}\n");
    fclose(fp);
  }
  printf("# done\n");
  return 0;
}
