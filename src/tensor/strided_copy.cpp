// Host strided copy; see Note [Strided copy] in tenferro/tensor/strided_copy.hpp.
#include "tenferro/tensor/strided_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tenferro/tensor/error.hpp"

#if defined(__x86_64__)
// GCC 12 warns about the intentionally undefined source operand inside its
// own AVX-512 shuffle intrinsics (avx512fintrin.h), as in src/cpu/vector_math.cpp.
#if !defined(__clang__)
#pragma GCC diagnostic push  // popped at the end: a unity build includes the next file after this one
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace tenferro::detail {
namespace {

std::atomic<CopyIsa> g_isa_cap{CopyIsa::avx512};

struct Bytes16 {
  std::uint64_t lo, hi;
};

// Runs shared by both sides moved as one element (see copy_strided).
struct Bytes32 {
  std::uint64_t v[4];
};

struct Bytes64 {
  std::uint64_t v[8];
};

struct Axis {
  std::int64_t n, ds, ss;  // extent, destination stride, source stride
};

// Appends `a` to list[0..n), which stays sorted by |source stride| (outer
// loops in source order).
inline void insert_by_source(Axis* list, int& n, const Axis& a) {
  int b = n++;
  for (; b > 0 && std::llabs(list[b - 1].ss) > std::llabs(a.ss); --b) list[b] = list[b - 1];
  list[b] = a;
}

// Calls body(d, s) at every index of axes[first..rank), an odometer with
// axes[first] fastest; d and s advance by the axes' strides.
template <class E, class F>
void for_each_outer(E* dst, const E* src, const Axis* axes, int first, int rank, F&& body) {
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    body(d, s);
    int k = first;
    for (; k < rank; ++k) {
      d += axes[k].ds;
      s += axes[k].ss;
      if (++idx[k] < axes[k].n) break;
      d -= axes[k].ds * axes[k].n;
      s -= axes[k].ss * axes[k].n;
      idx[k] = 0;
    }
    if (k == rank) return;
  }
}

// t[i] = the offset (destination strides if dst_side, else source strides)
// of index i of the run made of axes run[0..nr), the first fastest.
inline void fill_offsets(std::int64_t* t, const int* run, int nr, const Axis* ax, bool dst_side) {
  std::int64_t len = 1;
  t[0] = 0;
  for (int k = 0; k < nr; ++k) {
    const Axis& a = ax[run[k]];
    const std::int64_t st = dst_side ? a.ds : a.ss;
    for (std::int64_t m = 1; m < a.n; ++m)
      for (std::int64_t e = 0; e < len; ++e) t[m * len + e] = t[e] + m * st;
    len *= a.n;
  }
}

template <class E>
void copy_1d(E* dst, const E* src, const Axis& a) {
  if (a.ds == 1 && a.ss == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(a.n) * sizeof(E));
    return;
  }
  for (std::int64_t i = 0; i < a.n; ++i) dst[i * a.ds] = src[i * a.ss];
}

// Blocked copy (Note [Strided copy]). The leaf block is the product of a
// destination group (the destination's fastest axes, about one cache line of
// elements) and a source group (the source's fastest remaining axes, about
// one line), so each leaf reads whole source lines and writes whole
// destination lines, and touches at most a line's worth of lines of one cache
// set on either side (taller tiles thrash 8-way caches when strides are
// powers of two). An axis that is too long for a group is cut into blocks.
// Leaves are visited in destination order, so the destination is written as
// a few sequential streams and each source line is read once.
struct LeafAxis {
  std::int64_t n, ds, ss;  // full extent and strides
  std::int64_t block;      // leaf extent (n when the whole axis is in the leaf)
};

template <class E>
void copy_leaf(E* dst, const E* src, const LeafAxis* leaf, const std::int64_t* len, int nl) {
  if (nl == 2) {  // the common 2-D tile: destination-fastest axis inner
    const LeafAxis& a = leaf[0];
    const LeafAxis& b = leaf[1];
    for (std::int64_t j = 0; j < len[1]; ++j) {
      E* d = dst + j * b.ds;
      const E* s = src + j * b.ss;
      if (a.ds == 1) {
        for (std::int64_t i = 0; i < len[0]; ++i) d[i] = s[i * a.ss];
      } else {
        for (std::int64_t i = 0; i < len[0]; ++i) d[i * a.ds] = s[i * a.ss];
      }
    }
    return;
  }
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    for (std::int64_t i = 0; i < len[0]; ++i) d[i * leaf[0].ds] = s[i * leaf[0].ss];
    int k = 1;
    for (; k < nl; ++k) {
      d += leaf[k].ds;
      s += leaf[k].ss;
      if (++idx[k] < len[k]) break;
      d -= leaf[k].ds * len[k];
      s -= leaf[k].ss * len[k];
      idx[k] = 0;
    }
    if (k == nl) return;
  }
}

// Elements of a group of the blocked copy's leaf: about one cache line.
template <class E>
constexpr std::int64_t blocked_tile() {
  constexpr std::int64_t kLine = 64 / static_cast<std::int64_t>(sizeof(E));
  return kLine < 4 ? 4 : kLine > 16 ? 16 : kLine;
}

template <class E>
void copy_blocked(E* dst, const E* src, const Axis* axes, int rank) {
  constexpr std::int64_t kTile = blocked_tile<E>();
  // Choose the leaf: block[i] > 0 marks axis i (in destination order) as in the leaf.
  std::int64_t block[64] = {0};
  auto take_group = [&](const int* order) {
    std::int64_t p = 1;
    for (int j = 0; j < rank && p < kTile; ++j) {
      int i = order[j];
      if (block[i] > 0) continue;
      std::int64_t n = axes[i].n;
      if (p * n <= 2 * kTile) {
        block[i] = n;
        p *= n;
      } else {
        block[i] = (kTile + p - 1) / p;
        p *= block[i];
      }
    }
  };
  int by_dst[64], by_src[64];
  for (int i = 0; i < rank; ++i) by_dst[i] = by_src[i] = i;
  for (int a = 1; a < rank; ++a) {
    int v = by_src[a], b = a;
    for (; b > 0 && std::llabs(axes[by_src[b - 1]].ss) > std::llabs(axes[v].ss); --b) by_src[b] = by_src[b - 1];
    by_src[b] = v;
  }
  take_group(by_dst);
  take_group(by_src);
  LeafAxis leaf[64];
  int leaf_axis[64];
  int nl = 0;
  for (int i = 0; i < rank; ++i)
    if (block[i] > 0) {
      leaf_axis[nl] = i;
      leaf[nl++] = {axes[i].n, axes[i].ds, axes[i].ss, block[i]};
    }
  // Outer loops in destination order: whole axes outside the leaf, and the
  // block loops of leaf axes that were cut.
  struct Outer {
    std::int64_t count, ds, ss;
    int leaf;  // index into `leaf` for block loops, -1 for whole axes
  };
  Outer outer[64];
  int no = 0;
  for (int i = 0, l = 0; i < rank; ++i) {
    if (block[i] == 0) {
      outer[no++] = {axes[i].n, axes[i].ds, axes[i].ss, -1};
    } else {
      if (block[i] < axes[i].n)
        outer[no++] = {(axes[i].n + block[i] - 1) / block[i], axes[i].ds * block[i], axes[i].ss * block[i], l};
      ++l;
    }
  }
  (void)leaf_axis;
  std::int64_t len[64];
  for (int l = 0; l < nl; ++l) len[l] = leaf[l].block;
  std::int64_t idx[64] = {0};
  E* d = dst;
  const E* s = src;
  while (true) {
    copy_leaf(d, s, leaf, len, nl);
    int k = 0;
    for (; k < no; ++k) {
      Outer& o = outer[k];
      d += o.ds;
      s += o.ss;
      ++idx[k];
      if (idx[k] < o.count) {
        if (o.leaf >= 0 && idx[k] == o.count - 1) {
          const LeafAxis& la = leaf[o.leaf];
          len[o.leaf] = la.n - idx[k] * la.block;  // the last, partial block
        }
        break;
      }
      d -= o.ds * o.count;
      s -= o.ss * o.count;
      idx[k] = 0;
      if (o.leaf >= 0) len[o.leaf] = leaf[o.leaf].block;
    }
    if (k == no) return;
  }
}

