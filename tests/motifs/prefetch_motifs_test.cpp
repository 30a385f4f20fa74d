// prefetch_next_tile on a row kernel fixture: the exact site, forward and inverse as minimal
// edits, the round trip, compiling output, a renamed + reformatted copy (data/prefetch_op_renamed:
// LLVM style, `this->` calls, `++row`, a start that is not 0, a helper in the copy-in stage), the
// experts' prefetch form as an inverse site, no site without the pattern, and the guards (each a
// one-line edit of the fixture that makes prefetching wrong or pointless).
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/row_scale_custom.cpp";

const expectation prefetch{"prefetch_next_tile",
                           "for (uint32_t r = 0; r < rowCount_; r++) {\n            CopyIn(r * rowLength_);\n            Compute();\n"
                           "            CopyOut(r);\n        }",
                           kernel,
                           "        if (rowCount_ > 0) {\n            CopyIn(0 * rowLength_);\n        }\n"
                           "        for (uint32_t r = 0; r < rowCount_; r++) {\n            if (r + 1 < rowCount_) {\n"
                           "                CopyIn((r + 1) * rowLength_);\n            }\n            Compute();",
                           "    {\n        for (uint32_t r = 0; r < rowCount_; r++) {\n            CopyIn(r * rowLength_);\n            Compute();"};

const motif& m() {
  const motif* p = find_motif("prefetch_next_tile");
  if (!p) throw std::runtime_error("motif 'prefetch_next_tile' is not registered");
  return *p;
}

std::size_t count_sites(const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(m(), src, d).size();
}

TEST(PrefetchMotif, ForwardInverseRoundTripAndCompiles) {
  trip t;
  check_round_trip(m(), load_op("prefetch_op"), t, true, prefetch);
  if (HasFailure()) return;
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
  EXPECT_EQ(t.z.at(kernel), t.x.at(kernel)) << "the inverse of the forward is the fixture, byte for byte";
}

TEST(PrefetchMotif, RenamedAndReformatted) {
  trip t;
  check_round_trip(m(), load_op("prefetch_op_renamed"), t, false, prefetch);
  if (HasFailure()) return;
  const std::string& y = t.y.at(kernel);
  EXPECT_NE(y.find("if (end > begin + 1) {\n      this->Load(static_cast<uint64_t>((begin + 1) - 1) * width_);\n    }"), std::string::npos) << y;
  EXPECT_NE(y.find("if (row + 1 < end) {\n        this->Load(static_cast<uint64_t>((row + 1) - 1) * width_);\n      }"), std::string::npos) << y;
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << y << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

// The experts' spelling: an early return, then the first copy unguarded before the loop.
TEST(PrefetchMotif, ExpertFormIsAnInverseSite) {
  const file_set x = replaced(load_op("prefetch_op"), kernel,
                              "        for (uint32_t r = 0; r < rowCount_; r++) {\n            CopyIn(r * rowLength_);",
                              "        if (rowCount_ == 0) {\n            return;\n        }\n        CopyIn(0);\n"
                              "        for (uint32_t r = 0; r < rowCount_; r++) {\n            if (r + 1 < rowCount_) {\n"
                              "                CopyIn((r + 1) * rowLength_);\n            }");
  // CopyIn(0) is not the loop's call at r = 0 as forward spells it (0 * rowLength_): no site.
  EXPECT_EQ(count_sites(x, direction::inverse), 0u);
  const file_set e = replaced(x, kernel, "        CopyIn(0);\n", "        CopyIn(0 * rowLength_);\n");
  source_set src(e, tiling_parser());
  const auto sites = sites_for(m(), src, direction::inverse);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(count_sites(e, direction::forward), 0u);
  applied z = apply_site(m(), src, sites[0], direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  const std::string& k = z.files.at(kernel);
  EXPECT_NE(k.find("        }\n        for (uint32_t r = 0; r < rowCount_; r++) {\n            CopyIn(r * rowLength_);\n            Compute();"),
            std::string::npos)
      << z.diff;
  EXPECT_EQ(k.find("CopyIn(0"), std::string::npos) << z.diff;
}

TEST(PrefetchMotif, NoSiteWithoutThePattern) {
  source_set none_op(load_op("tiling_op_none"), tiling_parser());
  source_set none_kernel({{"op_kernel/none.cpp", slurp(fs::path(AOPT_MOTIFS_TEST_DATA) / "none_kernel.cpp")}}, tiling_parser());
  source_set element_op(load_op("sync_op"), tiling_parser());  // CopyIn(i, count): count is computed in the loop
  EXPECT_TRUE(m().match(none_op).empty());
  EXPECT_TRUE(m().match(none_kernel).empty());
  EXPECT_TRUE(m().match(element_op).empty());
}

TEST(PrefetchMotif, Guards) {
  const file_set x = load_op("prefetch_op");
  ASSERT_EQ(count_sites(x, direction::forward), 1u);
  // One queue slot: the prefetch would wait for a slot the compute has not freed.
  EXPECT_EQ(count_sites(replaced(x, kernel, "pipe_.InitBuffer(inQueue_, BUFFER_NUM,", "pipe_.InitBuffer(inQueue_, 1,"), direction::forward), 0u);
  // The copy-in's argument is computed in the loop.
  EXPECT_EQ(count_sites(replaced(x, kernel, "            CopyIn(r * rowLength_);\n", "            uint64_t at = r * rowLength_;\n            CopyIn(at);\n"),
                        direction::forward),
            0u);
  // The loop may stop early: the prefetched tile would never be consumed.
  EXPECT_EQ(count_sites(replaced(x, kernel, "            CopyOut(r);\n", "            CopyOut(r);\n            if (r == 7) {\n                break;\n            }\n"),
                        direction::forward),
            0u);
  // The copy-in stage does more than fill its queue (it writes a work buffer too).
  EXPECT_EQ(count_sites(replaced(x, kernel, "        inQueue_.EnQue(xLocal);\n",
                                 "        Duplicate(workBuf_.Get<T>(), static_cast<T>(0), rowLength_);\n        inQueue_.EnQue(xLocal);\n"),
                        direction::forward),
            0u);
  // A member the copy-in stage reads changes during the loop (in the compute stage).
  EXPECT_EQ(count_sites(replaced(x, kernel, "        outQueue_.EnQue(yLocal);\n", "        rowLength_ = rowLength_;\n        outQueue_.EnQue(yLocal);\n"),
                        direction::forward),
            0u);
  // Nothing consumes the queue in the loop.
  EXPECT_EQ(count_sites(replaced(x, kernel, "            Compute();\n", ""), direction::forward), 0u);
  // The loop variable is written in the loop.
  EXPECT_EQ(count_sites(replaced(x, kernel, "            CopyOut(r);\n", "            CopyOut(r);\n            r += 0;\n"), direction::forward), 0u);
  // Already prefetched by hand before the loop: no second prefetch.
  EXPECT_EQ(count_sites(replaced(x, kernel, "        for (uint32_t r = 0;", "        CopyIn(0);\n        for (uint32_t r = 0;"), direction::forward), 0u);
}

}  // namespace
}  // namespace aopt::motifs
