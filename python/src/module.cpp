// tenferro._tenferro: the nanobind extension behind the `tenferro` Python
// package. This first part binds tensors (metadata, views, copies, host
// factories), zero-copy DLPack exchange both ways, tensor file I/O and the
// error hierarchy; the Python-side names live in tenferro/__init__.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>

#include <optional>
#include <sstream>
#include <tenferro/cpu.hpp>
#include <tenferro/einsum.hpp>
#include <tenferro/io.hpp>
#include <tenferro/linalg.hpp>
#include <tenferro/ops.hpp>
#include <tenferro/tensor.hpp>

namespace nb = nanobind;
using namespace tenferro;

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

/// A tensor viewing the memory of a DLPack-capable object (NumPy, PyTorch,
/// JAX arrays): same data pointer, same strides; the object stays alive as
/// long as the tensor's storage.
Tensor from_dlpack(nb::ndarray<nb::ro> a) {
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

/// The backend every eager call of the module runs on (created on first
/// use and never destroyed, so that no kernel thread outlives the interpreter's teardown).
CpuBackend& host_backend() {
  static CpuBackend* backend = new CpuBackend();
  return *backend;
}

/// Binds `name` and its reflected `rname` for tensor and Python-number
/// operands: `tt(tensor, tensor)`, `ts(tensor, Scalar)`, `st(Scalar, tensor)`.
template <class Class, class TT, class TS, class ST>
void binary(Class& cls, const char* name, const char* rname, TT tt, TS ts, ST st) {
  cls.def(name, [tt](const Tensor& a, const Tensor& b) {
    nb::gil_scoped_release nogil;
    return tt(a, b);
  });
  auto with_scalar = [&](auto tag) {
    using S = decltype(tag);
    cls.def(name, [ts](const Tensor& a, S b) {
      nb::gil_scoped_release nogil;
      return ts(a, Scalar(b));
    });
    cls.def(rname, [st](const Tensor& a, S b) {
      nb::gil_scoped_release nogil;
      return st(Scalar(b), a);
    });
  };
  with_scalar(std::int64_t{});
  with_scalar(double{});
  with_scalar(std::complex<double>{});
}

std::vector<std::int64_t> as_vec(const SmallVec<std::int64_t>& v) { return v.to_vector(); }

}  // namespace

