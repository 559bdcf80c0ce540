// tenferro::dist: sliced einsum over MPI ranks (Note [Distributed einsum] in
// tenferro/dist/einsum.hpp). Only the C API of MPI is used.
#include "tenferro/dist/einsum.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <ctime>
#include <cmath>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "tenferro/ad.hpp"
#include "tenferro/einsum/einsum.hpp"
#include "tenferro/einsum/plan.hpp"
#include "tenferro/einsum/traced.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/runtime/eager.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::dist {

// ---- Session -------------------------------------------------------------------

// A planned contraction (spec, distributed plan and its primitive program).
struct Planned {
  EinsumSpec spec;
  Plan plan;
  EinsumPlan program;
};

struct Session::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  bool finalize = false;
  // Plans by (subscripts, operand metadata, options); bounded, cleared when full.
  std::map<std::string, std::shared_ptr<const Planned>> plans;
  static constexpr std::size_t kMaxPlans = 64;
};

namespace {

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  TF_THROW(BackendError, "dist", what, " failed: ", std::string(text, static_cast<std::size_t>(len)));
}

void init(MPI_Comm& comm, bool& finalize, int* argc, char*** argv, int& rank, int& size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    mpi_check(MPI_Init(argc, argv), "MPI_Init");
    finalize = true;
  }
  mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
}

}  // namespace

Session::Session(int& argc, char**& argv) : impl_(std::make_unique<Impl>()) {
  init(impl_->comm, impl_->finalize, &argc, &argv, rank_, size_);
}

Session::Session() : impl_(std::make_unique<Impl>()) { init(impl_->comm, impl_->finalize, nullptr, nullptr, rank_, size_);
}

Session::~Session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  if (impl_->finalize) MPI_Finalize();
}

void Session::barrier() const { mpi_check(MPI_Barrier(impl_->comm), "MPI_Barrier"); }

void* Session::comm() const { return &impl_->comm; }

namespace {

MPI_Comm comm_of(const Session& s) { return *static_cast<MPI_Comm*>(s.comm()); }

// ---- Note [Distributed errors] -------------------------------------------------

enum class Kind : int { value, shape, dtype, device, index, unimplemented, backend, memory, internal, other };

Kind kind_of(const std::exception_ptr& err) {
  try {
    std::rethrow_exception(err);
  } catch (const ValueError&) {
    return Kind::value;
  } catch (const ShapeError&) {
    return Kind::shape;
  } catch (const DTypeError&) {
    return Kind::dtype;
  } catch (const DeviceError&) {
    return Kind::device;
  } catch (const IndexError&) {
    return Kind::index;
  } catch (const UnimplementedError&) {
    return Kind::unimplemented;
  } catch (const BackendError&) {
    return Kind::backend;
  } catch (const MemoryError&) {
    return Kind::memory;
  } catch (const InternalError&) {
    return Kind::internal;
  } catch (...) {
    return Kind::other;
  }
}

std::string message_of(const std::exception_ptr& err) {
  try {
    std::rethrow_exception(err);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

[[noreturn]] void throw_kind(Kind kind, const std::string& m, std::uint64_t requested, std::uint64_t limit) {
  switch (kind) {
    case Kind::value: throw ValueError(m);
    case Kind::shape: throw ShapeError(m);
    case Kind::dtype: throw DTypeError(m);
    case Kind::device: throw DeviceError(m);
    case Kind::index: throw IndexError(m);
    case Kind::unimplemented: throw UnimplementedError(m);
    case Kind::backend: throw BackendError(m);
    case Kind::memory: throw MemoryError(m, requested, limit);
    case Kind::internal: throw InternalError(m);
    case Kind::other: break;
  }
  throw Error(ErrorCode::Internal, m);
}

// Ends a collective phase: when any rank failed, every rank throws the
// error of the lowest failing rank (same class, its message quoted).
void agree(const Session& s, const std::exception_ptr& err, const char* op, const char* phase) {
  MPI_Comm comm = comm_of(s);
  int mine = err ? s.rank() : s.size(), first = s.size();
  mpi_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == s.size()) return;
  int kind = 0;
  std::uint64_t sizes[3] = {0, 0, 0};  // message length, MemoryError fields
  std::string msg;
  if (s.rank() == first) {
    kind = static_cast<int>(kind_of(err));
    msg = message_of(err);
    try {
      std::rethrow_exception(err);
    } catch (const MemoryError& e) {
      sizes[1] = e.requested_bytes();
      sizes[2] = e.limit_bytes();
    } catch (...) {
    }
    sizes[0] = msg.size();
  }
  mpi_check(MPI_Bcast(&kind, 1, MPI_INT, first, comm), "MPI_Bcast");
  mpi_check(MPI_Bcast(sizes, 3, MPI_UINT64_T, first, comm), "MPI_Bcast");
  msg.resize(sizes[0]);
  mpi_check(MPI_Bcast(msg.data(), static_cast<int>(sizes[0]), MPI_CHAR, first, comm), "MPI_Bcast");
  const std::string text = detail::str(op, ": rank ", first, " of ", s.size(), " failed while ", phase, ": ", msg);
  throw_kind(static_cast<Kind>(kind), text, sizes[1], sizes[2]);
}

// Runs `f` on this rank, then agrees on success (Note [Distributed errors]).
template <class F>
void phase(const Session& s, const char* op, const char* what, F&& f) {
  std::exception_ptr err;
  try {
    f();
  } catch (...) {
    err = std::current_exception();
  }
  agree(s, err, op, what);
}

// ---- data movement -----------------------------------------------------------------

constexpr std::int64_t kChunk = std::int64_t{1} << 28;  // elements per MPI call (counts are int)

MPI_Datatype mpi_type(DType d) {
  switch (d) {
    case DType::f32: return MPI_FLOAT;
    case DType::f64: return MPI_DOUBLE;
    case DType::c64: return MPI_C_FLOAT_COMPLEX;
    case DType::c128: return MPI_C_DOUBLE_COMPLEX;
    case DType::i32: return MPI_INT32_T;
    case DType::i64: return MPI_INT64_T;
    case DType::bool_: return MPI_C_BOOL;
  }
  return MPI_BYTE;
}

void bcast_bytes(void* data, std::size_t n, int root, MPI_Comm comm) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < n;) {
    const std::size_t k = std::min<std::size_t>(n - done, static_cast<std::size_t>(kChunk));
    mpi_check(MPI_Bcast(p + done, static_cast<int>(k), MPI_BYTE, root, comm), "MPI_Bcast");
    done += k;
  }
}

