// Issue 38: Stage I on a cube operator. The feasibility screen reads a TCubeTiling in the tiling
// words as one Matmul tiling: larger base blocks (whose L0C size word passes the element count)
// are not refused by the word-by-word invariants, and base blocks past L0A/L0B/L0C or depths past
// L1 are refused with the buffer named. The Matmul tiling calls' literal arguments (SetFixSplit's
// base M/N/K, SetDim, SetSingleShape, SetBufferSpace) are tunables with their parameters' names
// and domains; the AIC core count is a core-count tunable; -1 ("GetTiling chooses") is not one;
// instantiating new values rewrites exactly those arguments.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "aopt/stage1/feasibility.h"
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


// A TCubeTiling's 50 words as GetTiling fills them (fp16 inputs), after `lead` words of the
// operator's own.
std::vector<std::int64_t> cube_words(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t bm, std::int64_t bn,
                                     std::int64_t bk, std::int64_t db, std::int64_t stepk, std::int64_t lead = 1) {
  std::vector<std::int64_t> w(static_cast<std::size_t>(lead), 7);
  std::vector<std::int64_t> c(50, 0);
  c[0] = 4;  // usedCoreNum
  c[1] = M;
  c[2] = N;
  c[3] = K;
  c[4] = K;
  c[5] = (M + 1) / 2;
  c[6] = (N + 1) / 2;
  c[7] = K;
  c[8] = bm;
  c[9] = bn;
  c[10] = bk;
  c[11] = 2 * stepk;
  c[12] = 2 * stepk;
  c[13] = 1;
  c[14] = 1;
  c[15] = 1;  // isBias
  c[19] = c[11] * bm * bk * 2 + c[12] * bn * bk * 2 + bn * 4;  // shareL1Size
  c[20] = bm * bn * 4;                                          // shareL0CSize
  c[22] = c[23] = c[24] = c[25] = 1;
  c[26] = c[27] = stepk;
  c[30] = c[31] = db;
  c[32] = 1;
  c[48] = 1;
  w.insert(w.end(), c.begin(), c.end());
  return w;
}

screen_outcome outcome(const std::vector<std::int64_t>& words) {
  tiling_facts f;
  f.case_name = "tails";
  f.block_dim = 4;
  f.tiling_key = 1;
  f.words = words;
  f.elements = 100 * 90;
  f.elem_bytes = 2;
  return screen_outcome{true, "ok", "", {f}};
}

TEST(Stage1MatmulScreen, LargerBaseBlocksPassWhileTheyFitTheCubesBuffers) {
  const feasibility_screen screen(outcome(cube_words(100, 70, 90, 32, 32, 32, 1, 3)).cases, device_limits{});
  // 128 x 128 x 64, double-buffered: shareL0CSize 65536 passes the 9000 elements, and fits.
  EXPECT_EQ(screen.check(outcome(cube_words(100, 70, 90, 128, 128, 64, 2, 2))), std::nullopt);
  // 256 x 256 float accumulators = 256 KiB > L0C.
  const auto l0c = screen.check(outcome(cube_words(100, 70, 90, 256, 256, 32, 1, 1)));
  ASSERT_TRUE(l0c.has_value());
  EXPECT_NE(l0c->find("L0C"), std::string::npos) << *l0c;
  // 256 x 128 half, double-buffered = 128 KiB > L0A.
  const auto l0a = screen.check(outcome(cube_words(100, 70, 90, 256, 16, 128, 2, 1)));
  ASSERT_TRUE(l0a.has_value());
  EXPECT_NE(l0a->find("L0A"), std::string::npos) << *l0a;
  // 2 x 64 K steps of 128 x 64 blocks of A and of B = 4 MiB > L1.
  const auto l1 = screen.check(outcome(cube_words(100, 70, 90, 128, 128, 64, 2, 64)));
  ASSERT_TRUE(l1.has_value());
  EXPECT_NE(l1->find("L1"), std::string::npos) << *l1;
  // A base block that is no multiple of 16 is no Matmul tiling.
  EXPECT_TRUE(screen.check(outcome(cube_words(100, 70, 90, 40, 32, 32, 1, 1))).has_value());
  // The operator's own words keep their invariants.
  auto other = cube_words(100, 70, 90, 32, 32, 32, 1, 3);
  other[0] = 100000;
  EXPECT_TRUE(screen.check(outcome(other)).has_value());
}

TEST(Stage1MatmulScreen, DescribesTheCubeInvariant) {
  const feasibility_screen screen(outcome(cube_words(100, 70, 90, 32, 32, 32, 1, 3)).cases, device_limits{});
  bool found = false;
  for (const auto& d : screen.describe()) found |= d.find("Matmul tiling at word 1 fits L0A/L0B/L0C/L1 (2-byte inputs)") != std::string::npos;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace aopt::stage1
