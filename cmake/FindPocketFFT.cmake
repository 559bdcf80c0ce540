# FindPocketFFT
# -------------
# Locates the header-only C++ pocketfft (BSD-3-Clause; the FFT inside NumPy
# and SciPy). Upstream ships it as `pocketfft_hdronly.h`; Debian ships a copy
# as `pythran/pythonic/numpy/fft/pocketfft.hpp` in the python3-pythran package.
#
# Hints: PocketFFT_ROOT (a directory holding either header).
# Result variables:
#   PocketFFT_FOUND
#   PocketFFT_HEADER       full path of the header (include it by this path)
#   PocketFFT_INCLUDE_DIR  its directory

find_file(PocketFFT_HEADER NAMES pocketfft_hdronly.h
          HINTS ${PocketFFT_ROOT} ENV PocketFFT_ROOT PATH_SUFFIXES pocketfft include)
if(NOT PocketFFT_HEADER)
  file(GLOB _pocketfft_pythran_dirs
       /usr/lib/python3/dist-packages/pythran/pythonic/numpy/fft
       /usr/lib/python3*/site-packages/pythran/pythonic/numpy/fft
       /usr/local/lib/python3*/dist-packages/pythran/pythonic/numpy/fft
       /usr/local/lib/python3*/site-packages/pythran/pythonic/numpy/fft)
  find_file(PocketFFT_HEADER NAMES pocketfft.hpp
            HINTS ${PocketFFT_ROOT} ENV PocketFFT_ROOT PATHS ${_pocketfft_pythran_dirs}
            NO_DEFAULT_PATH)
endif()

# The header must be pocketfft's C++ interface (namespace pocketfft, c2c/r2c).
if(PocketFFT_HEADER)
  file(STRINGS "${PocketFFT_HEADER}" _pocketfft_ns REGEX "namespace pocketfft" LIMIT_COUNT 1)
  if(NOT _pocketfft_ns)
    message(STATUS "PocketFFT: ${PocketFFT_HEADER} is not the C++ pocketfft header; ignoring it")
    set(PocketFFT_HEADER "PocketFFT_HEADER-NOTFOUND" CACHE FILEPATH "" FORCE)
  else()
    get_filename_component(PocketFFT_INCLUDE_DIR "${PocketFFT_HEADER}" DIRECTORY)
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PocketFFT REQUIRED_VARS PocketFFT_HEADER PocketFFT_INCLUDE_DIR)
mark_as_advanced(PocketFFT_HEADER)
