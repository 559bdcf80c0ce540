// Tensor: metadata, views, copies and element access.
#include "tenferro/tensor/tensor.hpp"

#include <algorithm>
#include <cstring>

#include "tenferro/tensor/checked.hpp"
#include "tenferro/tensor/strided_copy.hpp"

namespace tenferro {

inline constexpr std::size_t kMaxRank = 64;

Tensor::Tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
               std::int64_t offset)
    : storage_(std::move(storage)),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      dtype_(dtype) {
  TF_CHECK(storage_ != nullptr, ValueError, "Tensor", "null storage");
  TF_CHECK(shape_.size() == strides_.size(), ValueError, "Tensor", "shape ", shape_, " and strides ",
           strides_, " differ in rank");
  TF_CHECK(shape_.size() <= kMaxRank, ValueError, "Tensor", "rank ", shape_.size(),
           " exceeds the maximum rank ", kMaxRank);
  std::int64_t n = shape_numel(shape_, "Tensor");
  if (n == 0) return;
  // The first and last element the layout addresses, overflow-checked: a
  // wrapped sum would make a far offset look inside the storage.
  std::int64_t lo = offset_, hi = offset_;
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    std::int64_t span = checked_mul(strides_[i], shape_[i] - 1, "Tensor", "layout stride * (extent - 1): ");
    std::int64_t& end = span < 0 ? lo : hi;
    end = checked_add(end, span, "Tensor", "layout element offset ");
  }
  std::int64_t capacity = static_cast<std::int64_t>(storage_->nbytes() / dtype_size(dtype_));
  TF_CHECK(lo >= 0 && hi < capacity, IndexError, "Tensor", "layout (shape ", shape_, ", strides ",
           strides_, ", offset ", offset_, ") addresses elements [", lo, ", ", hi,
           "] outside a storage of ", capacity, " elements");
}

Tensor Tensor::with_layout(Shape shape, Strides strides, std::int64_t offset) const {
  Tensor t;
  t.storage_ = storage_;
  t.dtype_ = dtype_;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

std::int64_t Tensor::numel() const {
  if (!defined()) return 0;
  std::int64_t n = 1;
  for (std::int64_t d : shape_) n *= d;
  return n;
}

std::int64_t Tensor::size(std::int64_t axis) const {
  return shape_[static_cast<std::size_t>(normalize_axis(axis, ndim(), "size"))];
}

Device Tensor::device() const { return storage_ ? storage_->device() : Device::cpu(); }

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

bool Tensor::is_row_major_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

void* Tensor::data_ptr() const {
  if (!storage_ || !storage_->data()) return nullptr;
  return static_cast<char*>(storage_->data()) +
         offset_ * static_cast<std::int64_t>(dtype_size(dtype_));
}

void Tensor::check_defined(const char* op) const {
  TF_CHECK(defined(), ValueError, op, "tensor is undefined (default-constructed, no storage)");
}

void Tensor::check_dtype(DType expected, const char* op) const {
  TF_CHECK(dtype_ == expected, DTypeError, op, "tensor has dtype ", dtype_, ", requested ",
           expected);
}

const void* Tensor::element_ptr(const DimVec& index, const char* op) const {
  check_defined(op);
  TF_CHECK(device().is_cpu(), DeviceError, op, "tensor is on ", device(),
           "; element access needs a host tensor");
  TF_CHECK(index.size() == shape_.size(), IndexError, op, "index ", index, " has ", index.size(),
           " entries for a tensor of shape ", shape_);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    TF_CHECK(index[i] >= 0 && index[i] < shape_[i], IndexError, op, "index ", index,
             " is out of range for shape ", shape_);
    off += index[i] * strides_[i];
  }
  return static_cast<const char*>(data_ptr()) + off * static_cast<std::int64_t>(dtype_size(dtype_));
}

void* Tensor::element_ptr(const DimVec& index, const char* op) {
  return const_cast<void*>(static_cast<const Tensor*>(this)->element_ptr(index, op));
}

// ---- views ----------------------------------------------------------------

Tensor Tensor::permute(const DimVec& perm) const {
  check_defined("permute");
  check_permutation(perm, ndim(), "permute");
  Shape s(perm.size());
  Strides st(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    s[i] = shape_[static_cast<std::size_t>(perm[i])];
    st[i] = strides_[static_cast<std::size_t>(perm[i])];
  }
  return with_layout(std::move(s), std::move(st), offset_);
}

Tensor Tensor::transpose() const {
  check_defined("transpose");
  TF_CHECK(ndim() >= 2, ShapeError, "transpose", "needs rank >= 2, got shape ", shape_);
  Shape s = shape_;
  Strides st = strides_;
  std::swap(s[0], s[1]);
  std::swap(st[0], st[1]);
  return with_layout(std::move(s), std::move(st), offset_);
}

