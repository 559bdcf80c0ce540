// The cuSOLVER and cuFFT kernels of the linalg and fft family ops against
// the CPU kernels of those families (LAPACK, pocketfft), on batched operands
// in random strided layouts for every float dtype, through call_family with
// the CUDA kernels the families register in the backend's registry; plus
// their error paths.
#include "cuda_test_util.hpp"
#include "tenferro/fft.hpp"
#include "tenferro/linalg.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

class CudaFamily : public CudaTest {};

/// The family op, whose CUDA kernel its family registered in gpu()'s registry.
const FamilyOp& with_cuda(const OpFamily& family, const char* name) {
  const FamilyOp& op = family.op(name);
  EXPECT_FALSE(gpu().kernels().provider_names(op, DeviceKind::cuda).empty()) << name;
  return op;
}

std::vector<Tensor> on_gpu(const FamilyOp& op, const FamilyAttrs& attrs, const std::vector<Tensor>& host) {
  std::vector<Tensor> dev;
  for (const Tensor& t : host) dev.push_back(upload_same_layout(t));
  std::vector<Tensor> out = call_family(op, attrs, dev, gpu());
  std::vector<Tensor> back;
  for (const Tensor& t : out) {
    EXPECT_TRUE(t.numel() == 0 || t.device() == Device::cuda(0)) << op.name;
    back.push_back(fetch(t));
  }
  return back;
}

std::vector<Tensor> on_cpu(const FamilyOp& op, const FamilyAttrs& attrs, const std::vector<Tensor>& host) {
  CpuBackend cpu;
  return call_family(op, attrs, host, cpu);
}

double max_abs(const Tensor& t) {
  double m = 0;
  for (const DimVec& i : all_indices(t.shape())) m = std::max(m, std::abs(value_at(t, i)));
  return m;
}

/// |got - want| <= c eps n max|want| elementwise (errors of a backward-stable solver).
::testing::AssertionResult close_scaled(const Tensor& got, const Tensor& want, double n, double c = 64) {
  return tensors_close(got, want, 0, c * dtype_eps(want.dtype()) * n * std::max(max_abs(want), 1.0));
}

Tensor adjoint(const Tensor& t) {
  CpuBackend cpu;
  DimVec perm{1, 0};
  for (std::int64_t d = 2; d < t.ndim(); ++d) perm.push_back(d);
  return ops::conj(t.permute(perm), cpu).contiguous();
}

Tensor mm(const Tensor& a, const Tensor& b) {
  CpuBackend cpu;
  return matmul(a, b, cpu);
}

Tensor eye_batch(std::int64_t n, const Shape& batch, DType d) {
  CpuBackend cpu;
  Shape s{n, n};
  DimVec dims{0, 1};
  for (auto b : batch) s.push_back(b);
  return ops::broadcast_in_dim(Tensor::eye(n, n, d), s, dims, cpu).contiguous();
}

const std::vector<Shape>& matrix_shapes() {
  static const std::vector<Shape> s{{5, 5}, {7, 4}, {4, 7}, {6, 6, 3}, {12, 9, 2, 2}, {40, 40, 2}, {3, 3, 0}};
  return s;
}

Tensor random_matrix(const Shape& s, DType d, std::uint64_t seed) {
  return with_random_layout(random_tensor(s, d, seed), seed + 1);
}

// Hermitian positive definite: a a^H + n I.
Tensor hpd(const Shape& s, DType d, std::uint64_t seed) {
  CpuBackend cpu;
  Tensor a = random_tensor(s, d, seed);
  Shape batch(s.begin() + 2, s.end());
  Tensor r = add(mm(a, adjoint(a)), mul(eye_batch(s[0], batch, d), Scalar(double(s[0])), cpu), cpu);
  return with_random_layout(r, seed + 3);
}