// ---- tiled transposition (Note [Transpose tiles]) ------------------------------------
//
// Note [Transpose tiles]: when the destination's fastest axis differs from
// the source's, the copy is planned as a 2-D transposition. The "dst run" is
// the destination's fastest axes that are contiguous in the destination
// (offset i inside the run), the "src run" the source's fastest axes that are
// contiguous in the source (offset j); each needs at least B elements, where
// B x B elements is one tile (a cache line of elements per row: 8 for 8-byte
// elements, 16 for 4-byte, 4 for 16-byte). Tables give the other side's
// offset of every run index (f[i]: source offset, g[j]: destination offset),
// so runs made of several small axes (2x2x2..., reversed orders) tile exactly
// like one long axis. A full tile is one in-register transpose: it loads B
// source rows (src + f[i] + j..j+B) and stores B destination rows (dst + g[j]
// + i..i+B), whole cache lines on both sides; kernels are chosen at run time
// (AVX-512 8x8 for 8-byte elements, AVX2 4x4/8x8/2x2 sub-tiles otherwise, a
// scalar loop without AVX2 and for 1- and 2-byte elements).
//
// Small outputs are written in place, in destination order (dst-run tiles
// innermost, so each destination row is a sequential stream); their runs grow
// past B while the pd x ps block fits 256 KiB. Large outputs (8 MiB and up)
// are streamed: written with non-temporal stores, which skip reading the
// destination lines into the cache first. Their runs grow further, so runs
// of short axes (3 x 3 x ...) leave few partial tiles, and they are copied in
// square blocks of tiles; while a block is copied, the next block's source
// lines are prefetched into L2 (the hardware prefetchers do not follow B rows
// read 64 bytes at a time). A block is written in one of three ways:
//  - directly, where every destination row of a tile is one aligned line
//    (the dst run a multiple of B elements, the destination aligned): the
//    tile kernel's stores are non-temporal, in strips of B destination rows
//    (B rows written line after line). Blocks are 4 x 4 tiles: with 16 x 16,
//    reverse_23d_2 ran 2.7x slower (its source rows are powers of two apart
//    and share cache sets), except where consecutive source rows lie within
//    512 bytes (rotation_6d: the reads are nearly sequential, 16 x 16 is 15 %
//    faster);
//  - as shifted lines (Note [Shifted lines]) for 8-byte elements with
//    AVX-512 when the rows are not aligned (runs of 3 x 3 x ... elements);
//  - otherwise through a cache-resident buffer, whose rows are then written
//    with stream_row (Note [Streamed rows]).
// A dst run shorter than B followed by the source's unit axis (a small axis
// moved to the front) is interleaved instead (Note [Interleaved rows]).
// Measured on a 2-vCPU AMD EPYC VM (f64, the 128 MiB patterns of bench/core,
// one core, both sides on huge pages, old and new code alternating): the
// buffered blocks took the geometric mean of permutation / memcpy from
// 0.42-0.45 to 0.54-0.59; direct blocks, shifted lines and interleaving took
// the patterns to 0.72-1.64 (reverse_15d_3 0.41 -> 0.89, transpose_2d_2048
// 0.56 -> 1.05, cyclic_15d_3 0.53 -> 1.64, rotation_6d 0.66 -> 0.72-0.95
// between runs; bench/README.md).

constexpr std::int64_t kStreamBytes = std::int64_t(8) << 20;  // buffered, streamed stores from 8 MiB
constexpr std::int64_t kMaxRun = std::int64_t(1) << 16;        // table entries per run
constexpr std::int64_t kBlockBytes = std::int64_t(256) << 10;  // in-place runs grow while a block fits
constexpr std::int64_t kStreamedRun = std::int64_t(1) << 22;   // streamed runs grow while pd x ps <= this
constexpr std::int64_t kBlockTiles = 16;                       // a streamed block is 16 x 16 tiles
constexpr std::int64_t kDirectTiles = 4;                       // or 4 x 4 where it is written directly
constexpr std::int64_t kMaxGatherStride = 16;                  // Note [Gathered rows]

// A block of a streamed copy: run indices [i0, i0 + li) of the destination
// run and [j0, j0 + lj) of the source run, and the next block's (nli = 0
// after the last), whose source lines are prefetched while this one is copied.
struct StreamBlock {
  std::int64_t i0, li, j0, lj, ni0, nli, nj0, nlj;
};

// Calls body(block) for the bi x bi blocks of a pd x ps transposition, the
// source run's blocks innermost.
template <class F>
void for_each_stream_block(std::int64_t pd, std::int64_t ps, std::int64_t bi, F&& body) {
  for (std::int64_t i0 = 0; i0 < pd; i0 += bi)
    for (std::int64_t j0 = 0; j0 < ps; j0 += bi) {
      std::int64_t ni0 = i0, nj0 = j0 + bi;
      if (nj0 >= ps) {
        nj0 = 0;
        ni0 += bi;
      }
      body(StreamBlock{i0, std::min(bi, pd - i0), j0, std::min(bi, ps - j0), ni0,
                       ni0 < pd ? std::min(bi, pd - ni0) : 0, nj0, std::min(bi, ps - nj0)});
    }
}

std::atomic<std::int64_t> g_stream_bytes{kStreamBytes};

// Note [Streamed rows]: stream_row writes n elements to d with non-temporal
// stores for the 64-byte lines that lie wholly inside [d, d + n) and ordinary
// stores for the partial lines at either end, so any alignment works. A line
// cut by two neighbouring rows is written by ordinary stores from both (never
// mixed with a streamed store to the same line). Callers end the copy with a
// store fence.
template <class E>
void stream_row(E* d, const E* s, std::int64_t n) {
  char* dc = reinterpret_cast<char*>(d);
  const char* sc = reinterpret_cast<const char*>(s);
  std::size_t bytes = static_cast<std::size_t>(n) * sizeof(E);
  const std::size_t head = std::min(bytes, (64 - reinterpret_cast<std::uintptr_t>(dc) % 64) % 64);
  std::memcpy(dc, sc, head);
  dc += head;
  sc += head;
  bytes -= head;
  const std::size_t body = bytes & ~std::size_t(63);
#if defined(__x86_64__)
  for (std::size_t k = 0; k < body; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dc + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(sc + k)));
