// PjrtRuntime: a PJRT plugin opened with dlopen, one client, a cache of
// compiled executables. Only the C API header of the plugin's wheel is used
// (pjrt_c_api.h, found at build time in .deps/); nothing links the plugin.
#include "tenferro/xla/pjrt.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <list>
#include <map>
#include <mutex>
#include <sstream>

#include "lowering.hpp"
#include "pjrt_c_api.h"
#include "tenferro/tensor/error.hpp"
#include "tenferro/xla/stablehlo.hpp"

namespace tenferro::xla {

namespace {

constexpr std::size_t kMaxExecutables = 64;

PJRT_Buffer_Type buffer_type(DType d) {
  switch (d) {
    case DType::f32: return PJRT_Buffer_Type_F32;
    case DType::f64: return PJRT_Buffer_Type_F64;
    case DType::c64: return PJRT_Buffer_Type_C64;
    case DType::c128: return PJRT_Buffer_Type_C128;
    case DType::i32: return PJRT_Buffer_Type_S32;
    case DType::i64: return PJRT_Buffer_Type_S64;
    case DType::bool_: return PJRT_Buffer_Type_PRED;
  }
  return PJRT_Buffer_Type_INVALID;
}

}  // namespace

struct Executable {
  PJRT_LoadedExecutable* exe = nullptr;
  std::vector<TensorMeta> outputs;
  std::size_t num_outputs = 0;
};

struct PjrtRuntime::State {
  std::string path;
  void* handle = nullptr;
  const PJRT_Api* api = nullptr;
  PJRT_Client* client = nullptr;
  PJRT_Device* device = nullptr;
  // Executables by (program identity, input dtypes and shapes), oldest first.
  std::list<std::pair<std::string, Executable>> cache;

  ~State() {
    for (auto& [key, e] : cache) destroy(e.exe);
    if (client != nullptr) {
      PJRT_Client_Destroy_Args a{};
      a.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE;
      a.client = client;
      drop(api->PJRT_Client_Destroy(&a));
    }
    // The library stays loaded: plugins keep process-wide state (thread
    // pools, registered factories) that unloading would leave dangling.
  }

  void destroy(PJRT_LoadedExecutable* exe) const {
    if (exe == nullptr) return;
    PJRT_LoadedExecutable_Destroy_Args a{};
    a.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
    a.executable = exe;
    drop(api->PJRT_LoadedExecutable_Destroy(&a));
  }

  // The plugin's message of `err` (which is destroyed).
  std::string take_message(PJRT_Error* err) const {
    PJRT_Error_Message_Args m{};
    m.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
    m.error = err;
    api->PJRT_Error_Message(&m);
    std::string msg(m.message, m.message_size);
    drop(err);
    return msg;
  }
  void drop(PJRT_Error* err) const {
    if (err == nullptr) return;
    PJRT_Error_Destroy_Args d{};
    d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
    d.error = err;
    api->PJRT_Error_Destroy(&d);
  }
  void check(PJRT_Error* err, const char* op, const char* what) const {
    if (err == nullptr) return;
    std::string msg = take_message(err);
    TF_THROW(BackendError, op, what, " failed in the PJRT plugin '", path, "': ", msg);
  }
  void await(PJRT_Event* event, const char* op, const char* what) const {
    if (event == nullptr) return;
    PJRT_Event_Await_Args a{};
    a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
    a.event = event;
    PJRT_Error* err = api->PJRT_Event_Await(&a);
    PJRT_Event_Destroy_Args d{};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = event;
    drop(api->PJRT_Event_Destroy(&d));
    check(err, op, what);
  }
  void destroy_buffer(PJRT_Buffer* b) const {
    if (b == nullptr) return;
    PJRT_Buffer_Destroy_Args d{};
    d.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
    d.buffer = b;
    drop(api->PJRT_Buffer_Destroy(&d));
  }

  Executable compile(const detail::LoweredProgram& lowered) {
    const char* op = "PjrtRuntime::run_compiled";
    PJRT_Program prog{};
    prog.struct_size = PJRT_Program_STRUCT_SIZE;
    prog.code = const_cast<char*>(lowered.text.data());
    prog.code_size = lowered.text.size();
    static const char kFormat[] = "mlir";
    prog.format = kFormat;
    prog.format_size = sizeof(kFormat) - 1;
    PJRT_Client_Compile_Args c{};
    c.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
    c.client = client;
    c.program = &prog;
    // Note [Compile options]: a serialized xla.CompileOptionsProto whose
    // executable_build_options (field 3, a message) sets num_replicas
    // (field 4) and num_partitions (field 5) to 1; every other option keeps
    // its default. An empty proto is not enough: the CPU client then asks for
    // a device assignment of 0 replicas and aborts the process.
    static const char kOptions[] = {
        (3 << 3) | 2, 4,   // field 3, length-delimited, 4 bytes
        (4 << 3) | 0, 1,   //   field 4 (num_replicas), varint 1
        (5 << 3) | 0, 1};  //   field 5 (num_partitions), varint 1
    c.compile_options = kOptions;
    c.compile_options_size = sizeof(kOptions);
    check(api->PJRT_Client_Compile(&c), op, "compiling the StableHLO module");
    Executable e{c.executable, lowered.outputs, 0};
    PJRT_LoadedExecutable_GetExecutable_Args g{};
    g.struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE;
    g.loaded_executable = e.exe;
    PJRT_Error* err = api->PJRT_LoadedExecutable_GetExecutable(&g);
    if (err == nullptr) {
      PJRT_Executable_NumOutputs_Args n{};
      n.struct_size = PJRT_Executable_NumOutputs_Args_STRUCT_SIZE;
      n.executable = g.executable;
      err = api->PJRT_Executable_NumOutputs(&n);
      e.num_outputs = n.num_outputs;
      PJRT_Executable_Destroy_Args d{};
      d.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE;
      d.executable = g.executable;
      drop(api->PJRT_Executable_Destroy(&d));
    }
    if (err != nullptr) {
      destroy(e.exe);
      check(err, op, "querying the executable's outputs");
    }
    if (e.num_outputs != e.outputs.size()) {
      destroy(e.exe);
      TF_THROW(BackendError, op, "the plugin's executable has ", e.num_outputs, " outputs, the program ",
               lowered.outputs.size());
    }
    return e;
  }

