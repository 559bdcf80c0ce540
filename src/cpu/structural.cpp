// Structural kernels: permutation copy, reshape, broadcast, slicing, padding,
// concatenation, reversal, gather and scatter. Each one reduces to strided
// copies (tenferro::detail::copy_strided) between views of the operands and
// of the output, so any input or output layout is handled in one place.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"
#include "tenferro/ops/views.hpp"
#include "tenferro/tensor/checked.hpp"
#include "tenferro/tensor/strided_copy.hpp"

namespace tenferro::cpu {
namespace {

// Note [Parallel copy] (parallel_copy): an axis split in ranges needs at
// least this many indices per thread unless its extent is a multiple of the
// thread count; the axes that join it rank at least kKeepFastAxes in both
// layouts.
constexpr std::int64_t kEvenSplit = 8;
constexpr int kKeepFastAxes = 2;

// A view of `t`'s storage with another layout (no bounds re-check needed by callers).
Tensor restride(const Tensor& t, Shape shape, Strides strides, std::int64_t offset) {
  return Tensor(t.storage(), t.dtype(), std::move(shape), std::move(strides), offset);
}

// Reads a 1-D integer tensor of start indices into host integers.
DimVec read_indices(const Tensor& idx) {
  DimVec out;
  visit_dtype<kIntegerDTypes>(idx.dtype(), "indices", [&]<class I>() {
    for (I v : idx.to_vec_col_major<I>()) out.push_back(static_cast<std::int64_t>(v));
  });
  return out;
}

std::int64_t clamp_start(std::int64_t s, std::int64_t n, std::int64_t size) {
  return std::clamp<std::int64_t>(s, 0, std::max<std::int64_t>(n - size, 0));
}

// dst[i] += src[i] elementwise over one shape (scatter-add).
void add_into(const Tensor& dst, const Tensor& src) {
  visit_dtype<kNumericDTypes>(dst.dtype(), "scatter", [&]<class T>() {
    Loop<2> loop(dst.shape(), {dst.strides().data(), src.strides().data()});
    T* d = static_cast<T*>(dst.data_ptr());
    const T* s = static_cast<const T*>(src.data_ptr());
    loop.run(0, loop.numel, [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                                const std::array<std::int64_t, 2>& st) {
      for (std::int64_t i = 0; i < n; ++i)
        d[off[0] + i * st[0]] = wrap_add(d[off[0] + i * st[0]], s[off[1] + i * st[1]]);
    });
  });
}

void pad(const PadAttrs& a, const Tensor& x, const Tensor& value, const Tensor& out) {
  // Fill with the padding value, then copy the operand onto its positions.
  parallel_copy(out, ops::broadcast_in_dim_view(value, {out.shape(), {}}));
  Shape s;
  Strides xs, os;
  std::int64_t xoff = x.offset(), ooff = out.offset();
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t n = x.shape()[i], m = out.shape()[i], lo = a.edge_padding_low[i];
    std::int64_t step = a.interior_padding[i] + 1;
    // Operand index j lands at lo + j * step; keep those inside [0, m).
    // (Shape inference checked that step and m - 1 - lo fit in int64;
    // ceil(-lo / step) is written so that -lo is never formed.)
    std::int64_t j0 = lo >= 0 ? 0 : -(lo + 1) / step + 1;
    std::int64_t j1 = m - 1 - lo < 0 ? -1 : std::min(n - 1, (m - 1 - lo) / step);
    if (j1 < j0) return;
    s.push_back(j1 - j0 + 1);
    xs.push_back(x.strides()[i]);
    os.push_back(j1 > j0 ? out.strides()[i] * step : 0);  // a single element needs no step
    xoff += j0 * x.strides()[i];
    ooff += (lo + j0 * step) * out.strides()[i];
  }
  parallel_copy(restride(out, s, os, ooff), restride(x, s, xs, xoff));
}

void gather(const GatherAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& out) {
  const std::size_t r = x.shape().size();
  const std::size_t ir = idx.shape().size();
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim);
  auto is_offset = [&](std::size_t d) {
    return std::find(a.offset_dims.begin(), a.offset_dims.end(), std::int64_t(d)) != a.offset_dims.end();
  };
  auto collapsed = [&](std::size_t d) {
    return std::find(a.collapsed_slice_dims.begin(), a.collapsed_slice_dims.end(), std::int64_t(d)) !=
           a.collapsed_slice_dims.end();
  };
  // The slice block: operand axes that are not collapsed, in order, paired
  // with the output offset axes.
  Shape block;
  Strides xblock, oblock;
  {
    std::size_t k = 0;
    for (std::size_t d = 0; d < r; ++d) {
      if (collapsed(d)) continue;
      block.push_back(a.slice_sizes[d]);
      xblock.push_back(x.strides()[d]);
      oblock.push_back(out.strides()[static_cast<std::size_t>(a.offset_dims[k++])]);
    }
  }
  // Batch axes: indices axes except index_vector_dim, paired with output batch axes.
  Shape batch;
  Strides ibatch, obatch;
  {
    std::size_t ib = 0;
    for (std::size_t d = 0; d < out.shape().size(); ++d) {
      if (is_offset(d)) continue;
      if (ib == ivd) ++ib;
      batch.push_back(idx.shape()[ib]);
      ibatch.push_back(idx.strides()[ib]);
      obatch.push_back(out.strides()[d]);
      ++ib;
    }
  }
  const std::int64_t nvec = ivd < ir ? idx.shape()[ivd] : 1;
  const std::int64_t vstride = ivd < ir ? idx.strides()[ivd] : 0;
  // Every index's slice: its start in x and its place in out (elements).
  const std::int64_t nb = shape_numel(batch);
  std::vector<std::int64_t> xoffs(static_cast<std::size_t>(nb)),
      ooffs(static_cast<std::size_t>(nb));
  visit_dtype<kIntegerDTypes>(idx.dtype(), "gather", [&]<class I>() {
    const I* ip = static_cast<const I*>(idx.data_ptr());
    DimVec bi(batch.size(), 0);
    std::int64_t ioff = 0, ooff = 0;
    for (std::int64_t b = 0; b < nb; ++b) {
      std::int64_t xoff = x.offset();
      for (std::int64_t k = 0; k < nvec; ++k) {
        std::size_t d = static_cast<std::size_t>(a.start_index_map[static_cast<std::size_t>(k)]);
        std::int64_t s = clamp_start(static_cast<std::int64_t>(ip[ioff + k * vstride]), x.shape()[d],
                                     a.slice_sizes[d]);
        xoff += s * x.strides()[d];
      }
      xoffs[static_cast<std::size_t>(b)] = xoff;
      ooffs[static_cast<std::size_t>(b)] = ooff;
      for (std::size_t k = 0; k < batch.size(); ++k) {
        ioff += ibatch[k];
        ooff += obatch[k];
        if (++bi[k] < batch[k]) break;
        ioff -= ibatch[k] * batch[k];
        ooff -= obatch[k] * batch[k];
        bi[k] = 0;
      }
    }
  });
  const std::size_t es = dtype_size(x.dtype());
  char* o = static_cast<char*>(out.data_ptr());
  const char* xs = static_cast<const char*>(x.storage()->data());
  // Note [Gather along the unit axis]: where one batch axis is out's
  // unit-stride axis (rows of a column-major matrix, as the LU rules'
  // permuted rows), each slice would be a strided copy of its own; instead
  // every position of the slice is filled for all indices in one pass, out
  // written in order. Measured (bench_peer_ad --mode=jvp_vjp --threads=1
  // --filter=_lu/, four alternating runs, one pinned core of an AMD EPYC
  // VM): jvp_lu/64 best 89.3 -> 79.0 us (a copy per row was 10 us of it in
  // perf), jvp_lu/256 3.46-3.60 -> 3.31-3.38 ms.
  const std::int64_t per_slice = shape_numel(block);
  if (batch.size() == 1 && obatch[0] == 1 && nb >= 8 && per_slice > 1) {
    // The slice positions in out's order, by the loop the elementwise kernels use.
    const Loop<2> slice(block, {oblock.data(), xblock.data()});
    auto fill = [&]<std::size_t S>() {  // elements of S bytes, moved by fixed-size memcpy
      slice.run(0, slice.numel,
                [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                    const std::array<std::int64_t, 2>& st) {
                  for (std::int64_t e = 0; e < n; ++e) {
                    char* dst = o + (off[0] + e * st[0]) * std::int64_t(S);
                    const std::int64_t bx = off[1] + e * st[1];
                    for (std::int64_t b = 0; b < nb; ++b)
                      std::memcpy(dst + b * std::int64_t(S),
                                  xs + (bx + xoffs[static_cast<std::size_t>(b)]) * std::int64_t(S),
                                  S);
                  }
                });
    };
    switch (es) {
      case 1:
        return fill.template operator()<1>();
      case 2:
        return fill.template operator()<2>();
      case 4:
        return fill.template operator()<4>();
      case 8:
        return fill.template operator()<8>();
      case 16:
        return fill.template operator()<16>();
      default:
        break;
    }
  }
  for (std::int64_t b = 0; b < nb; ++b)
    detail::copy_strided(o + ooffs[static_cast<std::size_t>(b)] * std::int64_t(es), oblock,
                         xs + xoffs[static_cast<std::size_t>(b)] * std::int64_t(es), xblock, block,
                         es);
}

