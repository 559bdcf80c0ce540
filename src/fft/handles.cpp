// The transforms on graph values (traced and eager handles): the same
// argument resolution as transforms.cpp, lowered with value ops around one
// `fft.fft` node, so that AD sees slice/pad/convert/conj and the family op.
#include "tenferro/fft/handles.hpp"

#include "resolved.hpp"
#include "tenferro/fft/family.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro::fft {
namespace {

struct Info {
  const char* name;
  bool nd;        // takes NdOptions
  bool two_d;     // the 2-D default axes
  FftType type;   // the family op's kind
  bool real_in;   // rfft, ihfft, rfft2, rfftn: real input only
  bool inverse_real;  // irfft, hfft, irfft2, irfftn: lengths are output lengths
  bool hermitian; // hfft, ihfft: conj and swapped norm
};

Info info(Transform t) {
  switch (t) {
    case Transform::fft: return {"fft.fft", false, false, FftType::FFT, false, false, false};
    case Transform::ifft: return {"fft.ifft", false, false, FftType::IFFT, false, false, false};
    case Transform::rfft: return {"fft.rfft", false, false, FftType::RFFT, true, false, false};
    case Transform::irfft: return {"fft.irfft", false, false, FftType::IRFFT, false, true, false};
    case Transform::hfft: return {"fft.hfft", false, false, FftType::IRFFT, false, true, true};
    case Transform::ihfft: return {"fft.ihfft", false, false, FftType::RFFT, true, false, true};
    case Transform::fft2: return {"fft.fft2", true, true, FftType::FFT, false, false, false};
    case Transform::ifft2: return {"fft.ifft2", true, true, FftType::IFFT, false, false, false};
    case Transform::rfft2: return {"fft.rfft2", true, true, FftType::RFFT, true, false, false};
    case Transform::irfft2: return {"fft.irfft2", true, true, FftType::IRFFT, false, true, false};
    case Transform::fftn: return {"fft.fftn", true, false, FftType::FFT, false, false, false};
    case Transform::ifftn: return {"fft.ifftn", true, false, FftType::IFFT, false, false, false};
    case Transform::rfftn: return {"fft.rfftn", true, false, FftType::RFFT, true, false, false};
    case Transform::irfftn: return {"fft.irfftn", true, false, FftType::IRFFT, false, true, false};
  }
  return {"fft.?", false, false, FftType::FFT, false, false, false};
}

void check_input(const Value& x, const Info& in) {
  TF_CHECK(x.defined(), ValueError, in.name, "input is an undefined tensor");
  TF_CHECK(is_float(x.dtype()), DTypeError, in.name,
           "takes floating-point input (f32, f64, c64, c128), got ", x.dtype(), x.shape(),
           "; convert it first");
  if (in.real_in)
    TF_CHECK(!is_complex(x.dtype()), DTypeError, in.name, "takes real input (f32, f64), got ",
             x.dtype(), x.shape(), "; use the complex transform (fft, fftn) for complex data");
}

std::int64_t resolve_axis(const Value& x, std::int64_t axis, const char* op) {
  const std::int64_t r = x.ndim();
  TF_CHECK(axis >= -r && axis < r, IndexError, op, "axis ", axis, " is out of range for input ",
           x.dtype(), x.shape(), " (rank ", r, ")");
  return axis < 0 ? axis + r : axis;
}

// The constant extent of a transformed axis.
std::int64_t extent(const Value& x, std::int64_t axis, const char* op) {
  const Dim& d = x.shape()[static_cast<std::size_t>(axis)];
  std::optional<std::int64_t> v = d.try_value();
  TF_CHECK(v.has_value(), ValueError, op, "transformed axis ", axis, " of input ", x.dtype(),
           x.shape(), " has the symbolic extent ", d,
           "; transformed axes need constant extents (only other axes may be symbolic)");
  return *v;
}

using detail::Resolved;

// Default output length 2 (m - 1) of the inverse real transforms.
std::int64_t default_inverse_length(const Value& x, std::int64_t axis, const char* op,
                                    const char* what) {
  const std::int64_t m = extent(x, axis, op);
  TF_CHECK(m >= 2, ValueError, op, "input ", x.dtype(), x.shape(), " has ", m,
           " entries along axis ", axis, ", so the default output length 2 (m - 1) is ",
           2 * (m - 1), "; pass ", what);
  return 2 * (m - 1);
}

Resolved resolve_1d(const Value& x, const Options& o, const Info& in) {
  Resolved r;
  r.axes = {resolve_axis(x, o.axis, in.name)};
  if (o.n) {
    TF_CHECK(*o.n >= 1, ValueError, in.name, "n must be >= 1, got ", *o.n, " (input ", x.dtype(),
             x.shape(), ", axis ", o.axis, ")");
    extent(x, r.axes[0], in.name);  // cropping/padding needs the extent
    r.lengths = {*o.n};
  } else if (in.inverse_real) {
    r.lengths = {default_inverse_length(x, r.axes[0], in.name, "n")};
  } else {
    r.lengths = {extent(x, r.axes[0], in.name)};
  }
  return r;
}

Resolved resolve_nd(const Value& x, const NdOptions& o, const Info& in) {
  Resolved r;
  const std::int64_t rank = x.ndim();
  if (o.axes) {
    for (std::int64_t a : *o.axes) r.axes.push_back(resolve_axis(x, a, in.name));
  } else if (in.two_d) {
    r.axes = {resolve_axis(x, 0, in.name), resolve_axis(x, 1, in.name)};
  } else {
    const std::int64_t k = o.s ? static_cast<std::int64_t>(o.s->size()) : rank;
    TF_CHECK(k <= rank, ValueError, in.name, "s = ", *o.s, " has ", k, " entries but input ",
             x.dtype(), x.shape(), " has rank ", rank, "; pass axes");
    for (std::int64_t a = 0; a < k; ++a) r.axes.push_back(a);
  }
  for (std::size_t i = 0; i < r.axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      TF_CHECK(r.axes[i] != r.axes[j], ValueError, in.name, "axis ", r.axes[i],
               " is repeated in axes ", *o.axes, " (input ", x.dtype(), x.shape(), ")");
  TF_CHECK(!r.axes.empty(), ValueError, in.name, "needs at least one axis (input ", x.dtype(),
           x.shape(), ")");
  for (std::int64_t a : r.axes) r.lengths.push_back(extent(x, a, in.name));
  if (o.s) {
    TF_CHECK(o.s->size() == r.axes.size(), ValueError, in.name, "s = ", *o.s,
             " needs one entry per axis ", r.axes);
    for (std::int64_t n : *o.s)
      TF_CHECK(n >= 1, ValueError, in.name, "transform lengths must be >= 1, got s = ", *o.s,
               " (input ", x.dtype(), x.shape(), ")");
    r.lengths = *o.s;
  } else if (in.inverse_real) {
    r.lengths.back() = default_inverse_length(x, r.axes.back(), in.name, "s");
  }
  return r;
}

// Crops or zero-pads axis `axis` of `x` to `n` entries.
Value fit(const Value& x, std::int64_t axis, std::int64_t n) {
  const std::size_t a = static_cast<std::size_t>(axis);
  const std::int64_t m = x.shape()[a].value();
  if (m == n) return x;
  if (n < m) return vops::slice_axis(x, axis, Dim(0), Dim(n));
  const std::size_t r = x.shape().size();
  SymShape low(r, Dim(0)), high(r, Dim(0));
  high[a] = Dim(n - m);
  return vops::pad(x, vops::scalar(Scalar(0.0), x.dtype()), low, high, DimVec(r, 0));
}

Value promote(const Value& x) {
  return is_complex(x.dtype()) ? x : vops::convert(x, complex_dtype(x.dtype()));
}

Value apply(const Value& x, const TransformAttrs& a) {
  return graph::apply_family(family().ops.front(), FamilyAttrs::of(a), {x}).front();
}

Value lower_resolved(const Value& x, const Info& in, const Resolved& r, Norm norm) {
  const Norm op_norm = in.hermitian ? swap_norm(norm) : norm;
  const TransformAttrs attrs{in.type, r.axes, r.lengths, op_norm};
  Value z = x;
  const std::size_t last = r.axes.size() - 1;
  switch (in.type) {
    case FftType::FFT:
    case FftType::IFFT:
      for (std::size_t i = 0; i < r.axes.size(); ++i) z = fit(z, r.axes[i], r.lengths[i]);
      return apply(promote(z), attrs);
    case FftType::RFFT: {
      for (std::size_t i = 0; i < r.axes.size(); ++i)
        TF_CHECK(r.lengths[i] >= 1, ValueError, in.name, "input ", x.dtype(), x.shape(),
                 " has extent 0 along axis ", r.axes[i], "; a real transform needs length >= 1");
      for (std::size_t i = 0; i < r.axes.size(); ++i) z = fit(z, r.axes[i], r.lengths[i]);
      Value y = apply(z, attrs);
      return in.hermitian ? vops::conj(y) : y;
    }
    case FftType::IRFFT:
      for (std::size_t i = 0; i < r.axes.size(); ++i)
        z = fit(z, r.axes[i], i == last ? r.lengths[i] / 2 + 1 : r.lengths[i]);
      z = promote(z);
      if (in.hermitian) z = vops::conj(z);
      return apply(z, attrs);
  }
  return {};
}

}  // namespace

const char* transform_name(Transform t) { return info(t).name; }

Value lower(const Value& x, Transform t, const Options& options) {
  const Info in = info(t);
  TF_CHECK(!in.nd, ValueError, in.name, "takes NdOptions (s, axes, norm), not the 1-D Options");
  check_input(x, in);
  return lower_resolved(x, in, resolve_1d(x, options, in), options.norm);
}

Value lower(const Value& x, Transform t, const NdOptions& options) {
  const Info in = info(t);
  TF_CHECK(in.nd, ValueError, in.name, "takes the 1-D Options (n, axis, norm), not NdOptions");
  check_input(x, in);
  return lower_resolved(x, in, resolve_nd(x, options, in), options.norm);
}

}  // namespace tenferro::fft
