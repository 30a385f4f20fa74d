# aopt_add_test(NAME name SOURCES a.cpp ... [LIBS l ...] [LABELS unit sim ...] [TIMEOUT s])
# One GoogleTest binary; each test case becomes a ctest test carrying LABELS.
include(GoogleTest)
function(aopt_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE GTest::gtest_main GTest::gmock ${T_LIBS})
  aopt_target_defaults(${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # A list inside PROPERTIES is flattened: escape it so every label survives.
  string(REPLACE ";" "\\;" _labels "${T_LABELS}")
  gtest_discover_tests(${T_NAME}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${_labels}" TIMEOUT ${T_TIMEOUT}
               ENVIRONMENT "AOPT_SOURCE_DIR=${PROJECT_SOURCE_DIR};AOPT_BUILD_DIR=${PROJECT_BINARY_DIR}")
endfunction()
