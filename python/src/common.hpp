// Shared by the translation units of tenferro._tenferro: the process-wide
// backend and runtimes the bindings run on, conversions from Python objects,
// and `bind_common<H>`, the methods that `Tensor`, `EagerTensor` and
// `TracedTensor` share (arithmetic, comparisons, elementwise math,
// reductions, matmul, transpose, reshape), so the three read the same from
// Python as they do in C++ (docs/ops_surface.md).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include <tenferro/ops.hpp>
#include <tenferro/runtime.hpp>
#include <tenferro/tensor.hpp>

namespace tfpy {

namespace nb = nanobind;
using tenferro::DimVec;
using tenferro::EagerTensor;
using tenferro::Scalar;
using tenferro::Tensor;
using tenferro::TracedTensor;

/// The CPU backend every eager call runs on (created on first use, never
/// destroyed, so no kernel thread outlives the interpreter's teardown).
tenferro::Backend& host_backend();
/// The eager runtime over `host_backend()` (EagerTensor leaves).
const tenferro::EagerRuntime& eager_runtime();
/// The runtime that runs compiled programs: a CPU engine over
/// `host_backend()`, with the linalg and fft families registered.
const tenferro::Runtime& program_runtime();

/// A tensor from a `Tensor` or any host DLPack producer (NumPy, PyTorch, JAX).
Tensor to_tensor(nb::handle h);
/// A tensor viewing a DLPack array (zero-copy; module.cpp).
Tensor from_dlpack(nb::ndarray<nb::ro> a);
/// Axes from None (nullopt: all), an int or a sequence of ints.
std::optional<DimVec> axes_arg(nb::handle axes);

template <class H>
inline constexpr bool is_tensor = std::is_same_v<H, Tensor>;

/// A plain tensor as an operand of `H`: itself, an eager leaf without
/// gradient, or a traced constant.
template <class H>
H lift(const Tensor& t) {
  if constexpr (is_tensor<H>) {
    return t;
  } else if constexpr (std::is_same_v<H, EagerTensor>) {
    return eager_runtime().tensor(t);
  } else {
    return TracedTensor::constant(t);
  }
}

// Each op once for the three classes: the Tensor free function on the host
// backend, or the handle's method.
#define TFPY_BINARY(name)                                                           \
  template <class H>                                                                \
  H op_##name(const H& a, const H& b) {                                             \
    if constexpr (is_tensor<H>) return tenferro::name(a, b, host_backend());        \
    else return a.name(b);                                                          \
  }                                                                                 \
  template <class H>                                                                \
  H op_##name(const H& a, Scalar b) {                                               \
    if constexpr (is_tensor<H>) return tenferro::name(a, b, host_backend());        \
    else return a.name(b);                                                          \
  }
TFPY_BINARY(add)
TFPY_BINARY(sub)
TFPY_BINARY(mul)
TFPY_BINARY(div)
TFPY_BINARY(pow)
TFPY_BINARY(maximum)
TFPY_BINARY(minimum)
#undef TFPY_BINARY

template <class H>
H op_rsub(Scalar a, const H& b) {
  if constexpr (is_tensor<H>) return tenferro::sub(a, b, host_backend());
  else return H::rsub(a, b);
}
template <class H>
H op_rdiv(Scalar a, const H& b) {
  if constexpr (is_tensor<H>) return tenferro::div(a, b, host_backend());
  else return H::rdiv(a, b);
}
template <class H>
H op_matmul(const H& a, const H& b) {
  if constexpr (is_tensor<H>) return tenferro::matmul(a, b, host_backend());
  else return a.matmul(b);
}
template <class H, class B>
H op_compare(const H& a, const B& b, tenferro::ComparisonDirection d) {
  if constexpr (is_tensor<H>) return tenferro::compare(a, b, d, host_backend());
  else return a.compare(b, d);
}
template <class H>
H op_convert(const H& a, tenferro::DType d) {
  if constexpr (is_tensor<H>) return tenferro::convert(a, d, host_backend());
  else return a.convert(d);
}

