#include "ad_check.hpp"

#include <cmath>

namespace tenferro::testing {

double real_dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (const DimVec& idx : all_indices(a.shape())) s += (std::conj(value_at(a, idx)) * value_at(b, idx)).real();
  return s;
}

namespace {

double norm_of(const Tensor& t) { return std::sqrt(std::max(real_dot(t, t), 0.0)); }

// a + s * b for tensors of one dtype and shape (host).
Tensor axpy(const Tensor& a, double s, const Tensor& b) {
  CpuBackend cpu;
  return add(a, mul(b, Scalar(s), cpu), cpu);
}

Tensor diff(const Tensor& a, const Tensor& b) {
  CpuBackend cpu;
  return sub(a, b, cpu);
}

}  // namespace

namespace {
std::vector<const OpFamily*>& check_families() {
  static std::vector<const OpFamily*> families;
  return families;
}
}  // namespace

void register_ad_check_family(const OpFamily& family) { check_families().push_back(&family); }

void check_ad_case(const AdCase& c, const AdTolerances& tol) {
  SCOPED_TRACE(c.name);
  CpuBackend cpu;
  Runtime::Builder builder;
  builder.register_engine(cpu_engine(cpu));
  for (const OpFamily* f : check_families()) builder.register_family(*f);
  auto rt = builder.build();
  const std::size_t n = c.inputs.size();
  std::vector<Value> xs, us;
  std::vector<Tensor> u;
  for (std::size_t i = 0; i < n; ++i) {
    const Tensor& x = c.inputs[i];
    xs.push_back(graph::input(detail::str("x", i), x.dtype(), to_sym_shape(x.shape())));
    us.push_back(graph::input(detail::str("u", i), x.dtype(), to_sym_shape(x.shape())));
    u.push_back(random_tensor(x.shape(), x.dtype(), 1000 + i));
  }
  Value y = c.f(xs);
  ASSERT_TRUE(is_float(y.dtype())) << "output dtype " << y.dtype();
  Program pf = GraphCompiler().compile(TracedTensor(y));
  auto eval = [&](const std::vector<Tensor>& x) { return rt.run_compiled(pf, x)[0]; };
  Tensor yv = eval(c.inputs);
  // ---- JVP against central differences ----
  std::vector<Value> ys{y};
  Value jy = ad::jvp(ys, xs, us)[0];
  if (!jy.defined()) jy = vops::zeros_like(y);
  std::vector<TracedTensor> jouts{TracedTensor(jy)};
  Program pj = GraphCompiler().compile(jouts);
  std::vector<Tensor> feed = c.inputs;
  feed.insert(feed.end(), u.begin(), u.end());
  // Unused inputs are still declared by name: bind by name.
  std::vector<std::pair<std::string, Tensor>> named;
  for (std::size_t i = 0; i < n; ++i) {
    named.push_back({detail::str("x", i), c.inputs[i]});
    named.push_back({detail::str("u", i), u[i]});
  }
  auto run_named = [&](const Program& p, std::vector<std::pair<std::string, Tensor>> all) {
    std::vector<std::pair<std::string, Tensor>> used;
    for (auto& kv : all)
      for (const auto& in : p.inputs)
        if (in.name == kv.first) used.push_back(kv);
    return rt.run_compiled(p, used);
  };
  Tensor ju = run_named(pj, named)[0];
  const double h = 1e-6;
  std::vector<Tensor> xp, xm;
  for (std::size_t i = 0; i < n; ++i) {
    xp.push_back(axpy(c.inputs[i], h, u[i]));
    xm.push_back(axpy(c.inputs[i], -h, u[i]));
  }
  CpuBackend b;
  Tensor fd = mul(diff(eval(xp), eval(xm)), Scalar(1.0 / (2 * h)), b);
  double scale = std::max({norm_of(ju), norm_of(fd), 1e-6});
  EXPECT_LE(norm_of(diff(ju, fd)) / scale, tol.jvp_fd) << "JVP vs finite differences: |Ju| = " << norm_of(ju)
                                                        << ", |fd| = " << norm_of(fd);
  // ---- <v, J u> = <J^H v, u> ----
  Value vin = graph::input("v", y.dtype(), y.shape());
  std::vector<Value> cts{vin};
  std::vector<Value> g = ad::vjp(ys, cts, xs);
  std::vector<TracedTensor> gouts;
  for (Value& gi : g) gouts.emplace_back(gi);
  Program pv = GraphCompiler().compile(gouts);
  Tensor v = random_tensor(yv.shape(), yv.dtype(), 77);
  named.push_back({"v", v});
  std::vector<Tensor> gv = run_named(pv, named);
  double lhs = real_dot(v, ju), rhs = 0;
  for (std::size_t i = 0; i < n; ++i) rhs += real_dot(gv[i], u[i]);
  double mag = std::max({std::abs(lhs), std::abs(rhs), norm_of(v) * norm_of(ju), 1e-12});
  EXPECT_LE(std::abs(lhs - rhs) / mag, tol.consistency) << "<v, Ju> = " << lhs << " but <J^H v, u> = " << rhs;
  if (!tol.hvp) return;
  // ---- HVP of the scalar L = Re<w, f(x)> against differences of its gradient ----
  Tensor w = random_tensor(yv.shape(), yv.dtype(), 99);
  Value wv = graph::constant(w);
  Value loss = vops::sum(vops::real(vops::mul(vops::conj(wv), y)));
  std::vector<TracedTensor> xt;
  for (const Value& x : xs) xt.emplace_back(x);
  std::vector<TracedTensor> grads = grad(TracedTensor(loss), xt);
  Program pg = GraphCompiler().compile(grads);
  std::vector<Value> gvals;
  for (const auto& gi : grads) gvals.push_back(gi.graph_value());
  std::vector<Value> hv = ad::jvp(gvals, xs, us);
  std::vector<TracedTensor> houts;
  for (std::size_t i = 0; i < n; ++i) houts.emplace_back(hv[i].defined() ? hv[i] : vops::zeros_like(xs[i]));
  Program ph = GraphCompiler().compile(houts);
  std::vector<Tensor> hu = run_named(ph, named);
  const double hh = 1e-5;
  std::vector<Tensor> xp2, xm2;
  for (std::size_t i = 0; i < n; ++i) {
    xp2.push_back(axpy(c.inputs[i], hh, u[i]));
    xm2.push_back(axpy(c.inputs[i], -hh, u[i]));
  }
  auto run_grad = [&](const std::vector<Tensor>& x) {
    std::vector<std::pair<std::string, Tensor>> nm;
    for (std::size_t i = 0; i < n; ++i) nm.push_back({detail::str("x", i), x[i]});
    return run_named(pg, nm);
  };
  std::vector<Tensor> gp = run_grad(xp2), gm = run_grad(xm2);
  for (std::size_t i = 0; i < n; ++i) {
    Tensor fdh = mul(diff(gp[i], gm[i]), Scalar(1.0 / (2 * hh)), b);
    double s = std::max({norm_of(hu[i]), norm_of(fdh), 1e-6});
    EXPECT_LE(norm_of(diff(hu[i], fdh)) / s, tol.hvp_fd) << "HVP vs differences of the gradient, input " << i
                                                           << ": |Hu| = " << norm_of(hu[i]) << ", |fd| = " << norm_of(fdh);
  }
}

}  // namespace tenferro::testing