#else
  std::memcpy(dc, sc, body);
#endif
  std::memcpy(dc + body, sc + body, bytes - body);
}

// Asks for the line at p in L2. GCC 12 deletes loops of __builtin_prefetch
// whose addresses come from a table (the loop has no other effect), so on
// x86 the instruction is written out.
inline void prefetch_l2(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht1 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

template <class E>
constexpr std::int64_t tile_edge() {
  return sizeof(E) >= 32 ? 2 : sizeof(E) == 16 ? 4 : sizeof(E) == 8 ? 8 : 16;
}

// d[doff[q] + p] = s[soff[p] + q] for p < lp, q < lq.
template <class E>
void tile_scalar(E* d, const std::int64_t* doff, const E* s, const std::int64_t* soff, std::int64_t lp,
                 std::int64_t lq) {
  for (std::int64_t q = 0; q < lq; ++q) {
    E* dq = d + doff[q];
    for (std::int64_t p = 0; p < lp; ++p) dq[p] = s[soff[p] + q];
  }
}

// A full B x B tile.
template <class E>
using TileFn = void (*)(E* d, const std::int64_t* doff, const E* s, const std::int64_t* soff);

#if defined(__x86_64__)
// r[p] holds row p of an 8 x 8 block of 8-byte elements; out[q] gets its column q.
__attribute__((target("avx512f"), always_inline)) inline void transpose8x8(const __m512i* r, __m512i* out) {
  __m512i t[8];
  for (int p = 0; p < 8; p += 2) {  // t[p]: (r[p][c], r[p+1][c]) pairs for even c, t[p+1] for odd c
    t[p] = _mm512_unpacklo_epi64(r[p], r[p + 1]);
    t[p + 1] = _mm512_unpackhi_epi64(r[p], r[p + 1]);
  }
  // A 4x4 transposition of 128-bit lanes: column c = lane c/2 of t[c%2], t[c%2+2], t[c%2+4], t[c%2+6].
  for (int o = 0; o < 2; ++o) {
    __m512i a = _mm512_shuffle_i64x2(t[o], t[o + 2], 0x88), b = _mm512_shuffle_i64x2(t[o], t[o + 2], 0xDD);
    __m512i c = _mm512_shuffle_i64x2(t[o + 4], t[o + 6], 0x88), e = _mm512_shuffle_i64x2(t[o + 4], t[o + 6], 0xDD);
    out[o] = _mm512_shuffle_i64x2(a, c, 0x88);
    out[o + 4] = _mm512_shuffle_i64x2(a, c, 0xDD);
    out[o + 2] = _mm512_shuffle_i64x2(b, e, 0x88);
    out[o + 6] = _mm512_shuffle_i64x2(b, e, 0xDD);
  }
}

template <bool Stream>
__attribute__((target("avx512f"))) void tile8_avx512(std::uint64_t* d, const std::int64_t* doff,
                                                     const std::uint64_t* s, const std::int64_t* soff) {
  __m512i r[8], out[8];
  for (int p = 0; p < 8; ++p) r[p] = _mm512_loadu_si512(s + soff[p]);
  transpose8x8(r, out);
  for (int q = 0; q < 8; ++q) {
    if constexpr (Stream)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(d + doff[q]), out[q]);
    else
      _mm512_storeu_si512(d + doff[q], out[q]);
  }
}

// Note [Shifted lines]: a strip of lq <= 8 destination rows of 8-byte
// elements whose rows are not aligned to cache lines (row q starts o_q
// elements before a line boundary, and o_q differs between rows). Tiles are
// transposed in registers along the run (tile k: run indices 8k..8k+7), and
// line k of row q, the run indices [8(k-1) + o_q, 8k + o_q), is put
// together from tiles k-1 and k by one two-source permute, then written with
// a non-temporal store: every store fills one whole, aligned line. Lines at
// the run's ends hold fewer than 8 of its elements; those elements are
// written one by one with ordinary stores. Lines k in [k0, k1) are written;
// k runs to ceil(pd / 8) inclusive for the last ones.
//
// With Gather (Note [Gathered rows]) element (i, q) is s[f[i] + q * ss]
// instead, read by one gather per row of a tile.
struct ShiftStrip {
  std::uint64_t* row[8];    // row q at run index 0
  std::int64_t lq;          // rows in the strip
  const std::uint64_t* s;   // element (i, q) at s[f[i] + q] (s[f[i] + q * ss] with Gather)
  const std::int64_t* f;    // source offset of run index i
  std::int64_t pd;          // run length
  const std::uint64_t* pf;  // prefetched: pf + f[i + pf_shift] for i in [pf_lo, pf_hi)
  std::int64_t pf_shift, pf_lo, pf_hi;
  std::int64_t ss = 1;      // Gather: source stride between columns q (at most kMaxGatherStride)
};

