// Host side of the CUDA kernels: layouts are coalesced here (Note [Kernel
// layouts] in launch.hpp), strategies chosen, and the launchers of the .cu
// files called on the backend's stream.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "state.hpp"
#include "tenferro/ops/views.hpp"

namespace tenferro::cuda::detail {
namespace {

cudaStream_t stream_of(CudaBackend& be) { return static_cast<cudaStream_t>(be.stream()); }

void check_launch(const char* op) { check_cuda(cudaGetLastError(), op, "kernel launch"); }

/// Axes of one shape seen by several operands after coalescing: extent-1
/// axes dropped, ordered by |stride| of operand `key` (innermost first),
/// neighbours merged when contiguous in every operand.
struct Coalesced {
  std::vector<std::int64_t> shape;
  std::vector<std::vector<std::int64_t>> strides;  // [operand][axis]
  int rank() const { return static_cast<int>(shape.size()); }
};

Coalesced coalesce(std::span<const std::int64_t> shape, const std::vector<const std::int64_t*>& strides,
                   std::size_t key) {
  const std::size_t k = strides.size();
  std::vector<int> axes;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) axes.push_back(static_cast<int>(i));
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) {
    return std::llabs(strides[key][a]) < std::llabs(strides[key][b]);
  });
  Coalesced c;
  c.strides.resize(k);
  for (int a : axes) {
    const std::int64_t n = shape[static_cast<std::size_t>(a)];
    bool merge = !c.shape.empty();
    for (std::size_t o = 0; merge && o < k; ++o)
      merge = strides[o][a] == c.strides[o].back() * c.shape.back();
    if (merge) {
      c.shape.back() *= n;
      continue;
    }
    c.shape.push_back(n);
    for (std::size_t o = 0; o < k; ++o) c.strides[o].push_back(strides[o][a]);
  }
  if (c.shape.empty()) {  // a single element
    c.shape.push_back(1);
    for (std::size_t o = 0; o < k; ++o) c.strides[o].push_back(0);
  }
  return c;
}

template <class T>
std::vector<T> as_vector(const SmallVec<T>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace

Tensor restride(const Tensor& t, Shape shape, Strides strides, std::int64_t offset) {
  return Tensor(t.storage(), t.dtype(), std::move(shape), std::move(strides), offset);
}

// ---- copies ------------------------------------------------------------------------------

void copy(CudaBackend& be, const Tensor& dst, const Tensor& src, const std::int64_t* src_delta,
          const std::int64_t* dst_delta) {
  const std::int64_t n = dst.numel();
  if (n == 0) return;
  const std::size_t es = dtype_size(dst.dtype());
  Coalesced c = coalesce(dst.shape(), {dst.strides().data(), src.strides().data()}, 0);
  const auto& ds = c.strides[0];
  const auto& ss = c.strides[1];
  const int rank = c.rank();
  if (rank == 1 && ds[0] == 1 && ss[0] == 1 && !src_delta && !dst_delta) {
    check_cuda(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), static_cast<std::size_t>(n) * es,
                               cudaMemcpyDeviceToDevice, stream_of(be)),
               "copy", "cudaMemcpyAsync");
    return;
  }
  // The source's fastest (non-broadcast) axis; a transpose when it is not
  // the destination's.
  int fast_src = -1;
  for (int i = 0; i < rank; ++i) {
    const std::int64_t s = std::llabs(ss[static_cast<std::size_t>(i)]);
    if (s != 0 && (fast_src < 0 || s < std::llabs(ss[static_cast<std::size_t>(fast_src)]))) fast_src = i;
  }
  if (rank >= 2 && fast_src > 0 && std::llabs(ss[0]) > 1) {
    std::vector<int> by_src(static_cast<std::size_t>(rank));
    std::iota(by_src.begin(), by_src.end(), 0);
    auto key = [&](int a) {  // broadcast axes last
      const std::int64_t s = std::llabs(ss[static_cast<std::size_t>(a)]);
      return s == 0 ? INT64_MAX : s;
    };
    std::stable_sort(by_src.begin(), by_src.end(), [&](int a, int b) { return key(a) < key(b); });
    std::vector<char> group(static_cast<std::size_t>(rank), 0);  // 1: A, 2: B, 0: batch
    group[static_cast<std::size_t>(by_src[0])] = 2;
    TileArgs t;
    auto add = [&](int axis, std::int64_t* shape, std::int64_t* sstr, std::int64_t* dstr, int& r,
                   std::int64_t& prod, char g) {
      const std::size_t a = static_cast<std::size_t>(axis);
      shape[r] = c.shape[a];
      sstr[r] = ss[a];
      dstr[r] = ds[a];
      ++r;
      prod *= c.shape[a];
      group[a] = g;
    };
    for (int i = 0; i < rank && t.na < kTile && t.rank_a < kMaxGroup; ++i)
      if (group[static_cast<std::size_t>(i)] == 0) add(i, t.shape_a, t.src_a, t.dst_a, t.rank_a, t.na, 1);
    for (int i : by_src) {
      if (t.nb >= kTile || t.rank_b >= kMaxGroup) break;
      if (group[static_cast<std::size_t>(i)] == 1 || (group[static_cast<std::size_t>(i)] == 2 && t.rank_b > 0))
        continue;
      add(i, t.shape_b, t.src_b, t.dst_b, t.rank_b, t.nb, 2);
    }
    for (int i = 0; i < rank; ++i)
      if (group[static_cast<std::size_t>(i)] == 0) add(i, t.shape_c, t.src_c, t.dst_c, t.rank_batch, t.nbatch, 3);
    if (t.na >= 8 && t.nb >= 8) {
      t.dst = dst.data_ptr();
      t.src = src.data_ptr();
      t.src_delta = src_delta;
      t.dst_delta = dst_delta;
      launch_tiled_copy(t, es, stream_of(be));
      return check_launch("copy");
    }
  }
  CopyArgs a;
  a.n = n;
  a.rank = rank;
  for (int i = 0; i < rank; ++i) {
    a.shape[i] = c.shape[static_cast<std::size_t>(i)];
    a.dst_strides[i] = ds[static_cast<std::size_t>(i)];
    a.src_strides[i] = ss[static_cast<std::size_t>(i)];
  }
  a.dst = dst.data_ptr();
  a.src = src.data_ptr();
  a.src_delta = src_delta;
  a.dst_delta = dst_delta;
  launch_copy(a, es, stream_of(be));
  check_launch("copy");
}

