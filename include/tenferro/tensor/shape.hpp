#pragma once
/// \file
/// `Shape` and `Strides`: small inline vectors of signed 64-bit extents.
///
/// ```cpp
/// using namespace tenferro;
/// Shape s{2, 3, 4};
/// Strides st = col_major_strides(s);   // [1, 2, 6]
/// int64_t n = shape_numel(s);          // 24
/// ```
/// Note [Column-major]: axis 0 varies fastest in memory; shape [m, n] has
/// strides [1, m]. Batch axes are trailing ([m, n, batch]).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <iosfwd>
#include <span>
#include <type_traits>
#include <vector>

namespace tenferro {

/// A vector with `N` elements stored inline; grows onto the heap beyond.
/// Only for trivially copyable `T` (dims, strides, axis lists).
template <class T, std::size_t N = 8>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVec() {}  // user-provided: no zero-fill of the inline buffer on value-initialisation
  SmallVec(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  explicit SmallVec(std::size_t n, T value = T{}) {
    resize(n, value);
  }
  template <class It>
    requires(!std::is_integral_v<It>)
  SmallVec(It first, It last) {
    assign(first, last);
  }
  SmallVec(std::span<const T> s) { assign(s.begin(), s.end()); }
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept { steal(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) {
      size_ = 0;
      assign(o.begin(), o.end());
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  T* begin() { return ptr_; }
  T* end() { return ptr_ + size_; }
  const T* begin() const { return ptr_; }
  const T* end() const { return ptr_ + size_; }
  std::reverse_iterator<const T*> rbegin() const { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const { return std::reverse_iterator<const T*>(begin()); }
  T& operator[](std::size_t i) { return ptr_[i]; }
  const T& operator[](std::size_t i) const { return ptr_[i]; }
  T& back() { return ptr_[size_ - 1]; }
  const T& back() const { return ptr_[size_ - 1]; }
  T& front() { return ptr_[0]; }
  const T& front() const { return ptr_[0]; }

  void push_back(T v) {
    if (size_ == cap_) grow(cap_ * 2);
    ptr_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void resize(std::size_t n, T value = T{}) {
    if (n > cap_) grow(n);
    for (std::size_t i = size_; i < n; ++i) ptr_[i] = value;
    size_ = n;
  }
  void reserve(std::size_t n) {
    if (n > cap_) grow(n);
  }
  void insert(const T* pos, T v) {
    std::size_t i = static_cast<std::size_t>(pos - ptr_);
    push_back(v);
    std::rotate(ptr_ + i, ptr_ + size_ - 1, ptr_ + size_);
  }
  void erase(const T* pos) {
    std::size_t i = static_cast<std::size_t>(pos - ptr_);
    std::copy(ptr_ + i + 1, ptr_ + size_, ptr_ + i);
    --size_;
  }
  template <class It>
  void assign(It first, It last) {
    std::size_t n = static_cast<std::size_t>(std::distance(first, last));
    if (n > cap_) grow(n);
    std::size_t i = 0;
    for (; first != last; ++first) ptr_[i++] = static_cast<T>(*first);
    size_ = n;
  }
  operator std::span<const T>() const { return {ptr_, size_}; }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator<(const SmallVec& a, const SmallVec& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void grow(std::size_t n) {
    T* p = new T[n];
    if (size_) std::memcpy(p, ptr_, size_ * sizeof(T));
    release();
    ptr_ = p;
    cap_ = n;
  }
  void release() {
    if (ptr_ != inline_) delete[] ptr_;
    ptr_ = inline_;
    cap_ = N;
  }
  void steal(SmallVec& o) {
    if (o.ptr_ == o.inline_) {
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
      ptr_ = inline_;
      cap_ = N;
    } else {
      ptr_ = o.ptr_;
      cap_ = o.cap_;
      o.ptr_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T inline_[N];
  T* ptr_ = inline_;
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

/// Extents of a tensor, axis 0 first.
using Shape = SmallVec<std::int64_t>;
/// Element strides of a tensor (signed; 0 for broadcast axes).
using Strides = SmallVec<std::int64_t>;
/// A list of axes or other small integers (permutations, reduced axes).
using DimVec = SmallVec<std::int64_t>;

std::ostream& operator<<(std::ostream& os, const SmallVec<std::int64_t>& v);

/// Product of the extents; throws ValueError on negative extents or int64 overflow.
std::int64_t shape_numel(std::span<const std::int64_t> shape, const char* op = "shape");

/// Column-major (first axis fastest) contiguous strides for `shape`.
Strides col_major_strides(std::span<const std::int64_t> shape);

/// Row-major (last axis fastest) contiguous strides for `shape`.
Strides row_major_strides(std::span<const std::int64_t> shape);

/// Normalizes an axis in [-rank, rank) to [0, rank); throws IndexError naming `op`.
std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, const char* op);

/// Checks that `perm` is a permutation of 0..rank-1; throws naming `op`.
void check_permutation(std::span<const std::int64_t> perm, std::int64_t rank, const char* op);

namespace detail {
/// Strides under which a tensor of (`shape`, `strides`) reads as `target`
/// (same element count, column-major element order) without moving data,
/// or nullopt when no such strides exist.
std::optional<Strides> reshape_view_strides(const Shape& shape, const Strides& strides,
                                            const Shape& target);
}  // namespace detail

}  // namespace tenferro
