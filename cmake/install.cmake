# install.cmake — `cmake --install`: headers (include/yolort/), libyolort (+ libyolort_kernels.a
# when static) and libyolort_image, the CMake package (find_package(yolort) -> yolort::yolort,
# yolort::image) and pkg-config files (yolort.pc, yolort-image.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(YOLORT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/yolort)

install(TARGETS ${YOLORT_INSTALL_TARGETS} EXPORT yolortTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/yolort)
install(FILES ${YOLORT_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/yolort)
install(EXPORT yolortTargets NAMESPACE yolort:: DESTINATION ${YOLORT_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/yolortConfig.cmake.in
  ${PROJECT_BINARY_DIR}/yolortConfig.cmake INSTALL_DESTINATION ${YOLORT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/yolortConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/yolortConfig.cmake ${PROJECT_BINARY_DIR}/yolortConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/yolortDeps.cmake DESTINATION ${YOLORT_CMAKE_DIR})

# pkg-config: a static install lists every archive and system library in Libs (plain
# `pkg-config --libs yolort` links); a shared one keeps them in Libs.private.
# A shared install needs nothing of them at the consumer's link (no public header includes theirs):
# Libs.private, read only by `pkg-config --static`. The lean core (YOLORT_XNNPACK=OFF) lists no
# XNNPACK, pthreadpool or cpuinfo at all.
set(YOLORT_PC_DEPS "")
if(YOLORT_XNNPACK)
  string(APPEND YOLORT_PC_DEPS " -lXNNPACK")
endif()
if(YOLORT_PTHREADPOOL)
  string(APPEND YOLORT_PC_DEPS " -lpthreadpool")
endif()
if(YOLORT_XNNPACK)
  string(APPEND YOLORT_PC_DEPS " -lcpuinfo")
endif()
string(APPEND YOLORT_PC_DEPS " -lpthread -lm")
if(BUILD_SHARED_LIBS)
  set(YOLORT_PC_LIBS "-lyolort")
  set(YOLORT_PC_LIBS_PRIVATE "${YOLORT_PC_DEPS}")
  set(YOLORT_IMAGE_PC_LIBS "-lyolort_image")
  set(YOLORT_IMAGE_PC_LIBS_PRIVATE "-lturbojpeg")
else()
  set(YOLORT_PC_LIBS "-lyolort -lyolort_kernels${YOLORT_PC_DEPS}")
  set(YOLORT_PC_LIBS_PRIVATE "")
  set(YOLORT_IMAGE_PC_LIBS "-lyolort_image -lturbojpeg")
  set(YOLORT_IMAGE_PC_LIBS_PRIVATE "")
endif()
# relocatable .pc files: the prefix is found from where the file lies (pkg-config's pcfiledir)
file(RELATIVE_PATH YOLORT_PC_UP /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/yolort.pc.in ${PROJECT_BINARY_DIR}/yolort.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/yolort.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(YOLORT_IMAGE)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/yolort-image.pc.in ${PROJECT_BINARY_DIR}/yolort-image.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/yolort-image.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# The command-line tools, for the ML team beside the library (bin/): whichever this build made
# (YOLORT_BUILD_TOOLS / YOLORT_BUILD_BENCH).
set(YOLORT_INSTALL_CLIS "")
foreach(t yolort-convert yolort-quantize yolort-detect yolort-eval yolort-inspect yolort-bench)
  if(TARGET ${t})
    list(APPEND YOLORT_INSTALL_CLIS ${t})
  endif()
endforeach()
if(YOLORT_INSTALL_CLIS)
  install(TARGETS ${YOLORT_INSTALL_CLIS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
