#pragma once
/// \file
/// Sliced einsum across MPI ranks (Note [Distributed einsum]). The same
/// contraction a single-process user writes with `tenferro::einsum`, spread
/// over the ranks of an MPI job; MPI itself stays out of this header.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/dist.hpp>
/// int main(int argc, char** argv) {
///   tenferro::dist::Session session(argc, argv);   // MPI_Init ... MPI_Finalize
///   tenferro::CpuBackend cpu;
///   auto a = tenferro::Tensor::uniform({64, 64}, tenferro::DType::f64, 1);   // same seed: same
///   auto b = tenferro::Tensor::uniform({64, 64}, tenferro::DType::f64, 2);   // data on every rank
///   auto c = tenferro::Tensor::uniform({64, 64}, tenferro::DType::f64, 3);
///   tenferro::Tensor r = tenferro::dist::einsum("ab,bc,ca->", {a, b, c}, cpu, session,
///                                               {.memory_limit_bytes = 1 << 15});  // on every rank
///   // gradients of <cotangent, r> with respect to a, b, c, reduced the same way
///   auto g = tenferro::dist::einsum_vjp("ab,bc,ca->", {a, b, c}, tenferro::Tensor::ones({}), cpu,
///                                       session, {.memory_limit_bytes = 1 << 15});
///   if (session.rank() == 0)
///     std::cout << tenferro::dist::plan("ab,bc,ca->", {a.shape(), b.shape(), c.shape()},
///                                       {a.dtype(), b.dtype(), c.dtype()}, session.size(),
///                                       {.memory_limit_bytes = 1 << 15}).to_string();
/// }
/// ```
/// Run it with `mpirun -np 4 ./program` (as root: `--allow-run-as-root`).
///
/// Note [Distributed einsum]: the planner is the single-process one
/// (`einsum_path`, `EinsumPlan`): it finds the contraction order and the
/// labels to slice so that the plan's peak working memory
/// (`EinsumPlan::peak_live_elements()` times the element size:
/// intermediates, the running slice sum, the result and the kernels'
/// copies; not the operands) stays within `memory_limit_bytes`, and so that
/// there are at least `min_slices_per_rank` slices per rank. Every slice
/// runs the same body program on operands of the same shapes, so all
/// slices cost the same flops; ranks get contiguous blocks of slices whose
/// sizes differ by at most one, which is the cost-balanced assignment for
/// equal costs. Each rank runs the prologue once, its slices with the
/// normal eager executor and the epilogue on its partial sum; the partial
/// results are summed with MPI_Allreduce (or MPI_Reduce to the root).
///
/// Note [Distributed errors]: every collective phase (checking the operands,
/// broadcasting them, planning, contracting) ends with the ranks agreeing on
/// success. When a rank throws, every rank throws an error of the same
/// class (ValueError, ShapeError, DTypeError, MemoryError, ...; `Error`
/// for the others) whose message names the lowest failing rank and quotes
/// its message, so no rank waits forever in a collective. Operands given
/// on every rank are compared with the root's: dtypes, shapes and (unless
/// `check_operand_data` is off) a 64-bit hash of their bytes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::dist {

/// An MPI job seen from one rank: initialises MPI on construction (when it
/// is not initialised yet) and finalises it on destruction (when this
/// session initialised it). It works on a duplicate of MPI_COMM_WORLD, so
/// its messages never mix with the program's own MPI traffic.
///
/// ```cpp
/// tenferro::dist::Session session(argc, argv);
/// if (session.rank() == 0) std::cout << session.size() << " ranks\n";
/// ```
class Session {
 public:
  Session(int& argc, char**& argv);
  /// Without command-line arguments (MPI_Init(nullptr, nullptr)).
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Waits until every rank has arrived.
  void barrier() const;
  /// The communicator, as an opaque pointer to its MPI_Comm (for code that
  /// includes <mpi.h> itself: `*static_cast<MPI_Comm*>(session.comm())`).
  void* comm() const;

  /// Internal state: the communicator and the plans of earlier calls
  /// (repeated contractions of the same shapes, e.g. an optimisation loop,
  /// are planned once per session).
  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1;
};

/// Where operands come from and where the result goes.
enum class Placement : std::uint8_t {
  /// Given on every rank (checked against the root's) / returned on every rank.
  every_rank,
  /// Given on the root only (broadcast; other ranks pass `{}`) / returned on
  /// the root only (other ranks get an undefined Tensor).
  root,
};

