// What a package's CMakeLists.txt says about its build (evaluation/package_build.h): the fixture
// tree tests/integration/packages/shared_tree, and small CMakeLists of the test's own.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "aopt/common/error.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/package_build.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/shared_tree";
const fs::path op = tree / "src/fixture/shared_scale";

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

class PackageBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = fs::temp_directory_path() / ("aopt-package-build-" + std::to_string(::getpid()));
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }
  fs::path tmp_;
};

}  // namespace

TEST_F(PackageBuild, TheSharedDirectoryIsFollowedInsideTheTree) {
  const auto b = ev::read_package_build(op, tree);
  EXPECT_TRUE(b.names_host_sources);
  // The OpDef source (named twice), the shared tiling source from file(GLOB ${OP_COMMON_DIR}/...).
  EXPECT_EQ(b.host_sources, (std::vector<std::string>{"aopt_shared/src/common/src/fixture_shared/scale_tiling_func.cpp",
                                                     "op_host/shared_scale.cpp"}));
  EXPECT_EQ(b.op_api_sources, (std::set<std::string>{"op_host/shared_scale_l0.cpp"}));
  EXPECT_EQ(b.host_include_dirs, (std::vector<std::string>{"aopt_shared/src/common/inc"}));
  EXPECT_EQ(b.kernel_include_dirs, (std::vector<std::string>{"aopt_shared/src/common/inc/fixture_shared/op_kernel"}));
  EXPECT_TRUE(has(b.shared_files, "src/common/inc/fixture_shared/scale_tiling_def.h"));
  EXPECT_TRUE(has(b.shared_files, "src/common/src/fixture_shared/scale_tiling_func.cpp"));
  // /etc is named too, outside the tree: a warning with the line, nothing read.
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_NE(b.warnings[0].find("CMakeLists.txt:18: /etc is outside the tree root"), std::string::npos) << b.warnings[0];
  for (const auto& f : b.shared_files) EXPECT_EQ(f.rfind("src/common/", 0), 0u) << f;
}

TEST_F(PackageBuild, WithoutATreeNothingOutsideThePackageIsRead) {
  const auto b = ev::read_package_build(op, op);
  EXPECT_TRUE(b.shared_files.empty());
  EXPECT_TRUE(b.host_include_dirs.empty());
  EXPECT_EQ(b.host_sources, (std::vector<std::string>{"op_host/shared_scale.cpp"}));
  EXPECT_GE(b.warnings.size(), 3u);  // the glob's directory, the include directories, the kernel's
}

TEST_F(PackageBuild, TheLoaderBuildsOnlyWhatTheLibrariesCompileAndFindsTheSharedTilingStruct) {
  ev::package_options po;
  po.tree_root = tree;
  const auto pkg = ev::load_package(op, po);
  EXPECT_FALSE(has(pkg.host_sources, "op_host/shared_scale_l0.cpp"));
  EXPECT_FALSE(has(pkg.host_sources, "op_host/shared_scale_infer.cc"));
  EXPECT_TRUE(has(pkg.host_sources, "aopt_shared/src/common/src/fixture_shared/scale_tiling_func.cpp"));
  EXPECT_EQ(pkg.tiling_header, "aopt_shared/src/common/inc/fixture_shared/scale_tiling_def.h");
  // Without the tree the struct is nowhere the loader may look: an error saying so.
  try {
    ev::load_package(op);
    FAIL() << "loaded without its tiling struct";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("--tree"), std::string::npos) << e.what();
  }
}

TEST_F(PackageBuild, ATreeThatDoesNotHoldTheOperatorIsAnError) {
  EXPECT_THROW(ev::read_package_build(op, tmp_), aopt::error);
}

