/* Names of the public enums, and their parsing and that of sizes (shared by the env parameters and
 * the CLI). */
#ifndef DTR_NAMES_H
#define DTR_NAMES_H

#include <stdint.h>

#include "disttranspose.h"

/* Each returns 0 and sets *out when `name` is known (case-insensitive), else -1. */
int dtrParseDataType(const char* name, dtrDataType_t* out);
int dtrParseBackend(const char* name, dtrBackend_t* out);
int dtrParseKernel(const char* name, dtrKernel_t* out);

/* A byte count with an optional K, M, G or T suffix (powers of 1024; "GiB", "GB" alike), as the CLI
 * and DTR_HOST_MEMORY take it. 0 on success. */
int dtrParseSize(const char* s, uint64_t* out);

/* "a|b|c" lists of the accepted names, for messages and --help. */
const char* dtrDataTypeChoices(void);
const char* dtrBackendChoices(void);
const char* dtrKernelChoices(void);

#endif