// Sums the contiguous `t` over the ranks, in place (on the root only for `to_root`).
void sum_over_ranks(const Tensor& t, bool to_root, int root, const Session& s) {
  if (s.size() == 1 || t.numel() == 0) return;
  MPI_Comm comm = comm_of(s);
  const MPI_Datatype type = mpi_type(t.dtype());
  char* p = static_cast<char*>(t.data_ptr());
  const std::size_t item = dtype_size(t.dtype());
  for (std::int64_t done = 0; done < t.numel();) {
    const std::int64_t k = std::min(t.numel() - done, kChunk);
    void* at = p + static_cast<std::size_t>(done) * item;
    if (!to_root) {
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, at, static_cast<int>(k), type, MPI_SUM, comm), "MPI_Allreduce");
    } else if (s.rank() == root) {
      mpi_check(MPI_Reduce(MPI_IN_PLACE, at, static_cast<int>(k), type, MPI_SUM, root, comm), "MPI_Reduce");
    } else {
      mpi_check(MPI_Reduce(at, nullptr, static_cast<int>(k), type, MPI_SUM, root, comm), "MPI_Reduce");
    }
    done += k;
  }
}

// Operand metadata as integers: [count, (dtype, rank, extents...)...].
std::vector<std::int64_t> encode(const std::vector<Tensor>& ts) {
  std::vector<std::int64_t> m{static_cast<std::int64_t>(ts.size())};
  for (std::size_t k = 0; k < ts.size(); ++k) {
    TF_CHECK(ts[k].defined(), ValueError, "dist::einsum", "operand ", k, " is an undefined tensor");
    m.push_back(static_cast<std::int64_t>(ts[k].dtype()));
    m.push_back(ts[k].ndim());
    for (auto e : ts[k].shape()) m.push_back(e);
  }
  return m;
}

struct Meta {
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
};

