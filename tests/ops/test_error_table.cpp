// The error contract as a table (issue 20): for the public functions of the
// ops, linalg, einsum, fft, io and runtime layers, the bad inputs a user can
// give (wrong rank, mismatched shapes, wrong dtype, mixed devices,
// out-of-range axes, undefined and empty tensors, NaN/Inf into
// factorisations, singular matrices, malformed einsum strings, unbound or
// inconsistent symbolic extents, missing program inputs). Every row must
// raise the listed `tenferro::Error` subclass whose message names the
// function and the offending values; every byte of every operand's storage
// is unchanged afterwards; and the backend (and runtime) still computes a
// good call correctly after each error.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <typeinfo>

#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/fft.hpp"
#include "tenferro/io.hpp"
#include "tenferro/linalg.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

enum class Kind { shape, dtype, device, index, value, linalg, format };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::shape: return "ShapeError";
    case Kind::dtype: return "DTypeError";
    case Kind::device: return "DeviceError";
    case Kind::index: return "IndexError";
    case Kind::value: return "ValueError";
    case Kind::linalg: return "LinalgError";
    case Kind::format: return "io::FormatError";
  }
  return "?";
}

bool is_kind(const Error& e, Kind k) {
  switch (k) {
    case Kind::shape: return dynamic_cast<const ShapeError*>(&e) != nullptr;
    case Kind::dtype: return dynamic_cast<const DTypeError*>(&e) != nullptr;
    case Kind::device: return dynamic_cast<const DeviceError*>(&e) != nullptr;
    case Kind::index: return dynamic_cast<const IndexError*>(&e) != nullptr;
    case Kind::value: return dynamic_cast<const ValueError*>(&e) != nullptr;
    case Kind::linalg: return dynamic_cast<const LinalgError*>(&e) != nullptr;
    case Kind::format: return dynamic_cast<const io::FormatError*>(&e) != nullptr;
  }
  return false;
}

using Call = std::function<void(const std::vector<Tensor>&, CpuBackend&)>;

struct Row {
  std::string bad;                     // what is wrong (for messages)
  std::vector<Tensor> inputs;          // operands, snapshotted byte for byte
  Call call;
  Kind kind;
  std::vector<std::string> fragments;  // the function's name and the offending values
};

Tensor f64(const Shape& s, std::uint64_t seed = 1) { return random_tensor(s, DType::f64, seed); }
Tensor f64v(const Shape& s, std::vector<double> v) { return Tensor::from_vec_col_major<double>(s, v); }
Tensor on_gpu(const Shape& s) { return fake_device_tensor(s, DType::f64, Device::cuda(0)); }

std::vector<std::byte> bytes_of(const Tensor& t) {
  if (!t.defined() || t.storage() == nullptr || t.storage()->data() == nullptr) return {};
  const auto* p = static_cast<const std::byte*>(t.storage()->data());
  return {p, p + t.storage()->nbytes()};
}

// A good call after every error: the backend must still be right.
void good_call_works(CpuBackend& cpu, const std::string& after) {
  Tensor a = f64v({2, 2}, {1, 2, 3, 4}), b = f64v({2, 2}, {5, 6, 7, 8});
  Tensor c = matmul(a, b, cpu);  // [[1,3],[2,4]] [[5,7],[6,8]] = [[23,31],[34,46]]
  EXPECT_EQ(c.at<double>({0, 0}), 23.0) << "after " << after;
  EXPECT_EQ(c.at<double>({1, 1}), 46.0) << "after " << after;
}

std::vector<Row> rows();

}  // namespace

