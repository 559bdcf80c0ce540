// Tropical einsum against a brute-force reference (every assignment of
// every label), eager and traced and on eager handles; n-ary networks
// along the optimiser's path; gradients of a network by finite differences.
#include <gtest/gtest.h>

#include <tenferro/ad.hpp>
#include <tenferro/runtime.hpp>

#include "common.hpp"

namespace {

using namespace tenferro;
using namespace tropical_test;
using tropical::Semiring;

// out[output labels] = max (min) over all other labels of the sum of the operands' entries.
template <class T>
Tensor brute_force(Semiring s, const EinsumSpec& spec, const std::vector<Tensor>& ops) {
  std::vector<Shape> shapes;
  for (const Tensor& t : ops) shapes.push_back(t.shape());
  const std::vector<std::int64_t> size = einsum_label_sizes(spec, shapes);
  Shape out_shape;
  for (auto l : spec.output) out_shape.push_back(size[static_cast<std::size_t>(l)]);
  const bool max = s == Semiring::max_plus;
  std::int64_t out_n = 1;
  for (auto e : out_shape) out_n *= e;
  const T zero = max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  std::vector<T> out(static_cast<std::size_t>(out_n), zero);
  std::vector<std::int64_t> idx(size.size(), 0);
  bool empty = false;
  for (auto e : size) empty = empty || e == 0;
  if (!empty) do {
      T total = 0;
      for (std::size_t k = 0; k < ops.size(); ++k) {
        DimVec at;
        for (auto l : spec.inputs[k]) at.push_back(idx[static_cast<std::size_t>(l)]);
        total += ops[k].at<T>(at);
      }
      std::int64_t pos = 0, stride = 1;
      for (std::size_t q = 0; q < spec.output.size(); ++q) {
        pos += idx[static_cast<std::size_t>(spec.output[q])] * stride;
        stride *= out_shape[q];
      }
      T& o = out[static_cast<std::size_t>(pos)];
      o = max ? std::max(o, total) : std::min(o, total);
    } while (next_index(idx, size));
  return Tensor::from_vec_col_major<T>(out_shape, out);
}

struct Net {
  const char* subscripts;
  std::vector<Shape> shapes;
};

std::vector<Net> networks() {
  return {
      {"ij,jk->ik", {{5, 7}, {7, 3}}},
      {"ij,kj->ki", {{4, 6}, {5, 6}}},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"ijb,jkb->bki", {{3, 4, 2}, {4, 5, 2}}},
      {"ii->i", {{4, 4}}},
      {"ii->", {{4, 4}}},
      {"ij->", {{3, 5}}},
      {"ij->j", {{3, 5}}},
      {"ij,ij->ij", {{3, 4}, {3, 4}}},
      {"i,j->ij", {{3}, {4}}},
      {"ijk,jkl->il", {{2, 3, 4}, {3, 4, 5}}},
      {"iij,jk->ik", {{3, 3, 4}, {4, 2}}},
      {"ij,jk,kl->il", {{4, 5}, {5, 6}, {6, 3}}},
      {"ab,bc,cd,da->", {{3, 4}, {4, 5}, {5, 2}, {2, 3}}},
      {"ab,ac,ad,bcd->a", {{3, 2}, {3, 4}, {3, 5}, {2, 4, 5}}},
      {"αβ,βγ->γα", {{3, 4}, {4, 2}}},
  };
}

TEST(TropicalEinsum, MatchesBruteForceEagerTracedAndHandles) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(tropical::family()).build();
  EagerRuntime eager(cpu);
  std::uint64_t seed = 100;
  for (const Net& net : networks())
    for (Semiring s : {Semiring::max_plus, Semiring::min_plus}) {
      std::vector<Tensor> ops;
      std::vector<std::int64_t> ranks;
      for (const Shape& sh : net.shapes) {
        ops.push_back(random_tensor<double>(sh, seed++));
        ranks.push_back(static_cast<std::int64_t>(sh.size()));
      }
      const EinsumSpec spec = parse_einsum(net.subscripts, ranks);
      const Tensor want = brute_force<double>(s, spec, ops);
      const std::string what = std::string(net.subscripts) + " " + tropical::semiring_name(s);
      EXPECT_LT(max_diff(tropical::einsum(s, net.subscripts, ops, cpu), want), 1e-12) << what;
      // traced, with every extent symbolic
      std::vector<TracedTensor> in;
      std::vector<std::pair<std::string, Tensor>> feed;
      for (std::size_t k = 0; k < ops.size(); ++k) {
        SymShape sym;
        for (std::size_t d = 0; d < net.shapes[k].size(); ++d) sym.push_back(Dim("x" + std::to_string(k) + "_" + std::to_string(d)));
        in.push_back(TracedTensor::input("t" + std::to_string(k), DType::f64, sym));
        feed.push_back({"t" + std::to_string(k), ops[k]});
      }
      Program p = GraphCompiler().compile(tropical::einsum(s, net.subscripts, in));
      EXPECT_LT(max_diff(rt.run_compiled(p, feed)[0], want), 1e-12) << what << " traced";
      std::vector<EagerTensor> eh;
      for (const Tensor& t : ops) eh.push_back(eager.tensor(t));
      EXPECT_LT(max_diff(tropical::einsum(s, net.subscripts, eh).value(), want), 1e-12) << what << " eager";
    }
}