Meta decode(const std::vector<std::int64_t>& m) {
  Meta out;
  std::size_t at = 1;
  for (std::int64_t k = 0; k < m[0]; ++k) {
    out.dtypes.push_back(static_cast<DType>(m[at++]));
    const std::int64_t r = m[at++];
    Shape s;
    for (std::int64_t i = 0; i < r; ++i) s.push_back(m[at++]);
    out.shapes.push_back(s);
  }
  return out;
}

std::string render(const Meta& m) {
  std::ostringstream os;
  for (std::size_t k = 0; k < m.shapes.size(); ++k) os << (k ? ", " : "") << m.dtypes[k] << m.shapes[k];
  return "{" + os.str() + "}";
}

std::uint64_t hash_bytes(const Tensor& t) {
  const Tensor c = t.contiguous();
  const unsigned char* p = static_cast<const unsigned char*>(c.data_ptr());
  const std::size_t n = static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype());
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::vector<std::int64_t> bcast_ints(std::vector<std::int64_t> v, int root, const Session& s) {
  MPI_Comm comm = comm_of(s);
  std::int64_t n = static_cast<std::int64_t>(v.size());
  mpi_check(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm), "MPI_Bcast");
  v.resize(static_cast<std::size_t>(n));
  mpi_check(MPI_Bcast(v.data(), static_cast<int>(n), MPI_INT64_T, root, comm), "MPI_Bcast");
  return v;
}

// Brings the operands (the cotangent last, for the VJP) to every rank as
// contiguous tensors with the same metadata and data (Options::operands).
std::vector<Tensor> share_operands(const std::vector<Tensor>& given, const Session& s, const Options& o) {
  const char* op = "dist::einsum";
  const bool from_root = o.operands == Placement::root;
  const bool here = !from_root || s.rank() == o.root;
  std::vector<std::int64_t> meta;
  phase(s, op, "checking its operands", [&] {
    TF_CHECK(o.root >= 0 && o.root < s.size(), ValueError, op, "root ", o.root, " is not a rank of a ", s.size(),
             "-rank session");
    TF_CHECK(o.min_slices_per_rank >= 1, ValueError, op, "min_slices_per_rank must be >= 1, got ",
             o.min_slices_per_rank);
    if (here) meta = encode(given);
  });
  const std::vector<std::int64_t> root_meta = bcast_ints(meta, o.root, s);
  const Meta m = decode(root_meta);
  std::vector<Tensor> out;
  if (from_root) {
    phase(s, op, "receiving its operands", [&] {
      for (std::size_t k = 0; k < m.shapes.size(); ++k)
        out.push_back(s.rank() == o.root ? given[k].contiguous() : Tensor::zeros(m.shapes[k], m.dtypes[k]));
    });
    for (const Tensor& t : out)
      bcast_bytes(t.data_ptr(), static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype()), o.root, comm_of(s));
    return out;
  }
  phase(s, op, "comparing its operands with the root's", [&] {
    TF_CHECK(meta == root_meta, ValueError, op, "operands differ between ranks: rank ", s.rank(), " has ",
             render(decode(meta)), ", root rank ", o.root, " has ", render(m));
    for (const Tensor& t : given) out.push_back(t.contiguous());
  });
  if (o.check_operand_data && s.size() > 1) {
    std::vector<std::int64_t> hashes;
    for (const Tensor& t : out) hashes.push_back(static_cast<std::int64_t>(hash_bytes(t)));
    const std::vector<std::int64_t> root_hashes = bcast_ints(hashes, o.root, s);
    phase(s, op, "comparing its operands with the root's", [&] {
      for (std::size_t k = 0; k < hashes.size(); ++k)
        TF_CHECK(hashes[k] == root_hashes[k], ValueError, op, "operands differ between ranks: the data of operand ",
                 k, " ", out[k].dtype(), out[k].shape(), " on rank ", s.rank(), " differs from root rank ", o.root,
                 "'s (pass the same data everywhere, or Placement::root)");
    });
  }
  return out;
}

std::vector<std::int64_t> ranks_of(const std::vector<Shape>& shapes) {
  std::vector<std::int64_t> r;
  for (const Shape& s : shapes) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

double ceil_log2(int p) { return p <= 1 ? 0.0 : std::ceil(std::log2(static_cast<double>(p))); }

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  std::ostringstream os;
  os.precision(u == 0 ? 0 : 3);
  os << std::fixed << b << " " << unit[u];
  return os.str();
}