TEST_F(CudaFamily, SvdMatchesCpuValuesAndReconstructs) {
  const OpFamily& la = linalg::family();
  for (DType d : float_dtypes())
    for (const Shape& s : matrix_shapes())
      for (bool full : {false, true}) {
        Tensor a = random_matrix(s, d, 21);
        const FamilyAttrs attrs = FamilyAttrs::of(linalg::SvdAttrs{.full_matrices = full});
        std::vector<Tensor> g = on_gpu(with_cuda(la, "linalg.svd"), attrs, {a});
        std::vector<Tensor> c = on_cpu(la.op("linalg.svd"), attrs, {a});
        ASSERT_EQ(g.size(), 3u);
        for (int i = 0; i < 3; ++i) EXPECT_EQ(g[i].shape(), c[i].shape()) << d << s << " output " << i;
        const double n = double(std::max(s[0], s[1]));
        EXPECT_TRUE(close_scaled(g[1], c[1], n)) << "singular values " << d << s;
        if (a.numel() == 0) continue;
        const std::int64_t k = std::min(s[0], s[1]);
        CpuBackend cpu;
        Tensor u = full ? g[0].slice(1, 0, k).contiguous() : g[0];
        Tensor vh = full ? g[2].slice(0, 0, k).contiguous() : g[2];
        Tensor us = mul(u, g[1].expand_dims(0), cpu);
        EXPECT_TRUE(close_scaled(mm(us, vh), a.contiguous(), n)) << "u s vh = a " << d << s;
        Shape batch(s.begin() + 2, s.end());
        EXPECT_TRUE(close_scaled(mm(adjoint(g[0]), g[0]), eye_batch(g[0].shape()[1], batch, d), n)) << d << s;
        EXPECT_TRUE(close_scaled(mm(g[2], adjoint(g[2])), eye_batch(g[2].shape()[0], batch, d), n)) << d << s;
      }
  // Values only.
  Tensor a = random_matrix({9, 6, 4}, DType::c64, 5);
  EXPECT_TRUE(close_scaled(on_gpu(with_cuda(la, "linalg.svdvals"), {}, {a})[0],
                           on_cpu(la.op("linalg.svdvals"), {}, {a})[0], 9));
}

TEST_F(CudaFamily, QrReconstructsWithOrthonormalQ) {
  const OpFamily& la = linalg::family();
  for (DType d : float_dtypes())
    for (const Shape& s : matrix_shapes())
      for (linalg::QrMode mode : {linalg::QrMode::reduced, linalg::QrMode::complete, linalg::QrMode::r}) {
        Tensor a = random_matrix(s, d, 31);
        const FamilyAttrs attrs = FamilyAttrs::of(mode);
        std::vector<Tensor> g = on_gpu(with_cuda(la, "linalg.qr"), attrs, {a});
        std::vector<Tensor> c = on_cpu(la.op("linalg.qr"), attrs, {a});
        for (int i = 0; i < 2; ++i) EXPECT_EQ(g[i].shape(), c[i].shape()) << d << s << mode;
        const double n = double(std::max(s[0], s[1]));
        // R is upper triangular; |R| agrees with LAPACK's up to the signs of its rows.
        CpuBackend cpu;
        EXPECT_TRUE(close_scaled(ops::abs(g[1], cpu), ops::abs(c[1], cpu), n)) << d << s << mode;
        for (const DimVec& i : all_indices(g[1].shape()))
          if (i[0] > i[1]) {
            EXPECT_EQ(value_at(g[1], i), std::complex<double>(0)) << d << s << mode;
          }
        if (mode == linalg::QrMode::r || a.numel() == 0) continue;
        Shape batch(s.begin() + 2, s.end());
        EXPECT_TRUE(close_scaled(mm(g[0], g[1]), a.contiguous(), n)) << "q r = a " << d << s << mode;
        EXPECT_TRUE(close_scaled(mm(adjoint(g[0]), g[0]), eye_batch(g[0].shape()[1], batch, d), n)) << d << s;
      }
}

