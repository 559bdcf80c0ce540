// WebGpuBackend: instance, adapter and device (wgpu-native), the buffer
// cache, pipelines, dispatch, transfers, and the registration of its kernels.
#include "tenferro/webgpu/webgpu_backend.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "state.hpp"
#include "tenferro/ops/kernels.hpp"

namespace tenferro {
namespace webgpu {
namespace detail {
namespace {

std::string to_string(WGPUStringView s) {
  if (s.data == nullptr) return {};
  if (s.length == WGPU_STRLEN) return std::string(s.data);
  return std::string(s.data, s.length);
}
WGPUStringView view(const std::string& s) { return WGPUStringView{s.data(), s.size()}; }

struct AdapterRequest {
  bool done = false;
  WGPUAdapter adapter = nullptr;
  std::string message;
};
struct DeviceRequest {
  bool done = false;
  WGPUDevice device = nullptr;
  std::string message;
};

void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void* u1, void*) {
  auto* r = static_cast<AdapterRequest*>(u1);
  r->done = true;
  if (status == WGPURequestAdapterStatus_Success) r->adapter = adapter;
  else r->message = to_string(message);
}
void on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void* u1, void*) {
  auto* r = static_cast<DeviceRequest*>(u1);
  r->done = true;
  if (status == WGPURequestDeviceStatus_Success) r->device = device;
  else r->message = to_string(message);
}
void on_error(WGPUDevice const*, WGPUErrorType type, WGPUStringView message, void* u1, void*) {
  auto* s = static_cast<State*>(u1);
  if (s->pending_error.empty())
    s->pending_error = "WebGPU error (type " + std::to_string(static_cast<int>(type)) + "): " + to_string(message);
}
void on_lost(WGPUDevice const*, WGPUDeviceLostReason, WGPUStringView, void*, void*) {}

const char* backend_type_name(WGPUBackendType t) {
  switch (t) {
    case WGPUBackendType_Vulkan: return "Vulkan";
    case WGPUBackendType_Metal: return "Metal";
    case WGPUBackendType_D3D12: return "D3D12";
    case WGPUBackendType_D3D11: return "D3D11";
    case WGPUBackendType_OpenGL: return "OpenGL";
    case WGPUBackendType_OpenGLES: return "OpenGLES";
    case WGPUBackendType_WebGPU: return "WebGPU";
    default: return "Unknown";
  }
}
const char* adapter_type_name(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_CPU: return "CPU";
    case WGPUAdapterType_DiscreteGPU: return "DiscreteGPU";
    case WGPUAdapterType_IntegratedGPU: return "IntegratedGPU";
    default: return "Unknown";
  }
}

// Requests the first adapter; "" and the adapter, or the reason.
std::string request_adapter(WGPUInstance instance, WGPUAdapter& adapter) {
  AdapterRequest req;
  WGPURequestAdapterOptions opts = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  opts.powerPreference = WGPUPowerPreference_HighPerformance;
  WGPURequestAdapterCallbackInfo cb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = on_adapter;
  cb.userdata1 = &req;
  wgpuInstanceRequestAdapter(instance, &opts, cb);
  for (int i = 0; i < 100000 && !req.done; ++i) wgpuInstanceProcessEvents(instance);
  adapter = req.adapter;
  if (adapter != nullptr) return "";
  return req.message.empty() ? std::string("no WebGPU adapter found") : "no WebGPU adapter: " + req.message;
}

std::uint64_t round_size(std::uint64_t n) {
  constexpr std::uint64_t kSmall = 256, kLarge = std::uint64_t{1} << 20;
  if (n < 4) n = 4;
  if (n <= kLarge) return (n + kSmall - 1) / kSmall * kSmall;
  return (n + kLarge - 1) / kLarge * kLarge;
}

void no_free(void*, std::size_t, void*) {}

}  // namespace

State::~State() {
  if (dummy) wgpuBufferRelease(dummy);
  for (auto& [size, b] : free_buffers) wgpuBufferRelease(b);
  for (auto& [src, p] : pipelines) {
    wgpuBindGroupLayoutRelease(p.layout);
    wgpuComputePipelineRelease(p.pipeline);
  }
  if (queue) wgpuQueueRelease(queue);
  if (device) wgpuDeviceRelease(device);
  if (adapter) wgpuAdapterRelease(adapter);
  if (instance) wgpuInstanceRelease(instance);
}

WGPUBuffer State::dummy_buffer() {
  if (dummy == nullptr) {
    WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
    d.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    d.size = 16;
    dummy = wgpuDeviceCreateBuffer(device, &d);
  }
  return dummy;
}