// The slice index of each sliced label for slice number `s` (run_plan's order).
DimVec slice_index(const EinsumPlan& plan, std::int64_t s) {
  const Shape& ext = plan.sliced_extents();
  DimVec index(ext.size(), 0);
  for (std::size_t k = 0; k < ext.size(); ++k) {
    index[k] = s % ext[k];
    s /= ext[k];
  }
  return index;
}

// Runs the prologue, slices [begin, end) and the epilogue of `plan` (zeros
// of the result for an empty range).
Tensor contract_slices(const EinsumPlan& plan, const std::vector<Tensor>& operands, Backend& backend,
                       std::int64_t begin, std::int64_t end) {
  if (begin >= end) return Tensor::zeros(plan.output_shape(), plan.dtype());
  EagerEmitter emit{backend};
  std::vector<Tensor> slot(static_cast<std::size_t>(plan.num_slots()));
  for (std::size_t i = 0; i < operands.size(); ++i) slot[i] = operands[i];
  DimVec index = slice_index(plan, begin);
  tenferro::detail::run_instructions(plan.prologue(), slot, index, emit);
  const std::size_t r = static_cast<std::size_t>(plan.body_result());
  Tensor sum;
  for (std::int64_t s = begin; s < end; ++s) {
    index = slice_index(plan, s);
    tenferro::detail::run_instructions(plan.body(), slot, index, emit);
    sum = s == begin ? std::move(slot[r]) : emit.add(sum, slot[r]);
    slot[r] = Tensor{};
  }
  slot[r] = std::move(sum);
  tenferro::detail::run_instructions(plan.epilogue(), slot, index, emit);
  return std::move(slot[static_cast<std::size_t>(plan.result())]);
}

// A contiguous tensor of our own (never a view of an operand) for MPI to sum into.
Tensor own_contiguous(const Tensor& t, const std::vector<Tensor>& operands) {
  Tensor c = t.contiguous();
  for (const Tensor& o : operands)
    if (o.storage() == c.storage()) return c.duplicate();
  return c;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Gathers this rank's contraction times into `st` on every rank.
void gather_stats(Stats& st, const Session& s) {
  st.contract_seconds_per_rank.assign(static_cast<std::size_t>(s.size()), 0.0);
  st.contract_cpu_seconds_per_rank.assign(static_cast<std::size_t>(s.size()), 0.0);
  mpi_check(MPI_Allgather(&st.contract_seconds, 1, MPI_DOUBLE, st.contract_seconds_per_rank.data(), 1, MPI_DOUBLE,
                          comm_of(s)),
            "MPI_Allgather");
  mpi_check(MPI_Allgather(&st.contract_cpu_seconds, 1, MPI_DOUBLE, st.contract_cpu_seconds_per_rank.data(), 1,
                          MPI_DOUBLE, comm_of(s)),
            "MPI_Allgather");
}

struct Prepared {
  std::shared_ptr<const Planned> planned;
  std::vector<Tensor> operands;  // the cotangent excluded
  Tensor cotangent;
};

std::string plan_key(std::string_view subscripts, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
                     int ranks, const Options& o) {
  std::ostringstream os;
  os.precision(17);
  os << subscripts << '|' << ranks << '|' << o.memory_limit_bytes << '|' << o.min_slices_per_rank << '|'
     << static_cast<int>(o.optimizer) << '|' << o.seed << '|' << o.effort << '|' << static_cast<int>(o.operands);
  for (std::size_t k = 0; k < shapes.size(); ++k) os << '|' << dtypes[k] << shapes[k];
  return os.str();
}

// `cotangent`: the VJP's output cotangent, shared like an operand (nullptr: none).
Prepared prepare(std::string_view subscripts, const std::vector<Tensor>& given, const Tensor* cotangent,
                 const Session& s, const Options& o) {
  std::vector<Tensor> all = given;
  if (cotangent != nullptr) all.push_back(*cotangent);
  const double t0 = now();
  std::vector<Tensor> shared = share_operands(all, s, o);
  const double t1 = now();
  Prepared p;
  bool planned_now = false;
  phase(s, "dist::einsum", "planning", [&] {
    if (cotangent != nullptr) {
      p.cotangent = shared.back();
      shared.pop_back();
    }
    std::vector<Shape> shapes;
    std::vector<DType> dtypes;
    for (const Tensor& t : shared) {
      shapes.push_back(t.shape());
      dtypes.push_back(t.dtype());
    }
    auto& plans = s.impl().plans;
    const std::string key = plan_key(subscripts, shapes, dtypes, s.size(), o);
    auto it = plans.find(key);
    if (it != plans.end()) {
      p.planned = it->second;
    } else {
      EinsumSpec spec = parse_einsum(subscripts, ranks_of(shapes));
      Plan pl = plan(spec, shapes, dtypes, s.size(), o);
      EinsumPlan program = EinsumPlan::build(spec, shapes, dtypes, pl.path);
      p.planned = std::make_shared<const Planned>(Planned{std::move(spec), std::move(pl), std::move(program)});
      planned_now = true;
      if (plans.size() >= Session::Impl::kMaxPlans) plans.clear();
      plans.emplace(key, p.planned);
    }
    const EinsumPlan& program = p.planned->program;
    if (cotangent != nullptr)
      TF_CHECK(p.cotangent.shape() == program.output_shape() && p.cotangent.dtype() == program.dtype(), ShapeError,
               "dist::einsum_vjp", "the cotangent is ", p.cotangent.dtype(), p.cotangent.shape(),
               " but the result of \"", einsum_echo(p.planned->spec.text), "\" is ", program.dtype(),
               program.output_shape());
    p.operands = std::move(shared);
  });
  if (o.stats != nullptr) {
    *o.stats = Stats{};
    o.stats->share_seconds = t1 - t0;
    o.stats->plan_seconds = planned_now ? now() - t1 : 0.0;
  }
  if (o.print_plan && s.rank() == o.root) std::cout << p.planned->plan.to_string() << std::flush;
  return p;
}

// Operand `t` (labels `labels`) with each axis of a sliced label fixed to
// the slice's index (axes of extent 1 broadcast and stay whole).
Tensor slice_operand(const Tensor& t, const DimVec& labels, const EinsumPlan& plan, const DimVec& index) {
  Tensor v = t;
  const DimVec& sliced = plan.sliced_labels();
  for (std::size_t ax = 0; ax < labels.size(); ++ax) {
    auto it = std::find(sliced.begin(), sliced.end(), labels[ax]);
    if (it == sliced.end() || t.shape()[ax] == 1) continue;
    const std::int64_t i = index[static_cast<std::size_t>(it - sliced.begin())];
    v = v.slice(static_cast<std::int64_t>(ax), i, i + 1);
  }
  return v;
}

}  // namespace