TEST(TropicalEinsum, IntegerLabelsIntegerDtypesAndPromotion) {
  CpuBackend cpu;
  Tensor a = random_tensor<std::int32_t>({4, 5}, 7), b = random_tensor<std::int32_t>({5, 3}, 8);
  const EinsumSpec spec = einsum_spec({{10, 20}, {20, 30}}, {30, 10});
  Tensor got = tropical::einsum(Semiring::max_plus, spec, {a, b}, cpu);
  EXPECT_EQ(got.dtype(), DType::i32);
  // the same with f64 operands, transposed by hand
  Tensor want = brute_force<double>(Semiring::max_plus, spec,
                                    {convert(a, DType::f64, cpu), convert(b, DType::f64, cpu)});
  EXPECT_EQ(max_diff(convert(got, DType::f64, cpu), want), 0.0);
  Tensor l = random_tensor<std::int64_t>({3, 4}, 9);
  Tensor f = random_tensor<float>({4, 2}, 10);
  Tensor mixed = tropical::einsum(Semiring::min_plus, "ij,jk->ik", {l, f}, cpu);   // promotes to f32
  EXPECT_EQ(mixed.dtype(), DType::f32);
}

TEST(TropicalEinsum, BadInputIsAClearError) {
  CpuBackend cpu;
  Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({3, 4});
  EXPECT_THROW(tropical::einsum(Semiring::max_plus, "ij,jk->ik", {a, Tensor::zeros({3, 4}, DType::c128)}, cpu), DTypeError);
  EXPECT_THROW(tropical::einsum(Semiring::max_plus, "ij,jk->ik", {a, Tensor::zeros({3, 4}, DType::bool_)}, cpu), DTypeError);
  EXPECT_THROW(tropical::einsum(Semiring::max_plus, "ij,jk->ik", {a, Tensor::zeros({4, 4})}, cpu), ShapeError);
  EXPECT_THROW(tropical::einsum(Semiring::max_plus, "ij,jk->iq", {a, b}, cpu), ValueError);
  EXPECT_THROW(tropical::einsum(Semiring::max_plus, "ij->ik", {a}, cpu), ValueError);
  try {
    tropical::einsum(Semiring::max_plus, "ij,jk->ik", {a, Tensor::zeros({3, 4}, DType::c64)}, cpu);
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("tropical.einsum: operand 1"), std::string::npos) << e.what();
  }
}

// Gradient of sum(w * network) by central differences, eager and traced.
TEST(TropicalEinsum, NetworkGradientsMatchFiniteDifferences) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(tropical::family()).build();
  EagerRuntime eager(cpu);
  const char* sub = "ij,jk,kl,ii->l";
  std::vector<Shape> shapes{{4, 5}, {5, 6}, {6, 3}, {4, 4}};
  for (Semiring s : {Semiring::max_plus, Semiring::min_plus}) {
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor<double>(shapes[k], 300 + k));
    Tensor w = random_tensor<double>({3}, 399);
    auto loss_of = [&](const std::vector<Tensor>& xs) {
      Tensor c = tropical::einsum(s, sub, xs, cpu);
      double t = 0;
      auto cv = c.to_vec_col_major<double>(), wv = w.to_vec_col_major<double>();
      for (std::size_t i = 0; i < cv.size(); ++i) t += cv[i] * wv[i];
      return t;
    };
    // eager handles
    std::vector<EagerTensor> eh;
    for (const Tensor& t : ops) eh.push_back(eager.tensor(t).requires_grad());
    backward((tropical::einsum(s, sub, eh) * eager.tensor(w)).sum());
    // traced
    std::vector<TracedTensor> th;
    for (std::size_t k = 0; k < ops.size(); ++k)
      th.push_back(TracedTensor::input("t" + std::to_string(k), DType::f64,
                                       {Dim(shapes[k][0]), Dim(shapes[k][1])}));
    auto loss = (tropical::einsum(s, sub, th) * TracedTensor(graph::constant(w))).sum();
    Program p = GraphCompiler().compile(grad(loss, th));
    std::vector<std::pair<std::string, Tensor>> feed;
    for (std::size_t k = 0; k < ops.size(); ++k) feed.push_back({"t" + std::to_string(k), ops[k]});
    auto g = rt.run_compiled(p, feed);
    for (std::size_t k = 0; k < ops.size(); ++k) {
      Tensor fd = Tensor::zeros(shapes[k]);
      auto base = ops[k].to_vec_col_major<double>();
      for (std::size_t i = 0; i < base.size(); ++i) {
        auto xs = ops;
        auto v = base;
        v[i] += 1e-6;
        xs[k] = Tensor::from_vec_col_major<double>(shapes[k], v);
        const double fp = loss_of(xs);
        v[i] -= 2e-6;
        xs[k] = Tensor::from_vec_col_major<double>(shapes[k], v);
        fd.host_data<double>()[i] = (fp - loss_of(xs)) / 2e-6;
      }
      EXPECT_LT(max_diff(eh[k].grad().value(), fd), 1e-6) << "eager operand " << k;
      EXPECT_LT(max_diff(g[k], fd), 1e-6) << "traced operand " << k;
    }
  }
}

}  // namespace