void State::check_errors(const char* op) {
  if (pending_error.empty()) return;
  std::string e;
  e.swap(pending_error);
  TF_THROW(BackendError, op, name, ": ", e);
}

const Pipeline& State::pipeline(const std::string& source, const char* op) {
  auto it = pipelines.find(source);
  if (it != pipelines.end()) return it->second;
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = view(source);
  WGPUShaderModuleDescriptor md = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  md.nextInChain = &wgsl.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &md);
  WGPUComputePipelineDescriptor pd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pd.compute.module = module;
  static const std::string kMain = "main";
  pd.compute.entryPoint = view(kMain);
  WGPUComputePipeline pipe = wgpuDeviceCreateComputePipeline(device, &pd);
  wgpuShaderModuleRelease(module);
  if (!pending_error.empty() || pipe == nullptr) {
    if (pipe) wgpuComputePipelineRelease(pipe);
    std::string e = pending_error.empty() ? std::string("pipeline creation failed") : pending_error;
    pending_error.clear();
    // TENFERRO_WEBGPU_DUMP=1 prints the failing WGSL (kernel development).
    if (std::getenv("TENFERRO_WEBGPU_DUMP") != nullptr) std::fprintf(stderr, "%s\n", source.c_str());
    TF_THROW(BackendError, op, name, ": compiling a WGSL kernel failed: ", e);
  }
  Pipeline p{pipe, wgpuComputePipelineGetBindGroupLayout(pipe, 0)};
  return pipelines.emplace(source, p).first->second;
}

void State::dispatch(const Pipeline& p, const std::vector<std::int32_t>& meta, const std::vector<Binding>& bindings,
                     std::uint32_t gx, std::uint32_t gy, std::uint32_t gz, const char* op) {
  std::uint64_t meta_size = 0;
  WGPUBuffer meta_buf = acquire(std::max<std::uint64_t>(meta.size() * 4, 4), meta_size, op);
  wgpuQueueWriteBuffer(queue, meta_buf, 0, meta.data(), meta.size() * 4);
  std::vector<WGPUBindGroupEntry> entries(bindings.size() + 1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entries[i] = WGPU_BIND_GROUP_ENTRY_INIT;
    entries[i].binding = static_cast<std::uint32_t>(i);
    entries[i].buffer = i == 0 ? meta_buf : bindings[i - 1].buffer;
    entries[i].offset = 0;
    entries[i].size = i == 0 ? meta.size() * 4 : bindings[i - 1].size;
    if (entries[i].buffer == nullptr) {  // an empty operand: nothing is read from it
      entries[i].buffer = dummy_buffer();
      entries[i].size = 16;
    }
  }
  WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  bd.layout = p.layout;
  bd.entryCount = entries.size();
  bd.entries = entries.data();
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &bd);
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, nullptr);
  wgpuComputePassEncoderSetPipeline(pass, p.pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, gx, gy, gz);
  wgpuComputePassEncoderEnd(pass);
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, nullptr);
  wgpuQueueSubmit(queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderRelease(enc);
  wgpuBindGroupRelease(group);
  // The metadata buffer goes back to the cache: later writes to it are
  // queued after this dispatch (one queue, in order).
  free_buffers.emplace(meta_size, meta_buf);
  live_buffers.erase(meta_buf);
  in_use -= meta_size;
  cached += meta_size;
  check_errors(op);
}

WGPUBuffer State::acquire(std::uint64_t nbytes, std::uint64_t& rounded, const char* op) {
  const std::uint64_t want = round_size(nbytes);
  auto it = free_buffers.lower_bound(want);
  if (it != free_buffers.end() && it->first <= 2 * want) {
    WGPUBuffer b = it->second;
    rounded = it->first;
    cached -= it->first;
    free_buffers.erase(it);
    live_buffers[b] = rounded;
    in_use += rounded;
    return b;
  }
  TF_CHECK(want <= limits.maxBufferSize && want <= limits.maxStorageBufferBindingSize, BackendError, op,
           "a buffer of ", nbytes, " bytes exceeds the WebGPU device's limit (", limits.maxStorageBufferBindingSize,
           " bytes per storage binding) on ", name);
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  d.size = want;
  WGPUBuffer b = wgpuDeviceCreateBuffer(device, &d);
  if (b == nullptr || !pending_error.empty()) {
    std::string e = pending_error;
    pending_error.clear();
    if (b) wgpuBufferRelease(b);
    TF_THROW(BackendError, op, "out of device memory: a buffer of ", want, " bytes on ", name, " failed (",
             in_use, " bytes in use) ", e);
  }
  rounded = want;
  live_buffers[b] = want;
  in_use += want;
  return b;
}