// ---- Plan ---------------------------------------------------------------------------

double Plan::predicted_seconds(const Machine& m) const {
  const double depth = ceil_log2(ranks);
  double t = max_rank_flops / m.flops_per_second;
  if (broadcast_bytes > 0) t += depth * (m.latency_seconds + broadcast_bytes / m.bytes_per_second);
  if (ranks > 1) t += 2 * depth * m.latency_seconds + reduce_bytes / m.bytes_per_second;
  return t;
}

double Plan::predicted_speedup(const Machine& m) const {
  return (total_flops / m.flops_per_second) / predicted_seconds(m);
}

std::string Plan::to_string(const Machine& m) const {
  std::ostringstream os;
  os.precision(4);
  os << "dist plan: " << ranks << " rank(s), " << path.pairs.size() << " contraction steps ("
     << path_optimizer_name(path.optimizer) << "), " << path.sliced_labels.size() << " sliced label(s), "
     << num_slices << " slices\n";
  std::int64_t lo = num_slices, hi = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t n = slice_begin[static_cast<std::size_t>(r) + 1] - slice_begin[static_cast<std::size_t>(r)];
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  os << "  slices per rank: " << lo << " .. " << hi << "\n";
  os << "  flops: " << total_flops << " total (unsliced single-process plan: " << unsliced_flops
     << ", x" << (unsliced_flops > 0 ? total_flops / unsliced_flops : 1.0) << "), " << max_rank_flops
     << " on the busiest rank\n";
  os << "  memory per rank: " << human_bytes(peak_bytes_per_rank) << " working + " << human_bytes(operand_bytes)
     << " operands (unsliced single-process plan: " << human_bytes(unsliced_peak_bytes) << " working)\n";
  os << "  communication per rank: " << human_bytes(broadcast_bytes) << " operand broadcast, "
     << human_bytes(reduce_bytes) << " result reduction\n";
  os << "  predicted: " << predicted_seconds(m) << " s, speed-up " << predicted_speedup(m) << " over 1 rank (at "
     << m.flops_per_second << " flop/s per rank, " << m.bytes_per_second << " B/s, " << m.latency_seconds
     << " s latency)\n";
  return os.str();
}

