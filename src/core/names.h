/* Names of the public enums and their parsing (shared by the env parameters and the CLI). */
#ifndef DTR_NAMES_H
#define DTR_NAMES_H

#include <stdint.h>

#include "disttranspose.h"

/* Each returns 0 and sets *out when `name` is known (case-insensitive), else -1. */
int dtrParseDataType(const char* name, dtrDataType_t* out);
int dtrParseBackend(const char* name, dtrBackend_t* out);
int dtrParseKernel(const char* name, dtrKernel_t* out);

/* What a value stands for, for messages that show it (dtrValueText). */
typedef enum { dtrValueNumber = 0, dtrValueType, dtrValueBackend, dtrValueKernel, dtrValuePencil, dtrValueWorkspace } dtrValueKind;

/* A value as a message shows it: a type's, backend's, kernel's, pencil's or workspace policy's name,
 * else the number. Returns buf. */
const char* dtrValueText(dtrValueKind kind, int64_t v, char* buf, size_t len);

/* "a|b|c" lists of the accepted names, for messages and --help. */
const char* dtrDataTypeChoices(void);
const char* dtrBackendChoices(void);
const char* dtrKernelChoices(void);

#endif