// Note [Interleaved rows]: a destination run shorter than two tile edges
// and not one (pd < 16 elements, pd != 8; e.g. a small axis moved to the
// front) followed by the source's unit-stride axis: dst[i + pd * k] =
// src[f[i] + k]. Each step reads 8 elements from each of the pd source rows
// (sequential streams) and writes pd whole vectors of the destination, lane
// l of output vector m being row (8m + l) % pd, column (8m + l) / pd: one
// masked permute per row and output below 8 rows, one per lane from 9 on.
// The other axes loop in source stride order, so that the rows continue
// where the last step left them (in destination order a row of 12
// elements read 96 bytes, then jumped: bench_core
// short_runs/swap_9x12_scattered, one core, 0.29 -> 0.65 of memcpy, 8.8 ->
// 4.4 ms; [12, 10, 100, 100, 10] with destination axes (1, 0, 3, 2, 4)
// 18-21 -> 11-14 ms); each step still
// writes pd whole vectors. From 9 rows on the last step's columns (n % 8)
// use masked loads and stores (below, scalar ones: 30 % faster for 5 rows
// of 20). Runs of
// 9..15 went through tiles before, mostly partial ones; measured (bench_core
// --benchmark_filter=short_runs, f64, one pinned core, 2-vCPU AMD EPYC, old
// and new alternating, memcpy / permutation): swap_9x12 0.36 -> 1.00,
// swap_12x10 0.43 -> 0.70, cube3_unit_after_9 0.23 -> 0.43 (149 -> 76 ms).
template <int PD, bool Stream>
__attribute__((target("avx512f"))) void interleave8(std::uint64_t* d, const std::uint64_t* s, const std::int64_t* f,
                                                    std::int64_t n) {
  __m512i idx[PD];
  __mmask8 mask[PD][PD < 8 ? PD : 1] = {};
  for (int m = 0; m < PD; ++m) {
    alignas(64) std::int64_t col[8];
    for (int l = 0; l < 8; ++l) {
      col[l] = (8 * m + l) / PD;
      if constexpr (PD < 8)
        mask[m][(8 * m + l) % PD] = static_cast<__mmask8>(mask[m][(8 * m + l) % PD] | (1u << l));
    }
    idx[m] = _mm512_load_si512(col);
  }
  if constexpr (PD < 8) {
    std::int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
      __m512i v[PD];
      for (int r = 0; r < PD; ++r) v[r] = _mm512_loadu_si512(s + f[r] + k);
      for (int m = 0; m < PD; ++m) {
        __m512i out = _mm512_setzero_si512();
        for (int r = 0; r < PD; ++r) out = _mm512_mask_permutexvar_epi64(out, mask[m][r], idx[m], v[r]);
        if constexpr (Stream)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(d + PD * k + 8 * m), out);
        else
          _mm512_storeu_si512(d + PD * k + 8 * m, out);
      }
    }
    for (; k < n; ++k)
      for (int r = 0; r < PD; ++r) d[PD * k + r] = s[f[r] + k];
  } else {
    for (std::int64_t k = 0; k < n; k += 8) {
      // The last step may hold fewer than 8 columns: masked loads and stores.
      const std::int64_t cols = std::min<std::int64_t>(8, n - k);
      const __mmask8 load_mask = static_cast<__mmask8>((1u << cols) - 1);
      __m512i v[PD];
      for (int r = 0; r < PD; ++r)
        v[r] = cols == 8 ? _mm512_loadu_si512(s + f[r] + k) : _mm512_maskz_loadu_epi64(load_mask, s + f[r] + k);
      for (int m = 0; m < PD && 8 * m < PD * cols; ++m) {
        __m512i out = _mm512_setzero_si512();  // the 8 lanes come from 8 different rows
        for (int l = 0; l < 8; ++l)
          out = _mm512_mask_permutexvar_epi64(out, static_cast<__mmask8>(1u << l), idx[m], v[(8 * m + l) % PD]);
        if (cols < 8)
          _mm512_mask_storeu_epi64(d + PD * k + 8 * m,
                                   static_cast<__mmask8>((1u << std::min<std::int64_t>(8, PD * cols - 8 * m)) - 1),
                                   out);
        else if constexpr (Stream)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(d + PD * k + 8 * m), out);
        else
          _mm512_storeu_si512(d + PD * k + 8 * m, out);
      }
    }
  }
}

template <bool Stream>
void interleave8_any(std::uint64_t* d, const std::uint64_t* s, const std::int64_t* f, std::int64_t pd,
                     std::int64_t n) {
  switch (pd) {
    case 2: return interleave8<2, Stream>(d, s, f, n);
    case 3: return interleave8<3, Stream>(d, s, f, n);
    case 4: return interleave8<4, Stream>(d, s, f, n);
    case 5: return interleave8<5, Stream>(d, s, f, n);
    case 6: return interleave8<6, Stream>(d, s, f, n);
    case 7: return interleave8<7, Stream>(d, s, f, n);
    case 9: return interleave8<9, Stream>(d, s, f, n);
    case 10: return interleave8<10, Stream>(d, s, f, n);
    case 11: return interleave8<11, Stream>(d, s, f, n);
    case 12: return interleave8<12, Stream>(d, s, f, n);
    case 13: return interleave8<13, Stream>(d, s, f, n);
    case 14: return interleave8<14, Stream>(d, s, f, n);
    default: return interleave8<15, Stream>(d, s, f, n);
  }
}

// The lines of the source row that starts at p (its 8 columns; ss lines
// cover them with Gather).
template <bool Gather>
__attribute__((always_inline)) inline void prefetch_row(const std::uint64_t* p, std::int64_t ss) {
  prefetch_l2(p);
  if constexpr (Gather)
    for (std::int64_t m = 1; m < ss; ++m) prefetch_l2(p + 8 * m);
}

// Tile k of the strip, transposed: out[q] lane p is element (8k + p, q);
// rows outside the run read as zero. gidx: the column offsets q * ss.
template <bool Gather>
__attribute__((target("avx512f"), always_inline)) inline void shift_load8(const ShiftStrip& t, __mmask8 cols,
                                                                         __m512i gidx, std::int64_t k, __m512i* out) {
  __m512i r[8];
  for (std::int64_t p = 0; p < 8; ++p) {
    const std::int64_t i = 8 * k + p;
    if (i < 0 || i >= t.pd)
      r[p] = _mm512_setzero_si512();
    else if constexpr (Gather)
      r[p] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), cols, gidx, t.s + t.f[i], 8);
    else
      r[p] = _mm512_maskz_loadu_epi64(cols, t.s + t.f[i]);
    if (i >= t.pf_lo && i < t.pf_hi) prefetch_row<Gather>(t.pf + t.f[i + t.pf_shift], t.ss);
  }
  transpose8x8(r, out);
}

// Lines k of a full strip (8 rows) whose tiles k-1 and k lie inside the run,
// so that every line is whole: no bounds checks, the rows in registers.
template <bool Gather>
__attribute__((target("avx512f"), always_inline)) inline void shift_interior8(const ShiftStrip& t, const __m512i* idx,
                                                                             __m512i gidx, const std::int64_t* o,
                                                                             __m512i* prev, std::int64_t k,
                                                                             std::int64_t k_end) {
  for (; k < k_end; ++k) {
    __m512i r[8], cur[8];
    const std::int64_t* f = t.f + 8 * k;
    for (int p = 0; p < 8; ++p) {
      if constexpr (Gather)
        r[p] = _mm512_i64gather_epi64(gidx, t.s + f[p], 8);
      else
        r[p] = _mm512_loadu_si512(t.s + f[p]);
    }
    if (8 * k >= t.pf_lo && 8 * k + 8 <= t.pf_hi)
      for (int p = 0; p < 8; ++p) prefetch_row<Gather>(t.pf + f[p + t.pf_shift], t.ss);
    transpose8x8(r, cur);
    for (int q = 0; q < 8; ++q) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(t.row[q] + 8 * (k - 1) + o[q]),
                          _mm512_permutex2var_epi64(prev[q], idx[q], cur[q]));
      prev[q] = cur[q];
    }
  }
}

