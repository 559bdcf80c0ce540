// The FFTW3 provider (GPL; built only with TENFERRO_WITH_FFTW=ON).
//
// Note [FFTW plans]
// Each tenferro plan holds one FFTW guru64 plan: the transform dims are the
// axes (the halved one last, as FFTW's r2c/c2r expect), the "howmany" dims
// are the other axes, all with the caller's element strides, so strided and
// batched inputs are read where they lie. FFTW plans (FFTW_MEASURE, or
// FFTW_ESTIMATE for PlanEffort::estimate) on scratch arrays of the same
// layout (measuring overwrites its arrays), then
// executes on the caller's arrays through the new-array functions
// (fftw_execute_dft and friends, the only thread-safe FFTW calls). Those
// require the arrays' SIMD alignment to match the planning arrays'; a call
// whose pointers differ in alignment uses a second plan made with
// FFTW_UNALIGNED, created on first need. FFTW's planner and plan destruction
// are not thread-safe: both run under one process-wide mutex, which also
// sets the planner's thread count (fftw_plan_with_nthreads) to the
// description's. FFTW's c2r destroys its input, so c2r copies the input into
// a temporary column-major buffer first. FFTW does not scale: the scale is
// a pass over the output.
#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "provider.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/strided_copy.hpp"

namespace tenferro::fft::detail {
namespace {

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// The double and float FFTW APIs under one name.
template <class R>
struct Api;

#define TF_FFTW_API(R, P)                                                                      \
  template <>                                                                                  \
  struct Api<R> {                                                                              \
    using plan = P##plan;                                                                      \
    using complex = P##complex;                                                                \
    static plan dft(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, complex* in, \
                    complex* out, int sign, unsigned flags) {                                  \
      return P##plan_guru64_dft(r, d, hr, hd, in, out, sign, flags);                           \
    }                                                                                          \
    static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, R* in,       \
                    complex* out, unsigned flags) {                                            \
      return P##plan_guru64_dft_r2c(r, d, hr, hd, in, out, flags);                             \
    }                                                                                          \
    static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, complex* in, \
                    R* out, unsigned flags) {                                                  \
      return P##plan_guru64_dft_c2r(r, d, hr, hd, in, out, flags);                             \
    }                                                                                          \
    static void exec_dft(plan p, void* in, void* out) {                                        \
      P##execute_dft(p, static_cast<complex*>(in), static_cast<complex*>(out));                \
    }                                                                                          \
    static void exec_r2c(plan p, void* in, void* out) {                                        \
      P##execute_dft_r2c(p, static_cast<R*>(in), static_cast<complex*>(out));                  \
    }                                                                                          \
    static void exec_c2r(plan p, void* in, void* out) {                                        \
      P##execute_dft_c2r(p, static_cast<complex*>(in), static_cast<R*>(out));                  \
    }                                                                                          \
    static void destroy(plan p) { P##destroy_plan(p); }                                        \
    static void* alloc(std::size_t bytes) { return P##malloc(bytes); }                        \
    static void release(void* p) { P##free(p); }                                               \
    static int alignment_of(const void* p) {                                                   \
      return P##alignment_of(static_cast<R*>(const_cast<void*>(p)));                           \
    }                                                                                          \
    static void set_threads(int n) {                                                           \
      static bool initialised = P##init_threads() != 0;                                        \
      if (initialised) P##plan_with_nthreads(n);                                               \
    }                                                                                          \
  };
TF_FFTW_API(double, fftw_)
TF_FFTW_API(float, fftwf_)
#undef TF_FFTW_API

// FFTW-allocated memory (SIMD-aligned), freed on scope exit.
template <class R>
struct FftwBuffer {
  explicit FftwBuffer(std::size_t bytes) : p(Api<R>::alloc(std::max<std::size_t>(bytes, 16))) {
    if (p == nullptr) TF_THROW(BackendError, "fft", "fftw_malloc of ", bytes, " bytes failed");
  }
  ~FftwBuffer() { Api<R>::release(p); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  void* p;
};

template <class R>
class FftwPlan final : public Plan {
  using A = Api<R>;

 public:
  explicit FftwPlan(const TransformDesc& desc)
      : desc_(desc),
        in_shape_(input_shape(desc)),
        out_shape_(output_shape(desc)),
        in_complex_(desc.kind != TransformKind::r2c),
        out_complex_(desc.kind != TransformKind::c2r) {
    // c2r reads a column-major copy of the input (Note [FFTW plans]).
    plan_strides_ = desc.kind == TransformKind::c2r ? col_major_strides(in_shape_) : desc.in_strides;
    std::int64_t lo = 0, hi = 0;
    for (std::size_t i = 0; i < in_shape_.size(); ++i) {
      std::int64_t reach = (in_shape_[i] - 1) * plan_strides_[i];
      (reach < 0 ? lo : hi) += reach;
    }
    in_lo_ = lo;
    in_span_ = hi - lo + 1;
    std::lock_guard lock(planner_mutex());
    FftwBuffer<R> in(static_cast<std::size_t>(in_span_) * in_elem());
    FftwBuffer<R> out(static_cast<std::size_t>(shape_numel(out_shape_)) * out_elem());
    void* in_base = static_cast<char*>(in.p) - in_lo_ * std::int64_t(in_elem());
    in_alignment_ = A::alignment_of(in_base);
    out_alignment_ = A::alignment_of(out.p);
    aligned_ = make(in_base, out.p, flags());
  }

  ~FftwPlan() override {
    std::lock_guard lock(planner_mutex());
    A::destroy(aligned_);
    if (auto u = unaligned_.load()) A::destroy(u);
  }

  void execute(const void* in, void* out, double scale) const override {
    std::size_t numel_out = static_cast<std::size_t>(shape_numel(out_shape_));
    if (desc_.kind == TransformKind::c2r) {
      FftwBuffer<R> temp(static_cast<std::size_t>(shape_numel(in_shape_)) * in_elem());
      tenferro::detail::copy_strided(temp.p, plan_strides_, in, desc_.in_strides, in_shape_,
                                     in_elem());
      A::exec_c2r(pick(temp.p, out), temp.p, out);
    } else if (desc_.kind == TransformKind::r2c) {
      A::exec_r2c(pick(in, out), const_cast<void*>(in), out);  // FFTW preserves r2c input
    } else {
      A::exec_dft(pick(in, out), const_cast<void*>(in), out);  // and out-of-place c2c input
    }
    if (scale != 1.0) {
      R s = static_cast<R>(scale);
      R* o = static_cast<R*>(out);
      std::size_t n = numel_out * (out_complex_ ? 2 : 1);
      for (std::size_t i = 0; i < n; ++i) o[i] *= s;
    }
  }

 private:
  unsigned flags() const {
    return desc_.effort == PlanEffort::estimate ? FFTW_ESTIMATE : FFTW_MEASURE;
  }
  std::size_t in_elem() const { return sizeof(R) * (in_complex_ ? 2 : 1); }
  std::size_t out_elem() const { return sizeof(R) * (out_complex_ ? 2 : 1); }

  // The plan for arrays at `in` and `out`: the measured one when their
  // alignment matches the planning arrays', else the unaligned one.
  typename A::plan pick(const void* in, void* out) const {
    if (A::alignment_of(in) == in_alignment_ && A::alignment_of(out) == out_alignment_)
      return aligned_;
    if (auto u = unaligned_.load(std::memory_order_acquire)) return u;
    std::lock_guard lock(planner_mutex());
    if (auto u = unaligned_.load()) return u;
    FftwBuffer<R> tin(static_cast<std::size_t>(in_span_) * in_elem());
    FftwBuffer<R> tout(static_cast<std::size_t>(shape_numel(out_shape_)) * out_elem());
    void* base = static_cast<char*>(tin.p) - in_lo_ * std::int64_t(in_elem());
    auto u = make(base, tout.p, flags() | FFTW_UNALIGNED);
    unaligned_.store(u, std::memory_order_release);
    return u;
  }

  // Creates an FFTW plan on scratch arrays (caller holds the planner mutex).
  typename A::plan make(void* in, void* out, unsigned flags) const {
    Strides out_strides = col_major_strides(out_shape_);
    std::vector<fftw_iodim64> dims, batch;
    for (std::int64_t a : desc_.axes) {
      std::size_t i = static_cast<std::size_t>(a);
      dims.push_back({desc_.shape[i], plan_strides_[i], out_strides[i]});
    }
    for (std::size_t i = 0; i < in_shape_.size(); ++i)
      if (std::find(desc_.axes.begin(), desc_.axes.end(), std::int64_t(i)) == desc_.axes.end() &&
          in_shape_[i] > 1)
        batch.push_back({in_shape_[i], plan_strides_[i], out_strides[i]});
    A::set_threads(desc_.threads);
    int rank = static_cast<int>(dims.size()), hrank = static_cast<int>(batch.size());
    typename A::plan p = nullptr;
    switch (desc_.kind) {
      case TransformKind::c2c_forward:
      case TransformKind::c2c_backward:
        p = A::dft(rank, dims.data(), hrank, batch.data(), static_cast<typename A::complex*>(in),
                   static_cast<typename A::complex*>(out),
                   desc_.kind == TransformKind::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
        break;
      case TransformKind::r2c:
        p = A::r2c(rank, dims.data(), hrank, batch.data(), static_cast<R*>(in),
                   static_cast<typename A::complex*>(out), flags);
        break;
      case TransformKind::c2r:
        p = A::c2r(rank, dims.data(), hrank, batch.data(), static_cast<typename A::complex*>(in),
                   static_cast<R*>(out), flags | FFTW_DESTROY_INPUT);
        break;
    }
    TF_CHECK(p != nullptr, BackendError, "fft", "FFTW could not plan a transform of shape ",
             desc_.shape, " with input strides ", desc_.in_strides, " over axes ", desc_.axes);
    return p;
  }

  TransformDesc desc_;
  Shape in_shape_, out_shape_;
  Strides plan_strides_;
  bool in_complex_, out_complex_;
  std::int64_t in_lo_ = 0, in_span_ = 1;
  int in_alignment_ = 0, out_alignment_ = 0;
  typename A::plan aligned_ = nullptr;
  mutable std::atomic<typename A::plan> unaligned_{nullptr};
};

class FftwProvider final : public Provider {
 public:
  std::string_view name() const override { return "fftw3"; }

 protected:
  std::shared_ptr<const Plan> make_plan(const TransformDesc& desc) override {
    if (desc.precision == DType::f32) return std::make_shared<const FftwPlan<float>>(desc);
    return std::make_shared<const FftwPlan<double>>(desc);
  }
};

}  // namespace

std::unique_ptr<Provider> make_fftw_provider() { return std::make_unique<FftwProvider>(); }

}  // namespace tenferro::fft::detail