  // Uploads a host tensor with its own strides (reversed, in bytes: Note
  // [Reversed shapes] in stablehlo.cpp); the plugin copies it before this returns.
  PJRT_Buffer* upload(const Tensor& t) const {
    const std::size_t n = t.shape().size();
    const auto es = static_cast<std::int64_t>(dtype_size(t.dtype()));
    std::vector<std::int64_t> dims(n), strides(n);
    for (std::size_t i = 0; i < n; ++i) {
      dims[i] = t.shape()[n - 1 - i];
      strides[i] = t.strides()[n - 1 - i] * es;
    }
    static const std::int64_t kByte = 0;
    PJRT_Client_BufferFromHostBuffer_Args a{};
    a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    a.client = client;
    a.data = t.numel() == 0 || t.data_ptr() == nullptr ? static_cast<const void*>(&kByte) : t.data_ptr();
    a.type = buffer_type(t.dtype());
    a.dims = dims.data();
    a.num_dims = n;
    a.byte_strides = strides.data();
    a.num_byte_strides = n;
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    a.device = device;
    check(api->PJRT_Client_BufferFromHostBuffer(&a), "PjrtRuntime::run_compiled", "uploading an input");
    try {
      await(a.done_with_host_buffer, "PjrtRuntime::run_compiled", "uploading an input");
    } catch (...) {
      destroy_buffer(a.buffer);
      throw;
    }
    return a.buffer;
  }