Tensor contiguous(CudaBackend& be, const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = be.empty(t.dtype(), t.shape());
  copy(be, out, t);
  return out;
}

void fill_zero(CudaBackend& be, const Tensor& t) {
  if (t.numel() == 0) return;
  if (t.is_contiguous()) {
    check_cuda(cudaMemsetAsync(t.data_ptr(), 0, static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype()),
                               stream_of(be)),
               "fill", "cudaMemsetAsync");
    return;
  }
  Tensor zero = be.empty(t.dtype(), {});
  check_cuda(cudaMemsetAsync(zero.data_ptr(), 0, dtype_size(t.dtype()), stream_of(be)), "fill",
             "cudaMemsetAsync");
  copy(be, t, restride(zero, t.shape(), Strides(t.shape().size(), 0), 0));
}

// ---- elementwise -----------------------------------------------------------------------------

void elementwise(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                 const Tensor& out) {
  const Strides zeros(out.shape().size(), 0);
  std::vector<const std::int64_t*> strides{out.strides().data()};
  for (const Tensor& t : in)  // rank-0 operands of select/clamp broadcast
    strides.push_back(t.ndim() == 0 && out.ndim() > 0 ? zeros.data() : t.strides().data());
  Coalesced c = coalesce(out.shape(), strides, 0);
  StridedArgs a;
  a.n = out.numel();
  a.rank = c.rank();
  a.num = static_cast<int>(strides.size());
  for (int d = 0; d < a.rank; ++d) {
    a.shape[d] = c.shape[static_cast<std::size_t>(d)];
    for (int k = 0; k < a.num; ++k) a.strides[k][d] = c.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
  }
  a.data[0] = out.data_ptr();
  for (std::size_t k = 0; k < in.size(); ++k) a.data[k + 1] = in[k].data_ptr();
  DType dts[3] = {DType::f64, DType::f64, DType::f64};
  for (std::size_t k = 0; k < in.size() && k < 3; ++k) dts[k] = in[k].dtype();
  launch_elementwise(kind, attrs, dts, out.dtype(), a, stream_of(be));
  check_launch(op_name(kind));
}

// ---- reductions ------------------------------------------------------------------------------