Plan plan(const EinsumSpec& spec, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes, int ranks,
          const Options& o) {
  const char* op = "dist::plan";
  TF_CHECK(ranks >= 1, ValueError, op, "ranks must be >= 1, got ", ranks);
  TF_CHECK(o.min_slices_per_rank >= 1, ValueError, op, "min_slices_per_rank must be >= 1, got ",
           o.min_slices_per_rank);
  const PathOptions search{.optimizer = o.optimizer, .seed = o.seed, .effort = o.effort};
  ContractionPath p = einsum_path(spec, shapes, search);
  EinsumPlan program = EinsumPlan::build(spec, shapes, dtypes, p);
  const double item = static_cast<double>(dtype_size(program.dtype()));
  Plan out;
  out.unsliced_flops = p.cost.flops;
  out.unsliced_peak_bytes = program.peak_live_elements() * item;
  const double limit = static_cast<double>(o.memory_limit_bytes);
  const std::int64_t target = static_cast<std::int64_t>(ranks) * o.min_slices_per_rank;
  auto fits = [&] { return limit == 0 || program.peak_live_elements() * item <= limit; };
  if (!fits()) {
    PathOptions capped = search;
    capped.memory_limit = std::max(1.0, std::floor(limit / item));
    try {
      p = einsum_path(spec, shapes, capped);
    } catch (Error& e) {
      e.prepend_context(detail::str(op, ": memory_limit_bytes = ", o.memory_limit_bytes, " per rank: "));
      throw;
    }
    program = EinsumPlan::build(spec, shapes, dtypes, p);
  }
  // Tighten the cap on the same order until the whole plan (kernel copies,
  // slice sum and result included) fits and every rank has its slices.
  double cap = p.cost.largest_intermediate;
  while (!fits() || p.num_slices < target) {
    cap = std::floor(cap * 0.75);  // small steps: each extra sliced label multiplies the slices
    if (cap < 1) break;
    ContractionPath q;
    try {
      q = einsum_path(spec, shapes, {.path = p.pairs, .memory_limit = cap});
    } catch (const ValueError&) {
      break;  // every summed label that helps is sliced already
    }
    q.optimizer = p.optimizer;
    p = std::move(q);
    program = EinsumPlan::build(spec, shapes, dtypes, p);
  }
  TF_CHECK(fits(), ValueError, op, "memory_limit_bytes = ", o.memory_limit_bytes, " per rank cannot be met for \"",
           einsum_echo(spec.text), "\": the plan still needs ", program.peak_live_elements() * item,
           " bytes with every summed label that helps sliced (", p.num_slices, " slices)");
  out.path = p;
  out.ranks = ranks;
  out.num_slices = p.num_slices;
  for (int r = 0; r <= ranks; ++r) out.slice_begin.push_back(p.num_slices * r / ranks);
  out.total_flops = p.cost.flops;
  out.flops_per_slice = p.cost.flops / static_cast<double>(p.num_slices);
  std::int64_t most = 0;
  for (int r = 0; r < ranks; ++r)
    most = std::max(most, out.slice_begin[static_cast<std::size_t>(r) + 1] - out.slice_begin[static_cast<std::size_t>(r)]);
  out.max_rank_flops = out.flops_per_slice * static_cast<double>(most);
  out.peak_bytes_per_rank = program.peak_live_elements() * item;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    double n = 1;
    for (auto e : shapes[k]) n *= static_cast<double>(e);
    out.operand_bytes += n * static_cast<double>(dtype_size(dtypes[k]));
  }
  double n = 1;
  for (auto e : program.output_shape()) n *= static_cast<double>(e);
  out.result_bytes = n * item;
  if (ranks > 1) {
    out.broadcast_bytes = o.operands == Placement::root ? out.operand_bytes : 0;
    out.reduce_bytes = 2.0 * (ranks - 1) / ranks * out.result_bytes;  // ring allreduce
  }
  return out;
}

