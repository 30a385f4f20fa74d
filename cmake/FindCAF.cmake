# CAF 0.17.6 as packaged by Debian ships neither a CMake config nor a .pc file.
# Creates CAF::core, CAF::io and CAF::openssl (the middleman over mutual TLS).
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)
set(CAF_VERSION "")
if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_ver REGEX "#define CAF_VERSION [0-9]+")
  if(_caf_ver MATCHES "CAF_VERSION ([0-9]+)")
    math(EXPR _maj "${CMAKE_MATCH_1} / 10000")
    math(EXPR _min "(${CMAKE_MATCH_1} / 100) % 100")
    math(EXPR _pat "${CMAKE_MATCH_1} % 100")
    set(CAF_VERSION "${_maj}.${_min}.${_pat}")
  endif()
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY
  VERSION_VAR CAF_VERSION)
if(CAF_FOUND AND NOT TARGET CAF::core)
  add_library(CAF::core SHARED IMPORTED)
  set_target_properties(CAF::core PROPERTIES IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
  target_link_libraries(CAF::core INTERFACE Threads::Threads)
  add_library(CAF::io SHARED IMPORTED)
  set_target_properties(CAF::io PROPERTIES IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
  target_link_libraries(CAF::io INTERFACE CAF::core)
  if(CAF_OPENSSL_LIBRARY)
    add_library(CAF::openssl SHARED IMPORTED)
    set_target_properties(CAF::openssl PROPERTIES IMPORTED_LOCATION "${CAF_OPENSSL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
    target_link_libraries(CAF::openssl INTERFACE CAF::io)
  endif()
endif()