template <bool Gather>
__attribute__((target("avx512f"))) void shift_strip8(const ShiftStrip& t, std::int64_t k0, std::int64_t k1) {
  const __mmask8 cols = static_cast<__mmask8>((1u << t.lq) - 1);
  const __m512i gidx = _mm512_set_epi64(7 * t.ss, 6 * t.ss, 5 * t.ss, 4 * t.ss, 3 * t.ss, 2 * t.ss, t.ss, 0);
  std::int64_t o[8] = {0};
  __m512i idx[8];
  const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  for (std::int64_t q = 0; q < 8; ++q) {
    o[q] = q < t.lq ? static_cast<std::int64_t>((0 - reinterpret_cast<std::uintptr_t>(t.row[q]) / 8) & 7) : 0;
    idx[q] = _mm512_add_epi64(iota, _mm512_set1_epi64(o[q]));
  }
  __m512i prev[8], cur[8];
  shift_load8<Gather>(t, cols, gidx, k0 - 1, prev);
  for (std::int64_t k = k0; k < k1; ++k) {
    if (t.lq == 8 && k >= 1 && 8 * k + 8 <= t.pd) {  // the interior: tiles k-1 and k inside the run
      const std::int64_t k_end = std::min(k1, t.pd / 8);
      shift_interior8<Gather>(t, idx, gidx, o, prev, k, k_end);
      k = k_end - 1;
      continue;
    }
    shift_load8<Gather>(t, cols, gidx, k, cur);
    for (std::int64_t q = 0; q < t.lq; ++q) {
      const __m512i line = _mm512_permutex2var_epi64(prev[q], idx[q], cur[q]);
      const std::int64_t w = 8 * (k - 1) + o[q];  // run index of the line's first element
      if (w >= 0 && w + 8 <= t.pd) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(t.row[q] + w), line);
      } else {
        alignas(64) std::uint64_t v[8];
        _mm512_store_si512(v, line);
        for (std::int64_t l = std::max<std::int64_t>(0, -w); l < 8 && w + l < t.pd; ++l) t.row[q][w + l] = v[l];
      }
    }
    for (int q = 0; q < 8; ++q) prev[q] = cur[q];
  }
}

// Block b of a streamed copy as shifted lines, in strips of 8 source-run
// columns: element (i, j) at s + f[i] + j * ss (with Gather, rows read by
// gathers; ss = 1 without), destination row j at d + g[j].
template <bool Gather>
void shift_block(std::uint64_t* d, const std::uint64_t* s, const std::int64_t* f, const std::int64_t* g,
                 std::int64_t pd, std::int64_t ss, const StreamBlock& b) {
  constexpr std::int64_t B = 8;
  for (std::int64_t jt = 0; jt < b.lj; jt += B) {
    ShiftStrip t{};
    t.lq = std::min(B, b.lj - jt);
    for (std::int64_t q = 0; q < t.lq; ++q) t.row[q] = d + g[static_cast<std::size_t>(b.j0 + jt + q)];
    t.s = s + (b.j0 + jt) * ss;
    t.f = f;
    t.pd = pd;
    t.pf = s + (b.nj0 + jt) * ss;
    t.pf_shift = b.ni0 - b.i0;
    t.pf_lo = b.i0;
    t.pf_hi = jt < b.nlj ? b.i0 + b.nli : b.i0;
    t.ss = ss;
    shift_strip8<Gather>(t, b.i0 / B, b.i0 + b.li == pd ? (pd + B - 1) / B + 1 : (b.i0 + b.li) / B);
  }
}

// Stream: non-temporal stores, for destination rows aligned to 64 bytes.
template <bool Stream>
__attribute__((target("avx2"))) inline void store256(void* p, __m256i v) {
  if constexpr (Stream)
    _mm256_stream_si256(static_cast<__m256i*>(p), v);
  else
    _mm256_storeu_si256(static_cast<__m256i*>(p), v);
}

// 8-byte elements: an 8x8 tile as four 4x4 sub-tiles (the two halves of
// each destination line stored one after the other).
template <bool Stream>
__attribute__((target("avx2"))) void tile8_avx2(std::uint64_t* d, const std::int64_t* doff,
                                                const std::uint64_t* s, const std::int64_t* soff) {
  for (int qb = 0; qb < 8; qb += 4)
    for (int pb = 0; pb < 8; pb += 4) {
      __m256i r[4];
      for (int p = 0; p < 4; ++p)
        r[p] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + soff[pb + p] + qb));
      __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
      __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
      std::uint64_t* dd = d + pb;
      const std::int64_t* o = doff + qb;
      store256<Stream>(dd + o[0], _mm256_permute2x128_si256(t0, t2, 0x20));
      store256<Stream>(dd + o[1], _mm256_permute2x128_si256(t1, t3, 0x20));
      store256<Stream>(dd + o[2], _mm256_permute2x128_si256(t0, t2, 0x31));
      store256<Stream>(dd + o[3], _mm256_permute2x128_si256(t1, t3, 0x31));
    }
}

// 4-byte elements: a 16x16 tile as four 8x8 sub-tiles.
template <bool Stream>
__attribute__((target("avx2"))) void tile4_avx2(std::uint32_t* d, const std::int64_t* doff,
                                                const std::uint32_t* s, const std::int64_t* soff) {
  for (int qb = 0; qb < 16; qb += 8)
    for (int pb = 0; pb < 16; pb += 8) {
      __m256i r[8], t[8], u[8];
      for (int p = 0; p < 8; ++p)
        r[p] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + soff[pb + p] + qb));
      for (int p = 0; p < 8; p += 2) {
        t[p] = _mm256_unpacklo_epi32(r[p], r[p + 1]);
        t[p + 1] = _mm256_unpackhi_epi32(r[p], r[p + 1]);
      }
      for (int h = 0; h < 8; h += 4) {  // u[h + k]: columns k and k + 4 of rows h..h+3
        u[h + 0] = _mm256_unpacklo_epi64(t[h], t[h + 2]);
        u[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);
        u[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);
        u[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);
      }
      std::uint32_t* dd = d + pb;
      const std::int64_t* o = doff + qb;
      for (int k = 0; k < 4; ++k) {
        store256<Stream>(dd + o[k], _mm256_permute2x128_si256(u[k], u[k + 4], 0x20));
        store256<Stream>(dd + o[k + 4], _mm256_permute2x128_si256(u[k], u[k + 4], 0x31));
      }
    }
}

// 16-byte elements: a 4x4 tile as four 2x2 sub-tiles.
template <bool Stream>
__attribute__((target("avx2"))) void tile16_avx2(Bytes16* d, const std::int64_t* doff, const Bytes16* s,
                                                 const std::int64_t* soff) {
  for (int qb = 0; qb < 4; qb += 2)
    for (int pb = 0; pb < 4; pb += 2) {
      __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + soff[pb] + qb));
      __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + soff[pb + 1] + qb));
      store256<Stream>(d + pb + doff[qb], _mm256_permute2x128_si256(r0, r1, 0x20));
      store256<Stream>(d + pb + doff[qb + 1], _mm256_permute2x128_si256(r0, r1, 0x31));
    }
}

bool cpu_has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

// The full-tile kernel for E under the current ISA cap (nullptr: scalar);
// Stream: with non-temporal stores (destination rows aligned to 64 bytes).
template <class E, bool Stream>
TileFn<E> pick_tile_kernel() {
#if defined(__x86_64__)
  const CopyIsa cap = g_isa_cap.load(std::memory_order_relaxed);
  if constexpr (sizeof(E) == 8) {
    if (cap >= CopyIsa::avx512 && cpu_has_avx512()) return tile8_avx512<Stream>;
  }
  if (cap >= CopyIsa::avx2 && cpu_has_avx2()) {
    if constexpr (sizeof(E) == 8) return tile8_avx2<Stream>;
    if constexpr (sizeof(E) == 4) return tile4_avx2<Stream>;
    if constexpr (sizeof(E) == 16) return tile16_avx2<Stream>;
  }
#endif
  return nullptr;
}

