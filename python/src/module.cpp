// tenferro._tenferro: the nanobind extension behind the `tenferro` Python
// package. This file binds tensors (metadata, views, copies, host
// factories, the shared methods of common.hpp), zero-copy DLPack exchange
// both ways, tensor file I/O and the error hierarchy; handles.cpp binds
// eager AD and traced programs, functions.cpp einsum, linalg and fft. The
// Python-side names live in tenferro/__init__.py.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <sstream>
#include <tenferro/cpu.hpp>
#include <tenferro/fft.hpp>
#include <tenferro/io.hpp>
#include <tenferro/linalg.hpp>

#include "common.hpp"

namespace tfpy {
void bind_handles(nb::module_& m);
void bind_functions(nb::module_& m);
}  // namespace tfpy

namespace nb = nanobind;
using namespace tenferro;
using tfpy::host_backend;

namespace tfpy {

tenferro::Backend& host_backend() {
  static CpuBackend* backend = new CpuBackend();
  return *backend;
}

const EagerRuntime& eager_runtime() {
  static const EagerRuntime* rt = new EagerRuntime(host_backend());
  return *rt;
}

const Runtime& program_runtime() {
  static const Runtime* rt = new Runtime(Runtime::builder()
                                             .register_engine(cpu_engine(host_backend()))
                                             .register_family(linalg::family())
                                             .register_family(fft::family())
                                             .build());
  return *rt;
}

Tensor to_tensor(nb::handle h) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  if (nb::isinstance<EagerTensor>(h)) return nb::cast<EagerTensor>(h).value();
  nb::ndarray<nb::ro> a;
  TF_CHECK(nb::try_cast(h, a), DTypeError, "to_tensor", "expected a tenferro.Tensor or a DLPack array, got ",
           nb::inst_name(h).c_str());
  return from_dlpack(a);
}

std::optional<DimVec> axes_arg(nb::handle axes) {
  if (axes.is_none()) return std::nullopt;
  if (nb::isinstance<nb::int_>(axes)) return DimVec{nb::cast<std::int64_t>(axes)};
  return DimVec(nb::cast<std::vector<std::int64_t>>(axes));
}

}  // namespace tfpy

namespace {

constexpr int kDLCPU = 1;

nb::dlpack::dtype dlpack_dtype(DType d) {
  switch (d) {
    case DType::f32: return nb::dtype<float>();
    case DType::f64: return nb::dtype<double>();
    case DType::c64: return nb::dtype<std::complex<float>>();
    case DType::c128: return nb::dtype<std::complex<double>>();
    case DType::i32: return nb::dtype<std::int32_t>();
    case DType::i64: return nb::dtype<std::int64_t>();
    case DType::bool_: return nb::dtype<bool>();
  }
  return {};
}

DType dtype_from_dlpack(nb::dlpack::dtype d) {
  for (DType t : {DType::f32, DType::f64, DType::c64, DType::c128, DType::i32, DType::i64,
                  DType::bool_})
    if (dlpack_dtype(t) == d) return t;
  TF_THROW(DTypeError, "from_dlpack", "DLPack dtype (code ", int(d.code), ", ", int(d.bits),
           " bits, ", int(d.lanes), " lanes) has no tenferro dtype (f32, f64, c64, c128, i32, i64, bool)");
}

}  // namespace

/// A tensor viewing the memory of a DLPack-capable object (NumPy, PyTorch,
/// JAX arrays): same data pointer, same strides; the object stays alive as
/// long as the tensor's storage.
Tensor tfpy::from_dlpack(nb::ndarray<nb::ro> a) {
  TF_CHECK(a.device_type() == kDLCPU, DeviceError, "from_dlpack", "the array lives on DLPack device ",
           a.device_type(), ":", a.device_id(), "; only host (CPU) arrays are supported so far");
  const DType dtype = dtype_from_dlpack(a.dtype());
  const std::size_t esize = dtype_size(dtype);
  Shape shape;
  Strides strides;
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    shape.push_back(static_cast<std::int64_t>(a.shape(i)));
    strides.push_back(a.stride_ptr() ? a.stride(i) : 0);
  }
  if (!a.stride_ptr()) strides = row_major_strides(shape);  // DLPack: null strides = C order
  // The storage starts at the lowest addressed element (strides may be negative).
  std::int64_t lo = 0, hi = 0;
  bool empty = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) empty = true;
    std::int64_t span = strides[i] * (shape[i] - 1);
    (span < 0 ? lo : hi) += span;
  }
  auto* first = static_cast<std::byte*>(const_cast<void*>(static_cast<const void*>(a.data())));
  if (empty) lo = hi = 0;
  std::byte* base = first + lo * static_cast<std::int64_t>(esize);
  const std::size_t nbytes = empty ? 0 : static_cast<std::size_t>(hi - lo + 1) * esize;
  // Keep the exporter's buffer alive; the Python reference is dropped under the GIL.
  auto* held = new nb::ndarray<nb::ro>(a);
  std::shared_ptr<void> keep(held, [](void* p) {
    nb::gil_scoped_acquire gil;
    delete static_cast<nb::ndarray<nb::ro>*>(p);
  });
  auto storage = std::make_shared<Storage>(base, nbytes, Device::cpu(), nullptr, nullptr, keep);
  return Tensor(std::move(storage), dtype, std::move(shape), std::move(strides), -lo);
}

