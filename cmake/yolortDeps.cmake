# yolortDeps.cmake — yolort's system dependencies as imported targets yolort_dep::*. Read by the
# build (CMakeLists.txt) and by the installed yolortConfig.cmake, so the exported yolort::yolort
# names the same targets and the consumer's own system resolves them. Debian ships no CMake
# packages for these, hence find_library. Inputs: YOLORT_DEPS_XNNPACK, YOLORT_DEPS_TURBOJPEG.
include(CMakeFindDependencyMacro)
find_dependency(Threads)

function(_yolort_dep target lib header)
  if(TARGET yolort_dep::${target})
    return()
  endif()
  string(TOUPPER "YOLORT_${target}_LIBRARY" libvar)
  string(TOUPPER "YOLORT_${target}_INCLUDE_DIR" incvar)
  find_library(${libvar} ${lib})
  find_path(${incvar} ${header})
  if(NOT ${libvar} OR NOT ${incvar})
    set(_msg "yolort needs lib${lib} and ${header} (Debian: see tools/install-deps.sh)")
    if(CMAKE_FIND_PACKAGE_NAME)
      set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE PARENT_SCOPE)
      set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE "${_msg}" PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "${_msg}")
  endif()
  add_library(yolort_dep::${target} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(yolort_dep::${target} PROPERTIES IMPORTED_LOCATION "${${libvar}}"
    INTERFACE_INCLUDE_DIRECTORIES "${${incvar}}")
endfunction()

_yolort_dep(cpuinfo cpuinfo cpuinfo.h)
_yolort_dep(pthreadpool pthreadpool pthreadpool.h)
if(YOLORT_DEPS_XNNPACK)
  _yolort_dep(xnnpack XNNPACK xnnpack.h)
  # XNNPACK calls into pthreadpool and cpuinfo: static archives need them after it.
  if(TARGET yolort_dep::xnnpack)
    set_property(TARGET yolort_dep::xnnpack APPEND PROPERTY INTERFACE_LINK_LIBRARIES
      yolort_dep::pthreadpool yolort_dep::cpuinfo)
  endif()
endif()
if(YOLORT_DEPS_TURBOJPEG)
  _yolort_dep(turbojpeg turbojpeg turbojpeg.h)
endif()