void State::copy_buffer(WGPUBuffer src, std::uint64_t src_off, WGPUBuffer dst, std::uint64_t dst_off,
                        std::uint64_t nbytes) {
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, nullptr);
  wgpuCommandEncoderCopyBufferToBuffer(enc, src, src_off, dst, dst_off, nbytes);
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, nullptr);
  wgpuQueueSubmit(queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  wgpuCommandEncoderRelease(enc);
}

void State::read_buffer(WGPUBuffer buffer, std::uint64_t offset, std::uint64_t nbytes, void* out, const char* op) {
  if (nbytes == 0) return;
  const std::uint64_t begin = offset / 4 * 4;
  const std::uint64_t size = (offset + nbytes - begin + 3) / 4 * 4;
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  d.size = size;
  WGPUBuffer staging = wgpuDeviceCreateBuffer(device, &d);
  copy_buffer(buffer, begin, staging, 0, size);
  struct Map {
    bool done = false;
    WGPUMapAsyncStatus status{};
    std::string message;
  } m;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.userdata1 = &m;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
    auto* mm = static_cast<Map*>(u1);
    mm->done = true;
    mm->status = status;
    mm->message = to_string(message);
  };
  wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, size, cb);
  while (!m.done) {
    wgpuDevicePoll(device, true, nullptr);
    wgpuInstanceProcessEvents(instance);
  }
  if (m.status != WGPUMapAsyncStatus_Success) {
    wgpuBufferRelease(staging);
    TF_THROW(BackendError, op, "reading a buffer of ", name, " failed: ", m.message);
  }
  const void* p = wgpuBufferGetConstMappedRange(staging, 0, size);
  std::memcpy(out, static_cast<const char*>(p) + (offset - begin), nbytes);
  wgpuBufferUnmap(staging);
  wgpuBufferRelease(staging);
  check_errors(op);
}

void State::wait_idle() {
  wgpuDevicePoll(device, true, nullptr);
  wgpuInstanceProcessEvents(instance);
}

}  // namespace detail

std::string unavailable_reason() {
  static const std::string reason = [] {
    WGPUInstance instance = wgpuCreateInstance(nullptr);
    if (instance == nullptr) return std::string("wgpuCreateInstance failed");
    WGPUAdapter adapter = nullptr;
    std::string r = detail::request_adapter(instance, adapter);
    if (adapter) wgpuAdapterRelease(adapter);
    wgpuInstanceRelease(instance);
    return r;
  }();
  return reason;
}

}  // namespace webgpu

namespace {
std::atomic<int> next_index{0};
}

WebGpuBackend::WebGpuBackend() : index_(next_index++) {
  name_ = "webgpu:" + std::to_string(index_);
  auto s = std::make_shared<webgpu::detail::State>();
  s->name = name_;
  s->instance = wgpuCreateInstance(nullptr);
  TF_CHECK(s->instance != nullptr, DeviceError, "WebGpuBackend", "wgpuCreateInstance failed");
  std::string reason = webgpu::detail::request_adapter(s->instance, s->adapter);
  TF_CHECK(reason.empty(), DeviceError, "WebGpuBackend", reason);
  WGPUAdapterInfo ai = WGPU_ADAPTER_INFO_INIT;
  if (wgpuAdapterGetInfo(s->adapter, &ai) == WGPUStatus_Success) {
    using webgpu::detail::to_string;
    info_ = {to_string(ai.vendor),  to_string(ai.architecture), to_string(ai.device), to_string(ai.description),
             webgpu::detail::backend_type_name(ai.backendType), webgpu::detail::adapter_type_name(ai.adapterType)};
    wgpuAdapterInfoFreeMembers(ai);
  }
  WGPULimits limits = WGPU_LIMITS_INIT;
  wgpuAdapterGetLimits(s->adapter, &limits);
  webgpu::detail::DeviceRequest req;
  WGPUDeviceDescriptor dd = WGPU_DEVICE_DESCRIPTOR_INIT;
  dd.requiredLimits = &limits;  // everything the adapter offers (buffer sizes above all)
  dd.uncapturedErrorCallbackInfo.callback = webgpu::detail::on_error;
  dd.uncapturedErrorCallbackInfo.userdata1 = s.get();
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = webgpu::detail::on_lost;
  WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = webgpu::detail::on_device;
  cb.userdata1 = &req;
  wgpuAdapterRequestDevice(s->adapter, &dd, cb);
  for (int i = 0; i < 100000 && !req.done; ++i) wgpuInstanceProcessEvents(s->instance);
  TF_CHECK(req.device != nullptr, DeviceError, "WebGpuBackend", "requesting a device from adapter '", info_.device,
           "' failed: ", req.message.empty() ? std::string("no answer") : req.message);
  s->device = req.device;
  s->queue = wgpuDeviceGetQueue(s->device);
  s->limits = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(s->device, &s->limits);
  state_ = std::move(s);
  register_kernels();
}