TEST(ErrorTable, EveryBadCallRaisesTheNamedErrorAndChangesNothing) {
  CpuBackend cpu;
  std::vector<Row> table = rows();
  int checked = 0;
  for (const Row& r : table) {
    SCOPED_TRACE(r.bad);
    std::vector<std::vector<std::byte>> before;
    for (const Tensor& t : r.inputs) before.push_back(bytes_of(t));
    try {
      r.call(r.inputs, cpu);
      ADD_FAILURE() << r.bad << ": no error";
    } catch (const Error& e) {
      EXPECT_TRUE(is_kind(e, r.kind)) << r.bad << ": expected " << kind_name(r.kind) << ", got "
                                      << typeid(e).name() << ": " << e.what();
      std::string msg = e.what();
      for (const std::string& f : r.fragments)
        EXPECT_NE(msg.find(f), std::string::npos) << r.bad << ": message \"" << msg << "\" lacks \"" << f << "\"";
    } catch (const std::exception& e) {
      ADD_FAILURE() << r.bad << ": not a tenferro::Error: " << typeid(e).name() << ": " << e.what();
    }
    for (std::size_t i = 0; i < r.inputs.size(); ++i)
      EXPECT_TRUE(bytes_of(r.inputs[i]) == before[i]) << r.bad << ": operand " << i << " was written";
    good_call_works(cpu, r.bad);
    ++checked;
  }
  std::printf("%d bad calls checked\n", checked);
  EXPECT_GE(checked, 80);
}

// A compiled program keeps working after each of its run errors.
TEST(ErrorTable, ARuntimeStaysUsableAfterEveryRunError) {
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  auto y = TracedTensor::input("y", DType::f64, {Dim("n")});
  Program p = GraphCompiler().compile({(x * x).sum({1}) + y});
  Tensor xv = f64({4, 3}), yv = f64({4}, 2);
  auto good = [&](const std::string& after) {
    Tensor out = rt.run_compiled(p, {{"x", xv}, {"y", yv}})[0];
    for (std::int64_t i = 0; i < 4; ++i) {
      double want = yv.at<double>({i});
      for (std::int64_t j = 0; j < 3; ++j) want += xv.at<double>({i, j}) * xv.at<double>({i, j});
      EXPECT_NEAR(out.at<double>({i}), want, 1e-14) << "after " << after;
    }
  };
  struct Bad {
    std::string what;
    RunInputs inputs;
    Kind kind;
    std::vector<std::string> fragments;
  };
  std::vector<Bad> bad = {
      {"missing input y", RunInputs{{"x", xv}}, Kind::value, {"run_compiled", "y"}},
      {"unknown input z", RunInputs{{"x", xv}, {"y", yv}, {"z", yv}}, Kind::value, {"run_compiled", "z"}},
      {"inconsistent n (4 from x, 5 from y)", RunInputs{{"x", xv}, {"y", f64({5})}}, Kind::shape, {"n", "4", "5"}},
      {"x of extent 2 where 3 is declared", RunInputs{{"x", f64({4, 2})}, {"y", yv}}, Kind::shape, {"x", "3", "2"}},
      {"x of rank 1", RunInputs{{"x", f64({4})}, {"y", yv}}, Kind::shape, {"x"}},
      {"x as i64", RunInputs{{"x", Tensor::zeros({4, 3}, DType::i64)}, {"y", yv}}, Kind::dtype, {"x", "i64"}},
      {"y on a GPU", RunInputs{{"x", xv}, {"y", on_gpu({4})}}, Kind::device, {"y"}},
      {"three positional inputs for two", RunInputs(std::vector<Tensor>{xv, yv, yv}), Kind::value, {"3", "2"}},
  };
  good("nothing");
  for (const Bad& b : bad) {
    try {
      (void)rt.run_compiled(p, b.inputs);
      ADD_FAILURE() << b.what << ": no error";
    } catch (const Error& e) {
      EXPECT_TRUE(is_kind(e, b.kind)) << b.what << ": expected " << kind_name(b.kind) << ", got " << e.what();
      for (const std::string& f : b.fragments)
        EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << b.what << ": \"" << e.what() << "\" lacks " << f;
    }
    good(b.what);
  }
}

