// cuFFT implementation of fft.fft: a transform over several axes is a
// sequence of one-axis transforms on a column-major working buffer (c2c in
// place; r2c first / c2r last along the halved axis), each a cached batched
// plan (cufftMakePlanMany64) over the axis's stride and distance.
#include <cufft.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "state.hpp"
#include "tenferro/cuda/functions.hpp"

namespace tenferro::cuda {
namespace detail {

struct FftPlanCache {
  using Key = std::tuple<int, long long, long long, long long, long long, long long, long long, long long, long long>;
  std::mutex mutex;
  std::map<Key, cufftHandle> plans;
  ~FftPlanCache() {
    for (auto& [k, p] : plans) cufftDestroy(p);
  }
};

void destroy_fft_cache(FftPlanCache* cache) { delete cache; }

}  // namespace detail

namespace {

constexpr const char* kOp = "fft.fft";
constexpr std::size_t kMaxPlans = 64;

void check_cufft(cufftResult r, const char* what) {
  TF_CHECK(r == CUFFT_SUCCESS, BackendError, kOp, what, " failed: cuFFT result ", static_cast<int>(r));
}

/// A cached plan: `batch` transforms of length n, input element x of
/// transform b at b * idist + x * istride (output likewise).
cufftHandle plan_for(CudaBackend& be, cufftType type, long long n, long long in_extent, long long istride,
                     long long idist, long long out_extent, long long ostride, long long odist, long long batch) {
  auto& st = be.state();
  if (!st.fft) st.fft.reset(new detail::FftPlanCache());
  detail::FftPlanCache& cache = *st.fft;
  detail::FftPlanCache::Key key{static_cast<int>(type), n, in_extent, istride, idist, out_extent, ostride, odist, batch};
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.plans.find(key);
  if (it != cache.plans.end()) return it->second;
  if (cache.plans.size() >= kMaxPlans) {
    for (auto& [k, p] : cache.plans) cufftDestroy(p);
    cache.plans.clear();
  }
  cufftHandle plan = 0;
  check_cufft(cufftCreate(&plan), "cufftCreate");
  long long nn = n, ie = in_extent, oe = out_extent;
  std::size_t work = 0;
  cufftResult r = cufftMakePlanMany64(plan, 1, &nn, &ie, istride, idist, &oe, ostride, odist, type, batch, &work);
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(plan);
    check_cufft(r, "cufftMakePlanMany64");
  }
  check_cufft(cufftSetStream(plan, static_cast<cudaStream_t>(be.stream())), "cufftSetStream");
  cache.plans.emplace(key, plan);
  return plan;
}

enum class Step { c2c_forward, c2c_backward, r2c, c2r };

/// One transform along `axis` from column-major `in` to column-major `out`
/// (the same tensor for c2c); their shapes differ only along `axis`.
void transform_axis(CudaBackend& be, Step step, const Tensor& in, const Tensor& out, std::int64_t axis,
                    std::int64_t n) {
  const std::size_t a = static_cast<std::size_t>(axis);
  std::int64_t inner = 1, outer = 1;
  for (std::size_t i = 0; i < a; ++i) inner *= in.shape()[i];
  for (std::size_t i = a + 1; i < in.shape().size(); ++i) outer *= in.shape()[i];
  const std::int64_t ein = in.shape()[a], eout = out.shape()[a];
  if (inner * outer * n == 0) return;
  const bool dbl = real_dtype(in.dtype()) == DType::f64;
  cufftType type;
  switch (step) {
    case Step::c2c_forward:
    case Step::c2c_backward: type = dbl ? CUFFT_Z2Z : CUFFT_C2C; break;
    case Step::r2c: type = dbl ? CUFFT_D2Z : CUFFT_R2C; break;
    case Step::c2r: type = dbl ? CUFFT_Z2D : CUFFT_C2R; break;
  }
  // Batch over the inner index (stride `inner`, distance 1) or the outer one
  // (stride 1 when inner == 1), looping over the other.
  const bool over_inner = inner > 1 && inner >= outer;
  const std::int64_t batch = over_inner ? inner : outer, loops = over_inner ? outer : inner;
  const std::int64_t stride = inner;
  const std::int64_t idist = over_inner ? 1 : inner * ein, odist = over_inner ? 1 : inner * eout;
  cufftHandle plan = plan_for(be, type, n, ein, stride, idist, eout, stride, odist, batch);
  const std::int64_t ies = static_cast<std::int64_t>(dtype_size(in.dtype()));
  const std::int64_t oes = static_cast<std::int64_t>(dtype_size(out.dtype()));
  for (std::int64_t l = 0; l < loops; ++l) {
    const std::int64_t ioff = over_inner ? l * inner * ein : l, ooff = over_inner ? l * inner * eout : l;
    char* ip = static_cast<char*>(in.data_ptr()) + ioff * ies;
    char* op = static_cast<char*>(out.data_ptr()) + ooff * oes;
    cufftResult r = CUFFT_SUCCESS;
    switch (step) {
      case Step::c2c_forward:
      case Step::c2c_backward: {
        const int dir = step == Step::c2c_forward ? CUFFT_FORWARD : CUFFT_INVERSE;
        r = dbl ? cufftExecZ2Z(plan, reinterpret_cast<cufftDoubleComplex*>(ip), reinterpret_cast<cufftDoubleComplex*>(op), dir)
                : cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(ip), reinterpret_cast<cufftComplex*>(op), dir);
        break;
      }
      case Step::r2c:
        r = dbl ? cufftExecD2Z(plan, reinterpret_cast<cufftDoubleReal*>(ip), reinterpret_cast<cufftDoubleComplex*>(op))
                : cufftExecR2C(plan, reinterpret_cast<cufftReal*>(ip), reinterpret_cast<cufftComplex*>(op));
        break;
      case Step::c2r:
        r = dbl ? cufftExecZ2D(plan, reinterpret_cast<cufftDoubleComplex*>(ip), reinterpret_cast<cufftDoubleReal*>(op))
                : cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(ip), reinterpret_cast<cufftReal*>(op));
        break;
    }
    check_cufft(r, "cufftExec");
  }
}

}  // namespace