Tensor Tensor::slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
                     std::int64_t step) const {
  check_defined("slice");
  std::size_t a = static_cast<std::size_t>(normalize_axis(axis, ndim(), "slice"));
  std::int64_t n = shape_[a];
  if (stop == kSliceEnd) stop = n;
  TF_CHECK(step > 0, ValueError, "slice", "step must be positive, got ", step,
           " (use flip for reversed order)");
  TF_CHECK(start >= 0 && start <= stop && stop <= n, IndexError, "slice", "range [", start, ", ",
           stop, ") is out of bounds for axis ", a, " of extent ", n, " (shape ", shape_, ")");
  Shape s = shape_;
  Strides st = strides_;
  s[a] = ceil_div(stop - start, step);
  // With two or more elements step < extent, so the product stays inside the
  // layout's span; a single element keeps its stride (step may be huge).
  st[a] = s[a] > 1 ? strides_[a] * step : strides_[a];
  return with_layout(std::move(s), std::move(st), offset_ + (s[a] > 0 ? start * strides_[a] : 0));
}

Tensor Tensor::slice(const std::vector<SliceSpec>& specs) const {
  check_defined("slice");
  TF_CHECK(static_cast<std::int64_t>(specs.size()) <= ndim(), IndexError, "slice", specs.size(),
           " slice specs for a tensor of shape ", shape_);
  Tensor t = *this;
  for (std::size_t i = 0; i < specs.size(); ++i)
    t = t.slice(static_cast<std::int64_t>(i), specs[i].start, specs[i].stop, specs[i].step);
  return t;
}

Tensor Tensor::select(std::int64_t axis, std::int64_t index) const {
  check_defined("select");
  std::size_t a = static_cast<std::size_t>(normalize_axis(axis, ndim(), "select"));
  TF_CHECK(index >= 0 && index < shape_[a], IndexError, "select", "index ", index,
           " is out of range for axis ", a, " of extent ", shape_[a], " (shape ", shape_, ")");
  Shape s = shape_;
  Strides st = strides_;
  s.erase(s.begin() + a);
  st.erase(st.begin() + a);
  return with_layout(std::move(s), std::move(st), offset_ + index * strides_[a]);
}

namespace {

// Resolves one -1 entry against `numel`; checks the element count.
Shape resolve_shape(const Shape& from, const Shape& requested, const char* op) {
  Shape out = requested;
  std::int64_t known = 1;
  int infer_at = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TF_CHECK(infer_at < 0, ShapeError, op, "shape ", requested, " has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    TF_CHECK(out[i] >= 0, ShapeError, op, "negative extent in shape ", requested);
    TF_CHECK(!__builtin_mul_overflow(known, out[i], &known), ValueError, op, "shape ", requested,
             " overflows int64");
  }
  std::int64_t n = shape_numel(from, op);
  if (infer_at >= 0) {
    TF_CHECK(known != 0 && n % known == 0, ShapeError, op, "cannot infer the -1 in ", requested,
             " for ", n, " elements (shape ", from, ")");
    out[static_cast<std::size_t>(infer_at)] = n / known;
    known = n;
  }
  TF_CHECK(known == n, ShapeError, op, "cannot view shape ", from, " (", n, " elements) as ",
           requested, " (", known, " elements)");
  return out;
}

}  // namespace

Tensor Tensor::reshape(const Shape& requested) const {
  check_defined("reshape");
  Shape target = resolve_shape(shape_, requested, "reshape");
  std::optional<Strides> st = detail::reshape_view_strides(shape_, strides_, target);
  TF_CHECK(st.has_value(), ShapeError, "reshape", "cannot view shape ", shape_, " with strides ",
           strides_, " as ", target, " without copying; use reshape_copy");
  return with_layout(std::move(target), std::move(*st), offset_);
}

Tensor Tensor::diagonal(std::int64_t axis1, std::int64_t axis2, std::int64_t offset) const {
  check_defined("diagonal");
  std::size_t a = static_cast<std::size_t>(normalize_axis(axis1, ndim(), "diagonal"));
  std::size_t b = static_cast<std::size_t>(normalize_axis(axis2, ndim(), "diagonal"));
  TF_CHECK(a != b, ValueError, "diagonal", "axes must differ, got ", axis1, " and ", axis2);
  std::int64_t na = shape_[a], nb = shape_[b];
  std::int64_t len = offset >= 0 ? std::min(na, nb - offset) : std::min(na + offset, nb);
  len = std::max<std::int64_t>(len, 0);
  std::int64_t off = offset_;
  if (len > 0) off += offset >= 0 ? offset * strides_[b] : -offset * strides_[a];
  Shape s;
  Strides st;
  for (std::size_t k = 0; k < shape_.size(); ++k)
    if (k != a && k != b) {
      s.push_back(shape_[k]);
      st.push_back(strides_[k]);
    }
  s.push_back(len);
  st.push_back(strides_[a] + strides_[b]);
  return with_layout(std::move(s), std::move(st), off);
}