TEST_F(CudaFamily, LuAndLuFactorMatchCpu) {
  const OpFamily& la = linalg::family();
  for (DType d : float_dtypes())
    for (const Shape& s : matrix_shapes()) {
      Tensor a = random_matrix(s, d, 41);
      const double n = double(std::max(s[0], s[1]));
      for (bool p : {true, false}) {
        const FamilyAttrs attrs = FamilyAttrs::of(linalg::LuOptions{.permutation_matrix = p});
        std::vector<Tensor> g = on_gpu(with_cuda(la, "linalg.lu"), attrs, {a});
        std::vector<Tensor> c = on_cpu(la.op("linalg.lu"), attrs, {a});
        ASSERT_EQ(g.size(), 4u);
        EXPECT_TRUE(tensors_equal(g[0], c[0])) << "perm " << d << s;  // partial pivoting is deterministic
        for (int i = 1; i < 4; ++i) EXPECT_TRUE(close_scaled(g[i], c[i], n)) << "output " << i << " " << d << s;
      }
      std::vector<Tensor> g = on_gpu(with_cuda(la, "linalg.lu_factor"), {}, {a});
      std::vector<Tensor> c = on_cpu(la.op("linalg.lu_factor"), {}, {a});
      EXPECT_TRUE(close_scaled(g[0], c[0], n)) << d << s;
      EXPECT_TRUE(tensors_equal(g[1], c[1])) << d << s;
    }
}

TEST_F(CudaFamily, CholeskyEighSolveMatchCpu) {
  const OpFamily& la = linalg::family();
  for (DType d : float_dtypes())
    for (const Shape& s : {Shape{5, 5}, Shape{6, 6, 3}, Shape{33, 33, 2}, Shape{40, 40}, Shape{4, 4, 0}}) {
      Tensor a = hpd(s, d, 51);
      const double n = double(s[0]);
      for (bool lower : {true, false}) {
        const FamilyAttrs attrs = FamilyAttrs::of(linalg::TriangleOptions{.lower = lower});
        EXPECT_TRUE(close_scaled(on_gpu(with_cuda(la, "linalg.cholesky"), attrs, {a})[0],
                                 on_cpu(la.op("linalg.cholesky"), attrs, {a})[0], n))
            << "cholesky " << d << s << lower;
        std::vector<Tensor> g = on_gpu(with_cuda(la, "linalg.eigh"), attrs, {a});
        std::vector<Tensor> c = on_cpu(la.op("linalg.eigh"), attrs, {a});
        EXPECT_TRUE(close_scaled(g[0], c[0], n)) << "eigenvalues " << d << s;
        if (a.numel() == 0) continue;
        CpuBackend cpu;
        Tensor av = mm(a.contiguous(), g[1]);
        Tensor vw = mul(g[1], g[0].expand_dims(0), cpu);
        EXPECT_TRUE(close_scaled(av, vw, n, 256)) << "a v = v w " << d << s;
      }
      Shape bs = s;
      bs[1] = 3;
      Tensor b = random_matrix(bs, d, 52);
      EXPECT_TRUE(close_scaled(on_gpu(with_cuda(la, "linalg.solve"), {}, {a, b})[0],
                               on_cpu(la.op("linalg.solve"), {}, {a, b})[0], n, 256))
          << "solve " << d << s;
    }
  // A vector right-hand side.
  Tensor a = hpd({6, 6}, DType::f64, 3), b = random_tensor({6}, DType::f64, 4);
  EXPECT_TRUE(close_scaled(on_gpu(with_cuda(la, "linalg.solve"), {}, {a, b})[0],
                           on_cpu(la.op("linalg.solve"), {}, {a, b})[0], 6, 256));
}

