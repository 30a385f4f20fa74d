// spread_single_core on a one-core operator fixture (data/spread_op: host SetBlockDim(1), a
// tile loop in the kernel, GM offsets by `blockLength * GetBlockIdx()`) and on a renamed,
// reformatted kernel (data/spread_op_renamed: LLVM style, `using namespace AscendC`, `++tile`,
// `this->` stage calls, no GetBlockIdx at all): the exact site, both files edited, the round
// trip, compiling output, and the guards (each a one-line edit that makes the round robin wrong
// or unclear).
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/mul_sub_custom.cpp";
const std::string host = "op_host/mul_sub_custom.cpp";

const motif& m() { return registered("spread_single_core"); }
std::vector<site> sites(const file_set& files, direction d) { return sites_of("spread_single_core", files, d); }
applied apply_only(const file_set& files, direction d) { return apply_at_only_site("spread_single_core", files, d); }

TEST(SpreadSingleCoreMotif, ForwardEditsHostAndKernelAndRoundTrips) {
  const file_set x = load_op("spread_op");
  const auto fwd = sites(x, direction::forward);
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_TRUE(sites(x, direction::inverse).empty());
  EXPECT_EQ(fwd[0].path, kernel);
  EXPECT_EQ(x.at(kernel).substr(fwd[0].anchor.begin, 47), "for (int32_t i = 0; i < this->tileNum; i++) {\n ");
  const applied y = apply_only(x, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  EXPECT_EQ(changed_paths(x, y.files), (std::vector<std::string>{host, kernel}));
  const std::string& k = y.files.at(kernel);
  EXPECT_NE(k.find("for (int32_t i = AscendC::GetBlockIdx(); i < this->tileNum; i += AscendC::GetBlockNum()) {"), std::string::npos) << y.diff;
  // The other block-index uses were 0 on one core, and are written so.
  EXPECT_NE(k.find("(__gm__ T*)x + this->blockLength * 0, this->blockLength)"), std::string::npos) << y.diff;
  const auto first = k.find("AscendC::GetBlockIdx()");
  EXPECT_EQ(k.find("AscendC::GetBlockIdx()", first + 1), std::string::npos) << "one GetBlockIdx() left: the loop's\n" << y.diff;
  // ASSERT is no code on the device: its GetBlockNum() stays as written.
  EXPECT_NE(k.find("ASSERT(AscendC::GetBlockNum() != 0"), std::string::npos) << y.diff;
  EXPECT_NE(y.files.at(host).find("context->SetBlockDim(platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv());"),
            std::string::npos)
      << y.diff;
  std::string log;
  EXPECT_TRUE(compiles(y.files, kernel, log)) << k << "\n" << log;
  EXPECT_TRUE(compiles(y.files, host, log)) << y.files.at(host) << "\n" << log;

  // The spread package: one inverse site, no forward site; fwd(inv(y)) == y.
  EXPECT_TRUE(sites(y.files, direction::forward).empty());
  const applied z = apply_only(y.files, direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_NE(z.files.at(kernel).find("for (int32_t i = 0; i < this->tileNum; i++) {"), std::string::npos) << z.diff;
  EXPECT_NE(z.files.at(host).find("context->SetBlockDim(1);"), std::string::npos) << z.diff;
  const applied y2 = apply_only(z.files, direction::forward);
  ASSERT_TRUE(y2.ok) << y2.reason;
  EXPECT_TRUE(same_modulo_whitespace(y2.files, y.files)) << y2.diff;
  // Not exact the other way: the offsets keep their 0 (docs/motifs.md).
  EXPECT_FALSE(m().exact_round_trip());
  // A stale site is refused with a reason.
  source_set sx(x, tiling_parser());
  source_set sy(y.files, tiling_parser());
  const applied again = apply_site(m(), sy, fwd[0], direction::forward);
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.reason.empty());
}

TEST(SpreadSingleCoreMotif, RenamedAndReformatted) {
  const file_set x = load_op("spread_op_renamed");
  const applied y = apply_only(x, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  const std::string& k = y.files.at(kernel);
  EXPECT_NE(k.find("for (uint32_t tile = AscendC::GetBlockIdx(); tile < tiles_; tile += AscendC::GetBlockNum()) {"), std::string::npos)
      << y.diff;
  std::string log;
  EXPECT_TRUE(compiles(y.files, kernel, log)) << k << "\n" << log;
  const applied z = apply_only(y.files, direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_NE(z.files.at(kernel).find("for (uint32_t tile = 0; tile < tiles_; tile++) {"), std::string::npos) << z.diff;
}

TEST(SpreadSingleCoreMotif, NoSiteWhereTheRoundRobinIsWrongOrUnclear) {
  const file_set x = load_op("spread_op");
  struct guard {
    const char* why;
    std::string path, from, to;
  };
  const guard guards[] = {
      {"the launch is already multi-core", host, "context->SetBlockDim(1)", "context->SetBlockDim(8)"},
      {"a second launch", host, "    context->SetBlockDim(1);", "    context->SetBlockDim(1);\n    context->SetBlockDim(1);"},
      {"cores synchronise", kernel, "    __aicore__ inline void Process()\n    {", "    __aicore__ inline void Process()\n    {\n        AscendC::SyncAll();"},
      {"atomic accumulation into GM", kernel, "        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();",
       "        AscendC::SetAtomicAdd<T>();\n        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();"},
      {"the loop leaves early", kernel, "            CopyIn(i);", "            if (i > 100) {\n                break;\n            }\n            CopyIn(i);"},
      {"the loop variable is written in the body", kernel, "            CopyIn(i);", "            CopyIn(i++);"},
      {"two tile loops", kernel, "        for (int32_t i = 0; i < this->tileNum; i++) {",
       "        for (int32_t j = 0; j < 1; j++) {\n            CopyIn(j);\n            Compute();\n            CopyOut(j);\n        }\n"
       "        for (int32_t i = 0; i < this->tileNum; i++) {"},
      {"the loop does not start at 0", kernel, "for (int32_t i = 0; i < this->tileNum; i++)", "for (int32_t i = 1; i < this->tileNum; i++)"},
  };
  for (const auto& g : guards) {
    const file_set e = replaced(x, g.path, g.from, g.to);
    EXPECT_TRUE(sites(e, direction::forward).empty()) << g.why;
  }
  // The inverse needs the loop's to be the only block-index use: with another, one core would not
  // compute what every core did.
  const applied y = apply_only(x, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  const file_set extra = replaced(y.files, kernel, "this->blockLength * 0", "this->blockLength * AscendC::GetBlockIdx()");
  EXPECT_TRUE(sites(extra, direction::inverse).empty());
}

}  // namespace
}  // namespace aopt::motifs