Tensor fft(const Tensor& x, FftKind kind, const DimVec& axes, const DimVec& lengths, double scale,
           CudaBackend& be) {
  TF_CHECK(x.defined(), ValueError, kOp, "operand is undefined");
  TF_CHECK(x.device() == be.device(), DeviceError, kOp, "operand is on ", x.device(), " but backend '", be.name(),
           "' runs on ", be.device());
  const bool real_in = kind == FftKind::RFFT;
  TF_CHECK(real_in ? (x.dtype() == DType::f32 || x.dtype() == DType::f64) : is_complex(x.dtype()), DTypeError, kOp,
           "operand dtype ", x.dtype(), " does not fit the transform (RFFT takes f32/f64, the others c64/c128)");
  TF_CHECK(!axes.empty() && axes.size() == lengths.size(), ValueError, kOp, "axes ", axes, " and fft_length ",
           lengths, " must be non-empty and of one length");
  for (std::size_t i = 0; i < axes.size(); ++i) {
    TF_CHECK(axes[i] >= 0 && axes[i] < x.ndim(), IndexError, kOp, "axis ", axes[i], " is out of range for shape ",
             x.shape());
    for (std::size_t j = 0; j < i; ++j) TF_CHECK(axes[i] != axes[j], ValueError, kOp, "axes ", axes, " repeat an axis");
    const std::int64_t have = x.shape()[static_cast<std::size_t>(axes[i])];
    const bool halved = kind == FftKind::IRFFT && i + 1 == axes.size();
    TF_CHECK(lengths[i] >= 1 && (halved ? have == lengths[i] / 2 + 1 : have == lengths[i]), ShapeError, kOp,
             "fft_length ", lengths, " does not fit operand shape ", x.shape(), " along axes ", axes);
  }
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t h = axes.back(), nh = lengths.back();
  const DType cdt = complex_dtype(x.dtype()), rdt = real_dtype(x.dtype());
  Tensor result;
  switch (kind) {
    case FftKind::FFT:
    case FftKind::IFFT: {
      result = be.empty(cdt, x.shape());
      detail::copy(be, result, x);
      const Step s = kind == FftKind::FFT ? Step::c2c_forward : Step::c2c_backward;
      for (std::size_t i = 0; i < axes.size(); ++i) transform_axis(be, s, result, result, axes[i], lengths[i]);
      break;
    }
    case FftKind::RFFT: {
      Tensor in = detail::contiguous(be, x);
      Shape s = x.shape();
      s[static_cast<std::size_t>(h)] = nh / 2 + 1;
      result = be.empty(cdt, s);
      transform_axis(be, Step::r2c, in, result, h, nh);
      for (std::size_t i = 0; i + 1 < axes.size(); ++i)
        transform_axis(be, Step::c2c_forward, result, result, axes[i], lengths[i]);
      break;
    }
    case FftKind::IRFFT: {
      Tensor w = be.empty(cdt, x.shape());  // c2r overwrites its input: a scratch copy
      detail::copy(be, w, x);
      for (std::size_t i = 0; i + 1 < axes.size(); ++i)
        transform_axis(be, Step::c2c_backward, w, w, axes[i], lengths[i]);
      Shape s = x.shape();
      s[static_cast<std::size_t>(h)] = nh;
      result = be.empty(rdt, s);
      transform_axis(be, Step::c2r, w, result, h, nh);
      break;
    }
  }
  if (scale != 1.0) {
    detail::launch_scale(result.dtype(), result.data_ptr(), result.numel(), scale, be.stream());
    detail::check_cuda(cudaGetLastError(), kOp, "kernel launch");
  }
  return result;
}

}  // namespace tenferro::cuda