WebGpuBackend::~WebGpuBackend() {
  if (!state_) return;
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  state_->wait_idle();
}

Tensor WebGpuBackend::from_host(const Tensor& host) { return webgpu::to_device(host, *this); }

void WebGpuBackend::execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                                  const Tensor& output) {
  const char* op = "fused elementwise";
  TF_CHECK(output.defined() && output.device() == device(), DeviceError, op, "output is on ",
           output.defined() ? output.device() : Device::cpu(), " but backend '", name(), "' runs on ", device());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TF_CHECK(inputs[i].defined() && inputs[i].device() == device(), DeviceError, op, "operand ", i, " is on ",
             inputs[i].defined() ? inputs[i].device() : Device::cpu(), " but backend '", name(), "' runs on ",
             device(), "; transfer it explicitly (webgpu::to_device)");
  if (output.numel() == 0 || kernel.steps.empty()) return Backend::execute_fused(kernel, inputs, output);
  // Bindings: metadata, output and one per input.
  if (inputs.size() + 2 > state_->limits.maxStorageBuffersPerShaderStage)
    return Backend::execute_fused(kernel, inputs, output);
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  webgpu::detail::fused(*this, kernel, inputs, output);
}

namespace {
struct StorageContext {
  std::weak_ptr<webgpu::detail::State> state;
};
void free_buffer(void* data, std::size_t, void* context) {
  auto* ctx = static_cast<StorageContext*>(context);
  auto b = static_cast<WGPUBuffer>(data);
  if (auto s = ctx->state.lock()) {
    std::lock_guard<std::recursive_mutex> lock(s->mutex);
    auto it = s->live_buffers.find(b);
    if (it != s->live_buffers.end()) {
      s->free_buffers.emplace(it->second, b);
      s->cached += it->second;
      s->in_use -= it->second;
      s->live_buffers.erase(it);
    }
  } else {
    wgpuBufferRelease(b);
  }
  delete ctx;
}
}  // namespace

std::shared_ptr<Storage> WebGpuBackend::allocate_storage(std::size_t nbytes) {
  if (nbytes == 0) return std::make_shared<Storage>(nullptr, 0, device(), &webgpu::detail::no_free, nullptr);
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  std::uint64_t rounded = 0;
  WGPUBuffer b = state_->acquire(nbytes, rounded, name_.c_str());
  // The state outlives its storages only through the context's weak
  // reference plus this keep-alive: a tensor may outlive its backend.
  return std::make_shared<Storage>(b, nbytes, device(), &free_buffer, new StorageContext{state_},
                                   std::shared_ptr<void>(state_));
}

void WebGpuBackend::synchronize() {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  state_->wait_idle();
  state_->check_errors(name_.c_str());
}

std::size_t WebGpuBackend::cached_bytes() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return state_->cached;
}
std::size_t WebGpuBackend::allocated_bytes() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return state_->in_use;
}
void WebGpuBackend::empty_cache() {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  state_->wait_idle();
  for (auto& [size, b] : state_->free_buffers) wgpuBufferRelease(b);
  state_->free_buffers.clear();
  state_->cached = 0;
}