void scatter(const ScatterAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& upd,
             const Tensor& out) {
  parallel_copy(out, x);
  const std::size_t r = x.shape().size();
  const std::size_t ir = idx.shape().size();
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim);
  auto is_window = [&](std::size_t d) {
    return std::find(a.update_window_dims.begin(), a.update_window_dims.end(), std::int64_t(d)) !=
           a.update_window_dims.end();
  };
  auto inserted = [&](std::size_t d) {
    return std::find(a.inserted_window_dims.begin(), a.inserted_window_dims.end(), std::int64_t(d)) !=
           a.inserted_window_dims.end();
  };
  // Window: update window axes paired with the operand axes that are not inserted.
  Shape window;
  Strides uwin, owin;
  std::vector<std::size_t> win_operand_axis;
  {
    std::size_t od = 0;
    for (std::size_t d = 0; d < upd.shape().size(); ++d) {
      if (!is_window(d)) continue;
      while (inserted(od)) ++od;
      window.push_back(upd.shape()[d]);
      uwin.push_back(upd.strides()[d]);
      owin.push_back(out.strides()[od]);
      win_operand_axis.push_back(od);
      ++od;
    }
  }
  Shape batch;
  Strides ibatch, ubatch;
  {
    std::size_t ib = 0;
    for (std::size_t d = 0; d < upd.shape().size(); ++d) {
      if (is_window(d)) continue;
      if (ib == ivd) ++ib;
      batch.push_back(idx.shape()[ib]);
      ibatch.push_back(idx.strides()[ib]);
      ubatch.push_back(upd.strides()[d]);
      ++ib;
    }
  }
  const std::int64_t nvec = ivd < ir ? idx.shape()[ivd] : 1;
  const std::int64_t vstride = ivd < ir ? idx.strides()[ivd] : 0;
  visit_dtype<kIntegerDTypes>(idx.dtype(), "scatter", [&]<class I>() {
    const I* ip = static_cast<const I*>(idx.data_ptr());
    std::int64_t nb = shape_numel(batch);
    DimVec bi(batch.size(), 0);
    std::int64_t ioff = 0, uoff = upd.offset();
    DimVec start(r, 0);
    for (std::int64_t b = 0; b < nb; ++b) {
      std::fill(start.begin(), start.end(), 0);
      for (std::int64_t k = 0; k < nvec; ++k)
        start[static_cast<std::size_t>(a.scatter_dims_to_operand_dims[static_cast<std::size_t>(k)])] =
            static_cast<std::int64_t>(ip[ioff + k * vstride]);
      // Skip windows that leave the operand (XLA's out-of-bounds rule); any
      // start index, up to INT64_MAX, is only compared, never added to.
      bool inside = true;
      for (std::size_t d = 0; d < r; ++d) {
        std::int64_t extent = 1;
        for (std::size_t w = 0; w < window.size(); ++w)
          if (win_operand_axis[w] == d) extent = window[w];
        inside = inside && window_inside(start[d], extent, x.shape()[d]);
      }
      if (inside && shape_numel(window) > 0) {
        std::int64_t ooff = out.offset();
        for (std::size_t d = 0; d < r; ++d) ooff += start[d] * out.strides()[d];
        Tensor dst = restride(out, window, owin, ooff);
        Tensor src = restride(upd, window, uwin, uoff);
        if (a.mode == ScatterMode::add) add_into(dst, src);
        else detail::copy_strided(dst.data_ptr(), owin, src.data_ptr(), uwin, window, dtype_size(upd.dtype()));
      }
      for (std::size_t k = 0; k < batch.size(); ++k) {
        ioff += ibatch[k];
        uoff += ubatch[k];
        if (++bi[k] < batch[k]) break;
        ioff -= ibatch[k] * batch[k];
        uoff -= ubatch[k] * batch[k];
        bi[k] = 0;
      }
    }
  });
}

}  // namespace

