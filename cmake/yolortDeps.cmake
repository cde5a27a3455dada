# yolortDeps.cmake — yolort's system dependencies as imported targets yolort_dep::*. Read by the
# build (CMakeLists.txt) and by the installed yolortConfig.cmake, so the exported targets name the
# same targets and the consumer's own system resolves them. Debian ships no CMake packages for
# these, hence find_library. Inputs:
#   YOLORT_DEPS_XNNPACK      XNNPACK (+ cpuinfo, which it calls); the core runtime needs neither
#   YOLORT_DEPS_PTHREADPOOL  pthreadpool (always with XNNPACK)
#   YOLORT_DEPS_TURBOJPEG    libturbojpeg (yolort_image)
#   YOLORT_DEPS_HEADERS      also find the headers (the build compiles against them; a consumer of
#                            the installed package never does: libraries only)
#   YOLORT_DEPS_STATIC       targets (xnnpack, pthreadpool, cpuinfo) for which lib<name>.a is
#                            preferred: a static yolort links them statically where the archives exist
#   YOLORT_DEPS_PREFIX       look here first, outside CMAKE_FIND_ROOT_PATH (a staging prefix that
#                            holds yolort and its dependencies, beside a cross toolchain's sysroot)
#   YOLORT_DEPS_SOFT         targets (e.g. turbojpeg) that, not found, are linked by name
#                            (-l<name>) instead of failing: only a consumer that links what needs
#                            them (yolort::image) can miss them
include(CMakeFindDependencyMacro)
find_dependency(Threads)

function(_yolort_dep target lib header)
  if(TARGET yolort_dep::${target})
    return()
  endif()
  string(TOUPPER "YOLORT_${target}_LIBRARY" libvar)
  string(TOUPPER "YOLORT_${target}_INCLUDE_DIR" incvar)
  # list(FIND), not IN_LIST: this file also runs under a consumer's older policies
  list(FIND YOLORT_DEPS_STATIC ${target} static)
  list(FIND YOLORT_DEPS_SOFT ${target} soft)
  set(names ${lib})
  if(static GREATER -1)
    set(names ${CMAKE_STATIC_LIBRARY_PREFIX}${lib}${CMAKE_STATIC_LIBRARY_SUFFIX} ${lib})
  endif()
  if(YOLORT_DEPS_PREFIX)
    find_library(${libvar} NAMES ${names} NAMES_PER_DIR PATHS ${YOLORT_DEPS_PREFIX}
      PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  endif()
  find_library(${libvar} NAMES ${names} NAMES_PER_DIR)
  set(found ${${libvar}})
  if(YOLORT_DEPS_HEADERS)
    find_path(${incvar} ${header})
    if(NOT ${incvar})
      set(found "")
    endif()
  endif()
  if(NOT found AND soft GREATER -1)
    add_library(yolort_dep::${target} INTERFACE IMPORTED GLOBAL)
    set_target_properties(yolort_dep::${target} PROPERTIES INTERFACE_LINK_LIBRARIES ${lib})
    return()
  endif()
  if(NOT found)
    set(_msg "yolort needs lib${lib}")
    if(YOLORT_DEPS_HEADERS)
      set(_msg "${_msg} and ${header}")
    endif()
    set(_msg "${_msg} (Debian: see tools/install-deps.sh)")
    if(CMAKE_FIND_PACKAGE_NAME)
      set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE PARENT_SCOPE)
      set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE "${_msg}" PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "${_msg}")
  endif()
  add_library(yolort_dep::${target} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(yolort_dep::${target} PROPERTIES IMPORTED_LOCATION "${${libvar}}")
  if(YOLORT_DEPS_HEADERS)
    set_target_properties(yolort_dep::${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${${incvar}}")
  endif()
endfunction()

if(YOLORT_DEPS_XNNPACK)
  _yolort_dep(cpuinfo cpuinfo cpuinfo.h)
endif()
if(YOLORT_DEPS_PTHREADPOOL OR YOLORT_DEPS_XNNPACK)
  _yolort_dep(pthreadpool pthreadpool pthreadpool.h)
endif()
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
