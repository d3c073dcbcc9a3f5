// PyTorch's kernels of the package's custom ops (python/disttranspose/_torch.py) in C++: a tensor that
// is what the plan takes goes from the dispatcher straight to the plan's C function, with no Python in
// between. A compiled program (torch.compile) calls the op as a kernel of its own, so this is the whole
// of what a call of ours costs it.
//
// The ops' schemas, their fake (meta) functions and autograd stay in Python. Python registers each
// plan's call here by its number (what the tensor must be, what the result is, the C function); a call
// that is not on this path (a plan not registered yet, a tensor of another shape, type, device or
// layout) and a call whose C function failed go to the Python op disttranspose::fallback, which checks
// and agrees the call over the plan's ranks, registers the plan, or raises the package's Error with the
// library's message.
//
// The module links libtorch and c10 and nothing of disttranspose: Python hands it the functions of the
// copy of libdisttranspose it loaded. It is built against the torch the build's Python has; another
// torch at run time fails to load it, and the package then runs the same ops' Python kernels.

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace {

// dtrResult_t (*)(plan, const void* in, void* out, cudaStream_t), and the same with a direction.
using ExecuteFn = int (*)(void*, const void*, void*, void*);
using DirectedFn = int (*)(void*, const void*, void*, int, void*);

struct Call {
  void* execute;  // an ExecuteFn where direction is 0, else a DirectedFn
  void* plan;
  int direction;
  int device;  // the plan's GPU; -1: the host (cpu backend)
  int64_t alignment;
  std::vector<int64_t> inShape, outShape;
  at::ScalarType inType, outType;
};

// Executes hold it shared; forgetting a plan (before it is destroyed) waits for them.
std::shared_mutex lock;
std::unordered_map<int64_t, Call> calls;

// dtrDataType_t's order (the package's DTYPES).
constexpr at::ScalarType kTypes[] = {at::kChar,   at::kHalf,         at::kBFloat16,    at::kFloat,
                                     at::kDouble, at::kComplexFloat, at::kComplexDouble};

at::Tensor fallback(const at::Tensor& a, int64_t op, int64_t result) {
  static const auto handle = c10::Dispatcher::singleton()
                                 .findSchemaOrThrow("disttranspose::fallback", "")
                                 .typed<at::Tensor(const at::Tensor&, int64_t, int64_t)>();
  return handle.call(a, op, result);
}

bool takes(const Call& c, const at::Tensor& a) {
  if (a.scalar_type() != c.inType || a.sizes() != at::IntArrayRef(c.inShape) || !a.is_contiguous()) return false;
  if (c.device < 0 ? !a.is_cpu() : !a.is_cuda() || a.get_device() != c.device) return false;
  return a.numel() == 0 || reinterpret_cast<uintptr_t>(a.data_ptr()) % static_cast<uintptr_t>(c.alignment) == 0;
}

at::Tensor run(const at::Tensor& a, int64_t op) {
  int result = 0;
  {
    std::shared_lock<std::shared_mutex> hold(lock);
    const auto found = calls.find(op);
    if (found != calls.end() && takes(found->second, a)) {
      const Call& c = found->second;
      at::Tensor out = at::empty(c.outShape, a.options().dtype(c.outType));
      void* stream = nullptr;
      if (c.device >= 0)
        stream = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(a.device()).native_handle();
      const void* in = a.numel() ? a.data_ptr() : nullptr;
      void* o = out.numel() ? out.data_ptr() : nullptr;
      result = c.direction ? reinterpret_cast<DirectedFn>(c.execute)(c.plan, in, o, c.direction, stream)
                           : reinterpret_cast<ExecuteFn>(c.execute)(c.plan, in, o, stream);
      if (result == 0) return out;
    }
  }
  // Off this path, or failed (the fallback raises the library's error): the lock is let go first, since
  // the fallback registers plans.
  return fallback(a, op, result);
}

}  // namespace

TORCH_LIBRARY_IMPL(disttranspose, CompositeExplicitAutograd, m) {
  m.impl("run", &run);
  m.impl("execute", &run);
}

extern "C" {

// Returns 0, or -1 where dtype is not one of dtrDataType_t's.
int dtrTorchRegister(int64_t op, void* execute, void* plan, int direction, int device, int64_t alignment, int inRank,
                     const int64_t* inShape, int inType, int outRank, const int64_t* outShape, int outType) {
  constexpr int n = sizeof kTypes / sizeof kTypes[0];
  if (inType < 0 || inType >= n || outType < 0 || outType >= n || alignment < 1) return -1;
  Call c{execute,
         plan,
         direction,
         device,
         alignment,
         std::vector<int64_t>(inShape, inShape + inRank),
         std::vector<int64_t>(outShape, outShape + outRank),
         kTypes[inType],
         kTypes[outType]};
  std::unique_lock<std::shared_mutex> hold(lock);
  calls[op] = std::move(c);
  return 0;
}

void dtrTorchForget(int64_t op) {
  std::unique_lock<std::shared_mutex> hold(lock);
  calls.erase(op);
}
}