Plan plan(std::string_view subscripts, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes, int ranks,
          const Options& options) {
  return plan(parse_einsum(subscripts, ranks_of(shapes)), shapes, dtypes, ranks, options);
}

// ---- einsum and its VJP ----------------------------------------------------------

Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands, Backend& backend,
              const Session& session, const Options& options) {
  Prepared p = prepare(subscripts, operands, nullptr, session, options);
  const std::size_t r = static_cast<std::size_t>(session.rank());
  Tensor part;
  const double w0 = now(), c0 = thread_cpu();
  phase(session, "dist::einsum", "contracting its slices", [&] {
    part = own_contiguous(
        contract_slices(p.planned->program, p.operands, backend, p.planned->plan.slice_begin[r],
                        p.planned->plan.slice_begin[r + 1]),
        p.operands);
    if (options.stats != nullptr) {
      options.stats->contract_seconds = now() - w0;
      options.stats->contract_cpu_seconds = thread_cpu() - c0;
    }
  });
  const bool to_root = options.result == Placement::root;
  const double r0 = now();
  sum_over_ranks(part, to_root, options.root, session);
  if (options.stats != nullptr) {
    options.stats->reduce_seconds = now() - r0;
    gather_stats(*options.stats, session);
  }
  if (to_root && session.rank() != options.root) return Tensor{};
  return part;
}

VjpResult einsum_vjp(std::string_view subscripts, const std::vector<Tensor>& operands, const Tensor& cotangent,
                     Backend& backend, const Session& session, const Options& options) {
  Prepared p = prepare(subscripts, operands, &cotangent, session, options);
  const std::size_t r = static_cast<std::size_t>(session.rank());
  VjpResult out;
  const double w0 = now(), c0 = thread_cpu();
  phase(session, "dist::einsum_vjp", "differentiating its slices", [&] {
    const EinsumPlan& plan = p.planned->program;
    const std::size_t n = p.operands.size();
    for (std::size_t k = 0; k < n; ++k) out.grads.push_back(Tensor::zeros(p.operands[k].shape(), p.operands[k].dtype()));
    out.value = Tensor::zeros(plan.output_shape(), plan.dtype());
    EagerRuntime rt(backend);
    const PathOptions fixed{.path = p.planned->plan.path.pairs};
    const EinsumSpec& spec = p.planned->spec;
    // Every slice has the same shapes: plan the slice's einsum once.
    EinsumCache cache(4, 0);
    EagerFunction f = [&](const std::vector<EagerTensor>& v) {
      return std::vector<EagerTensor>{tenferro::einsum(spec, v, fixed, {}, &cache)};
    };
    for (std::int64_t s = p.planned->plan.slice_begin[r]; s < p.planned->plan.slice_begin[r + 1]; ++s) {
      const DimVec index = slice_index(plan, s);
      std::vector<EagerTensor> leaves;
      for (std::size_t k = 0; k < n; ++k)
        leaves.push_back(rt.tensor(slice_operand(p.operands[k], spec.inputs[k], plan, index)));
      auto [outs, cts] = vjp(rt, f, leaves, {rt.tensor(p.cotangent)});
      out.value = ops::add(out.value, outs[0].value().contiguous(), backend);
      for (std::size_t k = 0; k < n; ++k) {
        Tensor ct = cts[k].value();
        if (ct.dtype() != out.grads[k].dtype()) ct = ops::convert(ct, out.grads[k].dtype(), backend);
        const Tensor region = slice_operand(out.grads[k], spec.inputs[k], plan, index);
        region.copy_from(ops::add(region, ct, backend));
      }
    }
    out.value = out.value.contiguous();
    if (options.stats != nullptr) {
      options.stats->contract_seconds = now() - w0;
      options.stats->contract_cpu_seconds = thread_cpu() - c0;
    }
  });
  const bool to_root = options.result == Placement::root;
  const double r0 = now();
  sum_over_ranks(out.value, to_root, options.root, session);
  for (const Tensor& g : out.grads) sum_over_ranks(g, to_root, options.root, session);
  if (options.stats != nullptr) {
    options.stats->reduce_seconds = now() - r0;
    gather_stats(*options.stats, session);
  }
  if (to_root && session.rank() != options.root) return VjpResult{};
  return out;
}

}  // namespace tenferro::dist