/// Binds `name` (and the reflected `rname` when given) for an `H` operand,
/// a plain `Tensor` operand (handles only) and Python numbers; `f(a, b)`
/// computes a op b for two H, `fs(a, s)` with a Scalar, `rs(s, a)` s op a.
template <class H, class F, class FS, class RS>
void binary(nb::class_<H>& cls, const char* name, const char* rname, F f, FS fs, RS rs) {
  // Operators answer NotImplemented to operands they do not take (so that
  // Python tries the reflected form); named methods raise TypeError.
  const bool is_op = name[0] == '_';
  auto def = [&cls, is_op](const char* n, auto fn) {
    if (is_op) cls.def(n, fn, nb::is_operator());
    else cls.def(n, fn);
  };
  def(name, [f](const H& a, const H& b) {
    nb::gil_scoped_release nogil;
    return f(a, b);
  });
  if constexpr (!is_tensor<H>) {
    def(name, [f](const H& a, const Tensor& b) { return f(a, lift<H>(b)); });
    if (rname) def(rname, [f](const H& a, const Tensor& b) { return f(lift<H>(b), a); });
  }
  auto with_scalar = [&](auto tag) {
    using S = decltype(tag);
    def(name, [fs](const H& a, S b) {
      nb::gil_scoped_release nogil;
      return fs(a, Scalar(b));
    });
    if (rname)
      def(rname, [rs](const H& a, S b) {
        nb::gil_scoped_release nogil;
        return rs(Scalar(b), a);
      });
  };
  with_scalar(std::int64_t{});
  with_scalar(double{});
  with_scalar(std::complex<double>{});
}

/// The methods the three tensor classes share.
template <class H>
void bind_common(nb::class_<H>& cls) {
  using tenferro::ComparisonDirection;
  binary(cls, "__add__", "__radd__", [](const H& a, const H& b) { return op_add(a, b); },
         [](const H& a, Scalar s) { return op_add(a, s); }, [](Scalar s, const H& a) { return op_add(a, s); });
  binary(cls, "__sub__", "__rsub__", [](const H& a, const H& b) { return op_sub(a, b); },
         [](const H& a, Scalar s) { return op_sub(a, s); }, [](Scalar s, const H& a) { return op_rsub(s, a); });
  binary(cls, "__mul__", "__rmul__", [](const H& a, const H& b) { return op_mul(a, b); },
         [](const H& a, Scalar s) { return op_mul(a, s); }, [](Scalar s, const H& a) { return op_mul(a, s); });
  binary(cls, "__truediv__", "__rtruediv__", [](const H& a, const H& b) { return op_div(a, b); },
         [](const H& a, Scalar s) { return op_div(a, s); }, [](Scalar s, const H& a) { return op_rdiv(s, a); });
  binary(cls, "__pow__", nullptr, [](const H& a, const H& b) { return op_pow(a, b); },
         [](const H& a, Scalar s) { return op_pow(a, s); }, [](Scalar s, const H& a) { return op_pow(a, s); });
  binary(cls, "maximum", nullptr, [](const H& a, const H& b) { return op_maximum(a, b); },
         [](const H& a, Scalar s) { return op_maximum(a, s); }, [](Scalar s, const H& a) { return op_maximum(a, s); });
  binary(cls, "minimum", nullptr, [](const H& a, const H& b) { return op_minimum(a, b); },
         [](const H& a, Scalar s) { return op_minimum(a, s); }, [](Scalar s, const H& a) { return op_minimum(a, s); });
  cls.def("__matmul__", [](const H& a, const H& b) {
    nb::gil_scoped_release nogil;
    return op_matmul(a, b);
  }, nb::is_operator());
  if constexpr (!is_tensor<H>) {
    cls.def("__matmul__", [](const H& a, const Tensor& b) { return op_matmul(a, lift<H>(b)); }, nb::is_operator());
    cls.def("__rmatmul__", [](const H& a, const Tensor& b) { return op_matmul(lift<H>(b), a); }, nb::is_operator());
  }
  // Comparisons: <, <=, >, >= as operators, all six as methods (== stays
  // Python's identity so that tensors remain usable as dict keys).
  struct Cmp {
    const char* method;
    const char* op;
    ComparisonDirection dir;
  };
  for (Cmp c : {Cmp{"eq", nullptr, ComparisonDirection::EQ}, Cmp{"ne", nullptr, ComparisonDirection::NE},
                Cmp{"lt", "__lt__", ComparisonDirection::LT}, Cmp{"le", "__le__", ComparisonDirection::LE},
                Cmp{"gt", "__gt__", ComparisonDirection::GT}, Cmp{"ge", "__ge__", ComparisonDirection::GE}}) {
    for (const char* n : {c.method, c.op}) {
      if (!n) continue;
      auto extra = [&](auto f) {
        if (n == c.op) cls.def(n, f, nb::is_operator());
        else cls.def(n, f);
      };
      const ComparisonDirection d = c.dir;
      extra([d](const H& a, const H& b) { return op_compare(a, b, d); });
      extra([d](const H& a, double s) { return op_compare(a, Scalar(s), d); });
      extra([d](const H& a, std::int64_t s) { return op_compare(a, Scalar(s), d); });
    }
  }

#define TFPY_UNARY(name)                                                   \
  cls.def(#name, [](const H& a) {                                          \
    nb::gil_scoped_release nogil;                                          \
    if constexpr (is_tensor<H>) return tenferro::name(a, host_backend());  \
    else return a.name();                                                  \
  });
  TFPY_UNARY(square)
  TFPY_UNARY(abs)
  TFPY_UNARY(sign)
  TFPY_UNARY(exp)
  TFPY_UNARY(log)
  TFPY_UNARY(sin)
  TFPY_UNARY(cos)
  TFPY_UNARY(tanh)
  TFPY_UNARY(sqrt)
  TFPY_UNARY(rsqrt)
  TFPY_UNARY(expm1)
  TFPY_UNARY(log1p)
  TFPY_UNARY(conj)
  TFPY_UNARY(real)
  TFPY_UNARY(imag)
  TFPY_UNARY(is_finite)
  TFPY_UNARY(floor)
  TFPY_UNARY(ceil)
  TFPY_UNARY(trunc)
  TFPY_UNARY(erf)
  TFPY_UNARY(erfc)
  TFPY_UNARY(erfinv)
  TFPY_UNARY(lgamma)
  TFPY_UNARY(digamma)
  TFPY_UNARY(ndtr)
  TFPY_UNARY(ndtri)
  TFPY_UNARY(norm)
  TFPY_UNARY(trace)
