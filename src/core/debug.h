/*
 * Logging (DTR_DEBUG=WARN|INFO|TRACE, default WARN) and the last-error message. Every failure
 * goes through dtrSetError, which records the message for dtrGetLastError and logs it.
 */
#ifndef DTR_DEBUG_H
#define DTR_DEBUG_H

#include "disttranspose.h"

typedef enum { dtrLogNone = 0, dtrLogWarn = 1, dtrLogInfo = 2, dtrLogTrace = 3 } dtrLogLevel;

void dtrLog(dtrLogLevel level, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
dtrLogLevel dtrLogLevelGet(void);
/* Rank shown in log lines; set once the plan knows it. */
void dtrLogSetRank(int rank);

#define WARN(...) dtrLog(dtrLogWarn, __FILE__, __LINE__, __VA_ARGS__)
#define INFO(...) dtrLog(dtrLogInfo, __FILE__, __LINE__, __VA_ARGS__)
#define TRACE(...) dtrLog(dtrLogTrace, __FILE__, __LINE__, __VA_ARGS__)

/* A line of a report asked for by the environment (DTR_PERF_REPORT): printed whatever the log
 * level, with the log lines' prefix and the tag REPORT. */
void dtrReport(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records the message as the last error, logs it at WARN, returns `result`. */
dtrResult_t dtrSetError(dtrResult_t result, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Replaces the last error without logging (used when another rank's message is adopted). */
void dtrSetErrorQuiet(const char* message);
void dtrClearError(void);

#endif
