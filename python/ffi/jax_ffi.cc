// XLA custom calls that run a disttranspose plan inside a JAX computation (python/disttranspose/_jax.py):
// one handler a platform, for every kind of plan. An operation is a number that the Python package
// registers with the plan's handle and the C function that executes it: dtrExecute's signature; with a
// direction, dtrFftExecute's; in place, dtrHaloExecute's (the call's result aliases its operand, so XLA
// hands it one buffer that holds the input). A new kind of plan needs a registration, not a handler of
// its own.
//
// The module links nothing of the library: the package hands it the functions of the copy of
// libdisttranspose it loaded (a second copy would hold other plans). It is written against XLA's stable
// FFI C ABI (xla_ffi_abi.h), so it needs neither jax, XLA's headers nor Python's to build, and one build
// serves every jaxlib that accepts its ABI version: XLA asks each handler for that version when it is
// registered and refuses the registration where it does not support it; the handlers refuse an API
// table or call frame that does not hold what they read (dtrJaxMisfit tells the package why).
//
// Besides its array, each call takes and gives one byte that it never touches: the package chains the
// calls of a computation through it (the byte one gives is the next one's), a dependency of data that
// makes XLA run them in program order on every rank. XLA could otherwise run two independent ones in
// either order, or at once on its CPU threads, and the ranks' collectives would cross.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "xla_ffi_abi.h"

namespace abi = xla_abi;

