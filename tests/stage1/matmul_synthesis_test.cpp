// Issue 38: Stage I on a cube operator. The Matmul tiling calls' literal arguments (SetFixSplit's
// base M/N/K, SetDim, SetSingleShape, SetBufferSpace) are tunables with their parameters' names
// and domains; the AIC core count is a core-count tunable; -1 ("GetTiling chooses") is not one;
// instantiating new values rewrites exactly those arguments.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "aopt/stage1/tiling_template.h"
#include "stage1_test_util.h"

namespace aopt::stage1 {
namespace {

tiling_template synth_matmul_baseline() {
  synthesis_input in;
  const auto root = test::source_dir() / "examples" / "ops" / "matmul" / "baseline";
  in.host_files.push_back({"op_host/matmul_custom.cpp", test::read_text(root / "op_host" / "matmul_custom.cpp")});
  in.host_files.push_back(
      {"op_host/matmul_custom_tiling.h", test::read_text(root / "op_host" / "matmul_custom_tiling.h")});
  in.kernel_files.push_back({"op_kernel/matmul_custom.cpp", test::read_text(root / "op_kernel" / "matmul_custom.cpp")});
  auto r = synthesize(in);
  EXPECT_TRUE(r.tmpl.has_value()) << (r.error ? r.error->reason : "");
  if (!r.tmpl) throw std::runtime_error("synthesis failed");
  return *r.tmpl;
}

TEST(Stage1MatmulSynthesis, SuiteMatmulBaseBlocksAndCoreSplitAreTunables) {
  const auto t = synth_matmul_baseline();
  using row = std::tuple<std::string, std::string, std::int64_t, std::string>;
  std::vector<row> rows;
  for (const auto& tu : t.tunables) rows.emplace_back(tu.name, to_string(tu.kind), tu.value, tu.dom.describe());
  EXPECT_EQ(rows, (std::vector<row>{
                      {"core_count", "block_dim", 0, "cores 0|1..cores"},
                      {"baseM", "size", 32, "pow2 [16, 256]"},
                      {"baseN", "size", 32, "pow2 [16, 256]"},
                      {"baseK", "size", 32, "pow2 [16, 512]"},
                      {"tiling_key", "key", 1, "choices {1}"},
                  }));
}

TEST(Stage1MatmulSynthesis, InstantiatingRewritesTheCallsArguments) {
  const auto t = synth_matmul_baseline();
  auto v = t.base();
  v[*t.find("baseM")] = 128;
  v[*t.find("baseN")] = 128;
  v[*t.find("baseK")] = 64;
  v[*t.find("core_count")] = 8;
  const auto files = t.instantiate(v);
  const std::string& host = files.at("op_host/matmul_custom.cpp");
  EXPECT_NE(host.find("cubeTiling.SetFixSplit(128, 128, 64);"), std::string::npos);
  EXPECT_NE(host.find("cubeTiling.SetDim(8);"), std::string::npos);
  EXPECT_EQ(host.find("SetFixSplit(32, 32, 32)"), std::string::npos);
  EXPECT_EQ(t.describe_change(v), "core_count=8, baseM=128, baseN=128, baseK=64");
}

TEST(Stage1MatmulSynthesis, MinusOneAndNonLiteralArgumentsAreNotTunables) {
  synthesis_input in;
  in.host_files.push_back({"op_host/mm.cpp", R"(
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    matmul_tiling::MultiCoreMatmulTiling mm(plat);
    int32_t m = 64;
    mm.SetBufferSpace(-1, -1, -1);
    mm.SetFixSplit(-1, m, 256);
    mm.SetSingleShape(512, 512, 1024);
    MmTiling tiling;
    mm.GetTiling(tiling.cube);
    context->SetBlockDim(tiling.cube.usedCoreNum);
    return ge::GRAPH_SUCCESS;
}
}
)"});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl.has_value());
  std::vector<std::string> names;
  for (const auto& tu : r.tmpl->tunables) names.push_back(tu.name + "=" + std::to_string(tu.value));
  // m reaches SetFixSplit through a variable: the generic slice makes its literal a size.
  EXPECT_EQ(names, (std::vector<std::string>{"m_size=64", "baseK=256", "singleCoreM=512", "singleCoreN=512", "singleCoreK=1024"}));
}

}  // namespace
}  // namespace aopt::stage1
