/* Names of the public enums and their parsing (shared by the env parameters and the CLI). */
#ifndef DTR_NAMES_H
#define DTR_NAMES_H

#include <stdint.h>

#include "disttranspose.h"

/* Each returns 0 and sets *out when `name` is known (case-insensitive), else -1. */
int dtrParseDataType(const char* name, dtrDataType_t* out);
int dtrParseBackend(const char* name, dtrBackend_t* out);
int dtrParseKernel(const char* name, dtrKernel_t* out);

/* What a value stands for, for messages that show it (dtrValueText). dtrValueReal: a double's bits
 * (dtrValueOfReal), so that a real setting is agreed exactly, as the plan would take it. */
typedef enum {
  dtrValueNumber = 0,
  dtrValueType,
  dtrValueBackend,
  dtrValueKernel,
  dtrValuePencil,
  dtrValueWorkspace,
  dtrValueReal
} dtrValueKind;

/* A double's bits as a value to agree on. */
int64_t dtrValueOfReal(double x);

/* A value as a message shows it: a type's, backend's, kernel's, pencil's or workspace policy's name, a
 * real number, else the number. Returns buf. */
const char* dtrValueText(dtrValueKind kind, int64_t v, char* buf, size_t len);

/* "a|b|c" lists of the accepted names, for messages and --help. */
const char* dtrDataTypeChoices(void);
const char* dtrBackendChoices(void);
const char* dtrKernelChoices(void);

#endif
