# xnnpack_api.cmake — which XNNPACK operator API the installed headers offer, tried by compiling
# one call each (the names alone do not say it: the qs8_qc8w functions changed their arguments
# twice). Sets YOLORT_XNNPACK_API for runtime/src/xnn_backend.c:
#   1  Debian's 2022 snapshot: xnn_create/setup_convolution2d_nhwc_qc8, setup takes the pool
#   2  2023: *_qs8_qc8w with code + weights caches, reshape(.., &ws_size, &ws_align, ..) + setup
#   3  2024+: *_qs8_qc8w with a weights cache only, reshape(.., &ws_size, ..) + setup
include(CheckCSourceCompiles)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
get_target_property(_xnn_inc yolort_dep::xnnpack INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_pool_inc yolort_dep::pthreadpool INTERFACE_INCLUDE_DIRECTORIES)
set(CMAKE_REQUIRED_INCLUDES ${_xnn_inc} ${_pool_inc})
set(CMAKE_REQUIRED_QUIET ON)
set(CMAKE_REQUIRED_FLAGS "-Werror=implicit-function-declaration -Werror=incompatible-pointer-types -Werror=int-conversion")
# compile only: the answer is in the header (linking would need every XNNPACK dependency)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(_xnn_args "0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,0,1.0f,&sc,&w,&b,0,1.0f,-128,127,0")
check_c_source_compiles("
#include <xnnpack.h>
int main(void) { float sc = 1; int8_t w = 0; int32_t b = 0; int8_t x = 0, y = 0; xnn_operator_t op;
  xnn_create_convolution2d_nhwc_qc8(${_xnn_args}, &op);
  return (int)xnn_setup_convolution2d_nhwc_qc8(op, 1, 1, 1, &x, &y, NULL); }" YOLORT_XNN_QC8_2022)
check_c_source_compiles("
#include <xnnpack.h>
int main(void) { float sc = 1; int8_t w = 0; int32_t b = 0; int8_t x = 0, y = 0; xnn_operator_t op;
  size_t ws, al;
  xnn_create_convolution2d_nhwc_qs8_qc8w(${_xnn_args}, NULL, NULL, &op);
  xnn_reshape_convolution2d_nhwc_qs8_qc8w(op, 1, 1, 1, &ws, &al, NULL, NULL, NULL);
  return (int)xnn_setup_convolution2d_nhwc_qs8_qc8w(op, NULL, &x, &y); }" YOLORT_XNN_QS8_QC8W_2023)
check_c_source_compiles("
#include <xnnpack.h>
int main(void) { float sc = 1; int8_t w = 0; int32_t b = 0; int8_t x = 0, y = 0; xnn_operator_t op;
  size_t ws;
  xnn_create_convolution2d_nhwc_qs8_qc8w(${_xnn_args}, NULL, &op);
  xnn_reshape_convolution2d_nhwc_qs8_qc8w(op, 1, 1, 1, &ws, NULL, NULL, NULL);
  return (int)xnn_setup_convolution2d_nhwc_qs8_qc8w(op, NULL, &x, &y); }" YOLORT_XNN_QS8_QC8W_2024)
cmake_pop_check_state()
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
if(YOLORT_XNN_QC8_2022)
  set(YOLORT_XNNPACK_API 1)
elseif(YOLORT_XNN_QS8_QC8W_2023)
  set(YOLORT_XNNPACK_API 2)
elseif(YOLORT_XNN_QS8_QC8W_2024)
  set(YOLORT_XNNPACK_API 3)
else()
  message(FATAL_ERROR "XNNPACK at ${_xnn_inc}: none of the convolution APIs yolort knows "
    "(*_qc8 2022, *_qs8_qc8w 2023/2024) compiles; configure with -DYOLORT_XNNPACK=OFF")
endif()
message(STATUS "yolort: XNNPACK convolution API ${YOLORT_XNNPACK_API}")
