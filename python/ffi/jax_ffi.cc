// XLA custom calls that run a disttranspose plan inside a JAX computation (python/disttranspose/_jax.py):
// one handler a platform, for every kind of plan. An operation is a number that the Python package
// registers with the plan's handle and the C function that executes it: dtrExecute's signature; with a
// direction, dtrFftExecute's; in place, dtrHaloExecute's (the call's result aliases its operand, so XLA
// hands it one buffer that holds the input). A new kind of plan needs a registration, not a handler of
// its own.
//
// The module links nothing of the library: the package hands it the functions of the copy of
// libdisttranspose it loaded (a second copy would hold other plans). Built against XLA's header-only
// FFI (jax.ffi.include_dir()), it needs neither Python's headers nor JAX's libraries.
//
// Besides its array, each call takes and gives one byte that it never touches: the package chains the
// calls of a computation through it (the byte one gives is the next one's), a dependency of data that
// makes XLA run them in program order on every rank. XLA could otherwise run two independent ones in
// either order, or at once on its CPU threads, and the ranks' collectives would cross.

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

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

void* dataOf(const ffi::AnyBuffer& b) { return b.element_count() ? b.untyped_data() : nullptr; }

ffi::Error run(void* stream, ffi::AnyBuffer in, ffi::Result<ffi::AnyBuffer> out, int64_t op) {
  std::shared_lock<std::shared_mutex> hold(lock);
  const auto found = operations.find(op);
  if (found == operations.end())
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                      "disttranspose: operation " + std::to_string(op) + " has no plan (it was closed)");
  const Operation& o = found->second;
  const int result =
      o.inPlace     ? reinterpret_cast<InPlaceFn>(o.execute)(o.plan, dataOf(*out), stream)
      : o.direction ? reinterpret_cast<DirectedFn>(o.execute)(o.plan, dataOf(in), dataOf(*out), o.direction, stream)
                    : reinterpret_cast<ExecuteFn>(o.execute)(o.plan, dataOf(in), dataOf(*out), stream);
  if (result != 0)
    return ffi::Error(ffi::ErrorCode::kInternal, std::string("disttranspose: ") + (lastError ? lastError() : "failed"));
  return ffi::Error::Success();
}

ffi::Error runHost(ffi::AnyBuffer in, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> out, ffi::Result<ffi::AnyBuffer>,
                   int64_t op) {
  return run(nullptr, in, out, op);
}

ffi::Error runCuda(void* stream, ffi::AnyBuffer in, ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer> out,
                   ffi::Result<ffi::AnyBuffer>, int64_t op) {
  return run(stream, in, out, op);
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(dtrJaxExecuteHost, runHost,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<int64_t>("op"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(dtrJaxExecuteCuda, runCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<int64_t>("op"));

extern "C" {

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
