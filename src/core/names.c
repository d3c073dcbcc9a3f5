#include "names.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char* const typeNames[dtrNumTypes] = {"int8", "fp16", "bf16", "fp32", "fp64", "c64", "c128"};
static const size_t typeSizes[dtrNumTypes] = {1, 2, 2, 4, 8, 8, 16};
static const char* const backendNames[dtrNumBackends] = {"auto", "nccl", "cpu", "p2p"};
static const char* const kernelNames[dtrNumKernels] = {"auto", "simt", "simt16", "tma", "tma-mc2", "tma-mc4"};

static int lookup(const char* const* names, int n, const char* name) {
  if (!name) return -1;
  for (int i = 0; i < n; i++)
    if (!strcasecmp(names[i], name)) return i;
  return -1;
}

int dtrParseDataType(const char* name, dtrDataType_t* out) {
  int i = lookup(typeNames, dtrNumTypes, name);
  if (i < 0) {
    /* Common aliases, so that FFT users can say what they mean. */
    static const char* const alias[][2] = {{"float", "fp32"}, {"double", "fp64"}, {"half", "fp16"},
                                           {"float32", "fp32"}, {"float64", "fp64"}, {"float16", "fp16"},
                                           {"bfloat16", "bf16"}, {"complex64", "c64"}, {"complex128", "c128"},
                                           {"complex", "c64"}, {"int8_t", "int8"}, {"char", "int8"}};
    for (size_t a = 0; a < sizeof alias / sizeof alias[0] && i < 0; a++)
      if (!strcasecmp(alias[a][0], name)) i = lookup(typeNames, dtrNumTypes, alias[a][1]);
  }
  if (i < 0) return -1;
  *out = (dtrDataType_t)i;
  return 0;
}

int dtrParseBackend(const char* name, dtrBackend_t* out) {
  int i = lookup(backendNames, dtrNumBackends, name);
  if (i < 0) return -1;
  *out = (dtrBackend_t)i;
  return 0;
}

int dtrParseKernel(const char* name, dtrKernel_t* out) {
  int i = lookup(kernelNames, dtrNumKernels, name);
  if (i < 0) return -1;
  *out = (dtrKernel_t)i;
  return 0;
}

const char* dtrDataTypeChoices(void) { return "int8|fp16|bf16|fp32|fp64|c64|c128"; }
const char* dtrBackendChoices(void) { return "auto|nccl|cpu|p2p"; }
const char* dtrKernelChoices(void) { return "auto|simt|simt16|tma|tma-mc2|tma-mc4"; }

const char* dtrDataTypeName(dtrDataType_t t) { return (t >= 0 && t < dtrNumTypes) ? typeNames[t] : "invalid"; }
const char* dtrBackendName(dtrBackend_t b) { return (b >= 0 && b < dtrNumBackends) ? backendNames[b] : "invalid"; }
const char* dtrKernelName(dtrKernel_t k) { return (k >= 0 && k < dtrNumKernels) ? kernelNames[k] : "invalid"; }
size_t dtrDataTypeSize(dtrDataType_t t) { return (t >= 0 && t < dtrNumTypes) ? typeSizes[t] : 0; }

const char* dtrGetErrorString(dtrResult_t r) {
  switch (r) {
    case dtrSuccess: return "no error";
    case dtrInvalidArgument: return "invalid argument";
    case dtrMismatch: return "arguments differ between ranks";
    case dtrNoDevice: return "no usable GPU";
    case dtrOutOfMemory: return "out of memory";
    case dtrCudaError: return "CUDA error";
    case dtrNcclError: return "NCCL error";
    case dtrMpiError: return "MPI error";
    case dtrInternalError: return "internal error";
    case dtrRemoteError: return "error on another rank";
    case dtrTimeout: return "timeout";
    default: return "unknown result code";
  }
}

const char* dtrPencilName(dtrPencil_t p) {
  static const char* const names[dtrNumPencils] = {"X", "Y", "Z"};
  return (p >= 0 && p < dtrNumPencils) ? names[p] : "invalid";
}

int64_t dtrValueOfReal(double x) {
  int64_t v;
  memcpy(&v, &x, sizeof v);
  return v;
}

const char* dtrValueText(dtrValueKind kind, int64_t v, char* buf, size_t len) {
  if (kind == dtrValueReal) {
    double x;
    memcpy(&x, &v, sizeof x);
    /* The shortest of 15 or 17 digits that reads back as the same double: 1.6, not 1.6000000000000001. */
    snprintf(buf, len, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, len, "%.17g", x);
    return buf;
  }
  const int in = v >= 0 && v < 64;
  const char* name = NULL;
  if (kind == dtrValueType && in && v < dtrNumTypes) name = typeNames[v];
  else if (kind == dtrValueBackend && in && v < dtrNumBackends) name = backendNames[v];
  else if (kind == dtrValueKernel && in && v < dtrNumKernels) name = kernelNames[v];
  else if (kind == dtrValuePencil && in && v < dtrNumPencils) name = dtrPencilName((dtrPencil_t)v);
  else if (kind == dtrValueWorkspace && in && v < dtrNumWorkspaces) name = v == dtrWorkspaceOwn ? "own" : "grid";
  if (name) snprintf(buf, len, "%s", name);
  else snprintf(buf, len, "%lld", (long long)v);
  return buf;
}
