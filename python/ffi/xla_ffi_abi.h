// The part of XLA's foreign function interface that disttranspose's custom calls use (jax_ffi.cc),
// declared from its stable C ABI: the call frame XLA hands a handler, its arrays and attributes, the
// two functions of XLA's API table the handlers call (making an error, finding the stream), and the
// metadata request by which XLA learns at registration which version of the ABI a handler speaks.
//
// XLA keeps this ABI binary-compatible within a major version: every structure starts with its size,
// a minor version only appends fields (to structures and to the API table), and XLA accepts handlers
// of any version in the range it supports. So the module is built with no jax at all and loads into
// any jaxlib that still accepts the version below. What is declared here is the leading part of each
// structure that the handlers read or write, in the layout of that first stable version; nothing
// after it is ever touched, and the sizes checked at each call say that XLA's structures hold it.

#ifndef DTR_XLA_FFI_ABI_H
#define DTR_XLA_FFI_ABI_H

#include <cstddef>
#include <cstdint>

namespace xla_abi {

// The ABI version of these declarations, reported to XLA in the metadata answer: the first stable one,
// the oldest that XLA's registration accepts and the one whose layout every later minor extends.
constexpr int kMajor = 0;
constexpr int kMinor = 1;

// Optional additions to a structure, chained; a call frame's first one may be the metadata request.
struct Extension {
  size_t size;
  int32_t type;
  Extension* next;
};
constexpr int32_t kMetadataRequest = 1;

struct Version {
  size_t size;
  Extension* extensions;
  int32_t major;
  int32_t minor;
};

// XLA's own objects, seen only through pointers: an error (made by the API table's errorCreate; a
// handler that returns one hands it to XLA, which frees it) and a call's execution context.
struct Error;
struct Context;

// The status codes of an error (absl's).
constexpr int32_t kInvalidArgument = 3;
constexpr int32_t kFailedPrecondition = 9;
constexpr int32_t kInternal = 13;

// A call frame's stage: the handlers run at execution only (they register no other stage).
constexpr int32_t kExecute = 3;

// The kinds of arguments, results and attributes, and the element type of a 64-bit integer attribute.
constexpr int32_t kBuffer = 1;
constexpr int32_t kScalar = 3;
constexpr int32_t kS64 = 5;

// An array: its element type, device (or host) address and dimensions.
struct Buffer {
  size_t size;
  Extension* extensions;
  int32_t dtype;
  void* data;
  int64_t rank;
  int64_t* dims;
};

// The arguments, or the results, of a call: `count` entries, each a kind and a pointer (a Buffer here).
struct Values {
  size_t size;
  Extension* extensions;
  int64_t count;
  int32_t* kinds;
  void** values;
};

// A name, not terminated by a zero byte.
struct Span {
  const char* data;
  size_t length;
};

struct Scalar {
  int32_t dtype;
  void* value;
};

// The attributes of a call, sorted by name: each a kind, a name and a pointer (a Scalar here).
struct Attributes {
  size_t size;
  Extension* extensions;
  int64_t count;
  int32_t* kinds;
  Span** names;
  void** values;
};

struct Api;

struct CallFrame {
  size_t size;
  Extension* extensions;
  const Api* api;  // may be null in the metadata request of some XLA versions
  Context* context;
  int32_t stage;
  Values args;
  Values rets;
  Attributes attrs;
};

struct ErrorCreateArgs {
  size_t size;
  Extension* extensions;
  const char* message;  // copied by XLA
  int32_t code;
};

struct StreamGetArgs {
  size_t size;
  Extension* extensions;
  Context* context;
  void* stream;  // out: a cudaStream_t on CUDA
};

// XLA's table of functions, in its ABI order; the entries between the two used here are declared for
// their places only, and those after streamGet are not declared at all.
struct Api {
  size_t size;
  Extension* extensions;
  Version version;
  const void* internal;
  Error* (*errorCreate)(ErrorCreateArgs*);
  void (*errorGetMessage)(void*);
  void (*errorDestroy)(void*);
  Error* (*handlerRegister)(void*);
  Error* (*streamGet)(StreamGetArgs*);
};

// What a handler answers to the metadata request: the ABI version it speaks and its traits (none here).
struct Metadata {
  size_t size;
  Version version;
  uint32_t traits;
};

struct MetadataRequest {
  Extension base;
  Metadata* metadata;
};

using Handler = Error*(CallFrame*);

// How much of each structure the declarations above use: what XLA's size fields must reach, and what
// the structures a handler fills in say of themselves.
constexpr size_t kCallFrameSize = offsetof(CallFrame, attrs) + sizeof(Attributes);
constexpr size_t kApiSize = offsetof(Api, streamGet) + sizeof(Api::streamGet);
constexpr size_t kVersionSize = offsetof(Version, minor) + sizeof(int32_t);
constexpr size_t kMetadataSize = offsetof(Metadata, traits) + sizeof(uint32_t);
constexpr size_t kMetadataRequestSize = sizeof(MetadataRequest);
constexpr size_t kErrorCreateArgsSize = offsetof(ErrorCreateArgs, code) + sizeof(int32_t);
constexpr size_t kStreamGetArgsSize = sizeof(StreamGetArgs);

// The ABI's layout on the 64-bit Linux targets the package is built for, where its C enums are 4 bytes
// and pointers and size_t 8: a declaration that drifts from it fails to compile rather than misread.
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "the declarations are of the LP64 layout");
static_assert(offsetof(CallFrame, api) == 16 && offsetof(CallFrame, stage) == 32, "call frame layout");
static_assert(offsetof(CallFrame, args) == 40 && offsetof(CallFrame, rets) == 80, "call frame layout");
static_assert(offsetof(CallFrame, attrs) == 120 && kCallFrameSize == 168, "call frame layout");
static_assert(offsetof(Api, version) == 16 && offsetof(Api, errorCreate) == 48, "API table layout");
static_assert(offsetof(Api, streamGet) == 80 && kApiSize == 88, "API table layout");
static_assert(sizeof(Buffer) == 48 && offsetof(Buffer, data) == 24 && offsetof(Buffer, dims) == 40, "buffer layout");
static_assert(sizeof(Values) == 40 && sizeof(Attributes) == 48 && sizeof(Scalar) == 16, "argument layouts");
static_assert(kMetadataSize == 36 && kMetadataRequestSize == 32 && kVersionSize == 24, "metadata layout");
static_assert(kErrorCreateArgsSize == 28 && kStreamGetArgsSize == 32, "argument structures' layout");

}  // namespace xla_abi

#endif
