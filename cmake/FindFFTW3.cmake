# FindFFTW3
# ---------
# Locates FFTW 3 (GPL-2.0-or-later) in double and single precision, with its
# OpenMP threading libraries when present (Debian: libfftw3-dev).
#
# Hints: FFTW3_ROOT.
# Result variables:
#   FFTW3_FOUND
#   FFTW3_INCLUDE_DIR
#   FFTW3_LIBRARIES      threading libraries first, then libfftw3 and libfftw3f
#   FFTW3_HAVE_OMP       whether the OpenMP libraries were found

find_path(FFTW3_INCLUDE_DIR NAMES fftw3.h HINTS ${FFTW3_ROOT} ENV FFTW3_ROOT PATH_SUFFIXES include)
find_library(FFTW3_LIBRARY NAMES fftw3 HINTS ${FFTW3_ROOT} ENV FFTW3_ROOT PATH_SUFFIXES lib)
find_library(FFTW3F_LIBRARY NAMES fftw3f HINTS ${FFTW3_ROOT} ENV FFTW3_ROOT PATH_SUFFIXES lib)
find_library(FFTW3_OMP_LIBRARY NAMES fftw3_omp HINTS ${FFTW3_ROOT} ENV FFTW3_ROOT PATH_SUFFIXES lib)
find_library(FFTW3F_OMP_LIBRARY NAMES fftw3f_omp HINTS ${FFTW3_ROOT} ENV FFTW3_ROOT PATH_SUFFIXES lib)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(FFTW3
  REQUIRED_VARS FFTW3_INCLUDE_DIR FFTW3_LIBRARY FFTW3F_LIBRARY FFTW3_OMP_LIBRARY FFTW3F_OMP_LIBRARY)

if(FFTW3_FOUND)
  set(FFTW3_HAVE_OMP TRUE)
  set(FFTW3_LIBRARIES ${FFTW3_OMP_LIBRARY} ${FFTW3F_OMP_LIBRARY} ${FFTW3_LIBRARY} ${FFTW3F_LIBRARY})
endif()
mark_as_advanced(FFTW3_INCLUDE_DIR FFTW3_LIBRARY FFTW3F_LIBRARY FFTW3_OMP_LIBRARY FFTW3F_OMP_LIBRARY)