#if defined(__x86_64__)
// Note [Interleaved rows] for a whole copy: axes[0..nd) are the destination
// run (pd elements, contiguous in the destination; f: their source
// offsets), axes[nd] the source's unit-stride axis with destination stride
// pd; the other axes are outer loops.
void copy_interleaved(std::uint64_t* dst, const std::uint64_t* src, const Axis* axes, int rank, int nd,
                      const std::int64_t* f, std::int64_t pd, bool stream) {
  const std::int64_t n = axes[nd].n;
  // Non-temporal stores need every step's destination vectors aligned to 64 bytes.
  bool nt = stream && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0;
  for (int i = nd + 1; i < rank; ++i) nt = nt && axes[i].ds % 8 == 0;
  Axis outer[64];
  int no = 0;
  for (int i = nd + 1; i < rank; ++i) insert_by_source(outer, no, axes[i]);
  for_each_outer(dst, src, outer, 0, no, [&](std::uint64_t* d, const std::uint64_t* s) {
    if (nt)
      interleave8_any<true>(d, s, f, pd, n);
    else
      interleave8_any<false>(d, s, f, pd, n);
  });
  if (nt) _mm_sfence();
}
#endif

// Note [Gathered rows]: when the source's unit axis is short (3 of
// [3, 3, 3, ...]) and sits behind other axes in the destination, the
// destination run stops before it, at fewer than 2 tiles (9 elements:
// rows of mostly partial lines), and the copy ran at a quarter of memcpy
// or less. For large (streamed) 8-byte copies with AVX-512 the source run
// may instead start at an axis of small source stride ss (at most
// kMaxGatherStride) whose destination run, the destination's contiguous
// fastest axes before it, holds every axis of smaller nonzero source stride
// (the short unit axis among them); both runs need 4 tiles' worth. Element
// (i, q) is then src[f[i] + q * ss]: each tile row is one gather of 8
// elements spanning ss lines, which the block's other rows read too, and
// the destination is written as shifted lines (Note [Shifted lines]).
// Measured (bench_core --benchmark_filter=short_runs: f64 [3]^16, 344 MiB
// on 4 KiB pages (Note [Huge pages]), one pinned core, 2-vCPU AMD EPYC, old
// and new alternating, memcpy / permutation): cube3_unit_behind_9
// 0.23-0.24 -> 0.57-0.71, cube3_scattered 0.13-0.14 -> 0.55-0.62; at two
// threads 78 -> 46 ms and 126 -> 52 ms. None of the report's patterns takes
// this path.
#if defined(__x86_64__)
bool copy_gathered(std::uint64_t* dst, const std::uint64_t* src, const Axis* axes, int rank) {
  constexpr std::int64_t B = 8;
  bool in_run[64] = {false};
  int drun[64], srun[64], nd = 0, ns = 0;
  std::int64_t pd = 1, ps = 1, ss = 0;
  // The source run's first axis sa: the smallest source stride ss in (1, kMaxGatherStride]
  // whose destination run (the destination's contiguous fastest axes before sa) holds
  // every axis of a smaller nonzero source stride and at least 4 tiles' rows.
  int sa = -1;
  for (int c = 1; c < rank; ++c) {
    const std::int64_t sc = axes[c].ss;
    if (sc <= 1 || sc > kMaxGatherStride || (sa >= 0 && sc >= ss)) continue;
    std::int64_t p = 1;
    int n = 0;
    for (; n < c && axes[n].ds == p && p * axes[n].n <= kMaxRun; ++n) p *= axes[n].n;
    bool holds = p >= 4 * B;
    for (int k = n; k < rank && holds; ++k) holds = !(axes[k].ss != 0 && std::llabs(axes[k].ss) < sc);
    if (holds) {
      sa = c;
      ss = sc;
      nd = n;
      pd = p;
    }
  }
  if (sa < 0) return false;
  for (int i = 0; i < nd; ++i) {
    drun[i] = i;
    in_run[i] = true;
  }
  srun[ns++] = sa;
  in_run[sa] = true;
  ps = axes[sa].n;
  for (bool grew = true; grew;) {
    grew = false;
    for (int k = 0; k < rank && !grew; ++k)
      if (!in_run[k] && axes[k].ss == ss * ps && ps * axes[k].n <= kMaxRun) {
        srun[ns++] = k;
        in_run[k] = true;
        ps *= axes[k].n;
        grew = true;
      }
  }
  if (ps < 4 * B) return false;
  std::vector<std::int64_t> f(static_cast<std::size_t>(pd)), g(static_cast<std::size_t>(ps));
  fill_offsets(f.data(), drun, nd, axes, false);
  fill_offsets(g.data(), srun, ns, axes, true);
  // The other axes are outer loops, by source stride.
  Axis outer[64];
  int no = 0;
  for (int i = 0; i < rank; ++i)
    if (!in_run[i]) insert_by_source(outer, no, axes[i]);
  auto blocks = [&](std::uint64_t* d, const std::uint64_t* s) {
    for_each_stream_block(pd, ps, kBlockTiles * B,
                          [&](const StreamBlock& b) { shift_block<true>(d, s, f.data(), g.data(), pd, ss, b); });
  };
  if (no == 0)
    blocks(dst, src);
  else
    for_each_outer(dst, src, outer, 0, no, blocks);
  _mm_sfence();
  return true;
}
#endif

