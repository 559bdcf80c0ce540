// CudaBackend: device and stream, the caching allocator, library handles,
// and the registration of its kernels (one per OpKind).
#include "tenferro/cuda/cuda_backend.hpp"

#include <algorithm>

#include "state.hpp"
#include "tenferro/cuda/transfer.hpp"
#include "tenferro/ops/kernels.hpp"

// A new row in ops.def must get a kernel here: no default case.
#pragma GCC diagnostic push  // popped at the end: a unity build includes the next file after this one
#pragma GCC diagnostic error "-Wswitch-enum"

namespace tenferro {
namespace cuda {
namespace detail {

void check_cuda(cudaError_t status, const char* op, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so later calls are not blamed
  TF_THROW(BackendError, op, what, " failed: ", cudaGetErrorString(status), " (",
           cudaGetErrorName(status), ")");
}

void check_cublas(cublasStatus_t status, const char* op, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  TF_THROW(BackendError, op, what, " failed: ", cublasGetStatusString(status), " (cuBLAS status ",
           static_cast<int>(status), ")");
}

void check_cusolver(cusolverStatus_t status, const char* op, const char* what) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  TF_THROW(BackendError, op, what, " failed: cuSOLVER status ", static_cast<int>(status));
}

DeviceGuard::DeviceGuard(int device) : device_(device) {
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  if (previous_ != device_) check_cuda(cudaSetDevice(device_), "cuda", "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0 && previous_ != device_) cudaSetDevice(previous_);
}

// ---- caching allocator --------------------------------------------------------------

namespace {
std::size_t round_size(std::size_t n) {
  constexpr std::size_t kSmall = 512, kLarge = std::size_t{2} << 20, kSplit = std::size_t{1} << 20;
  if (n <= kSplit) return (n + kSmall - 1) / kSmall * kSmall;
  return (n + kLarge - 1) / kLarge * kLarge;
}
void no_free(void*, std::size_t, void*) {}
}  // namespace

Allocator::Allocator(int device) : device_(device) {}

Allocator::~Allocator() {
  // Runs when the backend and every storage it made are gone; errors are
  // ignored (the CUDA runtime may already be shutting down at exit).
  int previous = -1;
  cudaGetDevice(&previous);
  cudaSetDevice(device_);
  for (auto& [size, p] : free_) cudaFree(p);
  if (previous >= 0) cudaSetDevice(previous);
}

std::shared_ptr<Storage> Allocator::allocate(const std::shared_ptr<Allocator>& self, std::size_t nbytes,
                                             const char* op) {
  Allocator& a = *self;
  const Device dev = Device::cuda(a.device_);
  if (nbytes == 0) return std::make_shared<Storage>(nullptr, 0, dev, &no_free, nullptr);
  const std::size_t want = round_size(nbytes);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(a.mutex_);
    auto it = a.free_.lower_bound(want);
    if (it != a.free_.end() && it->first <= 2 * want) {
      p = it->second;
      a.live_[p] = it->first;
      a.cached_ -= it->first;
      a.in_use_ += it->first;
      a.free_.erase(it);
    }
  }
  if (p == nullptr) {
    DeviceGuard guard(a.device_);
    cudaError_t st = cudaMalloc(&p, want);
    if (st != cudaSuccess) {
      cudaGetLastError();
      a.release_cache();
      st = cudaMalloc(&p, want);
    }
    if (st != cudaSuccess) {
      cudaGetLastError();
      TF_THROW(BackendError, op, "out of device memory: cudaMalloc of ", want, " bytes on ", dev,
               " failed (", a.allocated_bytes(), " bytes in use): ", cudaGetErrorString(st));
    }
    std::lock_guard<std::mutex> lock(a.mutex_);
    a.live_[p] = want;
    a.in_use_ += want;
  }
  return std::make_shared<Storage>(p, nbytes, dev, &Allocator::free_block, self.get(),
                                   std::shared_ptr<void>(self));
}

void Allocator::free_block(void* data, std::size_t, void* context) {
  auto* a = static_cast<Allocator*>(context);
  std::lock_guard<std::mutex> lock(a->mutex_);
  auto it = a->live_.find(data);
  if (it == a->live_.end()) return;
  a->free_.emplace(it->second, data);
  a->cached_ += it->second;
  a->in_use_ -= it->second;
  a->live_.erase(it);
}

void Allocator::release_cache() {
  std::multimap<std::size_t, void*> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(free_);
    cached_ = 0;
  }
  if (blocks.empty()) return;
  DeviceGuard guard(device_);
  // Frees may not overtake kernels still reading these blocks: cudaFree
  // synchronises the device first.
  for (auto& [size, p] : blocks) cudaFree(p);
}

std::size_t Allocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

std::size_t Allocator::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_;
}

// ---- library handles ------------------------------------------------------------------

cublasHandle_t BackendState::cublas_handle() {
  std::lock_guard<std::mutex> lock(handle_mutex);
  if (cublas == nullptr) {
    DeviceGuard guard(device);
    check_cublas(cublasCreate(&cublas), "cuda", "cublasCreate");
    check_cublas(cublasSetStream(cublas, stream), "cuda", "cublasSetStream");
  }
  return cublas;
}

cusolverDnHandle_t BackendState::cusolver_handle() {
  std::lock_guard<std::mutex> lock(handle_mutex);
  if (cusolver == nullptr) {
    DeviceGuard guard(device);
    check_cusolver(cusolverDnCreate(&cusolver), "cuda", "cusolverDnCreate");
    check_cusolver(cusolverDnSetStream(cusolver, stream), "cuda", "cusolverDnSetStream");
  }
  return cusolver;
}

}  // namespace detail

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

