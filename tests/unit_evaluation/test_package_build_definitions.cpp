// The compile definitions a package's build gives its host sources (package_build.h,
// host_definitions): its own target_compile_definitions of the tiling/proto libraries, and those of
// the tree's shared interface target ops_utils_tiling_headers (cann-ops' src/common/CMakeLists.txt
// gives OPS_UTILS_LOG_SUB_MOD_NAME="OP_TILING", which its shared log headers need), with CMake's
// literal quotes inside unquoted arguments and the $<IF:$<BOOL:...>,then,else> form evaluated.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "aopt/evaluation/package_build.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST(PackageBuildDefinitions, OwnAndSharedInterfaceDefinitionsReachTheHostBuild) {
  const fs::path tree = fs::temp_directory_path() / ("aopt-package-defs-" + std::to_string(::getpid()));
  fs::remove_all(tree);
  write(tree / "src/common/inc/x.h", "#pragma once\n");
  write(tree / "src/common/CMakeLists.txt",
        "add_library(ops_utils_tiling_headers INTERFACE)\n"
        "target_include_directories(ops_utils_tiling_headers INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/inc>)\n"
        "target_compile_definitions(ops_utils_tiling_headers INTERFACE\n"
        "        LOG_SUB_MOD=\"OP_TILING\"\n"
        "        LOG_PACKAGE=$<IF:$<BOOL:${SOME_UNSET_SWITCH}>,\"[Custom]\",\"\">\n"
        "        SKIPPED=$<TARGET_FILE:x>\n)\n"
        "target_compile_definitions(ops_utils_proto_headers INTERFACE LOG_SUB_MOD=\"OP_PROTO\")\n");
  const fs::path op = tree / "src/math/own";
  write(op / "op_host/own.cpp", "\n");
  write(op / "CMakeLists.txt",
        "target_sources(optiling PRIVATE op_host/own.cpp)\n"
        "target_compile_definitions(optiling PRIVATE OWN_FLAG=3 \"WHOLE=quoted\" PLAIN)\n"
        "target_compile_definitions(opapi PRIVATE NOT_THE_HOST_BUILD=1)\n");
  const auto b = ev::read_package_build(op, tree);
  EXPECT_EQ(b.host_definitions,
            (std::vector<std::string>{"OWN_FLAG=3", "WHOLE=quoted", "PLAIN", "LOG_SUB_MOD=\"OP_TILING\"", "LOG_PACKAGE=\"\""}));
  fs::remove_all(tree);
}
