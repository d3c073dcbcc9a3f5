/* What the CLI prints: the '#' header, the table (nccl-tests' layout) and the JSON file. */
#ifndef DTR_CLI_REPORT_H
#define DTR_CLI_REPORT_H

#include <stdio.h>

#include "bench.h"
#include "options.h"
#include "pencil_bench.h"

/* Collective (gathers each rank's host and GPU to rank 0, which prints). */
void dtrReportHeader(const dtrCliOptions* o, int gpus);
void dtrReportTableHead(void);
void dtrReportRow(const dtrBenchResult* r);
/* Rank 0 only. Returns 0 on success. */
int dtrReportJson(const char* path, const dtrBenchResult* rows, int n);

/* The pencil table (--shape): one row per transpose, its group's bare all-to-all beside it. */
void dtrReportPencilHead(const dtrCliOptions* o, int pr, int pc);
void dtrReportPencilRow(const dtrPencilBenchResult* r);
int dtrReportPencilJson(const char* path, const dtrPencilBenchResult* rows, int n);

#endif