  void download(PJRT_Buffer* b, const Tensor& dst) const {
    PJRT_Buffer_ToHostBuffer_Args a{};
    a.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    a.src = b;
    a.dst = dst.data_ptr();
    a.dst_size = static_cast<std::size_t>(dst.numel()) * dtype_size(dst.dtype());
    if (a.dst_size == 0) return;
    check(api->PJRT_Buffer_ToHostBuffer(&a), "PjrtRuntime::run_compiled", "downloading a result");
    await(a.event, "PjrtRuntime::run_compiled", "downloading a result");
  }
};

PjrtRuntime PjrtRuntime::load(const std::string& path) {
  const char* op = "PjrtRuntime::load";
  std::error_code ec;
  TF_CHECK(!path.empty() && std::filesystem::is_regular_file(path, ec), BackendError, op,
           "no PJRT plugin file at '", path, "'");
  auto st = std::make_shared<State>();
  st->path = path;
  dlerror();
  st->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (st->handle == nullptr) {
    const char* why = dlerror();
    TF_THROW(BackendError, op, "cannot open the PJRT plugin '", path, "': ", why ? why : "unknown dlopen error");
  }
  using GetApi = const PJRT_Api* (*)();
  void* sym = dlsym(st->handle, "GetPjrtApi");
  TF_CHECK(sym != nullptr, BackendError, op, "'", path, "' is not a PJRT plugin: it has no symbol GetPjrtApi");
  GetApi get_api = nullptr;
  static_assert(sizeof(get_api) == sizeof(sym));
  std::memcpy(&get_api, &sym, sizeof(sym));
  const PJRT_Api* api = get_api();
  TF_CHECK(api != nullptr, BackendError, op, "GetPjrtApi of '", path, "' returned no API table");
  const int major = api->pjrt_api_version.major_version, minor = api->pjrt_api_version.minor_version;
  TF_CHECK(major == PJRT_API_MAJOR, BackendError, op, "the PJRT plugin '", path, "' has C API version ", major, ".",
           minor, ", incompatible with the version ", PJRT_API_MAJOR, ".", PJRT_API_MINOR,
           " tenferro was built against (the major versions must agree)");
  // Every function this runtime calls must lie inside the plugin's table.
  TF_CHECK(api->struct_size >= offsetof(PJRT_Api, PJRT_Executable_NumOutputs) + sizeof(void*) &&
               api->struct_size >= offsetof(PJRT_Api, PJRT_LoadedExecutable_GetExecutable) + sizeof(void*),
           BackendError, op, "the PJRT plugin '", path, "' (C API ", major, ".", minor,
           ") has an API table too short for the functions tenferro calls");
  st->api = api;
  PJRT_Plugin_Initialize_Args init{};
  init.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE;
  st->check(api->PJRT_Plugin_Initialize(&init), op, "initialising the plugin");
  PJRT_Client_Create_Args cc{};
  cc.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  st->check(api->PJRT_Client_Create(&cc), op, "creating a client");
  st->client = cc.client;
  PJRT_Client_AddressableDevices_Args dev{};
  dev.struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE;
  dev.client = st->client;
  st->check(api->PJRT_Client_AddressableDevices(&dev), op, "listing devices");
  TF_CHECK(dev.num_addressable_devices > 0, BackendError, op, "the PJRT plugin '", path,
           "' reports no addressable device");
  st->device = dev.addressable_devices[0];
  PjrtRuntime rt;
  rt.state_ = std::move(st);
  return rt;
}

PjrtRuntime PjrtRuntime::from_env() {
  const char* p = std::getenv("TENFERRO_PJRT_PLUGIN");
  TF_CHECK(p != nullptr && *p != '\0', ValueError, "PjrtRuntime::from_env",
           "TENFERRO_PJRT_PLUGIN is not set (it names the PJRT plugin library, e.g. "
           ".deps/xla_cpu_pjrt/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so from scripts/setup_pjrt.sh)");
  return load(p);
}

std::pair<int, int> PjrtRuntime::api_version() const {
  TF_CHECK(state_ != nullptr, ValueError, "PjrtRuntime::api_version", "the runtime was not loaded");
  return {state_->api->pjrt_api_version.major_version, state_->api->pjrt_api_version.minor_version};
}

std::string PjrtRuntime::platform_name() const {
  TF_CHECK(state_ != nullptr, ValueError, "PjrtRuntime::platform_name", "the runtime was not loaded");
  PJRT_Client_PlatformName_Args a{};
  a.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE;
  a.client = state_->client;
  state_->check(state_->api->PJRT_Client_PlatformName(&a), "PjrtRuntime::platform_name", "asking the platform name");
  return std::string(a.platform_name, a.platform_name_size);
}

std::size_t PjrtRuntime::cached_executables() const { return state_ ? state_->cache.size() : 0; }

std::vector<Tensor> PjrtRuntime::run_compiled(const Program& program, const RunInputs& given) const {
  const char* op = "PjrtRuntime::run_compiled";
  TF_CHECK(state_ != nullptr, ValueError, op, "the runtime was not loaded (PjrtRuntime::load)");
  State& st = *state_;
  std::vector<Tensor> inputs = bind_program_inputs(program, given, op);
  std::ostringstream key;
  key << program.id();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    TF_CHECK(inputs[k].device().is_cpu(), DeviceError, op, "input '", program.inputs[k].name, "' is on ",
             inputs[k].device(), "; the PJRT runtime takes host tensors");
    key << ";" << inputs[k].dtype() << inputs[k].shape();
  }
  auto it = std::find_if(st.cache.begin(), st.cache.end(), [&](const auto& e) { return e.first == key.str(); });
  if (it == st.cache.end()) {
    Executable e = st.compile(detail::lower_program(program, inputs, op));
    if (st.cache.size() >= kMaxExecutables) {
      st.destroy(st.cache.front().second.exe);
      st.cache.pop_front();
    }
    st.cache.emplace_back(key.str(), e);
    it = std::prev(st.cache.end());
  } else {
    st.cache.splice(st.cache.end(), st.cache, it);  // most recently used last
  }
  const Executable& exe = it->second;

  std::vector<PJRT_Buffer*> args;
  std::vector<PJRT_Buffer*> outs(exe.num_outputs, nullptr);
  auto release = [&] {
    for (PJRT_Buffer* b : args) st.destroy_buffer(b);
    for (PJRT_Buffer* b : outs) st.destroy_buffer(b);
  };
  std::vector<Tensor> results;
  try {
    for (const Tensor& t : inputs) args.push_back(st.upload(t));
    PJRT_ExecuteOptions opts{};
    opts.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
    PJRT_Buffer* const* arg_list = args.data();
    PJRT_Buffer** out_list = outs.data();
    PJRT_Event* done = nullptr;
    PJRT_LoadedExecutable_Execute_Args x{};
    x.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    x.executable = exe.exe;
    x.options = &opts;
    x.argument_lists = &arg_list;
    x.num_devices = 1;
    x.num_args = args.size();
    x.output_lists = &out_list;
    x.device_complete_events = &done;
    st.check(st.api->PJRT_LoadedExecutable_Execute(&x), op, "executing the program");
    st.await(done, op, "executing the program");
    for (std::size_t k = 0; k < exe.num_outputs; ++k) {
      Tensor t = Tensor::empty(exe.outputs[k].shape, exe.outputs[k].dtype);
      st.download(outs[k], t);
      results.push_back(t);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  return results;
}

}  // namespace tenferro::xla