namespace {

/// A DLPack capsule ("dltensor") viewing `t` (a host tensor) that keeps `t`
/// alive: what `__dlpack__` returns.
nb::object to_ndarray(const Tensor& t) {
  TF_CHECK(t.defined(), ValueError, "__dlpack__", "tensor is undefined");
  TF_CHECK(t.device().is_cpu(), DeviceError, "__dlpack__", "tensor is on ", t.device(),
           "; only host tensors are exported so far");
  auto* keep = new Tensor(t);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<std::int64_t> strides(t.strides().begin(), t.strides().end());
  nb::ndarray<> arr(t.data_ptr(), shape.size(), shape.data(), owner, strides.data(),
                    dlpack_dtype(t.dtype()), kDLCPU, 0);
  return nb::cast(arr, nb::rv_policy::reference);
}

std::string repr(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

std::vector<std::int64_t> as_vec(const SmallVec<std::int64_t>& v) { return v.to_vector(); }

/// t[index]: a view (never a copy) for NumPy basic indexing with ints
/// (negative count from the end), slices (any step; a negative one flips the
/// axis) and one Ellipsis; axes not indexed are kept whole.
Tensor getitem(const Tensor& t, nb::handle index) {
  std::vector<nb::handle> items;
  if (nb::isinstance<nb::tuple>(index)) {
    for (nb::handle h : nb::borrow<nb::tuple>(index)) items.push_back(h);
  } else {
    items.push_back(index);
  }
  std::size_t ellipses = 0;
  for (nb::handle h : items) ellipses += h.is(nb::ellipsis()) ? 1 : 0;
  const std::int64_t n_indexed = static_cast<std::int64_t>(items.size() - ellipses);
  TF_CHECK(ellipses <= 1, IndexError, "__getitem__", "an index can only have a single ellipsis");
  TF_CHECK(n_indexed <= t.ndim(), IndexError, "__getitem__", "too many indices (", n_indexed,
           ") for a tensor of shape ", t.shape());
  Tensor out = t;
  std::int64_t axis = 0;  // axis of `out` the next item applies to
  for (nb::handle h : items) {
    if (h.is(nb::ellipsis())) {
      axis += t.ndim() - n_indexed;
    } else if (nb::isinstance<nb::slice>(h)) {
      const std::int64_t n = out.shape()[static_cast<std::size_t>(axis)];
      auto [start, stop, step, len] = nb::borrow<nb::slice>(h).compute(static_cast<std::size_t>(n));
      (void)stop;
      const auto st = static_cast<std::int64_t>(start), sp = static_cast<std::int64_t>(step),
                 ln = static_cast<std::int64_t>(len);
      if (ln == 0) {
        out = out.slice(axis, 0, 0);
      } else if (sp > 0) {
        out = out.slice(axis, st, st + (ln - 1) * sp + 1, sp);
      } else {  // reversed: flip, then step forwards from the mirrored start
        const std::int64_t first = n - 1 - st;
        out = out.flip(DimVec{axis}).slice(axis, first, first + (ln - 1) * -sp + 1, -sp);
      }
      ++axis;
    } else if (nb::isinstance<nb::int_>(h)) {
      std::int64_t i = nb::cast<std::int64_t>(h);
      const std::int64_t n = out.shape()[static_cast<std::size_t>(axis)];
      TF_CHECK(i >= -n && i < n, IndexError, "__getitem__", "index ", i, " is out of range for axis ", axis,
               " of extent ", n, " (shape ", t.shape(), ")");
      out = out.select(axis, i < 0 ? i + n : i);
    } else {
      TF_THROW(IndexError, "__getitem__", "unsupported index of type ", nb::inst_name(h).c_str(),
               " (ints, slices and one ellipsis make views)");
    }
  }
  return out;
}

}  // namespace

NB_MODULE(_tenferro, m) {
  m.doc() = "tenferro: column-major tensors, DLPack interop, einsum, linalg, fft, eager AD, traced programs, file I/O";

  // ---- errors: tenferro.Error and its subclasses, carrying the C++ message.
  // Each also derives from the matching Python built-in, so that
  // `except ValueError` catches tenferro.ValueError and ShapeError too.
  nb::exception<Error> error(m, "Error");
  auto both = [&error](PyObject* builtin) { return nb::make_tuple(error, nb::handle(builtin)); };
  nb::exception<ShapeError>(m, "ShapeError", both(PyExc_ValueError));
  nb::exception<DTypeError>(m, "DTypeError", both(PyExc_TypeError));
  nb::exception<DeviceError>(m, "DeviceError", error);
  nb::exception<IndexError>(m, "IndexError", both(PyExc_IndexError));
  nb::exception<ValueError>(m, "ValueError", both(PyExc_ValueError));
  nb::exception<UnimplementedError>(m, "UnimplementedError", both(PyExc_NotImplementedError));
  nb::exception<BackendError>(m, "BackendError", both(PyExc_RuntimeError));
  nb::exception<LinalgError>(m, "LinalgError", both(PyExc_ArithmeticError));
  nb::exception<MemoryError>(m, "MemoryError", both(PyExc_MemoryError));
  nb::exception<InternalError>(m, "InternalError", both(PyExc_RuntimeError));
  nb::exception<io::FormatError>(m, "FormatError", both(PyExc_ValueError));

  nb::enum_<DType>(m, "DType", "Element type of a tensor")
      .value("float32", DType::f32)
      .value("float64", DType::f64)
      .value("complex64", DType::c64)
      .value("complex128", DType::c128)
      .value("int32", DType::i32)
      .value("int64", DType::i64)
      .value("bool", DType::bool_);

  nb::class_<Tensor> tensor_cls(m, "Tensor",
                                "A strided tensor, column-major by default (axis 0 fastest in memory). "
                                "Views never copy; copies are explicit (contiguous, duplicate).");
  tensor_cls.def_prop_ro("dtype", &Tensor::dtype)
      .def_prop_ro("shape", [](const Tensor& t) { return nb::tuple(nb::cast(as_vec(t.shape()))); })
      .def_prop_ro("strides", [](const Tensor& t) { return nb::tuple(nb::cast(as_vec(t.strides()))); },
                   "Strides in elements (NumPy's are in bytes).")
      .def_prop_ro("offset", &Tensor::offset)
      .def_prop_ro("ndim", &Tensor::ndim)
      .def_prop_ro("size", &Tensor::numel)
      .def_prop_ro("data_ptr", [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data_ptr()); },
                   "Address of element (0, ..., 0).")
      .def("is_contiguous", &Tensor::is_contiguous, "Column-major contiguous.")
      .def("is_row_major_contiguous", &Tensor::is_row_major_contiguous)
      .def("shares_storage_with", &Tensor::shares_storage_with)
      .def("contiguous", &Tensor::contiguous, "This tensor if column-major contiguous, else a copy.")
      .def("duplicate", &Tensor::duplicate, "A fresh column-major copy.")
      .def("permute", [](const Tensor& t, const std::vector<std::int64_t>& p) { return t.permute(DimVec(p)); })
      .def("transpose", &Tensor::transpose)
      .def("reshape", [](const Tensor& t, const std::vector<std::int64_t>& s) { return t.reshape(Shape(s)); },
           "A view with the new shape (column-major element order).")
      .def("__getitem__", &getitem, nb::arg("index"),
           "t[1, ::2], t[..., -1]: a view (ints, slices with any step, one ellipsis); never a copy.")
      .def("__len__", [](const Tensor& t) {
        TF_CHECK(t.ndim() > 0, IndexError, "__len__", "a rank-0 tensor has no length");
        return t.shape()[0];
      })
      .def("flip", [](const Tensor& t, const std::vector<std::int64_t>& axes) { return t.flip(DimVec(axes)); },
           nb::arg("axes"), "A view with the listed axes reversed (negative strides).")
      .def("diagonal", &Tensor::diagonal, nb::arg("axis1") = 0, nb::arg("axis2") = 1, nb::arg("offset") = 0,
           "A view of the diagonal of (axis1, axis2) as a new last axis.")
      .def("broadcast_to", [](const Tensor& t, const std::vector<std::int64_t>& s) { return t.broadcast_to(Shape(s)); },
           nb::arg("shape"), "A view broadcast to `shape` (stride 0 on broadcast axes).")
      .def("__dlpack__",
           [](const Tensor& t, nb::kwargs) { return to_ndarray(t); },
           "A DLPack capsule viewing this tensor (no copy); stream, max_version and copy are not used.")
      .def("__dlpack_device__", [](const Tensor& t) {
        TF_CHECK(t.device().is_cpu(), DeviceError, "__dlpack_device__", "tensor is on ", t.device());
        return nb::make_tuple(kDLCPU, 0);
      })
      .def("__repr__", &repr)
      .def("requires_grad_", [](const Tensor& t) { return tfpy::eager_runtime().tensor(t).requires_grad(); },
           "An eager leaf viewing this tensor whose gradient backward() accumulates (`leaf.grad`).");
  // Arithmetic, comparisons, elementwise math and reductions on the CPU
  // backend (broadcasting and promotion of the op layer; common.hpp).
  tfpy::bind_common(tensor_cls);

