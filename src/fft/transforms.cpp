// The NumPy-style transforms: argument resolution (axes, lengths, dtypes),
// then crop/pad/promote with primitives around one `fft.fft` family op.
#include "tenferro/fft/transforms.hpp"

#include <cmath>

#include "provider.hpp"
#include "resolved.hpp"
#include "tenferro/fft/family.hpp"
#include "tenferro/ops/primitives.hpp"

namespace tenferro::fft {
namespace {

void check_input(const Tensor& x, const char* op) {
  TF_CHECK(x.defined(), ValueError, op, "input is an undefined tensor");
  TF_CHECK(is_float(x.dtype()), DTypeError, op,
           "takes floating-point input (f32, f64, c64, c128), got ", x.dtype(), x.shape(),
           "; convert it first");
}

void check_real_input(const Tensor& x, const char* op) {
  check_input(x, op);
  TF_CHECK(!is_complex(x.dtype()), DTypeError, op, "takes real input (f32, f64), got ", x.dtype(),
           x.shape(), "; use the complex transform (fft, fftn) for complex data");
}

void require_provider(const char* op) {
  TF_CHECK(detail::current_provider() != nullptr, UnimplementedError, op,
           detail::kNoProviderMessage);
}

std::int64_t resolve_axis(const Tensor& x, std::int64_t axis, const char* op) {
  const std::int64_t r = x.ndim();
  TF_CHECK(axis >= -r && axis < r, IndexError, op, "axis ", axis, " is out of range for input ",
           x.dtype(), x.shape(), " (rank ", r, ")");
  return axis < 0 ? axis + r : axis;
}

using detail::Resolved;

// The working shape of a transform (x fitted to the lengths along the axes)
// in the complex dtype of x's precision must fit in int64 elements and in
// size_t bytes: else a ValueError naming the transform, not the allocator
// ("empty: shape [...] overflows the address space" for fft with n = 2^62).
Resolved checked(Resolved r, const Tensor& x, const char* op) {
  Shape work = x.shape();
  for (std::size_t i = 0; i < r.axes.size(); ++i) work[static_cast<std::size_t>(r.axes[i])] = r.lengths[i];
  const DType c = complex_dtype(x.dtype());
  std::size_t bytes = 0;
  TF_CHECK(!__builtin_mul_overflow(static_cast<std::size_t>(shape_numel(work, op)), dtype_size(c), &bytes),
           ValueError, op, "transform lengths ", r.lengths, " along axes ", r.axes, " of input ", x.dtype(),
           x.shape(), " need a ", c, work, " buffer, more bytes than fit in memory");
  return r;
}

// Axes and lengths of an n-D call. `two_d`: the 2-D defaults ({0, 1}).
// `inverse_real`: lengths are output lengths of irfftn (last default 2 (m - 1)).
Resolved resolve(const Tensor& x, const NdOptions& o, bool two_d, bool inverse_real,
                 const char* op) {
  Resolved r;
  const std::int64_t rank = x.ndim();
  if (o.axes) {
    for (std::int64_t a : *o.axes) r.axes.push_back(resolve_axis(x, a, op));
  } else if (two_d) {
    r.axes = {resolve_axis(x, 0, op), resolve_axis(x, 1, op)};
  } else {
    std::int64_t k = o.s ? static_cast<std::int64_t>(o.s->size()) : rank;
    TF_CHECK(k <= rank, ValueError, op, "s = ", *o.s, " has ", k, " entries but input ", x.dtype(),
             x.shape(), " has rank ", rank, "; pass axes");
    for (std::int64_t a = 0; a < k; ++a) r.axes.push_back(a);
  }
  for (std::size_t i = 0; i < r.axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      TF_CHECK(r.axes[i] != r.axes[j], ValueError, op, "axis ", r.axes[i], " is repeated in axes ",
               *o.axes, " (input ", x.dtype(), x.shape(), ")");
  TF_CHECK(!r.axes.empty(), ValueError, op, "needs at least one axis (input ", x.dtype(), x.shape(),
           ")");
  if (o.s) {
    TF_CHECK(o.s->size() == r.axes.size(), ValueError, op, "s = ", *o.s, " needs one entry per axis ",
             r.axes);
    for (std::int64_t n : *o.s)
      TF_CHECK(n >= 1, ValueError, op, "transform lengths must be >= 1, got s = ", *o.s,
               " (input ", x.dtype(), x.shape(), ")");
    r.lengths = *o.s;
  } else {
    for (std::int64_t a : r.axes) r.lengths.push_back(x.size(a));
    if (inverse_real) {
      std::int64_t m = x.size(r.axes.back());
      r.lengths.back() = 2 * (m - 1);
      TF_CHECK(m >= 2, ValueError, op, "input ", x.dtype(), x.shape(), " has ", m,
               " entries along axis ", r.axes.back(), ", so the default output length 2 (m - 1) is ",
               2 * (m - 1), "; pass the output length");
    }
  }
  return checked(std::move(r), x, op);
}

// Crops (a view) or zero-pads axis `axis` of `x` to `n` entries.
Tensor fit(const Tensor& x, std::int64_t axis, std::int64_t n, Backend& b) {
  const std::size_t a = static_cast<std::size_t>(axis);
  const std::int64_t m = x.shape()[a];
  if (m == n) return x;
  const std::size_t r = static_cast<std::size_t>(x.ndim());
  if (n < m) {
    DimVec start(r, 0), limit(x.shape()), step(r, 1);
    limit[a] = n;
    return ops::slice(x, start, limit, step, b);
  }
  PadAttrs p{DimVec(r, 0), DimVec(r, 0), DimVec(r, 0)};
  p.edge_padding_high[a] = n - m;
  return ops::pad(x, Tensor::zeros(Shape{}, x.dtype()), p, b);
}

Tensor promote(const Tensor& x, Backend& b) {
  return is_complex(x.dtype()) ? x : ops::convert(x, complex_dtype(x.dtype()), b);
}

// The three shapes of transform, after resolution.
Tensor complex_transform(const Tensor& x, FftType type, const Resolved& r, Norm norm, Backend& b) {
  Tensor z = x;
  for (std::size_t i = 0; i < r.axes.size(); ++i) z = fit(z, r.axes[i], r.lengths[i], b);
  return transform(promote(z, b), {type, r.axes, r.lengths, norm}, b);
}

Tensor real_forward(const Tensor& x, const Resolved& r, Norm norm, const char* op, Backend& b) {
  for (std::size_t i = 0; i < r.axes.size(); ++i)
    TF_CHECK(r.lengths[i] >= 1, ValueError, op, "input ", x.dtype(), x.shape(),
             " has extent 0 along axis ", r.axes[i], "; a real transform needs length >= 1");
  Tensor z = x;
  for (std::size_t i = 0; i < r.axes.size(); ++i) z = fit(z, r.axes[i], r.lengths[i], b);
  return transform(z, {FftType::RFFT, r.axes, r.lengths, norm}, b);
}

// `conj_input`: conjugate after fitting (hfft).
Tensor real_inverse(const Tensor& x, const Resolved& r, Norm norm, bool conj_input, Backend& b) {
  Tensor z = x;
  const std::size_t last = r.axes.size() - 1;
  for (std::size_t i = 0; i < r.axes.size(); ++i)
    z = fit(z, r.axes[i], i == last ? r.lengths[i] / 2 + 1 : r.lengths[i], b);
  z = promote(z, b);
  if (conj_input) z = ops::conj(z, b);
  return transform(z, {FftType::IRFFT, r.axes, r.lengths, norm}, b);
}

Resolved resolve_1d(const Tensor& x, const Options& o, bool inverse_real, const char* op) {
  Resolved r;
  r.axes = {resolve_axis(x, o.axis, op)};
  if (o.n) {
    TF_CHECK(*o.n >= 1, ValueError, op, "n must be >= 1, got ", *o.n, " (input ", x.dtype(),
             x.shape(), ", axis ", o.axis, ")");
    r.lengths = {*o.n};
  } else if (inverse_real) {
    std::int64_t m = x.size(r.axes[0]);
    TF_CHECK(m >= 2, ValueError, op, "input ", x.dtype(), x.shape(), " has ", m,
             " entries along axis ", r.axes[0], ", so the default output length 2 (m - 1) is ",
             2 * (m - 1), "; pass n");
    r.lengths = {2 * (m - 1)};
  } else {
    r.lengths = {x.size(r.axes[0])};
  }
  return checked(std::move(r), x, op);
}

Tensor c2c_1d(const Tensor& x, Backend& b, const Options& o, FftType type, const char* op) {
  check_input(x, op);
  Resolved r = resolve_1d(x, o, false, op);
  require_provider(op);
  return complex_transform(x, type, r, o.norm, b);
}

Tensor c2c_nd(const Tensor& x, Backend& b, const NdOptions& o, FftType type, bool two_d,
              const char* op) {
  check_input(x, op);
  Resolved r = resolve(x, o, two_d, false, op);
  require_provider(op);
  return complex_transform(x, type, r, o.norm, b);
}

Tensor r2c_nd(const Tensor& x, Backend& b, const NdOptions& o, bool two_d, const char* op) {
  check_real_input(x, op);
  Resolved r = resolve(x, o, two_d, false, op);
  require_provider(op);
  return real_forward(x, r, o.norm, op, b);
}

Tensor c2r_nd(const Tensor& x, Backend& b, const NdOptions& o, bool two_d, const char* op) {
  check_input(x, op);
  Resolved r = resolve(x, o, two_d, true, op);
  require_provider(op);
  return real_inverse(x, r, o.norm, false, b);
}

}  // namespace

Norm swap_norm(Norm norm) {
  switch (norm) {
    case Norm::backward: return Norm::forward;
    case Norm::ortho: return Norm::ortho;
    case Norm::forward: return Norm::backward;
  }
  return norm;
}

const char* norm_name(Norm norm) {
  switch (norm) {
    case Norm::backward: return "backward";
    case Norm::ortho: return "ortho";
    case Norm::forward: return "forward";
  }
  return "?";
}

Tensor fft(const Tensor& x, Backend& b, const Options& o) {
  return c2c_1d(x, b, o, FftType::FFT, "fft.fft");
}

Tensor ifft(const Tensor& x, Backend& b, const Options& o) {
  return c2c_1d(x, b, o, FftType::IFFT, "fft.ifft");
}

Tensor rfft(const Tensor& x, Backend& b, const Options& o) {
  const char* op = "fft.rfft";
  check_real_input(x, op);
  Resolved r = resolve_1d(x, o, false, op);
  require_provider(op);
  return real_forward(x, r, o.norm, op, b);
}

Tensor irfft(const Tensor& x, Backend& b, const Options& o) {
  const char* op = "fft.irfft";
  check_input(x, op);
  Resolved r = resolve_1d(x, o, true, op);
  require_provider(op);
  return real_inverse(x, r, o.norm, false, b);
}

Tensor hfft(const Tensor& x, Backend& b, const Options& o) {
  const char* op = "fft.hfft";
  check_input(x, op);
  Resolved r = resolve_1d(x, o, true, op);
  require_provider(op);
  return real_inverse(x, r, swap_norm(o.norm), true, b);
}

Tensor ihfft(const Tensor& x, Backend& b, const Options& o) {
  const char* op = "fft.ihfft";
  check_real_input(x, op);
  Resolved r = resolve_1d(x, o, false, op);
  require_provider(op);
  return ops::conj(real_forward(x, r, swap_norm(o.norm), op, b), b);
}

Tensor fft2(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2c_nd(x, b, o, FftType::FFT, true, "fft.fft2");
}
Tensor ifft2(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2c_nd(x, b, o, FftType::IFFT, true, "fft.ifft2");
}
Tensor rfft2(const Tensor& x, Backend& b, const NdOptions& o) {
  return r2c_nd(x, b, o, true, "fft.rfft2");
}
Tensor irfft2(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2r_nd(x, b, o, true, "fft.irfft2");
}
Tensor fftn(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2c_nd(x, b, o, FftType::FFT, false, "fft.fftn");
}
Tensor ifftn(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2c_nd(x, b, o, FftType::IFFT, false, "fft.ifftn");
}
Tensor rfftn(const Tensor& x, Backend& b, const NdOptions& o) {
  return r2c_nd(x, b, o, false, "fft.rfftn");
}
Tensor irfftn(const Tensor& x, Backend& b, const NdOptions& o) {
  return c2r_nd(x, b, o, false, "fft.irfftn");
}

// ---- helpers ----------------------------------------------------------------------------

namespace {

Tensor frequencies(std::int64_t n, double d, DType dtype, bool half, const char* op) {
  TF_CHECK(n >= 1, ValueError, op, "n must be >= 1, got ", n);
  TF_CHECK(std::isfinite(d) && d != 0.0, ValueError, op, "sample spacing d must be finite and "
           "nonzero, got ", d);
  TF_CHECK(kRealFloatDTypes.contains(dtype), DTypeError, op, "dtype must be f32 or f64, got ",
           dtype);
  const std::int64_t m = half ? n / 2 + 1 : n;
  const double step = 1.0 / (d * static_cast<double>(n));
  Tensor t = Tensor::empty({m}, dtype);
  visit_dtype<kRealFloatDTypes>(dtype, op, [&]<class T>() {
    auto v = t.host_data<T>();
    for (std::int64_t k = 0; k < m; ++k) {
      std::int64_t f = (half || 2 * k < n) ? k : k - n;
      v[static_cast<std::size_t>(k)] = static_cast<T>(static_cast<double>(f) * step);
    }
  });
  return t;
}

// Rolls each axis so that entry k moves to (k + n - split) mod n, i.e. the
// result is x[split:] followed by x[:split].
Tensor roll_halves(const Tensor& x, Backend& b, const std::optional<DimVec>& axes, bool inverse,
                   const char* op) {
  TF_CHECK(x.defined(), ValueError, op, "input is an undefined tensor");
  DimVec ax;
  if (axes) {
    for (std::int64_t a : *axes) {
      std::int64_t n = resolve_axis(x, a, op);
      for (std::int64_t prev : ax)
        TF_CHECK(prev != n, ValueError, op, "axis ", a, " is repeated in axes ", *axes);
      ax.push_back(n);
    }
  } else {
    for (std::int64_t a = 0; a < x.ndim(); ++a) ax.push_back(a);
  }
  Tensor y = x;
  bool moved = false;
  for (std::int64_t a : ax) {
    const std::int64_t n = y.size(a);
    const std::int64_t split = inverse ? n / 2 : n - n / 2;
    if (split == 0 || split == n) continue;
    const Tensor parts[2] = {y.slice(a, split, n), y.slice(a, 0, split)};
    y = ops::concatenate(parts, a, b);
    moved = true;
  }
  if (!moved) {
    DimVec identity;
    for (std::int64_t a = 0; a < x.ndim(); ++a) identity.push_back(a);
    y = ops::transpose(x, identity, b);  // a copy: the result never aliases x
  }
  return y;
}

}  // namespace

Tensor fftfreq(std::int64_t n, double d, DType dtype) {
  return frequencies(n, d, dtype, false, "fft.fftfreq");
}

Tensor rfftfreq(std::int64_t n, double d, DType dtype) {
  return frequencies(n, d, dtype, true, "fft.rfftfreq");
}

Tensor fftshift(const Tensor& x, Backend& b, const std::optional<DimVec>& axes) {
  return roll_halves(x, b, axes, false, "fft.fftshift");
}

Tensor ifftshift(const Tensor& x, Backend& b, const std::optional<DimVec>& axes) {
  return roll_halves(x, b, axes, true, "fft.ifftshift");
}

}  // namespace tenferro::fft