namespace {

std::vector<Row> rows() {
  std::vector<Row> t;
  auto row = [&](std::string bad, std::vector<Tensor> in, Call call, Kind kind, std::vector<std::string> frag) {
    t.push_back({std::move(bad), std::move(in), std::move(call), kind, std::move(frag)});
  };
  const Tensor undefined;
  const Tensor c128 = random_tensor({3}, DType::c128, 3);
  const Tensor i64 = Tensor::arange(6, DType::i64);

  // ---- elementwise: shapes, dtypes, devices, undefined operands ----------------------------
  using Binary = Tensor (*)(const Tensor&, const Tensor&, Backend&);
  const std::pair<const char*, Binary> binaries[] = {{"add", &tenferro::add}, {"subtract", &sub}, {"multiply", &mul},
                                                     {"divide", &div}, {"maximum", &maximum},
                                                     {"minimum", &minimum}, {"power", &pow}};
  for (auto [name, f] : binaries) {
    row(std::string(name) + " of [2, 3] and [4, 5]", {f64({2, 3}), f64({4, 5}, 2)},
        [f](auto& x, auto& b) { (void)f(x[0], x[1], b); }, Kind::shape, {name, "[2, 3]", "[4, 5]"});
    row(std::string(name) + " of a host and a GPU tensor", {f64({3}), on_gpu({3})},
        [f](auto& x, auto& b) { (void)f(x[0], x[1], b); }, Kind::device, {name});
    row(std::string(name) + " of an undefined tensor", {f64({3}), undefined},
        [f](auto& x, auto& b) { (void)f(x[0], x[1], b); }, Kind::value, {"undefined"});
  }
  row("maximum of complex tensors", {c128, c128}, [](auto& x, auto& b) { (void)maximum(x[0], x[1], b); },
      Kind::dtype, {"maximum", "c128"});
  using Unary = Tensor (*)(const Tensor&, Backend&);
  const std::pair<const char*, Unary> real_only[] = {{"erf", &erf},       {"erfc", &erfc},   {"erfinv", &erfinv},
                                                     {"lgamma", &lgamma}, {"digamma", &digamma}, {"i0", &i0},
                                                     {"i1e", &i1e},       {"ndtri", &ndtri}, {"floor", &floor},
                                                     {"ceil", &ceil},     {"trunc", &trunc}};
  for (auto [name, f] : real_only)
    row(std::string(name) + " of a complex tensor", {c128}, [f](auto& x, auto& b) { (void)f(x[0], b); }, Kind::dtype,
        {name, "c128"});
  const std::pair<const char*, Unary> any_unary[] = {{"exp", &exp}, {"sqrt", &sqrt}, {"tanh", &tanh},
                                                     {"abs", &abs}, {"negate", &neg},  {"sin", &sin}};
  for (auto [name, f] : any_unary) {
    row(std::string(name) + " of an undefined tensor", {undefined}, [f](auto& x, auto& b) { (void)f(x[0], b); },
        Kind::value, {"undefined"});
    row(std::string(name) + " of a GPU tensor on the CPU backend", {on_gpu({2})},
        [f](auto& x, auto& b) { (void)f(x[0], b); }, Kind::device, {name});
  }
  row("polygamma of order -1", {f64({3})}, [](auto& x, auto& b) { (void)polygamma(-1, x[0], b); }, Kind::value,
      {"polygamma", "-1"});
  row("where with a [3] mask and [2] operands", {Tensor::ones({3}, DType::bool_), f64({2}), f64({2}, 2)},
      [](auto& x, auto& b) { (void)where(x[0], x[1], x[2], b); }, Kind::shape, {"where", "[3]", "[2]"});
  row("where with a f64 mask", {f64({2}), f64({2}), f64({2}, 2)},
      [](auto& x, auto& b) { (void)where(x[0], x[1], x[2], b); }, Kind::dtype, {"where", "f64"});
  row("clamp with [2] bounds of a [3] tensor", {f64({2}), f64({3}), f64({2}, 3)},
      [](auto& x, auto& b) { (void)clamp(x[0], x[1], x[2], b); }, Kind::shape, {"clamp", "[2]", "[3]"});
  row("compare of [2] and [3]", {f64({2}), f64({3})},
      [](auto& x, auto& b) { (void)compare(x[0], x[1], ComparisonDirection::LT, b); }, Kind::shape,
      {"compare", "[2]", "[3]"});
  row("complex of complex parts", {c128, c128}, [](auto& x, auto& b) { (void)complex(x[0], x[1], b); }, Kind::dtype,
      {"complex", "c128"});

  // ---- reductions and contractions ---------------------------------------------------------
  row("sum over axis 2 of a rank-2 tensor", {f64({2, 3})}, [](auto& x, auto& b) { (void)sum(x[0], {2}, b); },
      Kind::index, {"reduce_sum", "2"});
  row("sum over axis -3 of a rank-2 tensor", {f64({2, 3})}, [](auto& x, auto& b) { (void)sum(x[0], {-3}, b); },
      Kind::index, {"-3"});
  row("sum over axis 0 twice", {f64({2, 3})}, [](auto& x, auto& b) { (void)sum(x[0], {0, 0}, b); }, Kind::value,
      {"reduce_sum", "0"});
  row("max over an empty axis", {f64({0, 3})}, [](auto& x, auto& b) { (void)max(x[0], {0}, b); }, Kind::value,
      {"max", "empty"});
  row("prod over axis 5", {f64({2})}, [](auto& x, auto& b) { (void)prod(x[0], {5}, b); }, Kind::index, {"5"});
  row("mean over axis 3", {f64({2, 2})}, [](auto& x, auto& b) { (void)mean(x[0], {3}, b); }, Kind::index, {"3"});
  row("matmul of [2, 3] and [4, 2]", {f64({2, 3}), f64({4, 2}, 2)}, [](auto& x, auto& b) { (void)matmul(x[0], x[1], b); },
      Kind::shape, {"3", "4"});
  row("matmul of a rank-0 tensor", {Tensor::scalar<double>(2.0), f64({2, 2})},
      [](auto& x, auto& b) { (void)matmul(x[0], x[1], b); }, Kind::shape, {"matmul", "[]"});
  row("clamp with a [2, 3] bound of a [3] tensor", {f64({2, 3}), f64({3}), f64({3}, 3)},
      [](auto& x, auto& b) { (void)clamp(x[0], x[1], x[2], b); }, Kind::shape, {"clamp", "lo", "[2, 3]", "[3]"});
  row("matmul of a host and a GPU matrix", {f64({2, 2}), on_gpu({2, 2})},
      [](auto& x, auto& b) { (void)matmul(x[0], x[1], b); }, Kind::device, {});
  row("dot_general contracting extents 3 and 4", {f64({3}), f64({4}, 2)},
      [](auto& x, auto& b) {
        (void)dot_general(x[0], x[1], {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}}, b);
      },
      Kind::shape, {"dot_general", "3", "4"});
  row("dot_general contracting axis 1 of a rank-1 operand", {f64({3}), f64({3}, 2)},
      [](auto& x, auto& b) {
        (void)dot_general(x[0], x[1], {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, b);
      },
      Kind::index, {"dot_general", "1"});
  row("dot_general with 1 lhs and 2 rhs contracting axes", {f64({3, 3}), f64({3, 3}, 2)},
      [](auto& x, auto& b) {
        (void)dot_general(x[0], x[1], {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0, 1}}, b);
      },
      Kind::value, {"dot_general"});
  row("trace of a rank-1 tensor", {f64({3})}, [](auto& x, auto& b) { (void)trace(x[0], b); }, Kind::shape,
      {"trace", "[3]"});