void reduce(CudaBackend& be, OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out) {
  const std::size_t r = in.shape().size();
  std::vector<bool> reduced(r, false);
  for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Shape kept_shape, red_shape;
  Strides kept_in, kept_out, red_in;
  for (std::size_t i = 0, j = 0; i < r; ++i) {
    if (reduced[i]) {
      red_shape.push_back(in.shape()[i]);
      red_in.push_back(in.strides()[i]);
    } else {
      kept_shape.push_back(in.shape()[i]);
      kept_in.push_back(in.strides()[i]);
      kept_out.push_back(out.strides()[j++]);
    }
  }
  Coalesced kc = coalesce(kept_shape, {kept_out.data(), kept_in.data()}, 0);
  Coalesced rc = coalesce(red_shape, {red_in.data()}, 0);
  ReduceArgs a;
  a.nout = out.numel();
  a.nred = shape_numel(red_shape);
  a.kept_rank = kc.rank();
  for (int d = 0; d < a.kept_rank; ++d) {
    a.kept_shape[d] = kc.shape[static_cast<std::size_t>(d)];
    a.kept_out[d] = kc.strides[0][static_cast<std::size_t>(d)];
    a.kept_in[d] = kc.strides[1][static_cast<std::size_t>(d)];
  }
  a.red_rank = a.nred == 0 ? 0 : rc.rank();
  for (int d = 0; d < a.red_rank; ++d) {
    a.red_shape[d] = rc.shape[static_cast<std::size_t>(d)];
    a.red_in[d] = rc.strides[0][static_cast<std::size_t>(d)];
  }
  a.in = in.data_ptr();
  a.out = out.data_ptr();
  // Adjacent outputs adjacent in memory (the innermost input axis is kept):
  // one thread per output reads coalesced.
  const std::int64_t kept_fast = a.kept_rank > 0 && a.nout > 1 ? std::llabs(a.kept_in[0]) : -1;
  const std::int64_t red_fast = a.red_rank > 0 ? std::llabs(a.red_in[0]) : -1;
  const bool per_thread = a.nred <= 32 || (kept_fast >= 0 && kept_fast < red_fast && a.nout >= 2048);
  if (per_thread) {
    launch_reduce(kind, in.dtype(), a, true, 1, stream_of(be));
    return check_launch(op_name(kind));
  }
  constexpr std::int64_t kTargetBlocks = 1056, kPerBlock = 4096;
  const std::int64_t splits = std::clamp<std::int64_t>(
      std::min((a.nred + kPerBlock - 1) / kPerBlock, kTargetBlocks / std::max<std::int64_t>(a.nout, 1)), 1, 1024);
  if (splits == 1) {
    launch_reduce(kind, in.dtype(), a, false, 1, stream_of(be));
    return check_launch(op_name(kind));
  }
  // Two passes: [nout, splits] partials, then a reduction over the splits.
  Tensor partial = be.empty(in.dtype(), {a.nout * splits});
  ReduceArgs first = a;
  first.out = partial.data_ptr();
  launch_reduce(kind, in.dtype(), first, false, static_cast<int>(splits), stream_of(be));
  check_launch(op_name(kind));
  ReduceArgs second = a;
  std::int64_t acc = 1;
  for (int d = 0; d < a.kept_rank; ++d) {
    second.kept_in[d] = acc;
    acc *= a.kept_shape[d];
  }
  second.nred = splits;
  second.red_rank = 1;
  second.red_shape[0] = splits;
  second.red_in[0] = a.nout;
  second.in = partial.data_ptr();
  launch_reduce(kind, in.dtype(), second, splits <= 32, 1, stream_of(be));
  check_launch(op_name(kind));
}

// ---- structural ------------------------------------------------------------------------------