NB_MODULE(_tenferro, m) {
  m.doc() = "tenferro: column-major tensors, DLPack interop and tensor file I/O";

  // ---- errors: tenferro.Error and its subclasses, carrying the C++ message.
  nb::exception<Error> error(m, "Error");
  nb::exception<ShapeError>(m, "ShapeError", error);
  nb::exception<DTypeError>(m, "DTypeError", error);
  nb::exception<DeviceError>(m, "DeviceError", error);
  nb::exception<IndexError>(m, "IndexError", error);
  nb::exception<ValueError>(m, "ValueError", error);
  nb::exception<UnimplementedError>(m, "UnimplementedError", error);
  nb::exception<BackendError>(m, "BackendError", error);
  nb::exception<LinalgError>(m, "LinalgError", error);
  nb::exception<InternalError>(m, "InternalError", error);
  nb::exception<io::FormatError>(m, "FormatError", error);

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
      .def("__dlpack__",
           [](const Tensor& t, nb::kwargs) { return to_ndarray(t); },
           "A DLPack capsule viewing this tensor (no copy); stream, max_version and copy are not used.")
      .def("__dlpack_device__", [](const Tensor& t) {
        TF_CHECK(t.device().is_cpu(), DeviceError, "__dlpack_device__", "tensor is on ", t.device());
        return nb::make_tuple(kDLCPU, 0);
      })
      .def("__repr__", &repr);
  // Arithmetic on the CPU backend (broadcasting and promotion of the op layer).
  binary(
      tensor_cls, "__add__", "__radd__", [](const Tensor& a, const Tensor& b) { return add(a, b, host_backend()); },
      [](const Tensor& a, Scalar b) { return add(a, b, host_backend()); },
      [](Scalar a, const Tensor& b) { return add(b, a, host_backend()); });
  binary(
      tensor_cls, "__sub__", "__rsub__", [](const Tensor& a, const Tensor& b) { return sub(a, b, host_backend()); },
      [](const Tensor& a, Scalar b) { return sub(a, b, host_backend()); },
      [](Scalar a, const Tensor& b) { return sub(a, b, host_backend()); });
  binary(
      tensor_cls, "__mul__", "__rmul__", [](const Tensor& a, const Tensor& b) { return mul(a, b, host_backend()); },
      [](const Tensor& a, Scalar b) { return mul(a, b, host_backend()); },
      [](Scalar a, const Tensor& b) { return mul(b, a, host_backend()); });
  binary(
      tensor_cls, "__truediv__", "__rtruediv__", [](const Tensor& a, const Tensor& b) { return div(a, b, host_backend()); },
      [](const Tensor& a, Scalar b) { return div(a, b, host_backend()); },
      [](Scalar a, const Tensor& b) { return div(a, b, host_backend()); });
  tensor_cls.def("__matmul__", [](const Tensor& a, const Tensor& b) {
    nb::gil_scoped_release nogil;
    return matmul(a, b, host_backend());
  });
  tensor_cls.def("__neg__", [](const Tensor& a) { return neg(a, host_backend()); });
  tensor_cls.def(
      "sum",
      [](const Tensor& a, std::optional<std::vector<std::int64_t>> axes) {
        nb::gil_scoped_release nogil;
        return axes ? sum(a, DimVec(*axes), host_backend()) : sum(a, host_backend());
      },
      nb::arg("axes") = nb::none(), "Sum over `axes` (all axes when None).");

  m.def("from_dlpack", &from_dlpack, nb::arg("array"),
        "A tensor viewing a DLPack-capable array (NumPy, PyTorch, JAX) without copying: "
        "same memory, same strides (a C-order array arrives as a row-major view).");
  m.def(
      "einsum",
      [](const std::string& subscripts, nb::args operands) {
        std::vector<Tensor> ts;
        for (nb::handle h : operands) ts.push_back(nb::cast<Tensor>(h));
        nb::gil_scoped_release nogil;
        return einsum(subscripts, ts, host_backend());
      },
      nb::arg("subscripts"), nb::arg("operands"),
      "einsum(\"ij,jk->ik\", a, b): contraction with an optimised path, on the CPU.");
  m.def("zeros", [](const std::vector<std::int64_t>& s, DType d) { return Tensor::zeros(Shape(s), d); },
        nb::arg("shape"), nb::arg("dtype") = DType::f64);
  m.def("ones", [](const std::vector<std::int64_t>& s, DType d) { return Tensor::ones(Shape(s), d); },
        nb::arg("shape"), nb::arg("dtype") = DType::f64);
  m.def("arange", [](std::int64_t n, DType d) { return Tensor::arange(n, d); }, nb::arg("n"),
        nb::arg("dtype") = DType::f64);

  // ---- linalg (LAPACK on the CPU backend; batch axes trailing, as in C++)
  nb::module_ la = m.def_submodule("linalg", "Linear algebra on the CPU backend (LAPACK)");
  la.def(
      "svd",
      [](const Tensor& a, bool full_matrices) {
        nb::gil_scoped_release nogil;
        auto r = linalg::svd(a, host_backend(), {.full_matrices = full_matrices});
        return std::make_tuple(r.u, r.s, r.vh);
      },
      nb::arg("a"), nb::arg("full_matrices") = false, "(u, s, vh) with a = u diag(s) vh, s descending.");
  la.def("svdvals", [](const Tensor& a) {
    nb::gil_scoped_release nogil;
    return linalg::svdvals(a, host_backend());
  }, nb::arg("a"), "Singular values, descending.");
  la.def("qr", [](const Tensor& a) {
    nb::gil_scoped_release nogil;
    auto r = linalg::qr(a, host_backend());
    return std::make_tuple(r.q, r.r);
  }, nb::arg("a"), "(q, r), reduced.");
  la.def("eigh", [](const Tensor& a) {
    nb::gil_scoped_release nogil;
    auto r = linalg::eigh(a, host_backend());
    return std::make_tuple(r.eigenvalues, r.eigenvectors);
  }, nb::arg("a"), "(eigenvalues ascending, eigenvectors as columns) of a Hermitian matrix.");
  la.def("solve", [](const Tensor& a, const Tensor& b) {
    nb::gil_scoped_release nogil;
    return linalg::solve(a, b, host_backend());
  }, nb::arg("a"), nb::arg("b"), "x with a x = b.");
  la.def("inv", [](const Tensor& a) {
    nb::gil_scoped_release nogil;
    return linalg::inv(a, host_backend());
  }, nb::arg("a"));
  la.def("det", [](const Tensor& a) {
    nb::gil_scoped_release nogil;
    return linalg::det(a, host_backend());
  }, nb::arg("a"));

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
