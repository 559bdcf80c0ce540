// The module-level functions that take any of the three tensor classes:
// einsum (with path options) and einsum_path, tenferro.linalg.* and
// tenferro.fft.*. Each is bound once per class (Tensor: eager on the host
// backend; EagerTensor: recorded for backward; TracedTensor: recorded into
// the program), as in C++ where the same names take all three.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <tenferro/einsum.hpp>
#include <tenferro/fft.hpp>
#include <tenferro/linalg.hpp>

#include "common.hpp"

namespace tfpy {

using namespace tenferro;

namespace {

PathOptimizer optimizer_arg(const std::string& name) {
  for (PathOptimizer o :
       {PathOptimizer::automatic, PathOptimizer::greedy, PathOptimizer::optimal, PathOptimizer::annealing})
    if (name == path_optimizer_name(o)) return o;
  TF_THROW(ValueError, "einsum", "unknown optimizer '", name,
           "' (expected \"automatic\", \"greedy\", \"optimal\" or \"annealing\")");
}

PathObjective objective_arg(const std::string& name) {
  if (name == "executor") return PathObjective::executor;
  if (name == "flops") return PathObjective::flops;
  TF_THROW(ValueError, "einsum", "unknown objective '", name, "' (expected \"executor\" or \"flops\")");
}

PathOptions path_options(const std::string& optimizer, std::optional<std::vector<std::pair<int, int>>> path,
                         double memory_limit, std::uint64_t seed, double effort, const std::string& objective) {
  PathOptions o;
  o.optimizer = optimizer_arg(optimizer);
  o.objective = objective_arg(objective);
  if (path) o.path = *path;
  o.memory_limit = memory_limit;
  o.seed = seed;
  o.effort = effort;
  return o;
}

linalg::NormOrder norm_order(nb::handle ord) {
  if (nb::isinstance<nb::str>(ord)) return linalg::NormOrder(nb::cast<std::string>(ord).c_str());
  return linalg::NormOrder(nb::cast<double>(ord));
}

fft::Norm norm_arg(const std::string& name, const char* op) {
  for (fft::Norm n : {fft::Norm::backward, fft::Norm::ortho, fft::Norm::forward})
    if (name == fft::norm_name(n)) return n;
  TF_THROW(ValueError, op, "unknown norm '", name, "' (expected \"backward\", \"ortho\" or \"forward\")");
}

}  // namespace

void bind_functions(nb::module_& m) {
  // ---- einsum
  m.def(
      "_einsum",
      [](const std::string& subscripts, nb::handle operands, const std::string& optimizer,
         std::optional<std::vector<std::pair<int, int>>> path, double memory_limit, std::uint64_t seed,
         double effort, const std::string& objective) -> nb::object {
        const PathOptions opts = path_options(optimizer, path, memory_limit, seed, effort, objective);
        bool traced = false, eager = false;
        for (nb::handle h : operands) {
          traced |= nb::isinstance<TracedTensor>(h);
          eager |= nb::isinstance<EagerTensor>(h);
        }
        TF_CHECK(!(traced && eager), ValueError, "einsum", "operands mix traced and eager tensors");
        if (traced) {
          std::vector<TracedTensor> ts;
          for (nb::handle h : operands)
            ts.push_back(nb::isinstance<TracedTensor>(h) ? nb::cast<TracedTensor>(h)
                                                         : TracedTensor::constant(to_tensor(h)));
          return nb::cast(einsum(subscripts, ts, opts));
        }
        if (eager) {
          std::vector<EagerTensor> ts;
          for (nb::handle h : operands)
            ts.push_back(nb::isinstance<EagerTensor>(h) ? nb::cast<EagerTensor>(h)
                                                        : eager_runtime().tensor(to_tensor(h)));
          nb::gil_scoped_release nogil;
          EagerTensor r = einsum(subscripts, ts, opts);
          nb::gil_scoped_acquire gil;
          return nb::cast(r);
        }
        std::vector<Tensor> ts;
        for (nb::handle h : operands) ts.push_back(to_tensor(h));
        Tensor r;
        {
          nb::gil_scoped_release nogil;
          r = einsum(subscripts, ts, host_backend(), opts);
        }
        return nb::cast(r);
      },
      nb::arg("subscripts"), nb::arg("operands"), nb::arg("optimizer"), nb::arg("path").none(),
      nb::arg("memory_limit"), nb::arg("seed"), nb::arg("effort"), nb::arg("objective"));
  m.def(
      "_einsum_path",
      [](const std::string& subscripts, const std::vector<std::vector<std::int64_t>>& shapes,
         const std::string& optimizer, std::optional<std::vector<std::pair<int, int>>> path, double memory_limit,
         std::uint64_t seed, double effort, const std::string& objective) {
        std::vector<Shape> s;
        for (const auto& v : shapes) s.emplace_back(v);
        ContractionPath p;
        {
          nb::gil_scoped_release nogil;
          p = einsum_path(subscripts, s, path_options(optimizer, path, memory_limit, seed, effort, objective));
        }
        nb::dict d;
        d["path"] = nb::cast(p.pairs);
        d["flops"] = p.cost.flops;
        d["largest_intermediate"] = p.cost.largest_intermediate;
        d["total_intermediate"] = p.cost.total_intermediate;
        d["traffic"] = p.cost.traffic;
        d["num_slices"] = p.num_slices;
        d["optimizer"] = std::string(path_optimizer_name(p.optimizer));
        d["planning_seconds"] = p.planning_seconds;
        return d;
      },
      nb::arg("subscripts"), nb::arg("shapes"), nb::arg("optimizer"), nb::arg("path").none(),
      nb::arg("memory_limit"), nb::arg("seed"), nb::arg("effort"), nb::arg("objective"));

  // ---- linalg (LAPACK on the CPU; batch axes trailing, as in C++)
  nb::module_ la = m.def_submodule("linalg", "Linear algebra (LAPACK on the CPU); batch axes trailing, as in C++.");
  auto bind_la = [&la](auto tag) {
    using H = decltype(tag);
    constexpr bool T = is_tensor<H>;
    auto run = [](auto&& f) {
      nb::gil_scoped_release nogil;
      return f();
    };
    la.def("svd", [run](const H& a, bool full) {
      return run([&] {
        linalg::SvdOptions o{.full_matrices = full};
        auto r = [&] { if constexpr (T) return linalg::svd(a, host_backend(), o); else return linalg::svd(a, o); }();
        return std::make_tuple(r.u, r.s, r.vh);
      });
    }, nb::arg("a"), nb::arg("full_matrices") = false, "(u, s, vh) with a = u diag(s) vh, s descending.");
    la.def("svdvals", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::svdvals(a, host_backend()); else return linalg::svdvals(a); });
    }, nb::arg("a"), "Singular values, descending.");
    la.def("qr", [run](const H& a) {
      return run([&] {
        auto r = [&] { if constexpr (T) return linalg::qr(a, host_backend()); else return linalg::qr(a); }();
        return std::make_tuple(r.q, r.r);
      });
    }, nb::arg("a"), "(q, r), reduced.");
    la.def("eigh", [run](const H& a, bool lower) {
      return run([&] {
        linalg::TriangleOptions o{.lower = lower};
        auto r = [&] { if constexpr (T) return linalg::eigh(a, host_backend(), o); else return linalg::eigh(a, o); }();
        return std::make_tuple(r.eigenvalues, r.eigenvectors);
      });
    }, nb::arg("a"), nb::arg("lower") = true, "(eigenvalues ascending, eigenvectors as columns) of a Hermitian matrix.");
    la.def("cholesky", [run](const H& a, bool lower) {
      return run([&] {
        linalg::TriangleOptions o{.lower = lower};
        if constexpr (T) return linalg::cholesky(a, host_backend(), o); else return linalg::cholesky(a, o);
      });
    }, nb::arg("a"), nb::arg("lower") = true, "The Cholesky factor (lower: a = l l^H).");
    la.def("solve", [run](const H& a, const H& b) {
      return run([&] { if constexpr (T) return linalg::solve(a, b, host_backend()); else return linalg::solve(a, b); });
    }, nb::arg("a"), nb::arg("b"), "x with a x = b.");
    la.def("inv", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::inv(a, host_backend()); else return linalg::inv(a); });
    }, nb::arg("a"), "The inverse.");
    la.def("det", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::det(a, host_backend()); else return linalg::det(a); });
    }, nb::arg("a"), "The determinant.");
    la.def("slogdet", [run](const H& a) {
      return run([&] {
        auto r = [&] { if constexpr (T) return linalg::slogdet(a, host_backend()); else return linalg::slogdet(a); }();
        return std::make_tuple(r.sign, r.logabsdet);
      });
    }, nb::arg("a"), "(sign, log|det|).");
    la.def("matrix_exp", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::matrix_exp(a, host_backend()); else return linalg::matrix_exp(a); });
    }, nb::arg("a"), "The matrix exponential.");
    la.def("pinv", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::pinv(a, host_backend()); else return linalg::pinv(a); });
    }, nb::arg("a"), "The Moore-Penrose pseudo-inverse.");
    la.def("vector_norm", [run](const H& a, double ord) {
      return run([&] { if constexpr (T) return linalg::vector_norm(a, host_backend(), ord); else return linalg::vector_norm(a, ord); });
    }, nb::arg("x"), nb::arg("ord") = 2.0, "(sum |x_i|^ord)^(1/ord) along axis 0 of x [n, batch...] (inf: max |x_i|).");
    la.def("lu", [run](const H& a, bool permutation_matrix) {
      return run([&] {
        linalg::LuOptions o{.permutation_matrix = permutation_matrix};
        auto r = [&] { if constexpr (T) return linalg::lu(a, host_backend(), o); else return linalg::lu(a, o); }();
        return std::make_tuple(r.perm, r.l, r.u, r.p);
      });
    }, nb::arg("a"), nb::arg("permutation_matrix") = true,
       "(perm, l, u, p) with p a = l u; row i of l u is row perm[i] of a (p is [0, 0] unless requested).");
    la.def("eig", [run](const H& a) {
      return run([&] {
        auto r = [&] { if constexpr (T) return linalg::eig(a, host_backend()); else return linalg::eig(a); }();
        return std::make_tuple(r.eigenvalues, r.eigenvectors);
      });
    }, nb::arg("a"), "(eigenvalues, right eigenvectors as columns) of a general square matrix (complex).");
    la.def("eigvals", [run](const H& a) {
      return run([&] { if constexpr (T) return linalg::eigvals(a, host_backend()); else return linalg::eigvals(a); });
    }, nb::arg("a"), "Eigenvalues of a general square matrix (complex).");
    la.def("lstsq", [run](const H& a, const H& b, double rcond) {
      return run([&] {
        linalg::LstsqOptions o{.rcond = rcond};
        auto r = [&] { if constexpr (T) return linalg::lstsq(a, b, host_backend(), o); else return linalg::lstsq(a, b, o); }();
        return std::make_tuple(r.solution, r.residuals, r.rank, r.singular_values);
      });
    }, nb::arg("a"), nb::arg("b"), nb::arg("rcond") = -1.0,
       "(solution, residuals, rank, singular_values) of min ||a x - b|| (minimum norm when rank-deficient).");
    la.def("triangular_solve", [run](const H& a, const H& b, bool lower, bool left, bool unit_diagonal) {
      return run([&] {
        linalg::TriangularSolveOptions o{.lower = lower, .left = left, .unit_diagonal = unit_diagonal};
        if constexpr (T) return linalg::triangular_solve(a, b, host_backend(), o);
        else return linalg::triangular_solve(a, b, o);
      });
    }, nb::arg("a"), nb::arg("b"), nb::arg("lower") = true, nb::arg("left") = true, nb::arg("unit_diagonal") = false,
       "x with a x = b (left) or x a = b, a triangular.");
    la.def("matrix_norm", [run](const H& a, nb::handle ord) {
      const linalg::NormOrder o = norm_order(ord);
      return run([&] { if constexpr (T) return linalg::matrix_norm(a, host_backend(), o); else return linalg::matrix_norm(a, o); });
    }, nb::arg("a"), nb::arg("ord") = "fro", "Matrix norm: \"fro\", \"nuc\", 1, -1, 2, -2, inf, -inf.");
    la.def("cond", [run](const H& a, nb::handle ord) {
      const linalg::NormOrder o = norm_order(ord);
      return run([&] { if constexpr (T) return linalg::cond(a, host_backend(), o); else return linalg::cond(a, o); });
    }, nb::arg("a"), nb::arg("ord") = 2, "Condition number in the matrix norm `ord`.");
    la.def("matrix_rank", [run](const H& a, double rtol, double atol) {
      linalg::RankTolerance tol{.rtol = rtol, .atol = atol};
      return run([&] { if constexpr (T) return linalg::matrix_rank(a, host_backend(), tol); else return linalg::matrix_rank(a, tol); });
    }, nb::arg("a"), nb::arg("rtol") = -1.0, nb::arg("atol") = 0.0,
       "Number of singular values above max(atol, rtol * s_max) (rtol < 0: max(m, n) * eps).");
  };
  bind_la(Tensor{});
  bind_la(EagerTensor{});
  bind_la(TracedTensor{});

  // ---- fft (NumPy's semantics; default axes are the leading ones, as in C++)
  nb::module_ ff = m.def_submodule(
      "fft", "Discrete Fourier transforms with numpy.fft's semantics; default axes are the leading ones "
             "(axis 0; {0, 1}; all), batch axes trailing, as in C++ (docs/fft.md).");
  auto bind_fft = [&ff](auto tag) {
    using H = decltype(tag);
#define TFPY_FFT1(name)                                                                           \
  ff.def(#name, [](const H& x, std::optional<std::int64_t> n, std::int64_t axis, const std::string& norm) { \
    fft::Options o{.n = n, .axis = axis, .norm = norm_arg(norm, "fft." #name)};                    \
    nb::gil_scoped_release nogil;                                                                 \
    if constexpr (is_tensor<H>) return fft::name(x, host_backend(), o); else return fft::name(x, o); \
  }, nb::arg("x"), nb::arg("n") = nb::none(), nb::arg("axis") = 0, nb::arg("norm") = "backward");
#define TFPY_FFTN(name)                                                                           \
  ff.def(#name, [](const H& x, std::optional<std::vector<std::int64_t>> s,                        \
                   std::optional<std::vector<std::int64_t>> axes, const std::string& norm) {        \
    fft::NdOptions o;                                                                             \
    if (s) o.s = Shape(*s);                                                                       \
    if (axes) o.axes = DimVec(*axes);                                                             \
    o.norm = norm_arg(norm, "fft." #name);                                                        \
    nb::gil_scoped_release nogil;                                                                 \
    if constexpr (is_tensor<H>) return fft::name(x, host_backend(), o); else return fft::name(x, o); \
  }, nb::arg("x"), nb::arg("s") = nb::none(), nb::arg("axes") = nb::none(), nb::arg("norm") = "backward");
    TFPY_FFT1(fft)
    TFPY_FFT1(ifft)
    TFPY_FFT1(rfft)
    TFPY_FFT1(irfft)
    TFPY_FFT1(hfft)
    TFPY_FFT1(ihfft)
    TFPY_FFTN(fft2)
    TFPY_FFTN(ifft2)
    TFPY_FFTN(rfft2)
    TFPY_FFTN(irfft2)
    TFPY_FFTN(fftn)
    TFPY_FFTN(ifftn)
    TFPY_FFTN(rfftn)
    TFPY_FFTN(irfftn)
#undef TFPY_FFT1
#undef TFPY_FFTN
  };
  bind_fft(Tensor{});
  bind_fft(EagerTensor{});
  bind_fft(TracedTensor{});
  ff.def("fftfreq", [](std::int64_t n, double d, DType dt) { return fft::fftfreq(n, d, dt); }, nb::arg("n"),
         nb::arg("d") = 1.0, nb::arg("dtype") = DType::f64, "Sample frequencies of an n-point transform.");
  ff.def("rfftfreq", [](std::int64_t n, double d, DType dt) { return fft::rfftfreq(n, d, dt); }, nb::arg("n"),
         nb::arg("d") = 1.0, nb::arg("dtype") = DType::f64, "The n/2 + 1 non-negative frequencies of rfft.");
  ff.def("fftshift", [](const Tensor& x, std::optional<std::vector<std::int64_t>> axes) {
    return fft::fftshift(x, host_backend(), axes ? std::optional<DimVec>(DimVec(*axes)) : std::nullopt);
  }, nb::arg("x"), nb::arg("axes") = nb::none(), "Moves the zero frequency to the centre.");
  ff.def("ifftshift", [](const Tensor& x, std::optional<std::vector<std::int64_t>> axes) {
    return fft::ifftshift(x, host_backend(), axes ? std::optional<DimVec>(DimVec(*axes)) : std::nullopt);
  }, nb::arg("x"), nb::arg("axes") = nb::none(), "Inverse of fftshift.");
}

}  // namespace tfpy