  m.def("from_dlpack", &tfpy::from_dlpack, nb::arg("array"),
        "A tensor viewing a DLPack-capable array (NumPy, PyTorch, JAX) without copying: "
        "same memory, same strides (a C-order array arrives as a row-major view).");
  m.def("zeros", [](const std::vector<std::int64_t>& s, DType d) { return Tensor::zeros(Shape(s), d); },
        nb::arg("shape"), nb::arg("dtype") = DType::f64);
  m.def("ones", [](const std::vector<std::int64_t>& s, DType d) { return Tensor::ones(Shape(s), d); },
        nb::arg("shape"), nb::arg("dtype") = DType::f64);
  m.def("arange", [](std::int64_t n, DType d) { return Tensor::arange(n, d); }, nb::arg("n"),
        nb::arg("dtype") = DType::f64);

  tfpy::bind_handles(m);
  tfpy::bind_functions(m);

  // ---- io
  nb::module_ io_m = m.def_submodule("io", "Tensor files: .npy, .npz, safetensors");
  nb::enum_<io::MapMode>(io_m, "MapMode")
      .value("automatic", io::MapMode::automatic)
      .value("always", io::MapMode::always)
      .value("never", io::MapMode::never);
  auto named = [](const std::vector<io::NamedTensor>& v) {
    std::vector<std::pair<std::string, Tensor>> out;
    for (const auto& t : v) out.emplace_back(t.name, t.tensor);
    return out;
  };
  auto unnamed = [](const std::vector<std::pair<std::string, Tensor>>& v) {
    std::vector<io::NamedTensor> out;
    for (const auto& [n, t] : v) out.push_back({n, t});
    return out;
  };
  io_m.def("load_npy",
           [](const std::filesystem::path& p, io::MapMode mode) {
             nb::gil_scoped_release nogil;
             return io::load_npy(p, {.map = mode});
           },
           nb::arg("path"), nb::arg("map") = io::MapMode::automatic);
  io_m.def("save_npy",
           [](const std::filesystem::path& p, const Tensor& t) {
             nb::gil_scoped_release nogil;
             io::save_npy(p, t);
           },
           nb::arg("path"), nb::arg("tensor"));
  io_m.def("load_npz",
           [named](const std::filesystem::path& p, io::MapMode mode) {
             std::vector<io::NamedTensor> v;
             {
               nb::gil_scoped_release nogil;
               v = io::load_npz(p, {.map = mode});
             }
             return named(v);
           },
           nb::arg("path"), nb::arg("map") = io::MapMode::automatic);
  io_m.def("save_npz",
           [unnamed](const std::filesystem::path& p, const std::vector<std::pair<std::string, Tensor>>& ts,
                     bool compress) {
             auto v = unnamed(ts);
             nb::gil_scoped_release nogil;
             io::save_npz(p, v, {.compression = compress ? io::Compression::deflate : io::Compression::stored});
           },
           nb::arg("path"), nb::arg("tensors"), nb::arg("compress") = false);
  io_m.def("load_safetensors",
           [named](const std::filesystem::path& p, io::MapMode mode) {
             io::SafetensorsFile f;
             {
               nb::gil_scoped_release nogil;
               f = io::load_safetensors(p, {.map = mode});
             }
             return std::make_pair(named(f.tensors), f.metadata);
           },
           nb::arg("path"), nb::arg("map") = io::MapMode::automatic);
  io_m.def("save_safetensors",
           [unnamed](const std::filesystem::path& p, const std::vector<std::pair<std::string, Tensor>>& ts,
                     const std::map<std::string, std::string>& metadata) {
             auto v = unnamed(ts);
             nb::gil_scoped_release nogil;
             io::save_safetensors(p, v, metadata);
           },
           nb::arg("path"), nb::arg("tensors"), nb::arg("metadata") = std::map<std::string, std::string>{});
}
