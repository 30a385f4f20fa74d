// Tiling-side and mask motifs (multicore_split, tail_balance, tile_size, counter_mode_mask) on
// whole operator packages (op_host tiling function + tiling header + op_kernel): exact sites,
// forward and inverse as minimal edits, round trip, compiling output, a renamed + reformatted
// copy, and no site on an operator without the patterns or when a guard fails.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::vector<expectation> expectations = {
    {"multicore_split", "8", "op_host/scale_add_custom.cpp", "uint32_t coreNum = platform.GetCoreNumAiv();",
     "uint32_t coreNum = 8;"},
    {"tail_balance", "blockIdx + 1 == GetBlockNum() ? bigCoreNum : 0U", "op_kernel/scale_add_custom.cpp",
     "blockIdx * unitsPerCore + (blockIdx < bigCoreNum ? blockIdx : bigCoreNum);",
     "(blockIdx + 1 == GetBlockNum() ? bigCoreNum : 0U)"},
    {"tile_size", "ubSize = TILE_BYTES * BUFFER_NUM * 3;", "op_host/scale_add_custom.cpp",
     "ubSize);\n    uint32_t coreNum = 8;", "ubSize = 32768;"},
    {"counter_mode_mask", "Add(zLocal, xLocal, yLocal, perRepeat, count / perRepeat, params);", "op_kernel/scale_add_custom.cpp",
     "SetMaskCount();\n        SetVectorMask<T, MaskMode::COUNTER>(0, count);\n        Add<T, false>(zLocal, xLocal, yLocal, "
     "MASK_PLACEHOLDER, 1, params);\n        SetMaskNorm();\n        ResetMask();",
     "if (count % (256 / sizeof(T)) > 0) {"},
};

class TilingMotifTest : public ::testing::TestWithParam<expectation> {
 protected:
  const motif& m() const {
    const motif* p = find_motif(GetParam().id);
    if (!p) throw std::runtime_error("motif '" + GetParam().id + "' is not registered");
    return *p;
  }
};

TEST_P(TilingMotifTest, ForwardInverseRoundTripAndCompiles) {
  trip t;
  check_round_trip(m(), load_op("tiling_op"), t, true, GetParam());
  if (HasFailure()) return;
  const std::string path = changed_paths(t.x, t.y).front();
  std::string log;
  EXPECT_TRUE(compiles(t.y, path, log)) << "forward output:\n" << t.y.at(path) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, path, log)) << "inverse output:\n" << t.z.at(path) << "\n" << log;
}

TEST_P(TilingMotifTest, RenamedAndReformatted) {
  trip t;
  check_round_trip(m(), load_op("tiling_op_renamed"), t, false, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Tiling, TilingMotifTest, ::testing::ValuesIn(expectations),
                         [](const ::testing::TestParamInfo<expectation>& i) { return i.param.id; });

TEST(TilingMotifs, NoSiteWithoutThePattern) {
  source_set src(load_op("tiling_op_none"), tiling_parser());
  for (const auto& e : expectations) {
    const motif* m = find_motif(e.id);
    ASSERT_NE(m, nullptr) << e.id;
    EXPECT_TRUE(m->match(src).empty()) << e.id;
  }
}

TEST(TilingMotifs, GuardsRejectUnsafeSites) {
  const file_set x = load_op("tiling_op");
  const std::string kernel = "op_kernel/scale_add_custom.cpp";
  // multicore_split: a kernel that does not partition by GetBlockIdx() must stay on its cores.
  {
    file_set y = x;
    y[kernel] = load_op("tiling_op_none").at("op_kernel/copy_custom.cpp");
    source_set src(y, tiling_parser());
    EXPECT_TRUE(find_motif("multicore_split")->match(src).empty());
  }
  // counter_mode_mask: a main call with a partial mask per repeat is not a full-repeat split.
  {
    source_set src(replaced(x, kernel, "ONE_REPEAT_BYTE_SIZE / sizeof(T);", "32;"), tiling_parser());
    EXPECT_TRUE(find_motif("counter_mode_mask")->match(src).empty());
  }
  // counter_mode_mask: a tail that does not start where the full repeats end.
  {
    source_set src(replaced(x, kernel, "zLocal[count / perRepeat * perRepeat]", "zLocal[count / perRepeat]"), tiling_parser());
    EXPECT_TRUE(find_motif("counter_mode_mask")->match(src).empty());
  }
  // tail_balance: the offset is not the block index times the per-core share.
  {
    source_set src(replaced(x, kernel, "blockIdx * unitsPerCore;", "blockIdx * unitLength;"), tiling_parser());
    EXPECT_TRUE(find_motif("tail_balance")->match(src).empty());
  }
  // tile_size: a UB size that never reaches the tiling data is not a tile size.
  {
    source_set src(replaced(x, "op_host/scale_add_custom.cpp", "tiling.set_tileLength(static_cast<uint32_t>(tileLength));", ""),
                   tiling_parser());
    EXPECT_TRUE(find_motif("tile_size")->match(src).empty());
  }
}

}  // namespace
}  // namespace aopt::motifs

namespace aopt::motifs {
namespace {
// Developer aid: AOPT_MOTIFS_SCAN_DIR=<operator package dir> lists every motif's sites on it
// and checks that each applies (skipped when the variable is unset).
TEST(TilingMotifs, ScanOperatorFromEnv) {
  const char* dir = std::getenv("AOPT_MOTIFS_SCAN_DIR");
  if (!dir) GTEST_SKIP() << "set AOPT_MOTIFS_SCAN_DIR to an operator package to list its sites";
  file_set files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".cpp" || ext == ".h")) files[fs::relative(e.path(), dir).generic_string()] = slurp(e.path());
  }
  source_set src(files, tiling_parser());
  for (const auto& m : all_motifs()) {
    for (const auto& s : m->match(src)) {
      const direction d = s.forward ? direction::forward : direction::inverse;
      applied a = apply_site(*m, src, s, d);
      EXPECT_TRUE(a.ok) << m->id() << ": " << a.reason;
      std::cout << m->id() << " " << to_string(d) << " " << s.path << ":" << s.anchor.begin << " " << s.summary << "\n";
      if (std::getenv("AOPT_MOTIFS_PRINT_DIFFS")) std::cout << a.diff;
    }
  }
}
}  // namespace
}  // namespace aopt::motifs