#undef TFPY_UNARY
  cls.def("__neg__", [](const H& a) {
    if constexpr (is_tensor<H>) return tenferro::neg(a, host_backend());
    else return a.neg();
  });
  cls.def("__abs__", [](const H& a) {
    if constexpr (is_tensor<H>) return tenferro::abs(a, host_backend());
    else return a.abs();
  });

#define TFPY_REDUCE(name, doc)                                                       \
  cls.def(                                                                           \
      #name,                                                                         \
      [](const H& a, nb::handle axes) {                                              \
        std::optional<DimVec> ax = axes_arg(axes);                                   \
        nb::gil_scoped_release nogil;                                                \
        if constexpr (is_tensor<H>)                                                  \
          return ax ? tenferro::name(a, *ax, host_backend()) : tenferro::name(a, host_backend()); \
        else                                                                         \
          return ax ? a.name(*ax) : a.name();                                        \
      },                                                                             \
      nb::arg("axes") = nb::none(), doc);
  TFPY_REDUCE(sum, "Sum over `axes` (an int or a sequence; all axes when None).")
  TFPY_REDUCE(mean, "Mean over `axes` (all when None).")
  TFPY_REDUCE(max, "Maximum over `axes` (all when None).")
  TFPY_REDUCE(min, "Minimum over `axes` (all when None).")
  TFPY_REDUCE(prod, "Product over `axes` (all when None).")
#undef TFPY_REDUCE
  cls.def("astype", [](const H& a, tenferro::DType d) { return op_convert(a, d); }, nb::arg("dtype"),
          "The values converted to `dtype`.");
}

}  // namespace tfpy
