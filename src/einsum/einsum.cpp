// Eager einsum, the eager emitter and the plan cache.
#include "tenferro/einsum/einsum.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "pool.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/ops/sugar.hpp"

namespace tenferro {

// ---- EagerEmitter ----------------------------------------------------------------

Tensor EagerEmitter::convert(const Tensor& a, DType dtype) { return ops::convert(a, dtype, backend); }
Tensor EagerEmitter::reshape(const Tensor& a, const Shape& shape) { return ops::reshape(a, shape, backend); }
Tensor EagerEmitter::diagonal(const Tensor& a, std::int64_t axis1, std::int64_t axis2) {
  if (views) return a.diagonal(axis1, axis2);
  TF_CHECK(backend.device().is_cpu(), UnimplementedError, "einsum",
           "the gather form of a diagonal needs host index constants; backend '", backend.name(),
           "' runs on ", backend.device());
  DiagonalGather g = diagonal_gather(a.shape(), axis1, axis2);
  Tensor idx = Tensor::from_vec_col_major<std::int64_t>(g.index_shape, g.index_values);
  return ops::gather(a, idx, g.attrs, backend);
}
Tensor EagerEmitter::reduce_sum(const Tensor& a, const DimVec& axes) { return ops::reduce_sum(a, axes, backend); }
Tensor EagerEmitter::slice(const Tensor& a, const DimVec& starts, const DimVec& limits, const DimVec& strides) {
  return ops::slice(a, starts, limits, strides, backend);
}
Tensor EagerEmitter::dot_general(const Tensor& a, const Tensor& b, const DotGeneralAttrs& dims) {
  return ops::dot_general(a, b, dims, backend);
}
Tensor EagerEmitter::broadcast_in_dim(const Tensor& a, const Shape& shape, const DimVec& dims) {
  return ops::broadcast_in_dim(a, shape, dims, backend);
}
Tensor EagerEmitter::multiply(const Tensor& a, const Tensor& b) { return ops::multiply(a, b, backend); }
Tensor EagerEmitter::add(const Tensor& a, const Tensor& b) { return ops::add(a, b, backend); }
Tensor EagerEmitter::permute_view(const Tensor& a, const DimVec& perm) {
  return views ? a.permute(perm) : ops::transpose(a, perm, backend);
}
Tensor EagerEmitter::transpose(const Tensor& a, const DimVec& perm) { return ops::transpose(a, perm, backend); }

// ---- EinsumCache -------------------------------------------------------------------

namespace {

void put(std::string& key, std::int64_t v) {
  char buf[sizeof v];
  std::memcpy(buf, &v, sizeof v);
  key.append(buf, sizeof v);
}

std::string plan_key(const EinsumSpec& spec, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
                     const PathOptions& o) {
  std::string key;
  put(key, spec.num_inputs());
  for (const DimVec& in : spec.inputs) {
    put(key, static_cast<std::int64_t>(in.size()));
    for (auto l : in) put(key, l);
  }
  put(key, static_cast<std::int64_t>(spec.output.size()));
  for (auto l : spec.output) put(key, l);
  for (const Shape& s : shapes) {
    put(key, static_cast<std::int64_t>(s.size()));
    for (auto e : s) put(key, e);
  }
  for (DType d : dtypes) put(key, static_cast<std::int64_t>(d));
  put(key, static_cast<std::int64_t>(o.optimizer));
  put(key, static_cast<std::int64_t>(o.path.size()));
  for (auto [i, j] : o.path) {
    put(key, i);
    put(key, j);
  }
  std::int64_t bits;
  for (double d : {o.memory_limit, o.effort, o.time_limit_seconds}) {
    std::memcpy(&bits, &d, sizeof d);
    put(key, bits);
  }
  put(key, static_cast<std::int64_t>(o.seed));
  return key;
}

}  // namespace

EinsumCache::EinsumCache(std::size_t capacity, std::size_t pool_bytes)
    : capacity_(std::max<std::size_t>(capacity, 1)), pool_(std::make_shared<detail::BufferPool>(pool_bytes)) {}

EinsumCache::~EinsumCache() = default;

std::shared_ptr<detail::BufferPool> einsum_cache_pool(EinsumCache& cache) { return cache.pool_; }

std::size_t EinsumCache::pooled_bytes() const { return pool_->held_bytes(); }

std::shared_ptr<const EinsumPlan> EinsumCache::plan(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                                                    const std::vector<DType>& dtypes, const PathOptions& options) {
  std::string key = plan_key(spec, shapes, dtypes, options);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  auto plan = std::make_shared<const EinsumPlan>(
      EinsumPlan::build(spec, shapes, dtypes, einsum_path(spec, shapes, options)));
  ++misses_;
  lru_.emplace_front(key, plan);
  index_[std::move(key)] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return plan;
}

std::size_t EinsumCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lru_.size();
}
std::int64_t EinsumCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}
std::int64_t EinsumCache::misses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return misses_;
}
void EinsumCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  lru_.clear();
  index_.clear();
  hits_ = misses_ = 0;
  pool_->clear();
}

