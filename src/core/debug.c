#include "debug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DTR_ERROR_MAX 512

static _Thread_local char lastError[DTR_ERROR_MAX];
static int logRank = -1;
static int logLevel = -1;

dtrLogLevel dtrLogLevelGet(void) {
  if (logLevel < 0) {
    /* The level is read here rather than in params.c: logging must work before anything else. */
    const char* env = getenv("DTR_DEBUG");
    logLevel = dtrLogWarn;
    if (env) {
      if (!strcasecmp(env, "NONE")) logLevel = dtrLogNone;
      else if (!strcasecmp(env, "WARN")) logLevel = dtrLogWarn;
      else if (!strcasecmp(env, "INFO")) logLevel = dtrLogInfo;
      else if (!strcasecmp(env, "TRACE")) logLevel = dtrLogTrace;
      else fprintf(stderr, "DTR WARN DTR_DEBUG=%s is not one of NONE, WARN, INFO, TRACE; using WARN\n", env);
    }
  }
  return (dtrLogLevel)logLevel;
}

void dtrLogSetRank(int rank) { logRank = rank; }

static void vlog(const char* tag, int withSource, const char* file, int line, const char* fmt, va_list ap) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  char msg[DTR_ERROR_MAX];
  vsnprintf(msg, sizeof msg, fmt, ap);
  const char* base = strrchr(file, '/');
  if (withSource)
    fprintf(stderr, "%s:%d:%d DTR %s %s:%d %s\n", host, (int)getpid(), logRank, tag, base ? base + 1 : file, line, msg);
  else
    fprintf(stderr, "%s:%d:%d DTR %s %s\n", host, (int)getpid(), logRank, tag, msg);
}

void dtrLog(dtrLogLevel level, const char* file, int line, const char* fmt, ...) {
  static const char* names[] = {"NONE", "WARN", "INFO", "TRACE"};
  if (level > dtrLogLevelGet()) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(names[level], level == dtrLogTrace, file, line, fmt, ap);
  va_end(ap);
}

void dtrReport(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog("REPORT", 0, "", 0, fmt, ap);
  va_end(ap);
}

dtrResult_t dtrSetError(dtrResult_t result, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lastError, sizeof lastError, fmt, ap);
  va_end(ap);
  if (dtrLogLevelGet() >= dtrLogWarn) dtrLog(dtrLogWarn, __FILE__, __LINE__, "%s", lastError);
  return result;
}

void dtrSetErrorQuiet(const char* message) { snprintf(lastError, sizeof lastError, "%s", message); }

void dtrClearError(void) { lastError[0] = '\0'; }

const char* dtrGetLastError(void) { return lastError; }
