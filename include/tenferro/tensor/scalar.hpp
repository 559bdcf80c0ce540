#pragma once
/// \file
/// `Scalar`: a dtype-tagged number for fill values and single elements.
///
/// ```cpp
/// tenferro::Scalar s = 2.5;                        // f64
/// tenferro::Scalar z = std::complex<double>(1, 2); // c128
/// double d = s.to<double>();
/// ```

#include <complex>
#include <cstdint>
#include <iosfwd>

#include "tenferro/tensor/dtype.hpp"

namespace tenferro {

class Scalar {
 public:
  Scalar() : dtype_(DType::f64), re_(0), im_(0) {}
  Scalar(double v) : dtype_(DType::f64), re_(v), im_(0) {}
  Scalar(float v) : dtype_(DType::f32), re_(v), im_(0) {}
  Scalar(int v) : dtype_(DType::i64), re_(0), im_(0), i_(v) {}
  Scalar(std::int64_t v) : dtype_(DType::i64), re_(0), im_(0), i_(v) {}
  Scalar(bool v) : dtype_(DType::bool_), re_(0), im_(0), i_(v ? 1 : 0) {}
  Scalar(std::complex<double> v) : dtype_(DType::c128), re_(v.real()), im_(v.imag()) {}
  Scalar(std::complex<float> v) : dtype_(DType::c64), re_(v.real()), im_(v.imag()) {}

  /// The natural dtype of the stored value.
  DType dtype() const { return dtype_; }
  bool is_complex() const { return tenferro::is_complex(dtype_); }

  /// Converts to `T`; complex to real takes the real part.
  template <class T>
  T to() const {
    if (dtype_ == DType::i64 || dtype_ == DType::bool_) {
      if constexpr (std::is_same_v<T, bool>) return i_ != 0;
      else if constexpr (is_complex_v<T>) return T(static_cast<real_t<T>>(i_), 0);
      else return static_cast<T>(i_);
    }
    if constexpr (std::is_same_v<T, bool>) return re_ != 0 || im_ != 0;
    else if constexpr (is_complex_v<T>) return T(static_cast<real_t<T>>(re_), static_cast<real_t<T>>(im_));
    else return static_cast<T>(re_);
  }

 private:
  DType dtype_;
  double re_, im_;
  std::int64_t i_ = 0;
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace tenferro