  // ---- views and copies --------------------------------------------------------------------
  row("reshape of 6 elements to [4]", {f64({2, 3})}, [](auto& x, auto&) { (void)x[0].reshape({4}); }, Kind::shape,
      {"reshape", "[2, 3]", "[4]"});
  row("permute with a repeated axis", {f64({2, 3})}, [](auto& x, auto&) { (void)x[0].permute({0, 0}); }, Kind::value,
      {"permute"});
  row("permute of rank 2 with 3 axes", {f64({2, 3})}, [](auto& x, auto&) { (void)x[0].permute({0, 1, 2}); },
      Kind::value, {"permute"});
  row("select index 3 of extent 3", {f64({2, 3})}, [](auto& x, auto&) { (void)x[0].select(1, 3); }, Kind::index,
      {"select", "3"});
  row("slice past the end", {f64({4})}, [](auto& x, auto&) { (void)x[0].slice(0, 2, 9); }, Kind::index,
      {"slice", "9"});
  row("broadcast_to a smaller shape", {f64({3})}, [](auto& x, auto&) { (void)x[0].broadcast_to({2}); }, Kind::shape,
      {"broadcast_to"});
  row("diagonal of a rank-1 tensor", {f64({3})}, [](auto& x, auto&) { (void)x[0].diagonal(); }, Kind::index,
      {"diagonal", "axis 1", "rank 1"});
  row("at with an index out of range", {f64({2, 2})}, [](const std::vector<Tensor>& x, CpuBackend&) { (void)x[0].at<double>({2, 0}); },
      Kind::index, {"2"});
  row("at with the wrong element type", {f64({2})}, [](const std::vector<Tensor>& x, CpuBackend&) { (void)x[0].at<float>({0}); }, Kind::dtype,
      {"f64", "f32"});
  row("copy_from a [3] tensor into a [2] tensor", {f64({2}), f64({3}, 2)},
      [](auto& x, auto&) { x[0].copy_from(x[1]); }, Kind::shape, {"copy_from", "[3]", "[2]"});
  row("Tensor::zeros with a negative extent", {}, [](auto&, auto&) { (void)Tensor::zeros({2, -1}); }, Kind::value,
      {"zeros", "-1"});
  row("from_vec_col_major with 5 values for [2, 3]", {},
      [](auto&, auto&) { (void)Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5}); }, Kind::shape,
      {"from_vec_col_major", "6", "5"});
  row("convert of an undefined tensor", {undefined}, [](auto& x, auto& b) { (void)convert(x[0], DType::f32, b); },
      Kind::value, {"undefined"});

  // ---- linalg: shapes, dtypes, singular and non-finite matrices ----------------------------
  row("solve with a [2, 3] matrix", {f64({2, 3}), f64({2}, 2)},
      [](auto& x, auto& b) { (void)linalg::solve(x[0], x[1], b); }, Kind::shape, {"linalg.solve", "[2, 3]"});
  row("solve of a [3, 3] matrix with a [4] right-hand side", {f64({3, 3}), f64({4}, 2)},
      [](auto& x, auto& b) { (void)linalg::solve(x[0], x[1], b); }, Kind::shape, {"linalg.solve", "[4]"});
  row("solve with a singular matrix", {f64v({2, 2}, {1, 2, 2, 4}), f64({2}, 2)},
      [](auto& x, auto& b) { (void)linalg::solve(x[0], x[1], b); }, Kind::linalg, {"linalg.solve", "singular"});
  row("inv of a singular matrix", {f64v({2, 2}, {0, 0, 0, 0})}, [](auto& x, auto& b) { (void)linalg::inv(x[0], b); },
      Kind::linalg, {"linalg.inv", "singular"});
  row("inv of an integer matrix", {i64.reshape({2, 3})}, [](auto& x, auto& b) { (void)linalg::inv(x[0], b); },
      Kind::dtype, {"linalg.inv", "i64"});
  row("cholesky of an indefinite matrix", {f64v({2, 2}, {1, 2, 2, 1})},
      [](auto& x, auto& b) { (void)linalg::cholesky(x[0], b); }, Kind::linalg, {"linalg.cholesky"});
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  row("cholesky of a NaN matrix", {f64v({2, 2}, {nan, 0, 0, 1})},
      [](auto& x, auto& b) { (void)linalg::cholesky(x[0], b); }, Kind::value, {"linalg.cholesky", "nan", "[0, 0]"});
  row("svd of a matrix holding NaN", {f64v({2, 2}, {1, nan, 0, 1})}, [](auto& x, auto& b) { (void)linalg::svd(x[0], b); },
      Kind::value, {"linalg.svd", "NaN"});
  row("eigh of a matrix holding Inf", {f64v({2, 2}, {1, inf, inf, 1})},
      [](auto& x, auto& b) { (void)linalg::eigh(x[0], b); }, Kind::value, {"linalg.eigh"});
  row("eigh of a [2, 3] matrix", {f64({2, 3})}, [](auto& x, auto& b) { (void)linalg::eigh(x[0], b); }, Kind::shape,
      {"linalg.eigh", "[2, 3]"});
  row("det of a rank-1 tensor", {f64({4})}, [](auto& x, auto& b) { (void)linalg::det(x[0], b); }, Kind::shape,
      {"linalg.det", "[4]"});
  row("qr of a GPU matrix on the CPU backend", {on_gpu({2, 2})}, [](auto& x, auto& b) { (void)linalg::qr(x[0], b); },
      Kind::device, {"linalg.qr"});
  row("lstsq of [3, 2] with [4]", {f64({3, 2}), f64({4}, 2)},
      [](auto& x, auto& b) { (void)linalg::lstsq(x[0], x[1], b); }, Kind::shape, {"linalg.lstsq"});
  row("householder_product with 3 reflectors of a [2, 2] matrix", {f64({2, 2}), f64({3}, 2)},
      [](auto& x, auto& b) { (void)linalg::householder_product(x[0], x[1], b); }, Kind::shape,
      {"householder_product"});
  row("vector_norm of a complex order", {f64({3})}, [nan](auto& x, auto& b) { (void)linalg::vector_norm(x[0], b, nan); },
      Kind::value, {"vector_norm"});

  // ---- einsum -----------------------------------------------------------------------------
  row("einsum with mismatched extents of j", {f64({2, 3}), f64({4, 2}, 2)},
      [](auto& x, auto& b) { (void)einsum("ij,jk->ik", x, b); }, Kind::shape, {"einsum", "j", "3", "4"});
  row("einsum with one operand for two subscripts", {f64({2, 3})},
      [](auto& x, auto& b) { (void)einsum("ij,jk->ik", x, b); }, Kind::value, {"einsum", "2", "1"});
  row("einsum with a label only in the output", {f64({2, 3})}, [](auto& x, auto& b) { (void)einsum("ij->ik", x, b); },
      Kind::value, {"einsum", "k"});
  row("einsum with rank 3 subscripts for a rank-2 operand", {f64({2, 3})},
      [](auto& x, auto& b) { (void)einsum("ijk->i", x, b); }, Kind::value, {"einsum", "rank 2", "ijk"});
  row("einsum with a malformed arrow", {f64({2, 3})}, [](auto& x, auto& b) { (void)einsum("ij-k", x, b); },
      Kind::value, {"einsum"});
  row("einsum with a repeated output label", {f64({2, 3})}, [](auto& x, auto& b) { (void)einsum("ij->ii", x, b); },
      Kind::value, {"einsum", "i"});
  row("einsum of a host and a GPU tensor", {f64({2, 2}), on_gpu({2, 2})},
      [](auto& x, auto& b) { (void)einsum("ij,jk->ik", x, b); }, Kind::device, {"einsum", "operand 1", "cuda:0"});

  // ---- fft --------------------------------------------------------------------------------
  row("fft over axis 3 of a rank-1 tensor", {c128},
      [](auto& x, auto& b) { (void)fft::fft(x[0], b, {.axis = 3}); }, Kind::index, {"fft", "3"});
  row("fft of length 0", {c128}, [](auto& x, auto& b) { (void)fft::fft(x[0], b, {.n = 0}); }, Kind::value,
      {"fft", "0"});
  row("rfft of a complex tensor", {c128}, [](auto& x, auto& b) { (void)fft::rfft(x[0], b); }, Kind::dtype,
      {"rfft", "c128"});
  row("fft of an integer tensor", {i64}, [](auto& x, auto& b) { (void)fft::fft(x[0], b); }, Kind::dtype,
      {"fft", "i64"});

  // ---- io ---------------------------------------------------------------------------------
  const std::string missing = (std::filesystem::temp_directory_path() / "tenferro-no-such-file.npy").string();
  row("load_npy of a missing file", {}, [missing](auto&, auto&) { (void)io::load_npy(missing); }, Kind::format,
      {"load_npy", "tenferro-no-such-file.npy"});
  row("save_npy of an undefined tensor", {undefined},
      [missing](auto& x, auto&) { io::save_npy(missing, x[0]); }, Kind::value, {"undefined"});
  row("save_safetensors of a complex tensor", {c128},
      [](auto& x, auto&) {
        io::save_safetensors((std::filesystem::temp_directory_path() / "tenferro-c.safetensors").string(),
                             {{"z", x[0]}});
      },
      Kind::dtype, {"safetensors", "c128"});
  return t;
}

}  // namespace