// Copies through B x B tiles if the layouts allow it (Note [Transpose tiles]);
// false (nothing written) otherwise. `axes` is in destination stride order.
template <class E>
bool copy_tiled(E* dst, const E* src, const Axis* axes, int rank, std::int64_t whole_bytes) {
  constexpr std::int64_t B = tile_edge<E>();
  if (rank < 2 || axes[0].ds != 1) return false;
  std::int64_t total = 1;
  for (int i = 0; i < rank; ++i) total *= axes[i].n;
  if (total < 4 * B * B) return false;  // small copies: not worth the tables
  // Large outputs are streamed (x86: non-temporal stores); a piece of a
  // larger copy follows the whole.
#if defined(__x86_64__)
  const bool stream =
      std::max(total * std::int64_t(sizeof(E)), whole_bytes) >= g_stream_bytes.load(std::memory_order_relaxed);
#else
  const bool stream = false;
#endif
  int sf = -1;  // the source's unit-stride axis
  for (int i = 1; i < rank && sf < 0; ++i)
    if (axes[i].ss == 1) sf = i;
  if (sf < 0) return false;
  bool in_run[64] = {false};
  int drun[64], srun[64], nd = 0, ns = 0;  // the dst run is axes[0..nd)
  std::int64_t pd = 1, ps = 1;
  // Each run takes axes until it holds a tile edge; then the runs grow in
  // turn (the shorter first) while the pd x ps block fits kBlockBytes, so
  // short axes (2x2x..., 3x3x...) leave few partial tiles and both sides
  // move in long sequential pieces.
  auto next_dst = [&]() { return nd < rank && !in_run[nd] && nd != sf && axes[nd].ds == pd ? nd : -1; };
  auto next_src = [&]() {
    for (int k = 0; k < rank; ++k)
      if (!in_run[k] && axes[k].ss == ps) return k;
    return -1;
  };
  auto add_dst = [&](int i) {
    drun[nd++] = i;
    in_run[i] = true;
    pd *= axes[i].n;
  };
  auto add_src = [&](int i) {
    srun[ns++] = i;
    in_run[i] = true;
    ps *= axes[i].n;
  };
  for (int i = 0; pd < B && (i = next_dst()) >= 0;) add_dst(i);
#if defined(__x86_64__)
  if constexpr (sizeof(E) == 8) {
    if (pd > 1 && pd < 2 * B && pd != B && sf == nd && axes[sf].ds == pd && axes[sf].n >= 8 &&
        g_isa_cap.load(std::memory_order_relaxed) >= CopyIsa::avx512 && cpu_has_avx512()) {
      std::int64_t f[2 * B];
      fill_offsets(f, drun, nd, axes, false);
      copy_interleaved(reinterpret_cast<std::uint64_t*>(dst), reinterpret_cast<const std::uint64_t*>(src), axes,
                       rank, nd, f, pd, stream);
      return true;
    }
  }
#endif
#if defined(__x86_64__)
  if constexpr (sizeof(E) == 8) {
    if (stream && axes[sf].n < B && pd < 2 * B && g_isa_cap.load(std::memory_order_relaxed) >= CopyIsa::avx512 &&
        cpu_has_avx512() &&
        copy_gathered(reinterpret_cast<std::uint64_t*>(dst), reinterpret_cast<const std::uint64_t*>(src), axes,
                      rank))
      return true;
  }
#endif
  add_src(sf);
  for (int i = 0; ps < B && (i = next_src()) >= 0;) add_src(i);
  if (pd < B || ps < B) return false;
  // Streamed outputs go through a buffer.
  const std::int64_t block_limit = stream ? kStreamedRun : kBlockBytes / std::int64_t(sizeof(E));
  while (true) {
    const int a = next_dst(), b = next_src();
    const bool da = a >= 0 && pd * axes[a].n * ps <= block_limit && pd * axes[a].n <= kMaxRun;
    const bool db = b >= 0 && ps * axes[b].n * pd <= block_limit && ps * axes[b].n <= kMaxRun;
    if (da && (!db || pd <= ps))
      add_dst(a);
    else if (db)
      add_src(b);
    else
      break;
  }
  if (pd > kMaxRun || ps > kMaxRun) return false;
  // Offset tables: f[i] (source offset of dst-run index i), g[j] (destination offset of src-run index j).
  std::vector<std::int64_t> f(static_cast<std::size_t>(pd)), g(static_cast<std::size_t>(ps));
  fill_offsets(f.data(), drun, nd, axes, false);
  fill_offsets(g.data(), srun, ns, axes, true);
  const TileFn<E> kernel = pick_tile_kernel<E, false>();
  // Outer loops, innermost first. In place: destination stride order, the
  // dst run's tiles innermost and the src run's tile index placed by its
  // destination stride. Streamed: whole pd x ps blocks per step, the other
  // axes by source stride.
  struct Loop {
    std::int64_t n, ds, ss;
    bool tile;
  };
  Loop loops[64];
  int nloops = 0;
  const std::int64_t nj = (ps + B - 1) / B;
  if (stream) {
    for (int i = 0; i < rank; ++i)
      if (!in_run[i]) {
        int b = nloops++;
        for (; b > 0 && std::llabs(loops[b - 1].ss) > std::llabs(axes[i].ss); --b) loops[b] = loops[b - 1];
        loops[b] = {axes[i].n, axes[i].ds, axes[i].ss, false};
      }
  } else {
    bool tile_placed = false;
    const std::int64_t tile_key = std::llabs(axes[sf].ds);
    for (int i = 0; i < rank; ++i) {
      if (in_run[i]) continue;
      if (!tile_placed && std::llabs(axes[i].ds) > tile_key) {
        loops[nloops++] = {nj, 0, 0, true};
        tile_placed = true;
      }
      loops[nloops++] = {axes[i].n, axes[i].ds, axes[i].ss, false};
    }
    if (!tile_placed) loops[nloops++] = {nj, 0, 0, true};
  }
  // d[doff[q] + p] = s[soff[p] + q] for p < lp, q < lq.
  auto tile = [&](TileFn<E> kern, E* d, const std::int64_t* doff, const E* s, const std::int64_t* soff,
                  std::int64_t lp, std::int64_t lq) {
    if (kern != nullptr && lp == B && lq == B)
      kern(d, doff, s, soff);
    else
      tile_scalar(d, doff, s, soff, lp, lq);
  };
  // Streamed (Note [Transpose tiles]): square blocks of tiles, the next
  // block's source lines prefetched while one is copied, written directly,
  // as shifted lines, or through `buf` (row q of a block at buf + q * BI).
  const TileFn<E> stream_kernel = pick_tile_kernel<E, true>();
  bool direct = stream && stream_kernel != nullptr && pd % B == 0 && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0;
  for (int i = nd; i < rank && direct; ++i) direct = axes[i].ds % B == 0;
  bool shifted = false;
#if defined(__x86_64__)
  if constexpr (sizeof(E) == 8)
    shifted = stream && !direct && g_isa_cap.load(std::memory_order_relaxed) >= CopyIsa::avx512 && cpu_has_avx512();
#endif
  // Direct blocks: 4 x 4 tiles unless consecutive source rows are close.
  const bool rows_close = std::llabs(f[1]) * std::int64_t(sizeof(E)) <= 512;
  const std::int64_t BI = (direct && !rows_close ? kDirectTiles : kBlockTiles) * B;
  thread_local std::vector<E> buf;
  thread_local std::vector<std::int64_t> brow;  // brow[q] = q * BI
  if (stream && !direct && !shifted && buf.size() < static_cast<std::size_t>(BI * BI)) {
    buf.resize(static_cast<std::size_t>(BI * BI));
    brow.resize(static_cast<std::size_t>(BI));
    for (std::int64_t q = 0; q < BI; ++q) brow[static_cast<std::size_t>(q)] = q * BI;
  }
  auto streamed_blocks = [&](E* d, const E* s) {
    for_each_stream_block(pd, ps, BI, [&](const StreamBlock& blk) {
#if defined(__x86_64__)
      if constexpr (sizeof(E) == 8) {
        if (shifted)
          return shift_block<false>(reinterpret_cast<std::uint64_t*>(d), reinterpret_cast<const std::uint64_t*>(s),
                                    f.data(), g.data(), pd, 1, blk);
      }
#endif
      const std::int64_t i0 = blk.i0, li = blk.li, j0 = blk.j0, lj = blk.lj;
      // The same tile's rows in the next block: one line each.
      auto prefetch_next = [&](std::int64_t it, std::int64_t jt) {
        if (it < blk.nli && jt < blk.nlj)
          for (std::int64_t p = 0; p < std::min(B, blk.nli - it); ++p)
            prefetch_l2(s + f[static_cast<std::size_t>(blk.ni0 + it + p)] + blk.nj0 + jt);
      };
      if (direct) {  // strips of B destination rows; li is a multiple of B
        for (std::int64_t jt = 0; jt < lj; jt += B)
          for (std::int64_t it = 0; it < li; it += B) {
            prefetch_next(it, jt);
            tile(stream_kernel, d + i0 + it, g.data() + j0 + jt, s + j0 + jt, f.data() + i0 + it, B,
                 std::min(B, lj - jt));
          }
        return;
      }
      for (std::int64_t it = 0; it < li; it += B)
        for (std::int64_t jt = 0; jt < lj; jt += B) {
          prefetch_next(it, jt);
          tile(kernel, buf.data() + it, brow.data() + jt, s + j0 + jt, f.data() + i0 + it, std::min(B, li - it),
               std::min(B, lj - jt));
        }
      for (std::int64_t q = 0; q < lj; ++q)
        stream_row(d + g[static_cast<std::size_t>(j0 + q)] + i0, buf.data() + q * BI, li);
    });
  };
  std::int64_t idx[64] = {0};
  std::int64_t j = 0;  // the src-run tile (in-place order)
  E* d = dst;
  const E* s = src;
  while (true) {
    if (stream) {
      streamed_blocks(d, s);
    } else {
      for (std::int64_t i0 = 0; i0 < pd; i0 += B)
        tile(kernel, d + i0, g.data() + j * B, s + j * B, f.data() + i0, std::min(B, pd - i0), std::min(B, ps - j * B));
    }
    int k = 0;
    for (; k < nloops; ++k) {
      Loop& o = loops[k];
      if (o.tile) {
        if (++j < o.n) break;
        j = 0;
        continue;
      }
      d += o.ds;
      s += o.ss;
      if (++idx[k] < o.n) break;
      d -= o.ds * o.n;
      s -= o.ss * o.n;
      idx[k] = 0;
    }
    if (k == nloops) break;
  }
#if defined(__x86_64__)
  if (stream) _mm_sfence();
#endif
  return true;
}