Tensor Tensor::broadcast_to(const Shape& target) const {
  check_defined("broadcast_to");
  shape_numel(target, "broadcast_to");  // negative extents, int64 overflow
  std::size_t r = shape_.size(), R = target.size();
  TF_CHECK(R >= r, ShapeError, "broadcast_to", "cannot broadcast shape ", shape_, " to ", target,
           " of lower rank");
  Strides st(R, 0);
  for (std::size_t i = 0; i < r; ++i) {
    std::size_t k = R - r + i;
    std::int64_t from = shape_[i], to = target[k];
    TF_CHECK(from == to || from == 1, ShapeError, "broadcast_to", "cannot broadcast shape ",
             shape_, " to ", target, " (axis ", i, ": ", from, " vs ", to, ")");
    st[k] = from == to ? strides_[i] : 0;
  }
  for (std::int64_t d : target)
    TF_CHECK(d >= 0, ShapeError, "broadcast_to", "negative extent in ", target);
  return with_layout(target, std::move(st), offset_);
}

Tensor Tensor::flip(const DimVec& axes) const {
  check_defined("flip");
  Strides st = strides_;
  std::int64_t off = offset_;
  DimVec seen;
  for (std::int64_t ax : axes) {
    std::size_t a = static_cast<std::size_t>(normalize_axis(ax, ndim(), "flip"));
    TF_CHECK(std::find(seen.begin(), seen.end(), std::int64_t(a)) == seen.end(), ValueError,
             "flip", "axis ", a, " listed twice in ", axes);
    seen.push_back(static_cast<std::int64_t>(a));
    if (shape_[a] > 0) off += (shape_[a] - 1) * st[a];
    st[a] = -st[a];
  }
  return with_layout(shape_, std::move(st), off);
}

Tensor Tensor::expand_dims(std::int64_t axis) const {
  check_defined("expand_dims");
  TF_CHECK(axis >= 0 && axis <= ndim(), IndexError, "expand_dims", "axis ", axis,
           " is out of range [0, ", ndim(), "] for shape ", shape_);
  std::size_t a = static_cast<std::size_t>(axis);
  Shape s = shape_;
  Strides st = strides_;
  std::int64_t stride = a > 0 ? strides_[a - 1] * shape_[a - 1] : 1;
  s.insert(s.begin() + a, 1);
  st.insert(st.begin() + a, stride);
  return with_layout(std::move(s), std::move(st), offset_);
}

// ---- copies ---------------------------------------------------------------

Tensor Tensor::contiguous() const {
  check_defined("contiguous");
  if (is_contiguous()) return *this;
  return duplicate();
}

Tensor Tensor::duplicate() const {
  check_defined("duplicate");
  TF_CHECK(device().is_cpu(), DeviceError, "duplicate", "tensor is on ", device(),
           "; copy device tensors through their backend");
  Tensor out = empty(shape_, dtype_);
  detail::copy_strided(out.data_ptr(), out.strides(), data_ptr(), strides_, shape_,
                       dtype_size(dtype_));
  return out;
}

Tensor Tensor::reshape_copy(const Shape& shape) const {
  check_defined("reshape_copy");
  return contiguous().reshape(shape);
}

void Tensor::copy_from(const Tensor& src) const {
  check_defined("copy_from");
  src.check_defined("copy_from");
  TF_CHECK(src.shape() == shape_, ShapeError, "copy_from", "source shape ", src.shape(),
           " differs from destination shape ", shape_);
  TF_CHECK(src.dtype() == dtype_, DTypeError, "copy_from", "source dtype ", src.dtype(),
           " differs from destination dtype ", dtype_);
  TF_CHECK(device().is_cpu() && src.device().is_cpu(), DeviceError, "copy_from",
           "needs host tensors, got ", src.device(), " -> ", device());
  for (std::size_t i = 0; i < shape_.size(); ++i)
    TF_CHECK(strides_[i] != 0 || shape_[i] <= 1, ValueError, "copy_from",
             "destination has a broadcast (stride 0) axis ", i);
  // Overlapping source and destination: copy through a temporary.
  const Tensor& from = shares_storage_with(src) ? src.duplicate() : src;
  detail::copy_strided(data_ptr(), strides_, from.data_ptr(), from.strides(), shape_,
                       dtype_size(dtype_));
}

template <class T>
std::vector<T> Tensor::to_vec_col_major() const {
  check_defined("to_vec_col_major");
  check_dtype(dtype_of<T>, "to_vec_col_major");
  TF_CHECK(device().is_cpu(), DeviceError, "to_vec_col_major", "tensor is on ", device());
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is bit-packed: go through one byte per element.
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(numel()));
    if (!bytes.empty())
      detail::copy_strided(bytes.data(), col_major_strides(shape_), data_ptr(), strides_, shape_, 1);
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> out(static_cast<std::size_t>(numel()));
    if (out.empty()) return out;
    detail::copy_strided(out.data(), col_major_strides(shape_), data_ptr(), strides_, shape_,
                         sizeof(T));
    return out;
  }
}

#define TF_DTYPE(name, cpp_type, text) \
  template std::vector<cpp_type> Tensor::to_vec_col_major<cpp_type>() const;
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE

Scalar Tensor::item() const {
  check_defined("item");
  TF_CHECK(numel() == 1, ShapeError, "item", "needs exactly one element, shape is ", shape_);
  DimVec zero(shape_.size(), 0);
  return visit_dtype(dtype_, "item", [&]<class T>() {
    return Scalar(*static_cast<const T*>(element_ptr(zero, "item")));
  });
}

}  // namespace tenferro
