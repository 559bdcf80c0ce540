#pragma once
// The generic AD checker: for a function built from graph values, compares
// JVP with central finite differences, checks <v, J u> = <J^H v, u> (real
// inner product), and compares HVP (of a scalarisation) with finite
// differences of the gradient. Inputs are f64 or c128 tensors.
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"

namespace tenferro::testing {

struct AdCase {
  std::string name;
  std::function<Value(const std::vector<Value>&)> f;
  std::vector<Tensor> inputs;
};

struct AdTolerances {
  double jvp_fd = 1e-6;       // relative error of J u against central differences
  double consistency = 1e-10; // relative error of <v, J u> against <J^H v, u>
  double hvp_fd = 1e-5;       // relative error of H u against differences of the gradient
  bool hvp = true;
};

/// Runs the three checks; failures are reported with the case name.
void check_ad_case(const AdCase& c, const AdTolerances& tol = {});

/// Op families (fft, linalg, ...) that later checked functions use: every
/// check's runtime registers them (the family must outlive the checks).
void register_ad_check_family(const OpFamily& family);

/// Real inner product Re sum conj(a) b of two tensors of one dtype and shape.
double real_dot(const Tensor& a, const Tensor& b);

}  // namespace tenferro::testing