void parallel_copy(const Tensor& dst, const Tensor& src) {
  const Shape& shape = dst.shape();
  std::int64_t n = dst.numel();
  if (n == 0) return;
  const std::size_t es = dtype_size(dst.dtype());
  int nt = max_threads();
  if (nt <= 1 || n * static_cast<std::int64_t>(es) < kParallelGrain * 8 || omp_in_parallel()) {
    detail::copy_strided(dst.data_ptr(), dst.strides(), src.data_ptr(), src.strides(), shape, es);
    return;
  }
  // Note [Parallel copy]: the threads split the axes that are outer in both
  // layouts (the largest of an axis's two stride ranks among the axes of
  // extent > 1; ties: the outermost in the destination). Splitting an axis of
  // a fast run on either side would cut the copy's transposition tiles (Note
  // [Transpose tiles] in src/tensor/strided_copy.cpp): an extent-2 axis
  // disappears. One axis is split in ranges when its extent shares out
  // evenly (a multiple of the thread count, or at least kEvenSplit per
  // thread); else the next axes join it until their index tuples do, and
  // each thread copies its share of the tuples, one sub-copy per tuple: with
  // every extent 3 (cyclic_15d_3 of bench/core), two threads splitting one
  // axis got 1 and 2 thirds, and two threads took longer than one.
  const std::size_t r = shape.size();
  auto rank_of = [&](std::size_t i, const Strides& st) {
    int k = 0;
    for (std::size_t j = 0; j < r; ++j)
      if (shape[j] > 1 && (std::llabs(st[j]) < std::llabs(st[i]) || (std::llabs(st[j]) == std::llabs(st[i]) && j < i)))
        ++k;
    return k;
  };
  // Axes of extent > 1 by score, best first.
  std::vector<std::pair<int, std::size_t>> by_score;  // (score, axis)
  for (std::size_t i = 0; i < r; ++i)
    if (shape[i] > 1) by_score.push_back({std::min(rank_of(i, dst.strides()), rank_of(i, src.strides())), i});
  std::stable_sort(by_score.begin(), by_score.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return std::llabs(dst.strides()[a.second]) > std::llabs(dst.strides()[b.second]);
  });
  std::vector<std::size_t> axes;
  std::int64_t tuples = 1;
  for (const auto& [score, i] : by_score) {
    if (tuples % nt == 0 || tuples >= kEvenSplit * nt || (!axes.empty() && score < kKeepFastAxes)) break;
    axes.push_back(i);
    tuples *= shape[i];
  }
  if (tuples < nt) {
    // No even share: one range of the best axis with an index per thread.
    axes.clear();
    for (const auto& [score, i] : by_score)
      if (shape[i] >= nt) {
        axes.push_back(i);
        tuples = shape[i];
        break;
      }
  }
  if (axes.empty()) {
    detail::copy_strided(dst.data_ptr(), dst.strides(), src.data_ptr(), src.strides(), shape, es);
    return;
  }
  char* const d0 = static_cast<char*>(dst.data_ptr());
  const char* const s0 = static_cast<const char*>(src.data_ptr());
  const std::int64_t esz = static_cast<std::int64_t>(es);
  const std::int64_t whole = n * esz;  // each piece streams its stores when the whole copy would
