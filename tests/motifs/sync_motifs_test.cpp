// stream_core_cap (host), enque_pipe_all and div_to_reciprocal (kernel) on whole operator
// packages: exact sites, forward and inverse as minimal edits, round trip, compiling output, a
// renamed + reformatted copy (data/sync_op_renamed: LLVM style, qualified calls, other names and
// spellings), no site without the pattern, and the guards.
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string host = "op_host/inv_custom.cpp";
const std::string kernel = "op_kernel/inv_custom.cpp";

const std::vector<expectation> sync_expectations = {
    {"stream_core_cap", "const uint64_t unitsPerCore = unitCount / usedCores;", host,
     "    }\n    usedCores = usedCores < 24 ? usedCores : 24;\n    const uint64_t unitsPerCore = unitCount / usedCores;",
     "    }\n    const uint64_t unitsPerCore = unitCount / usedCores;"},
    {"enque_pipe_all", "PipeBarrier<PIPE_ALL>();", kernel, "Div(yLocal, ones, xLocal, count);\n        yQueue_.EnQue(yLocal);",
     "Div(yLocal, ones, xLocal, count);\n        PipeBarrier<PIPE_ALL>();\n        yQueue_.EnQue(yLocal);"},
    {"div_to_reciprocal", "Duplicate(ones, static_cast<T>(1), count);\n        PipeBarrier<PIPE_V>();\n        Div(yLocal, ones, xLocal, count);",
     kernel, "Reciprocal(yLocal, xLocal, count);\n        PipeBarrier<PIPE_ALL>();",
     "Duplicate(yLocal, static_cast<T>(1), count);\n        PipeBarrier<PIPE_V>();\n        Div(yLocal, yLocal, xLocal, count);"},
};

class SyncMotifTest : public ::testing::TestWithParam<expectation> {
 protected:
  const motif& m() const {
    const motif* p = find_motif(GetParam().id);
    if (!p) throw std::runtime_error("motif '" + GetParam().id + "' is not registered");
    return *p;
  }
};

TEST_P(SyncMotifTest, ForwardInverseRoundTripAndCompiles) {
  trip t;
  check_round_trip(m(), load_op("sync_op"), t, true, GetParam());
  if (HasFailure()) return;
  const std::string path = changed_paths(t.x, t.y).front();
  std::string log;
  EXPECT_TRUE(compiles(t.y, path, log)) << "forward output:\n" << t.y.at(path) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, path, log)) << "inverse output:\n" << t.z.at(path) << "\n" << log;
}

TEST_P(SyncMotifTest, RenamedAndReformatted) {
  trip t;
  check_round_trip(m(), load_op("sync_op_renamed"), t, false, GetParam());
  if (HasFailure()) return;
  const std::string path = changed_paths(t.x, t.y).front();
  std::string log;
  EXPECT_TRUE(compiles(t.y, path, log)) << "forward output:\n" << t.y.at(path) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, path, log)) << "inverse output:\n" << t.z.at(path) << "\n" << log;
}

INSTANTIATE_TEST_SUITE_P(Sync, SyncMotifTest, ::testing::ValuesIn(sync_expectations),
                         [](const ::testing::TestParamInfo<expectation>& i) { return i.param.id; });

TEST(SyncMotifs, NoSiteWithoutThePattern) {
  source_set none_op(load_op("tiling_op_none"), tiling_parser());
  source_set none_kernel({{"op_kernel/none.cpp", slurp(fs::path(AOPT_MOTIFS_TEST_DATA) / "none_kernel.cpp")}}, tiling_parser());
  for (const auto& e : sync_expectations) {
    const motif* m = find_motif(e.id);
    ASSERT_NE(m, nullptr) << e.id;
    EXPECT_TRUE(m->match(none_op).empty()) << e.id;
    EXPECT_TRUE(m->match(none_kernel).empty()) << e.id;
  }
}

std::size_t count_sites(const std::string& id, const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(*find_motif(id), src, d).size();
}

TEST(SyncMotifs, StreamCoreCapGuards) {
  const file_set x = load_op("sync_op");
  // A const core count cannot be assigned: no site.
  EXPECT_EQ(count_sites("stream_core_cap", replaced(x, host, "uint64_t usedCores =", "const uint64_t usedCores ="), direction::forward), 0u);
  // A kernel that does not partition by GetBlockIdx() has no per-core shares to shrink.
  {
    file_set y = x;
    y[kernel] = load_op("tiling_op_none").at("op_kernel/copy_custom.cpp");
    EXPECT_EQ(count_sites("stream_core_cap", y, direction::forward), 0u);
  }
  // A clamp to the work count is not a cap: the forward still applies.
  EXPECT_EQ(count_sites("stream_core_cap",
                        replaced(x, host, "    const uint64_t unitsPerCore", "    if (usedCores > unitCount) {\n        usedCores = unitCount;\n    }\n    const uint64_t unitsPerCore"),
                        direction::forward),
            1u);
  // The experts' bytes-based cap (a variable bounded by a constant) is an inverse site, and
  // blocks the forward (no second cap).
  const file_set capped = replaced(
      x, host, "    const uint64_t unitsPerCore",
      "    uint64_t streamCores = totalLength / 32768;\n    streamCores = streamCores < BUFFER_NUM ? streamCores : BUFFER_NUM;\n"
      "    if (usedCores > streamCores) {\n        usedCores = streamCores;\n    }\n    const uint64_t unitsPerCore");
  EXPECT_EQ(count_sites("stream_core_cap", capped, direction::forward), 0u);
  ASSERT_EQ(count_sites("stream_core_cap", capped, direction::inverse), 1u);
  source_set src(capped, tiling_parser());
  applied z = apply_site(*find_motif("stream_core_cap"), src, sites_for(*find_motif("stream_core_cap"), src, direction::inverse)[0],
                         direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_EQ(z.files.at(host).find("usedCores = streamCores;"), std::string::npos) << z.diff;
}

TEST(SyncMotifs, KernelGuards) {
  const file_set x = load_op("sync_op");
  // The ones tile is read again after the division: it must stay filled.
  EXPECT_EQ(count_sites("div_to_reciprocal", replaced(x, kernel, "        PipeBarrier<PIPE_ALL>();\n", "        Add(yLocal, yLocal, ones, count);\n"),
                        direction::forward),
            0u);
  // A fill with another value is not a reciprocal.
  EXPECT_EQ(count_sites("div_to_reciprocal", replaced(x, kernel, "static_cast<T>(1)", "static_cast<T>(2)"), direction::forward), 0u);
  // A PIPE_ALL barrier that is not right before an EnQue is left alone (it may order GM traffic).
  EXPECT_EQ(count_sites("enque_pipe_all", replaced(x, kernel, "        yQueue_.EnQue(yLocal);\n        xQueue_.FreeTensor(xLocal);\n",
                                                   "        xQueue_.FreeTensor(xLocal);\n        yQueue_.EnQue(yLocal);\n"),
                        direction::forward),
            0u);
}

}  // namespace
}  // namespace aopt::motifs