namespace webgpu {

namespace {
bool storable(DType d) { return d == DType::f32 || d == DType::c64 || d == DType::i32 || d == DType::bool_; }
}  // namespace

Tensor to_device(const Tensor& host, WebGpuBackend& backend) {
  TF_CHECK(host.defined(), ValueError, "webgpu::to_device", "undefined tensor");
  TF_CHECK(host.device().is_cpu(), DeviceError, "webgpu::to_device", "the tensor is on ", host.device(),
           ", not on the host; to_device uploads host tensors to ", backend.device());
  TF_CHECK(storable(host.dtype()), UnimplementedError, "webgpu::to_device", "dtype ", host.dtype(),
           " is not supported by the WebGPU backend (WGSL has no 64-bit types; f32, c64, i32 and bool are); "
           "convert it on the host first");
  Tensor src = host.is_contiguous() ? host : host.duplicate();
  Tensor out = backend.empty(host.dtype(), host.shape());
  const std::size_t nbytes = static_cast<std::size_t>(host.numel()) * dtype_size(host.dtype());
  if (nbytes == 0) return out;
  auto& s = backend.state();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  const char* p = static_cast<const char*>(src.data_ptr());
  if (nbytes % 4 == 0) {
    wgpuQueueWriteBuffer(s.queue, detail::buffer_of(out), 0, p, nbytes);
  } else {
    std::vector<char> padded((nbytes + 3) / 4 * 4, 0);
    std::memcpy(padded.data(), p, nbytes);
    wgpuQueueWriteBuffer(s.queue, detail::buffer_of(out), 0, padded.data(), padded.size());
  }
  s.check_errors("webgpu::to_device");
  return out;
}

Tensor to_host(const Tensor& device_tensor, WebGpuBackend& backend) {
  TF_CHECK(device_tensor.defined(), ValueError, "webgpu::to_host", "undefined tensor");
  TF_CHECK(device_tensor.device() == backend.device(), DeviceError, "webgpu::to_host", "the tensor is on ",
           device_tensor.device(), " but the backend '", backend.name(), "' runs on ", backend.device());
  Tensor src = device_tensor;
  if (!src.is_contiguous() || src.offset() != 0) {
    src = backend.empty(device_tensor.dtype(), device_tensor.shape());
    if (src.numel() > 0) detail::copy(backend, device_tensor, src);
  }
  Tensor out = Tensor::empty(device_tensor.shape(), device_tensor.dtype());
  const std::size_t nbytes = static_cast<std::size_t>(src.numel()) * dtype_size(src.dtype());
  auto& s = backend.state();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (nbytes > 0) s.read_buffer(detail::buffer_of(src), 0, nbytes, out.data_ptr(), "webgpu::to_host");
  return out;
}

}  // namespace webgpu

// ---- kernel registration -------------------------------------------------------------

namespace {

// Device checks (ops::call checks too, but execute() may be called directly).
bool prepare(WebGpuBackend& be, OpKind kind, std::span<const Tensor> in, const Tensor& out) {
  const char* op = op_name(kind);
  const Device dev = be.device();
  TF_CHECK(out.defined() && out.device() == dev, DeviceError, op, "output is on ",
           out.defined() ? out.device() : Device::cpu(), " but backend '", be.name(), "' runs on ", dev);
  for (std::size_t i = 0; i < in.size(); ++i)
    TF_CHECK(in[i].defined() && in[i].device() == dev, DeviceError, op, "operand ", i, " is on ",
             in[i].defined() ? in[i].device() : Device::cpu(), " but backend '", be.name(), "' runs on ", dev,
             "; transfer it explicitly (webgpu::to_device)");
  DType d = in.empty() ? out.dtype() : in[0].dtype();
  if (kind == OpKind::select && in.size() > 1) d = in[1].dtype();
  if ((kind == OpKind::clamp) && in.size() > 1) d = in[1].dtype();
  webgpu::detail::check_supported(kind, d, out.dtype());
  return out.numel() != 0;
}

using CategoryFn = void (*)(WebGpuBackend&, OpKind, const Attrs&, std::span<const Tensor>, const Tensor&);

void run_elementwise(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                     const Tensor& out) {
  webgpu::detail::elementwise(be, kind, attrs, in, out);
}
void run_reduce(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  webgpu::detail::reduce(be, kind, std::get<AxesAttrs>(attrs).dimensions, in[0], out);
}
void run_dot_general(WebGpuBackend& be, OpKind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  webgpu::detail::dot_general(be, std::get<DotGeneralAttrs>(attrs), in[0], in[1], out);
}
void run_structural(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                    const Tensor& out) {
  webgpu::detail::structural(be, kind, attrs, in, out);
}

CategoryFn kernel_for(OpKind kind) {
  switch (op_info(kind).category) {
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary: return run_elementwise;
    case OpCategory::reduction: return run_reduce;
    case OpCategory::contraction: return run_dot_general;
    case OpCategory::structural: return run_structural;
  }
  TF_INTERNAL_ASSERT(false, "WebGpuBackend: unknown op category");
}

}  // namespace

void WebGpuBackend::register_kernels() {
  // Every primitive gets the provider "webgpu"; what it does not cover
  // throws an UnimplementedError naming the op and the dtype (prepare).
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    kernels().add(kind, DeviceKind::webgpu, "webgpu",
                  [this, run = kernel_for(kind)](OpKind op, const Attrs& attrs, std::span<const Tensor> in,
                                                 const Tensor& out, Backend&) {
                    if (!prepare(*this, op, in, out)) return;
                    std::lock_guard<std::recursive_mutex> lock(state_->mutex);
                    run(*this, op, attrs, in, out);
                  });
  }
}

}  // namespace tenferro