template <class E>
void copy_typed(E* dst, const E* src, Axis* axes, int rank, std::int64_t whole_bytes) {
  if (rank == 0) {
    *dst = *src;
    return;
  }
  // A long run shared by both sides: 1-D runs along it, the rest as an
  // odometer. Also a run of at least a cache line that the blocked copy
  // would cut into pieces (longer than two of its groups): bench_core
  // short_runs/keep_first_24 (runs of 24 f64, the other axes permuted) went
  // from 0.27-0.29 to 0.61-0.63 of memcpy (one core).
  if (axes[0].n >= 64 ||
      (axes[0].n > 2 * blocked_tile<E>() && axes[0].n * static_cast<std::int64_t>(sizeof(E)) >= 64)) {
    bool shared = true;
    for (int i = 1; i < rank; ++i) shared = shared && std::llabs(axes[i].ss) > std::llabs(axes[0].ss);
    if (shared && std::llabs(axes[0].ss) <= 1) {
      for_each_outer(dst, src, axes, 1, rank, [&](E* d, const E* s) { copy_1d(d, s, axes[0]); });
      return;
    }
  }
  if (copy_tiled(dst, src, axes, rank, whole_bytes)) return;
  copy_blocked(dst, src, axes, rank);
}

}  // namespace

CopyIsa set_copy_isa_cap(CopyIsa cap) { return g_isa_cap.exchange(cap); }

std::int64_t set_copy_stream_bytes(std::int64_t bytes) { return g_stream_bytes.exchange(bytes); }

void copy_strided(void* dst, const Strides& dst_strides, const void* src,
                  const Strides& src_strides, const Shape& shape, std::size_t elem_size,
                  std::int64_t whole_bytes) {
  TF_INTERNAL_ASSERT(dst_strides.size() == shape.size() && src_strides.size() == shape.size());
  TF_INTERNAL_ASSERT(shape.size() <= 64, "rank above 64");
  Axis axes[64];
  int rank = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;
    if (shape[i] == 1) continue;
    axes[rank++] = {shape[i], dst_strides[i], src_strides[i]};
  }
  // Stable insertion sort by |destination stride| (no allocation).
  for (int a = 1; a < rank; ++a) {
    Axis v = axes[a];
    int b = a;
    for (; b > 0 && std::llabs(axes[b - 1].ds) > std::llabs(v.ds); --b) axes[b] = axes[b - 1];
    axes[b] = v;
  }
  // Merge axes that are contiguous with their predecessor in both layouts.
  int merged = 0;
  for (int i = 0; i < rank; ++i) {
    if (merged > 0) {
      Axis& p = axes[merged - 1];
      if (axes[i].ds == p.ds * p.n && axes[i].ss == p.ss * p.n) {
        p.n *= axes[i].n;
        continue;
      }
    }
    axes[merged++] = axes[i];
  }
  // A run at the front shared by both sides (destination and source stride
  // 1, e.g. the first axis of [4, 4, 4, ...] kept in place by a permutation)
  // moves as one element of up to 64 bytes, when every other stride is a
  // multiple of its length and both pointers are aligned for it: the copy
  // then tiles like a 2-D transposition instead of walking its short runs.
  std::size_t es = elem_size;
  if (merged >= 2 && axes[0].ds == 1 && axes[0].ss == 1) {
    const std::int64_t n0 = axes[0].n;
    const std::size_t wide = es * static_cast<std::size_t>(n0);
    const std::uintptr_t align = std::min<std::size_t>(wide, 8);
    bool ok = wide <= 64 && (wide & (wide - 1)) == 0 && reinterpret_cast<std::uintptr_t>(dst) % align == 0 &&
              reinterpret_cast<std::uintptr_t>(src) % align == 0;
    for (int i = 1; i < merged && ok; ++i) ok = axes[i].ds % n0 == 0 && axes[i].ss % n0 == 0;
    if (ok) {
      for (int i = 1; i < merged; ++i) axes[i - 1] = {axes[i].n, axes[i].ds / n0, axes[i].ss / n0};
      --merged;
      es = wide;
    }
  }
  switch (es) {
    case 1:
      return copy_typed(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src),
                        axes, merged, whole_bytes);
    case 2:
      return copy_typed(static_cast<std::uint16_t*>(dst),
                        static_cast<const std::uint16_t*>(src), axes, merged, whole_bytes);
    case 4:
      return copy_typed(static_cast<std::uint32_t*>(dst),
                        static_cast<const std::uint32_t*>(src), axes, merged, whole_bytes);
    case 8:
      return copy_typed(static_cast<std::uint64_t*>(dst),
                        static_cast<const std::uint64_t*>(src), axes, merged, whole_bytes);
    case 16:
      return copy_typed(static_cast<Bytes16*>(dst), static_cast<const Bytes16*>(src), axes,
                        merged, whole_bytes);
    case 32:
      return copy_typed(static_cast<Bytes32*>(dst), static_cast<const Bytes32*>(src), axes, merged, whole_bytes);
    case 64:
      return copy_typed(static_cast<Bytes64*>(dst), static_cast<const Bytes64*>(src), axes, merged, whole_bytes);
    default:
      TF_INTERNAL_ASSERT(false, "copy_strided: element size ", elem_size);
  }
}

}  // namespace tenferro::detail

#if defined(__x86_64__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