// ---- eager einsum ----------------------------------------------------------------

namespace {

// Note [Einsum layouts]: each operand is viewed with its axes in memory
// order (increasing |stride|), and its labels permuted alike, so that the
// plan sees dense operands in logical order whatever their layout.
Tensor eager(const EinsumSpec& spec, const std::vector<Tensor>& operands, Backend& backend,
             const PathOptions& options, EinsumCache* cache) {
  TF_CHECK(operands.size() == spec.inputs.size(), ValueError, "einsum", "subscripts \"", einsum_echo(spec.text), "\" name ",
           spec.inputs.size(), " operands but ", operands.size(), " were given");
  EinsumSpec viewed = spec;
  std::vector<Tensor> in;
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  in.reserve(operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Tensor& t = operands[k];
    TF_CHECK(t.defined(), ValueError, "einsum", "operand ", k, " is an undefined tensor");
    TF_CHECK(t.device() == backend.device(), DeviceError, "einsum", "operand ", k, " is on ", t.device(),
             " but backend '", backend.name(), "' runs on ", backend.device(), "; transfer it explicitly");
    TF_CHECK(t.ndim() == static_cast<std::int64_t>(spec.inputs[k].size()), ValueError, "einsum", "operand ", k,
             " has shape ", t.shape(), " (rank ", t.ndim(), ") but its subscripts in \"", einsum_echo(spec.text), "\" name ",
             spec.inputs[k].size(), " axes");
    DimVec perm(static_cast<std::size_t>(t.ndim()));
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) {
      auto key = [&](std::int64_t x) {
        return t.shape()[static_cast<std::size_t>(x)] == 1 ? 0 : std::llabs(t.strides()[static_cast<std::size_t>(x)]);
      };
      return key(a) < key(b);
    });
    bool identity = true;
    for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<std::int64_t>(i);
    if (identity) {
      in.push_back(t);
    } else {
      in.push_back(t.permute(perm));
      DimVec labels;
      for (auto p : perm) labels.push_back(spec.inputs[k][static_cast<std::size_t>(p)]);
      viewed.inputs[k] = labels;
    }
    shapes.push_back(in.back().shape());
    dtypes.push_back(t.dtype());
  }
  if (cache == nullptr) {
    EinsumPlan plan = EinsumPlan::build(viewed, shapes, dtypes, einsum_path(viewed, shapes, options));
    EagerEmitter emit{backend};
    return run_plan(plan, std::span<const Tensor>(in), emit);
  }
  std::shared_ptr<const EinsumPlan> plan = cache->plan(viewed, shapes, dtypes, options);
  detail::PooledBackend pooled(backend, einsum_cache_pool(*cache));
  EagerEmitter emit{pooled};
  return run_plan(*plan, std::span<const Tensor>(in), emit);
}

std::vector<std::int64_t> ranks_of(const std::vector<Tensor>& operands) {
  std::vector<std::int64_t> r;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    TF_CHECK(operands[k].defined(), ValueError, "einsum", "operand ", k, " is an undefined tensor");
    r.push_back(operands[k].ndim());
  }
  return r;
}

}  // namespace

Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands, Backend& backend,
              const PathOptions& options, EinsumCache* cache) {
  return eager(parse_einsum(subscripts, ranks_of(operands)), operands, backend, options, cache);
}

Tensor einsum(const std::vector<std::vector<std::int64_t>>& inputs, const std::vector<std::int64_t>& output,
              const std::vector<Tensor>& operands, Backend& backend, const PathOptions& options,
              EinsumCache* cache) {
  return eager(einsum_spec(inputs, output), operands, backend, options, cache);
}

Tensor einsum(const EinsumSpec& spec, const std::vector<Tensor>& operands, Backend& backend,
              const PathOptions& options, EinsumCache* cache) {
  return eager(spec, operands, backend, options, cache);
}

Tensor run_einsum_plan(const EinsumPlan& plan, const std::vector<Tensor>& operands, Backend& backend) {
  TF_CHECK(static_cast<int>(operands.size()) == plan.num_inputs(), ValueError, "einsum", "the plan for \"",
           plan.spec().text, "\" takes ", plan.num_inputs(), " operands, got ", operands.size());
  for (std::size_t k = 0; k < operands.size(); ++k) {
    TF_CHECK(operands[k].defined(), ValueError, "einsum", "operand ", k, " is an undefined tensor");
    TF_CHECK(operands[k].shape() == plan.input_shapes()[k] && operands[k].dtype() == plan.input_dtypes()[k],
             ShapeError, "einsum", "operand ", k, " is ", operands[k].dtype(), operands[k].shape(),
             " but the plan for \"", plan.spec().text, "\" was built for ", plan.input_dtypes()[k],
             plan.input_shapes()[k]);
  }
  EagerEmitter emit{backend};
  return run_plan(plan, std::span<const Tensor>(operands), emit);
}

}  // namespace tenferro