std::string unavailable_reason() {
  int n = 0;
  cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess) {
    cudaGetLastError();
    return cudaGetErrorString(st);
  }
  return n > 0 ? "" : "no CUDA device";
}

}  // namespace cuda

using cuda::detail::check_cuda;

CudaBackend::CudaBackend(int ordinal)
    : ordinal_(ordinal), name_("cuda:" + std::to_string(ordinal)) {
  int n = 0;
  cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess) {
    cudaGetLastError();
    TF_THROW(DeviceError, "CudaBackend", "no CUDA device ", ordinal, " (cudaGetDeviceCount: ",
             cudaGetErrorString(st), ")");
  }
  TF_CHECK(ordinal >= 0 && ordinal < n, DeviceError, "CudaBackend", "no CUDA device ", ordinal, " (",
           n, " device", n == 1 ? "" : "s", " visible: ", cudaGetErrorString(cudaErrorInvalidDevice), ")");
  state_ = std::make_unique<cuda::detail::BackendState>();
  state_->device = ordinal;
  cuda::detail::DeviceGuard guard(ordinal);
  check_cuda(cudaStreamCreateWithFlags(&state_->stream, cudaStreamNonBlocking), "CudaBackend",
             "cudaStreamCreate");
  state_->allocator = std::make_shared<cuda::detail::Allocator>(ordinal);
  register_kernels();
}

CudaBackend::~CudaBackend() {
  if (!state_) return;
  cudaSetDevice(ordinal_);
  cudaStreamSynchronize(state_->stream);
  state_->fft.reset();
  if (state_->cusolver) cusolverDnDestroy(state_->cusolver);
  if (state_->cublas) cublasDestroy(state_->cublas);
  cudaStreamDestroy(state_->stream);
}

Tensor CudaBackend::from_host(const Tensor& host) { return cuda::to_device(host, *this); }

std::shared_ptr<Storage> CudaBackend::allocate_storage(std::size_t nbytes) {
  return cuda::detail::Allocator::allocate(state_->allocator, nbytes, name_.c_str());
}

void CudaBackend::synchronize() {
  cuda::detail::DeviceGuard guard(ordinal_);
  check_cuda(cudaStreamSynchronize(state_->stream), name_.c_str(), "work on the stream");
}

void* CudaBackend::stream() const { return state_->stream; }
std::size_t CudaBackend::cached_bytes() const { return state_->allocator->cached_bytes(); }
std::size_t CudaBackend::allocated_bytes() const { return state_->allocator->allocated_bytes(); }
void CudaBackend::empty_cache() {
  synchronize();
  state_->allocator->release_cache();
}

namespace {

// Kernels dereference device pointers: a host tensor here would crash, so
// check even though ops::call already did. Returns false when there is
// nothing to compute.
bool prepare(CudaBackend& be, OpKind kind, std::span<const Tensor> in, const Tensor& out) {
  const char* op = op_name(kind);
  const Device dev = be.device();
  TF_CHECK(out.defined() && out.device() == dev, DeviceError, op, "output is on ",
           out.defined() ? out.device() : Device::cpu(), " but backend '", be.name(), "' runs on ", dev);
  for (std::size_t i = 0; i < in.size(); ++i)
    TF_CHECK(in[i].defined() && in[i].device() == dev, DeviceError, op, "operand ", i, " is on ",
             in[i].defined() ? in[i].device() : Device::cpu(), " but backend '", be.name(), "' runs on ", dev,
             "; transfer it explicitly (cuda::to_device)");
  return out.numel() != 0;
}

// The kernel of `kind` on `be`, by category (declines nothing: the
// registry of a CudaBackend holds only its own backend's kernels).
using CategoryFn = void (*)(CudaBackend&, OpKind, const Attrs&, std::span<const Tensor>, const Tensor&);

void run_elementwise(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  cuda::detail::elementwise(be, kind, attrs, in, out);
}
void run_reduce(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  cuda::detail::reduce(be, kind, std::get<AxesAttrs>(attrs).dimensions, in[0], out);
}
void run_dot_general(CudaBackend& be, OpKind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  cuda::detail::dot_general(be, std::get<DotGeneralAttrs>(attrs), in[0], in[1], out);
}
void run_structural(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  cuda::detail::structural(be, kind, attrs, in, out);
}

CategoryFn kernel_for(OpKind kind) {
  // By the op table's category: every primitive has a kernel.
  switch (op_info(kind).category) {
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary: return run_elementwise;
    case OpCategory::reduction: return run_reduce;
    case OpCategory::contraction: return run_dot_general;
    case OpCategory::structural: return run_structural;
  }
  TF_INTERNAL_ASSERT(false, "CudaBackend: unknown op category");
}

}  // namespace

void CudaBackend::register_kernels() {
  // The registry belongs to this (non-copyable) backend, so its kernels
  // capture it; the Backend& they are called with may be a wrapper.
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    kernels().add(kind, DeviceKind::cuda, "cuda",
                  [this, run = kernel_for(kind)](OpKind op, const Attrs& attrs, std::span<const Tensor> in,
                                                 const Tensor& out, Backend&) {
                    if (!prepare(*this, op, in, out)) return;
                    cuda::detail::DeviceGuard guard(ordinal_);
                    run(*this, op, attrs, in, out);
                  });
  }
}

}  // namespace tenferro

#pragma GCC diagnostic pop