namespace {

// dtrResult_t (*)(plan, const void* in, void* out, cudaStream_t), and the same with an int direction
// before the stream.
using ExecuteFn = int (*)(void*, const void*, void*, void*);
using DirectedFn = int (*)(void*, const void*, void*, int, void*);
using InPlaceFn = int (*)(void*, void*, void*);
using LastErrorFn = const char* (*)();

struct Operation {
  void* execute;  // an InPlaceFn where inPlace, else an ExecuteFn where direction is 0, else a DirectedFn
  void* plan;
  int direction;
  int inPlace;
};

// Executes hold it shared; forgetting a plan (before it is destroyed) waits for them.
std::shared_mutex lock;
std::unordered_map<int64_t, Operation> operations;
LastErrorFn lastError = nullptr;

// Why the handlers refused XLA's side of the ABI when it registered them (empty: they did not).
std::mutex misfitLock;
std::string misfit;

abi::Error* fail(const abi::Api* api, int32_t code, const std::string& message) {
  abi::ErrorCreateArgs args{abi::kErrorCreateArgsSize, nullptr, message.c_str(), code};
  return api->errorCreate(&args);
}

// Why XLA's structures do not hold what the handlers read (empty where they do), from the fields that
// every version of the ABI keeps in place: the call frame's size, the API table's version and size.
std::string misfitOf(const abi::CallFrame* frame) {
  if (frame->size < abi::kCallFrameSize)
    return "XLA's call frame has " + std::to_string(frame->size) + " bytes; disttranspose's custom calls read " +
           std::to_string(abi::kCallFrameSize);
  const abi::Api* api = frame->api;
  if (api == nullptr) return {};
  if (api->version.major != abi::kMajor)
    return "XLA's FFI API is version " + std::to_string(api->version.major) + "." +
           std::to_string(api->version.minor) + ", of another major version than the custom calls'";
  if (api->size < abi::kApiSize)
    return "XLA's FFI API table has " + std::to_string(api->size) + " bytes; disttranspose's custom calls use " +
           std::to_string(abi::kApiSize);
  return {};
}

// XLA's metadata request, made when the handler is registered: the ABI version the handler speaks (XLA
// refuses versions it no longer supports), after the handler's own check of XLA's API where the request
// carries it. A refusal is kept for the package, which names it, and returned as an error where the
// API can make one.
abi::Error* answerMetadata(const abi::CallFrame* frame) {
  auto* request = reinterpret_cast<const abi::MetadataRequest*>(frame->extensions);
  std::string problem = misfitOf(frame);
  if (problem.empty() && (request->base.size < abi::kMetadataRequestSize || request->metadata == nullptr ||
                          request->metadata->size < abi::kMetadataSize))
    problem = "XLA's metadata request is smaller than the ABI's first version defines";
  if (problem.empty()) {
    request->metadata->version = abi::Version{abi::kVersionSize, nullptr, abi::kMajor, abi::kMinor};
    request->metadata->traits = 0;
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> hold(misfitLock);
    misfit = problem;
  }
  const abi::Api* api = frame->api;
  const bool canReport = api != nullptr && api->version.major == abi::kMajor && api->size >= abi::kApiSize;
  return canReport ? fail(api, abi::kInvalidArgument, "disttranspose: " + problem) : nullptr;
}

// The buffer of argument or result i: its address, or null where it holds no element.
void* dataOf(const abi::Values& values, int i) {
  const auto* b = static_cast<const abi::Buffer*>(values.values[i]);
  int64_t n = 1;
  for (int64_t d = 0; d < b->rank; ++d) n *= b->dims[d];
  return n ? b->data : nullptr;
}

bool buffers(const abi::Values& values) {
  return values.count == 2 && values.kinds[0] == abi::kBuffer && values.kinds[1] == abi::kBuffer;
}

// The attribute "op" (the operation's number), or false where the call has none of type int64.
bool opOf(const abi::Attributes& attrs, int64_t* op) {
  for (int64_t i = 0; i < attrs.count; ++i) {
    const abi::Span* name = attrs.names[i];
    if (name->length != 2 || std::memcmp(name->data, "op", 2) != 0) continue;
    const auto* scalar = static_cast<const abi::Scalar*>(attrs.values[i]);
    if (attrs.kinds[i] != abi::kScalar || scalar->dtype != abi::kS64) return false;
    *op = *static_cast<const int64_t*>(scalar->value);
    return true;
  }
  return false;
}

abi::Error* run(const abi::Api* api, void* stream, void* in, void* out, int64_t op) {
  std::shared_lock<std::shared_mutex> hold(lock);
  const auto found = operations.find(op);
  if (found == operations.end())
    return fail(api, abi::kFailedPrecondition,
                "disttranspose: operation " + std::to_string(op) + " has no plan (it was closed)");
  const Operation& o = found->second;
  const int result = o.inPlace     ? reinterpret_cast<InPlaceFn>(o.execute)(o.plan, out, stream)
                     : o.direction ? reinterpret_cast<DirectedFn>(o.execute)(o.plan, in, out, o.direction, stream)
                                   : reinterpret_cast<ExecuteFn>(o.execute)(o.plan, in, out, stream);
  if (result != 0)
    return fail(api, abi::kInternal, std::string("disttranspose: ") + (lastError ? lastError() : "failed"));
  return nullptr;
}

// A call of either platform: the operand and the chain's byte in, the result and the chain's byte out,
// the attribute "op"; on CUDA, the call's stream.
abi::Error* call(abi::CallFrame* frame, bool cuda) {
  if (frame->extensions != nullptr && frame->extensions->type == abi::kMetadataRequest) return answerMetadata(frame);
  const abi::Api* api = frame->api;
  const std::string problem = api ? misfitOf(frame) : "XLA called a custom call without its API table";
  if (!problem.empty()) {
    // An API table of another major version cannot even make an error; XLA's registration refuses such
    // handlers, so only an XLA that skipped it reaches this.
    if (!api || api->version.major != abi::kMajor || api->size < abi::kApiSize) {
      std::fprintf(stderr, "disttranspose: %s\n", problem.c_str());
      std::abort();
    }
    return fail(api, abi::kInvalidArgument, "disttranspose: " + problem);
  }
  if (frame->stage != abi::kExecute)
    return fail(api, abi::kInvalidArgument,
                "disttranspose: its custom calls run at execution only; XLA called one at stage " +
                    std::to_string(frame->stage));
  if (!buffers(frame->args) || !buffers(frame->rets))
    return fail(api, abi::kInvalidArgument,
                "disttranspose: a custom call takes two arrays (the operand and the chain's byte) and gives two; "
                "XLA passed " + std::to_string(frame->args.count) + " arguments and " +
                    std::to_string(frame->rets.count) + " results, or other kinds than arrays");
  int64_t op = 0;
  if (!opOf(frame->attrs, &op))
    return fail(api, abi::kInvalidArgument, "disttranspose: the custom call has no int64 attribute 'op'");
  void* stream = nullptr;
  if (cuda) {
    abi::StreamGetArgs args{abi::kStreamGetArgsSize, nullptr, frame->context, nullptr};
    if (abi::Error* error = api->streamGet(&args)) return error;
    stream = args.stream;
  }
  return run(api, stream, dataOf(frame->args, 0), dataOf(frame->rets, 0), op);
}

}  // namespace

extern "C" {

abi::Error* dtrJaxExecuteHost(abi::CallFrame* frame) { return call(frame, false); }

abi::Error* dtrJaxExecuteCuda(abi::CallFrame* frame) { return call(frame, true); }

// Why the handlers refused XLA's ABI at registration; "" where they did not (or XLA did not ask).
const char* dtrJaxMisfit() {
  std::lock_guard<std::mutex> hold(misfitLock);
  return misfit.c_str();
}

// The version of XLA's FFI C ABI that the handlers speak (xla_ffi_abi.h), for the package's messages.
void dtrJaxAbiVersion(int* major, int* minor) {
  *major = abi::kMajor;
  *minor = abi::kMinor;
}

void dtrJaxInit(LastErrorFn last) { lastError = last; }

void dtrJaxRegister(int64_t op, void* execute, void* plan, int direction, int inPlace) {
  std::unique_lock<std::shared_mutex> hold(lock);
  operations[op] = Operation{execute, plan, direction, inPlace};
}

void dtrJaxForget(int64_t op) {
  std::unique_lock<std::shared_mutex> hold(lock);
  operations.erase(op);
}
}