TEST_F(CudaFamily, FailuresAreLinalgErrorsAndNonFiniteInputsValueErrors) {
  const OpFamily& la = linalg::family();
  // Matrix [1] of the batch is singular / not positive definite.
  Tensor a = hpd({3, 3, 3}, DType::f64, 1);
  for (std::int64_t j = 0; j < 3; ++j) a.set<double>({0, j, 1}, 0.0), a.set<double>({j, 0, 1}, 0.0);
  Tensor b = random_tensor({3, 2, 3}, DType::f64, 2);
  for (const char* name : {"linalg.solve", "linalg.cholesky"}) {
    const FamilyOp& op = with_cuda(la, name);
    std::vector<Tensor> in{upload_same_layout(a)};
    if (std::string(name) == "linalg.solve") in.push_back(upload_same_layout(b));
    try {
      call_family(op, {}, in, gpu());
      ADD_FAILURE() << name << " did not throw";
    } catch (const LinalgError& e) {
      EXPECT_EQ(e.batch_index(), 1) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  Tensor nan = random_tensor({4, 4, 2}, DType::c128, 3);
  nan.set<std::complex<double>>({2, 1, 1}, {std::nan(""), 0});
  for (const char* name : {"linalg.svd", "linalg.qr", "linalg.lu", "linalg.eigh", "linalg.cholesky"})
    EXPECT_TRUE(throws_with<ValueError>([&] { call_family(with_cuda(la, name), {}, {{upload_same_layout(nan)}}, gpu()); },
                                        {name, "non-finite", "[1]"}));
  // Operands must be on the backend's device.
  EXPECT_TRUE(throws_with<DeviceError>([&] { call_family(with_cuda(la, "linalg.svd"), {}, {{a}}, gpu()); },
                                       {"linalg.svd", "cpu", "cuda:0"}));
}

TEST_F(CudaFamily, FftMatchesCpuForEveryKindDtypeAndNorm) {
  const OpFamily& ff = fft::family();
  // The fft family registers its cuFFT kernel itself.
  const FamilyOp& op = ff.op("fft.fft");
  EXPECT_EQ(gpu().kernels().provider_names(op, DeviceKind::cuda), std::vector<std::string>{"cufft"});
  struct Case {
    Shape shape;
    DimVec axes;
  };
  std::vector<Case> cases{{{16}, {0}}, {{12, 5}, {0}}, {{12, 5}, {1}}, {{6, 10, 3}, {0, 2}}, {{6, 10, 3}, {2, 1}},
                          {{4, 6, 5, 3}, {1, 2, 3}}, {{7, 9}, {1, 0}}, {{1024, 4}, {0}}};
  for (const Case& c : cases)
    for (DType real : {DType::f32, DType::f64})
      for (fft::FftType type : {fft::FftType::FFT, fft::FftType::IFFT, fft::FftType::RFFT, fft::FftType::IRFFT})
        for (fft::Norm norm : {fft::Norm::backward, fft::Norm::ortho, fft::Norm::forward}) {
          fft::TransformAttrs t{.type = type, .axes = c.axes, .lengths = {}, .norm = norm};
          Shape in_shape = c.shape;
          for (auto ax : c.axes) t.lengths.push_back(c.shape[static_cast<std::size_t>(ax)]);
          if (type == fft::FftType::IRFFT)
            in_shape[static_cast<std::size_t>(c.axes.back())] = t.lengths.back() / 2 + 1;
          const DType d = type == fft::FftType::RFFT ? real : complex_dtype(real);
          Tensor x = with_random_layout(random_tensor(in_shape, d, 61), 62);
          FamilyAttrs attrs = FamilyAttrs::of(t);
          Tensor g = on_gpu(op, attrs, {x})[0];
          Tensor want = on_cpu(ff.op("fft.fft"), attrs, {x})[0];
          double n = 1;
          for (auto len : t.lengths) n *= double(len);
          EXPECT_TRUE(close_scaled(g, want, std::log2(n) + 1, 16))
              << fft::fft_type_name(type) << " " << d << c.shape << " axes " << c.axes << " " << fft::norm_name(norm);
        }
}

}  // namespace