TEST_F(PackageBuild, VariablesListsGlobsAndLinksOutOfTheTree) {
  const fs::path root = tmp_ / "proj";
  const fs::path pkg = root / "src/cat/op";
  fs::create_directories(pkg / "op_host");
  fs::create_directories(root / "src/common/inc/sub");
  fs::create_directories(root / "src/common/extra");
  std::ofstream(root / "src/common/inc/a.h") << "// a\n";
  std::ofstream(root / "src/common/inc/sub/b.h") << "// b\n";
  std::ofstream(root / "src/common/extra/one.cpp") << "// one\n";
  std::ofstream(root / "src/common/extra/two.cpp") << "// two\n";
  std::ofstream(pkg / "op_host/op.cpp") << "// op\n";
  fs::create_symlink("/etc", root / "src/common/inc/etc_link");
  std::ofstream(pkg / "CMakeLists.txt") << R"(# comment (with parentheses)
set(MY_INC ${CMAKE_SOURCE_DIR}/src/common/inc)
file(GLOB_RECURSE EXTRA RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/../../common/extra/*.cpp)
list(APPEND EXTRA op_host/op.cpp)
target_sources(optiling PRIVATE ${EXTRA} "${UNKNOWN_VAR}/x.cpp")
target_include_directories(opsproto PRIVATE $<BUILD_INTERFACE:${MY_INC}> ${MY_INC} ${CMAKE_SOURCE_DIR}/src/common/inc/etc_link)
)";
  const auto b = ev::read_package_build(pkg, root);
  EXPECT_EQ(b.host_sources, (std::vector<std::string>{"aopt_shared/src/common/extra/one.cpp", "aopt_shared/src/common/extra/two.cpp",
                                                     "op_host/op.cpp"}));
  EXPECT_EQ(b.host_include_dirs, (std::vector<std::string>{"aopt_shared/src/common/inc"}));
  EXPECT_TRUE(has(b.shared_files, "src/common/inc/sub/b.h"));
  for (const auto& f : b.shared_files) EXPECT_EQ(f.find("etc_link"), std::string::npos) << f;
  bool warned = false;
  for (const auto& w : b.warnings) warned = warned || w.find("etc_link") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(PackageBuild, TheProjectsSharedHeadersReachEveryOperatorInsideTheTree) {
  // cann-ops gives src/common/inc to every operator's tiling and proto libraries through the
  // interface targets of src/common/CMakeLists.txt; an operator's own CMakeLists need not name it.
  const fs::path root = tmp_ / "proj";
  const fs::path pkg = root / "src/cat/op";
  fs::create_directories(pkg / "op_host");
  fs::create_directories(root / "src/common/inc/tiling");
  std::ofstream(root / "src/common/inc/tiling/base.h") << "// base\n";
  std::ofstream(root / "src/common/CMakeLists.txt")
      << "add_library(ops_utils_tiling_headers INTERFACE)\n"
         "target_include_directories(ops_utils_tiling_headers INTERFACE\n"
         "  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/inc>\n"
         "  $<$<BOOL:${X}>:$<BUILD_INTERFACE:${ASCEND_CANN_PACKAGE_PATH}/include>>)\n";
  std::ofstream(pkg / "CMakeLists.txt") << "target_sources(optiling PRIVATE op_host/op.cpp)\n";
  std::ofstream(pkg / "op_host/op.cpp") << "// op\n";
  const auto b = ev::read_package_build(pkg, root);
  EXPECT_EQ(b.host_include_dirs, (std::vector<std::string>{"aopt_shared/src/common/inc"}));
  EXPECT_EQ(b.shared_files, (std::vector<std::string>{"src/common/inc/tiling/base.h"}));
  EXPECT_TRUE(b.warnings.empty());
  // Outside the tree root (no --tree): not followed, and no warning (the operator did not ask).
  const auto alone = ev::read_package_build(pkg, pkg);
  EXPECT_TRUE(alone.host_include_dirs.empty());
  EXPECT_TRUE(alone.warnings.empty());
}

TEST(KernelTilingView, AHeaderReachingHostOnlyHeadersIsReducedToItsStructs) {
  const std::map<std::string, std::string> files = {
      {"op_host/op_tiling.h",
       "#include \"register/tilingdata_base.h\"\n#include \"tiling/tiling_base.h\"\n#include \"op_consts.h\"\n"
       "namespace optiling {\n// constexpr uint32_t COMMENTED = 1;\nconstexpr uint32_t UNUSED = 7;\n"
       "BEGIN_TILING_DATA_DEF(OpTilingData)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"
       "TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_N, starts);\nEND_TILING_DATA_DEF;\n"
       "REGISTER_TILING_DATA_CLASS(Op, OpTilingData)\n"
       "class OpTiling : public TilingBaseClass { void DumpTilingInfo() override; };\n}\n"},
      {"shared/op_consts.h", "#pragma once\nnamespace optiling {\nconstexpr uint16_t MAX_N = BASE_N * 2;\nconstexpr uint16_t BASE_N = 25;\n}\n"},
  };
  auto read = [&](const std::string& f) {
    auto it = files.find(f);
    return it == files.end() ? std::string() : it->second;
  };
  const auto view = ev::kernel_tiling_view("op_host/op_tiling.h", read, {"shared"});
  ASSERT_TRUE(view.has_value());
  EXPECT_NE(view->find("BEGIN_TILING_DATA_DEF(OpTilingData)"), std::string::npos) << *view;
  EXPECT_NE(view->find("REGISTER_TILING_DATA_CLASS(Op, OpTilingData)"), std::string::npos) << *view;
  // The array size as a number, as the generated kernel_tiling.h: no host constant in the view.
  EXPECT_NE(view->find("TILING_DATA_FIELD_DEF_ARR(int64_t, ((25) * 2), starts)"), std::string::npos) << *view;
  EXPECT_EQ(view->find("MAX_N"), std::string::npos) << *view;
  EXPECT_EQ(view->find("BASE_N"), std::string::npos) << *view;
  EXPECT_EQ(view->find("TilingBaseClass"), std::string::npos) << *view;
  EXPECT_EQ(view->find("tiling_base.h"), std::string::npos) << *view;
  EXPECT_EQ(view->find("UNUSED"), std::string::npos) << *view;
  EXPECT_EQ(view->find("COMMENTED"), std::string::npos) << *view;
  // A header of the tiling macros only is also reduced to its structs: the generated header has
  // no include guard of the host header's, which the kernel's own header may share.
  const std::map<std::string, std::string> plain = {
      {"op_host/t.h", "#ifndef OP_H_\n#define OP_H_\n#include \"register/tilingdata_base.h\"\n#include <cstdint>\n"
                      "BEGIN_TILING_DATA_DEF(T)\nEND_TILING_DATA_DEF;\n#endif\n"}};
  const auto plain_view =
      ev::kernel_tiling_view("op_host/t.h", [&](const std::string& f) { return plain.count(f) ? plain.at(f) : std::string(); }, {});
  ASSERT_TRUE(plain_view.has_value());
  EXPECT_NE(plain_view->find("BEGIN_TILING_DATA_DEF(T)"), std::string::npos) << *plain_view;
  EXPECT_EQ(plain_view->find("OP_H_"), std::string::npos) << *plain_view;
  // ... unless an array size names one of its constants: then its structs only, the size a number.
  const std::map<std::string, std::string> sized = {
      {"op_host/t.h", "#include \"register/tilingdata_base.h\"\nnamespace optiling {\nconstexpr size_t MAX_DIM_NUM = 8;\n"
                      "BEGIN_TILING_DATA_DEF(T)\nTILING_DATA_FIELD_DEF_ARR(int64_t, MAX_DIM_NUM, dims);\nEND_TILING_DATA_DEF;\n}\n"}};
  const auto sized_view =
      ev::kernel_tiling_view("op_host/t.h", [&](const std::string& f) { return sized.count(f) ? sized.at(f) : std::string(); }, {});
  ASSERT_TRUE(sized_view.has_value());
  EXPECT_NE(sized_view->find("TILING_DATA_FIELD_DEF_ARR(int64_t, (8), dims)"), std::string::npos) << *sized_view;
  EXPECT_EQ(sized_view->find("MAX_DIM_NUM"), std::string::npos) << *sized_view;
  // Qualifiers in any order (`constexpr static int`), and a macro: their values too.
  const std::map<std::string, std::string> orders = {
      {"op_host/t.h", "#ifndef T_H\n#define T_H\n#include \"register/tilingdata_base.h\"\n#define MAX_B 4\nnamespace optiling {\n"
                      "constexpr static int MAX_ARRAY_NUM = 40;\nBEGIN_TILING_DATA_DEF(T)\n"
                      "TILING_DATA_FIELD_DEF_ARR(uint32_t, MAX_ARRAY_NUM, a);\nTILING_DATA_FIELD_DEF_ARR(uint32_t, MAX_B, b);\n"
                      "END_TILING_DATA_DEF;\n}\n#endif\n"}};
  const auto orders_view =
      ev::kernel_tiling_view("op_host/t.h", [&](const std::string& f) { return orders.count(f) ? orders.at(f) : std::string(); }, {});
  ASSERT_TRUE(orders_view.has_value());
  EXPECT_NE(orders_view->find("TILING_DATA_FIELD_DEF_ARR(uint32_t, (40), a)"), std::string::npos) << *orders_view;
  EXPECT_NE(orders_view->find("TILING_DATA_FIELD_DEF_ARR(uint32_t, (4), b)"), std::string::npos) << *orders_view;
  EXPECT_EQ(orders_view->find("T_H"), std::string::npos) << *orders_view;
  // A registration through the header's own macro (a shared fixture header's
  // `#define REG(op, data) REGISTER_TILING_DATA_CLASS(op, data)`): the header as it is.
  const std::map<std::string, std::string> wrapped = {
      {"op_host/t.h", "#include \"register/tilingdata_base.h\"\n#define REG(op, data) REGISTER_TILING_DATA_CLASS(op, data)\n"
                      "namespace optiling {\nBEGIN_TILING_DATA_DEF(T)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
                      "REG(Op, T)\n}\n"}};
  EXPECT_FALSE(
      ev::kernel_tiling_view("op_host/t.h", [&](const std::string& f) { return wrapped.count(f) ? wrapped.at(f) : std::string(); }, {})
          .has_value());
}

// The kernel sees every tiling struct of the operator's headers (weight_quant_batch_matmul_v2 names
// one struct per tiling key, each in its own op_host header); a struct or an operator type met
// twice is kept once, the chosen header's first.
TEST(KernelTilingView, TheOtherHeadersStructsJoinTheViewOnceEach) {
  const std::map<std::string, std::string> files = {
      {"op_host/op_tiling_data.h", "#include \"register/tilingdata_base.h\"\nnamespace optiling {\nBEGIN_TILING_DATA_DEF(BaseData)\n"
                                   "TILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(Op, BaseData)\n}\n"},
      {"op_host/op_tiling_msd.h", "#include \"op_tiling_data.h\"\nnamespace optiling {\nBEGIN_TILING_DATA_DEF(MsdData)\n"
                                  "TILING_DATA_FIELD_DEF(uint32_t, m);\nEND_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(Op_511200, MsdData)\n"
                                  "REGISTER_TILING_DATA_CLASS(Op, MsdData)\n}\n"},
  };
  auto read = [&](const std::string& f) { return files.count(f) ? files.at(f) : std::string(); };
  const auto alone = ev::kernel_tiling_view("op_host/op_tiling_data.h", read, {});
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ(alone->find("MsdData"), std::string::npos) << *alone;
  const auto view = ev::kernel_tiling_view("op_host/op_tiling_data.h", read, {}, {"op_host/op_tiling_msd.h"});
  ASSERT_TRUE(view.has_value());
  EXPECT_NE(view->find("BEGIN_TILING_DATA_DEF(MsdData)"), std::string::npos) << *view;
  EXPECT_NE(view->find("REGISTER_TILING_DATA_CLASS(Op_511200, MsdData)"), std::string::npos) << *view;
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = view->find(what); at != std::string::npos; at = view->find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("BEGIN_TILING_DATA_DEF(BaseData)"), 1u) << *view;
  EXPECT_EQ(count("REGISTER_TILING_DATA_CLASS(Op,"), 1u) << "one alias per operator type: " << *view;
  EXPECT_NE(view->find("REGISTER_TILING_DATA_CLASS(Op, BaseData)"), std::string::npos) << "the chosen header's wins: " << *view;
}

TEST(KernelLaunches, ChevronLaunchesAreWrittenForTheHostCompilerInPlace) {
  const std::string src =
      "// k<<<1, 2, 3>>>(x) in a comment\n"
      "const char* s = \"k<<<1, 2, 3>>>(x)\";\n"
      "int shifted = a << 3;\n"
      "void k_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x) {\n"
      "    k<<<blockDim, l2ctrl, stream>>>(x,\n"
      "        x);\n"
      "    ns::k2 <<< 1, nullptr, nullptr >>> (x);\n"
      "}\n";
  const auto out = ev::kernel_launches_rewritten(src);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out,
            "// k<<<1, 2, 3>>>(x) in a comment\n"
            "const char* s = \"k<<<1, 2, 3>>>(x)\";\n"
            "int shifted = a << 3;\n"
            "void k_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* x) {\n"
            "    ::aopt::sim::chevron_launch(k, blockDim, l2ctrl, stream)(x,\n"
            "        x);\n"
            "    ::aopt::sim::chevron_launch(ns::k2 ,  1, nullptr, nullptr ) (x);\n"
            "}\n");
  EXPECT_FALSE(ev::kernel_launches_rewritten("int a = b << 2; // k<<<1, 2, 3>>>(x)\n").has_value());
}

TEST_F(PackageBuild, TheKeyChangesWithWhatTheBuildCompiles) {
  ev::package_options po;
  po.tree_root = tree;
  auto with_tree = std::make_shared<const ev::op_package>(ev::load_package(op, po));
  auto other = std::make_shared<ev::op_package>(*with_tree);
  other->host_sources.pop_back();  // the same files, another selection
  EXPECT_NE(ev::candidate(with_tree).key("sim", "p", 1, "tc"), ev::candidate(other).key("sim", "p", 1, "tc"));
  auto more = std::make_shared<ev::op_package>(*with_tree);
  more->host_include_dirs.push_back("op_host");
  EXPECT_NE(ev::candidate(with_tree).key("sim", "p", 1, "tc"), ev::candidate(more).key("sim", "p", 1, "tc"));
}

// s29 (issue 38): a tiling struct of plain C++ in op_kernel/, which the host includes from there
// (cann-ops' matmul_all_reduce: `#include "../op_kernel/matmul_all_reduce_tiling.h"`, filled with
// GetTilingData<T>()): the loader takes it as the tiling header. On main: "no header of op_host/
// declares the tiling struct".
TEST_F(PackageBuild, ATilingStructTheHostIncludesFromOpKernelIsTheTilingHeader) {
  const fs::path dir = tmp_ / "struct_op";
  fs::create_directories(dir / "op_host");
  fs::create_directories(dir / "op_kernel");
  std::ofstream(dir / "op_host/struct_op.cpp") << "#include \"../op_kernel/struct_op_tiling.h\"\n"
                                                  "#include \"register/op_def_registry.h\"\n"
                                                  "namespace ops { class StructOp : public OpDef { public: explicit StructOp(const char* n) "
                                                  ": OpDef(n) {} }; OP_ADD(StructOp); }\n";
  std::ofstream(dir / "op_kernel/struct_op_tiling.h") << "#pragma once\n#include <cstdint>\nstruct StructOpTilingData { uint32_t n; };\n";
  std::ofstream(dir / "op_kernel/struct_op.cpp") << "#include \"kernel_operator.h\"\n";
  ev::package_options po;
  po.without_cases = true;
  const auto pkg = ev::load_package(dir, po);
  EXPECT_EQ(pkg.tiling_header, "op_kernel/struct_op_tiling.h");
  EXPECT_EQ(pkg.spec.kernel, "struct_op");
}

// weight_quant_batch_matmul_v2's layout: op_host/<kernel>_tiling.h holds the tiling class (and
// includes host-only headers), the struct is registered in another header the tiling sources
// include. The kernel's tiling header is the registering one; a <kernel>_tiling.h that includes
// it, or any when none registers, stays.
TEST_F(PackageBuild, AKernelTilingHeaderWithoutTheStructGivesWayToTheRegisteringHeader) {
  const fs::path p = tmp_ / "pkg";
  fs::create_directories(p / "op_host");
  fs::create_directories(p / "op_kernel");
  std::ofstream(p / "op_host" / "my_op_tiling.h") << "#include \"host_only_cache.h\"\nclass MyOpTiling {};\n";
  std::ofstream(p / "op_host" / "my_op_tiling_data.h")
      << "BEGIN_TILING_DATA_DEF(MyOpTilingData)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
         "REGISTER_TILING_DATA_CLASS(MyOp, MyOpTilingData)\n";
  std::ofstream(p / "op_host" / "my_op.cpp") << "class MyOp : public OpDef {};\nOP_ADD(MyOp);\n";
  std::ofstream(p / "op_kernel" / "my_op.cpp") << "// kernel\n";
  std::ofstream(tmp_ / "aopt.json") << R"({"kernel": "my_op", "cases": [{"name": "p", "timed": true,
      "inputs": {"x": {"shape": [4], "dtype": "float16"}}}]})";
  EXPECT_EQ(ev::load_package(p).tiling_header, "op_host/my_op_tiling_data.h");
  std::ofstream(p / "op_host" / "my_op_tiling.h") << "#include \"my_op_tiling_data.h\"\nclass MyOpTiling {};\n";
  EXPECT_EQ(ev::load_package(p).tiling_header, "op_host/my_op_tiling.h");
}
