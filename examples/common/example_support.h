/*
 * What an example's main does around its own work, the same in every example: find out whether every
 * rank has a GPU (the GPU backends are the default only then), agree over the ranks on the options and
 * on every refusal (a bad option, a rank without the GPU its backend needs) so that all ranks stop
 * together with one message, put each rank on its node-local GPU, and write the numbers of its JSON.
 *
 * Every function named collective must be called by every rank of MPI_COMM_WORLD. MPI's own calls are
 * left unchecked: its default handler (MPI_ERRORS_ARE_FATAL) aborts the job on any error before a result
 * could be looked at.
 */
#ifndef EX_EXAMPLE_SUPPORT_H
#define EX_EXAMPLE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>
#include <disttranspose.h>

/* The GPUs this rank sees; 0 without a driver too (no driver counts as no GPU, not as an error). */
int exGpuCount(void);

/* Collective: whether `flag` is set on every rank, on any rank. */
int exEveryRank(int flag);
int exAnyRank(int flag);

/* Collective: whether any rank's `bad` is set; then the lowest such rank prints "program: msg" (with
 * "rank R: " before msg on a rank other than 0) to stderr: one line for the job, and, where the ranks'
 * options agree, the same line whichever rank it comes from. */
int exAgreeBad(const char* program, int bad, const char* msg);

/* Collective: whether every rank holds the same `count` values (an MPMD launch could give the ranks
 * different options); else msg says "NAME differs between the ranks; ...", NAME the first value's that
 * differs. Each value is compared by its smallest and largest over the ranks. */
int exValuesAgree(int count, const double* values, const char* const* names, char* msg, size_t len);

/* Collective, as exAgreeBad: refuses where the run needs a GPU on every rank (`needGpu`, backend the
 * name of the backend that does) and this rank sees none (`gpus` 0). */
int exAgreeGpus(const char* program, int needGpu, int gpus, const char* backend);

/* An example's command line: what exStart asks of it. parse: 0 run, 1 --help or -h, -1 a bad option (msg
 * says which), the GPU backends the default where `everyGpu`; agree: exValuesAgree over the options that
 * shape the run; needsGpu: whether the parsed options take a GPU on every rank, *backend the backend's
 * name for the message. */
typedef struct {
  const char* program;
  void (*usage)(void);
  int (*parse)(int argc, char** argv, void* options, int everyGpu, char* msg, size_t len);
  int (*agree)(const void* options, char* msg, size_t len);
  int (*needsGpu)(const void* options, const char** backend);
} ExCommandLine;

/* Collective, first after MPI_Init: the options read on every rank, the GPUs counted (*gpus, this
 * rank's), and every refusal agreed (exAgreeBad, exAgreeGpus). -1: run; else the exit status to return
 * after MPI_Finalize (0 after --help, with the usage printed once; 2 after a refusal). */
int exStart(const ExCommandLine* line, int argc, char** argv, void* options, int* gpus);

/* Collective: makes the GPU of this rank's node-local rank, modulo `gpus`, current, so that ranks may
 * share GPUs (the p2p backend serves them; NCCL takes one rank a GPU). The program picks its GPU: the
 * library works on the current device and never changes it. Returns cudaSetDevice's result
 * (cudaErrorNoDevice where gpus is 0); *device, where not NULL, the GPU's number. */
cudaError_t exUseNodeLocalGpu(int gpus, int* device);

/* Collective: exUseNodeLocalGpu and a stream that does not wait on the legacy default stream, for the
 * example's transforms and kernels. 0, or -1 with msg saying which step failed. */
int exOpenGpu(int gpus, cudaStream_t* stream, char* msg, size_t len);

/* The library's collective calls fail on every rank alike, with the same message: rank 0 prints it as
 * "program: RESULT: MESSAGE". Returns the exit status the example stops with: 2 where the library calls
 * an argument invalid, else 1. */
int exLibraryFailure(const char* program, dtrResult_t r);

/* Collective, --grid auto: the grid dtrGridAutotune measured fastest for the R2C FFT of `shape` (`howmany`
 * fields a point) into *pr, *pc, and its backend into *backend where that is auto. 0, or the exit status,
 * as exLibraryFailure (the message "program: --grid auto: RESULT: MESSAGE"). */
int exGridAutotune(const char* program, const int64_t shape[3], dtrDataType_t type, int howmany, dtrBackend_t* backend,
                   int* pr, int* pc);

/* Collective: the process grid of pr x pc ranks (0 x 0: the library's choice). 0, or the exit status,
 * as exLibraryFailure (the message "program: --grid PRxPC: MESSAGE", or "program: the grid: MESSAGE"). */
int exGridCreate(const char* program, int pr, int pc, dtrGrid_t* grid);

/* A JSON number that is finite and not negative (an error, a bound), else null: a NaN or an infinite
 * error is a failed check, and JSON has no spelling for either. */
void exJsonNumber(FILE* f, double v);

#endif