#pragma omp parallel num_threads(nt)
  {
    const std::int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    const std::int64_t b = tuples * t / T, e = tuples * (t + 1) / T;
    Shape sub = shape;
    if (axes.size() == 1) {
      // One axis: a single range of it.
      const std::size_t ax = axes[0];
      sub[ax] = e - b;
      if (b < e)
        detail::copy_strided(d0 + b * dst.strides()[ax] * esz, dst.strides(), s0 + b * src.strides()[ax] * esz,
                             src.strides(), sub, es, whole);
    } else {
      for (std::size_t ax : axes) sub[ax] = 1;
      for (std::int64_t q = b; q < e; ++q) {
        std::int64_t rem = q, doff = 0, soff = 0;
        for (std::size_t ax : axes) {
          const std::int64_t k = rem % shape[ax];
          rem /= shape[ax];
          doff += k * dst.strides()[ax];
          soff += k * src.strides()[ax];
        }
        detail::copy_strided(d0 + doff * esz, dst.strides(), s0 + soff * esz, src.strides(), sub, es, whole);
      }
    }
  }
}

void structural(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  const Tensor& x = in[0];
  switch (kind) {
    case OpKind::transpose:
      return parallel_copy(out, x.permute(std::get<PermutationAttrs>(attrs).permutation));
    case OpKind::reshape: {
      // Column-major element order: view the output with the operand's shape.
      if (out.is_contiguous())
        return parallel_copy(restride(out, x.shape(), col_major_strides(x.shape()), out.offset()), x);
      // Another dense output layout: read through a column-major operand instead.
      return parallel_copy(out, *ops::reshape_view(x.contiguous(), out.shape()));
    }
    case OpKind::broadcast_in_dim:
      return parallel_copy(out, ops::broadcast_in_dim_view(x, std::get<BroadcastInDimAttrs>(attrs)));
    case OpKind::slice:
      return parallel_copy(out, ops::slice_view(x, std::get<SliceAttrs>(attrs)));
    case OpKind::reverse:
      return parallel_copy(out, x.flip(std::get<AxesAttrs>(attrs).dimensions));
    case OpKind::dynamic_slice: {
      const auto& a = std::get<DynamicSliceAttrs>(attrs);
      DimVec starts = read_indices(in[1]);
      SliceAttrs s;
      for (std::size_t i = 0; i < starts.size(); ++i) {
        std::int64_t b = clamp_start(starts[i], x.shape()[i], a.slice_sizes[i]);
        s.start_indices.push_back(b);
        s.limit_indices.push_back(b + a.slice_sizes[i]);
        s.strides.push_back(1);
      }
      return parallel_copy(out, ops::slice_view(x, s));
    }
    case OpKind::dynamic_update_slice: {
      const Tensor& upd = in[1];
      DimVec starts = read_indices(in[2]);
      parallel_copy(out, x);
      SliceAttrs s;
      for (std::size_t i = 0; i < starts.size(); ++i) {
        std::int64_t b = clamp_start(starts[i], x.shape()[i], upd.shape()[i]);
        s.start_indices.push_back(b);
        s.limit_indices.push_back(b + upd.shape()[i]);
        s.strides.push_back(1);
      }
      return parallel_copy(ops::slice_view(out, s), upd);
    }
    case OpKind::pad:
      return pad(std::get<PadAttrs>(attrs), x, in[1], out);
    case OpKind::concatenate: {
      std::size_t dim = static_cast<std::size_t>(std::get<ConcatenateAttrs>(attrs).dimension);
      std::int64_t at = 0;
      for (const Tensor& t : in) {
        std::int64_t n = t.shape()[dim];
        if (n > 0 && t.numel() > 0) parallel_copy(out.slice(static_cast<std::int64_t>(dim), at, at + n), t);
        at += n;
      }
      return;
    }
    case OpKind::gather:
      return gather(std::get<GatherAttrs>(attrs), x, in[1], out);
    case OpKind::scatter:
      return scatter(std::get<ScatterAttrs>(attrs), x, in[1], in[2], out);
    default:
      TF_INTERNAL_ASSERT(false, "structural: ", op_name(kind), " is not structural");
  }
}

}  // namespace tenferro::cpu