namespace {

/// Device int64 offset of a dynamic slice of `x`-like extents `extent`
/// (slice sizes `size`) with strides `stride`, from the start indices `starts`.
Tensor dynamic_delta(CudaBackend& be, const Tensor& starts, const Shape& extent, const Shape& size,
                     const Strides& stride) {
  Tensor delta = be.empty(DType::i64, {1});
  DeltaArgs d;
  d.rank = static_cast<int>(extent.size());
  d.starts = starts.data_ptr();
  d.starts_i64 = starts.dtype() == DType::i64;
  d.starts_stride = starts.ndim() > 0 ? starts.strides()[0] : 0;
  for (int i = 0; i < d.rank; ++i) {
    const std::size_t u = static_cast<std::size_t>(i);
    d.max_start[i] = std::max<std::int64_t>(extent[u] - size[u], 0);
    d.stride[i] = stride[u];
  }
  d.out = delta.data<std::int64_t>();
  if (d.rank == 0) {
    check_cuda(cudaMemsetAsync(d.out, 0, sizeof(std::int64_t), stream_of(be)), "dynamic_slice", "cudaMemsetAsync");
    return delta;
  }
  launch_dynamic_delta(d, stream_of(be));
  check_launch("dynamic_slice");
  return delta;
}

bool contains(const DimVec& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void pad(CudaBackend& be, const PadAttrs& a, const Tensor& x, const Tensor& value, const Tensor& out) {
  copy(be, out, ops::broadcast_in_dim_view(value, {out.shape(), {}}));
  Shape s;
  Strides xs, os;
  std::int64_t xoff = x.offset(), ooff = out.offset();
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t n = x.shape()[i], m = out.shape()[i], lo = a.edge_padding_low[i];
    std::int64_t step = a.interior_padding[i] + 1;
    // Operand index j lands at lo + j * step; keep those inside [0, m).
    // (As in the CPU kernel: shape inference checked that step and
    // m - 1 - lo fit in int64; ceil(-lo / step) never forms -lo.)
    std::int64_t j0 = lo >= 0 ? 0 : -(lo + 1) / step + 1;
    std::int64_t j1 = m - 1 - lo < 0 ? -1 : std::min(n - 1, (m - 1 - lo) / step);
    if (j1 < j0) return;
    s.push_back(j1 - j0 + 1);
    xs.push_back(x.strides()[i]);
    os.push_back(j1 > j0 ? out.strides()[i] * step : 0);  // a single element needs no step
    xoff += j0 * x.strides()[i];
    ooff += (lo + j0 * step) * out.strides()[i];
  }
  copy(be, restride(out, s, os, ooff), restride(x, s, xs, xoff));
}

void gather(CudaBackend& be, const GatherAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& out) {
  const std::size_t ir = idx.shape().size();
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim);
  GatherArgs g;
  g.n = out.numel();
  g.rank = static_cast<int>(out.ndim());
  std::size_t next_operand = 0, next_batch = 0;
  for (std::size_t d = 0; d < out.shape().size(); ++d) {
    g.shape[d] = out.shape()[d];
    g.out_stride[d] = out.strides()[d];
    if (contains(a.offset_dims, static_cast<std::int64_t>(d))) {
      while (contains(a.collapsed_slice_dims, static_cast<std::int64_t>(next_operand))) ++next_operand;
      g.x_stride[d] = x.strides()[next_operand++];
      g.idx_stride[d] = 0;
    } else {
      if (next_batch == ivd) ++next_batch;
      g.x_stride[d] = 0;
      g.idx_stride[d] = idx.strides()[next_batch++];
    }
  }
  g.nvec = ivd < ir ? static_cast<int>(idx.shape()[ivd]) : 1;
  g.vstride = ivd < ir ? idx.strides()[ivd] : 0;
  for (int k = 0; k < g.nvec; ++k) {
    const std::size_t d = static_cast<std::size_t>(a.start_index_map[static_cast<std::size_t>(k)]);
    g.map_stride[k] = x.strides()[d];
    g.map_max[k] = std::max<std::int64_t>(x.shape()[d] - a.slice_sizes[d], 0);
  }
  g.idx_i64 = idx.dtype() == DType::i64;
  g.x = x.data_ptr();
  g.idx = idx.data_ptr();
  g.out = out.data_ptr();
  launch_gather(g, dtype_size(x.dtype()), stream_of(be));
  check_launch("gather");
}