/// Where the time of one call went (Options::stats), for load balance and
/// scaling studies: this rank's wall-clock and CPU seconds of its slices,
/// and every rank's (gathered on every rank).
///
/// ```cpp
/// dist::Stats st;
/// dist::einsum(spec, ops, cpu, session, {.memory_limit_bytes = 1 << 20, .stats = &st});
/// // st.contract_seconds_per_rank[r]: rank r's wall time contracting its slices
/// ```
struct Stats {
  double share_seconds = 0;     ///< checking / broadcasting the operands
  double plan_seconds = 0;      ///< planning (0 when the session had the plan)
  double contract_seconds = 0;  ///< this rank's slices, wall clock
  double contract_cpu_seconds = 0;  ///< the same, CPU time of the calling thread
  double reduce_seconds = 0;    ///< summing over the ranks
  std::vector<double> contract_seconds_per_rank;
  std::vector<double> contract_cpu_seconds_per_rank;
};

/// Options of `dist::einsum`, `dist::einsum_vjp` and `dist::plan`.
struct Options {
  /// Working memory each rank's plan may use, in bytes (Note [Distributed
  /// einsum]); 0: no limit.
  std::size_t memory_limit_bytes = 0;
  Placement operands = Placement::every_rank;
  Placement result = Placement::every_rank;
  int root = 0;
  /// Slice further (below the memory limit) until there are at least this
  /// many slices per rank, as far as slicing summed labels allows.
  int min_slices_per_rank = 1;
  PathOptimizer optimizer = PathOptimizer::automatic;
  std::uint64_t seed = 0;
  double effort = 1.0;
  /// Compare a hash of the operands' bytes with the root's (Placement::every_rank).
  bool check_operand_data = true;
  /// The root prints the plan (`Plan::to_string`) to stdout before running.
  bool print_plan = false;
  /// Filled with the call's timings when given (Stats).
  Stats* stats = nullptr;
};

/// Machine parameters of the cost model (per rank).
struct Machine {
  double flops_per_second = 1e10;
  /// Point-to-point bandwidth and latency of the interconnect.
  double bytes_per_second = 1e10;
  double latency_seconds = 2e-6;
};

/// A distributed plan and its cost model for `ranks` ranks.
struct Plan {
  ContractionPath path;  ///< order and sliced labels (path.cost counts all slices)
  int ranks = 1;
  std::int64_t num_slices = 1;
  /// Rank r contracts slices [slice_begin[r], slice_begin[r + 1]).
  std::vector<std::int64_t> slice_begin;
  double flops_per_slice = 0;
  double total_flops = 0;     ///< all slices, all ranks
  double max_rank_flops = 0;  ///< the busiest rank
  /// The single-process plan without slicing, for comparison.
  double unsliced_flops = 0;
  double unsliced_peak_bytes = 0;
  /// Peak working memory per rank (Note [Distributed einsum]), bytes.
  double peak_bytes_per_rank = 0;
  double operand_bytes = 0;  ///< all operands together (each rank holds them)
  double result_bytes = 0;
  /// Bytes each rank sends or receives: the operand broadcast (Placement::root)
  /// and the reduction of the result.
  double broadcast_bytes = 0;
  double reduce_bytes = 0;
  /// The model: busiest rank's flops / flops_per_second + communication
  /// (tree broadcast, ring allreduce) with `machine`.
  double predicted_seconds(const Machine& machine = {}) const;
  /// Predicted speed-up over the same plan on one rank.
  double predicted_speedup(const Machine& machine = {}) const;
  /// A few lines: path, sliced labels, slices per rank, flops, memory,
  /// communication, predicted time.
  std::string to_string(const Machine& machine = {}) const;
};

/// Plans a contraction for `ranks` ranks (no MPI needed). Throws ValueError
/// when the memory limit cannot be met even with every summed label sliced,
/// and the spec's errors for operands that do not fit the subscripts.
Plan plan(const EinsumSpec& spec, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
          int ranks, const Options& options = {});
Plan plan(std::string_view subscripts, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
          int ranks, const Options& options = {});

/// The contraction of `operands` over the session's ranks; equal (up to
/// floating-point summation order) to `tenferro::einsum(subscripts,
/// operands, backend)`. Collective: every rank calls it with the same
/// subscripts and options. Errors: those of `tenferro::einsum` and `plan`,
/// and ValueError for operands that differ between ranks, each raised on
/// every rank (Note [Distributed errors]).
Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands, Backend& backend,
              const Session& session, const Options& options = {});

/// Value and vector-Jacobian product of a distributed einsum.
struct VjpResult {
  Tensor value;
  /// d <cotangent, value> / d operand k (the cotangent of operand k), one per operand.
  std::vector<Tensor> grads;
};

/// The einsum and the cotangents of all operands for the output cotangent
/// `cotangent` (shape and dtype of the result; given where the operands
/// are), each computed slice by slice with the eager AD of `tenferro::ad`
/// and summed over the ranks like the value; equal to the single-process
/// `vjp` of `einsum`. Placement, errors and collectivity as `einsum`.
VjpResult einsum_vjp(std::string_view subscripts, const std::vector<Tensor>& operands,
                     const Tensor& cotangent, Backend& backend, const Session& session,
                     const Options& options = {});

}  // namespace tenferro::dist
