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
  gtest_discover_tests(${T_NAME}
    DISCOVERY_MODE PRE_TEST
    TEST_LIST ${T_NAME}_TESTS
    PROPERTIES TIMEOUT ${T_TIMEOUT})
  # A list inside gtest_discover_tests' PROPERTIES is flattened (only the first label or
  # variable would survive), so list-valued properties are set by a second include file, run
  # after the discovered tests (and their list ${T_NAME}_TESTS) are defined.
  set(_labels_file ${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_labels.cmake)
  file(WRITE ${_labels_file}
    "if(${T_NAME}_TESTS)\n  set_tests_properties(\${${T_NAME}_TESTS} PROPERTIES LABELS \"${T_LABELS}\" ENVIRONMENT \"AOPT_SOURCE_DIR=${PROJECT_SOURCE_DIR};AOPT_BUILD_DIR=${PROJECT_BINARY_DIR}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${_labels_file})
endfunction()