void scatter(CudaBackend& be, const ScatterAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& upd,
             const Tensor& out) {
  // Every update lands at an offset in [0, numel) of the (dense) output.
  std::int64_t span = 0;
  for (std::size_t i = 0; i < out.shape().size(); ++i) {
    TF_CHECK(out.strides()[i] >= 0, ValueError, "scatter", "output strides ", out.strides(), " are not dense");
    span += (out.shape()[i] - 1) * out.strides()[i];
  }
  TF_CHECK(span < out.numel(), ValueError, "scatter", "output strides ", out.strides(),
           " are not a dense layout of ", out.shape());
  copy(be, out, x);
  if (upd.numel() == 0) return;
  const std::size_t r = x.shape().size();
  const std::size_t ir = idx.shape().size();
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim);
  std::vector<std::int64_t> window_extent(r, 1);
  ScatterArgs s;
  s.n = upd.numel();
  s.rank = static_cast<int>(upd.ndim());
  std::size_t next_operand = 0, next_batch = 0;
  std::int64_t batch_weight = 1;
  for (std::size_t d = 0; d < upd.shape().size(); ++d) {
    s.shape[d] = upd.shape()[d];
    s.upd_stride[d] = upd.strides()[d];
    if (contains(a.update_window_dims, static_cast<std::int64_t>(d))) {
      while (contains(a.inserted_window_dims, static_cast<std::int64_t>(next_operand))) ++next_operand;
      window_extent[next_operand] = upd.shape()[d];
      s.out_stride[d] = out.strides()[next_operand++];
      s.idx_stride[d] = 0;
      s.batch_mul[d] = 0;
    } else {
      if (next_batch == ivd) ++next_batch;
      s.out_stride[d] = 0;
      s.idx_stride[d] = idx.strides()[next_batch++];
      s.batch_mul[d] = batch_weight;
      batch_weight *= upd.shape()[d];
    }
  }
  s.nvec = ivd < ir ? static_cast<int>(idx.shape()[ivd]) : 1;
  s.vstride = ivd < ir ? idx.strides()[ivd] : 0;
  for (int k = 0; k < s.nvec; ++k) {
    const std::size_t d = static_cast<std::size_t>(a.scatter_dims_to_operand_dims[static_cast<std::size_t>(k)]);
    s.map_out_stride[k] = out.strides()[d];
    s.map_limit[k] = x.shape()[d] - window_extent[d];
  }
  s.idx_i64 = idx.dtype() == DType::i64;
  s.upd = upd.data_ptr();
  s.idx = idx.data_ptr();
  s.out = out.data_ptr();
  Tensor winner;
  if (a.mode == ScatterMode::replace) {
    winner = be.empty(DType::i64, {out.numel()});
    check_cuda(cudaMemsetAsync(winner.data_ptr(), 0xFF, static_cast<std::size_t>(out.numel()) * 8, stream_of(be)),
               "scatter", "cudaMemsetAsync");
    s.winner = static_cast<long long*>(winner.data_ptr());
  }
  launch_scatter(s, x.dtype(), stream_of(be));
  check_launch("scatter");
}

}  // namespace

void structural(CudaBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in,
                const Tensor& out) {
  const Tensor& x = in[0];
  switch (kind) {
    case OpKind::transpose:
      return copy(be, out, x.permute(std::get<PermutationAttrs>(attrs).permutation));
    case OpKind::reshape:
      // Column-major element order: view the output with the operand's shape.
      if (out.is_contiguous())
        return copy(be, restride(out, x.shape(), col_major_strides(x.shape()), out.offset()), x);
      return copy(be, out, *ops::reshape_view(contiguous(be, x), out.shape()));
    case OpKind::broadcast_in_dim:
      return copy(be, out, ops::broadcast_in_dim_view(x, std::get<BroadcastInDimAttrs>(attrs)));
    case OpKind::slice:
      return copy(be, out, ops::slice_view(x, std::get<SliceAttrs>(attrs)));
    case OpKind::reverse:
      return copy(be, out, x.flip(std::get<AxesAttrs>(attrs).dimensions));
    case OpKind::dynamic_slice: {
      const Shape& sizes = std::get<DynamicSliceAttrs>(attrs).slice_sizes;
      Tensor delta = dynamic_delta(be, in[1], x.shape(), sizes, x.strides());
      return copy(be, out, restride(x, sizes, x.strides(), x.offset()), delta.data<std::int64_t>());
    }
    case OpKind::dynamic_update_slice: {
      const Tensor& upd = in[1];
      copy(be, out, x);
      if (upd.numel() == 0) return;
      Tensor delta = dynamic_delta(be, in[2], x.shape(), upd.shape(), out.strides());
      return copy(be, restride(out, upd.shape(), out.strides(), out.offset()), upd, nullptr,
                  delta.data<std::int64_t>());
    }
    case OpKind::pad:
      return pad(be, std::get<PadAttrs>(attrs), x, in[1], out);
    case OpKind::concatenate: {
      const std::int64_t dim = std::get<ConcatenateAttrs>(attrs).dimension;
      std::int64_t at = 0;
      for (const Tensor& t : in) {
        const std::int64_t n = t.shape()[static_cast<std::size_t>(dim)];
        if (n > 0 && t.numel() > 0) copy(be, out.slice(dim, at, at + n), t);
        at += n;
      }
      return;
    }
    case OpKind::gather:
      return gather(be, std::get<GatherAttrs>(attrs), x, in[1], out);
    case OpKind::scatter:
      return scatter(be, std::get<ScatterAttrs>(attrs), x, in[1], in[2], out);
    default:
      TF_INTERNAL_ASSERT(false, "cuda structural: ", op_name(kind), " is not structural");
  }
}

}  // namespace tenferro::cuda::detail
