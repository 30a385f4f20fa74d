// prefetch_next_tile on a row kernel fixture: the exact site, forward and inverse as minimal
// edits, the round trip, compiling output, a renamed + reformatted copy (data/prefetch_op_renamed:
// LLVM style, `this->` calls, `++row`, a start that is not 0, a helper in the copy-in stage), the
// experts' prefetch form as an inverse site, no site without the pattern, and the guards (each a
// one-line edit of the fixture that makes prefetching wrong or pointless). prefetch_across_rows
// the same way on a row / chunk nest (data/prefetch_rows_op and its renamed LLVM-style copy).
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

// prefetch_across_rows --------------------------------------------------------------------------

const std::string rows_kernel = "op_kernel/row_abs_sum_custom.cpp";

const expectation across_rows{
    "prefetch_across_rows",
    "for (uint32_t r = 0; r < rowCount_; r++) {\n            float total = 0.0f;\n            for (uint32_t c = 0; c < chunks; c++) {\n"
    "                uint32_t count = (c + 1 == chunks) ? rowLength_ - c * chunkLength_ : chunkLength_;\n"
    "                CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_, count);\n"
    "                total += ChunkSum(count);\n            }\n            CopyOut(r, total);\n        }",
    rows_kernel,
    "        if (rowCount_ > 0 && chunks > 0) {\n            uint32_t r = 0;\n            uint32_t c = 0;\n"
    "            uint32_t count = (c + 1 == chunks) ? rowLength_ - c * chunkLength_ : chunkLength_;\n"
    "            CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_, count);\n        }\n"
    "        for (uint32_t r = 0; r < rowCount_; r++) {\n            float total = 0.0f;\n            for (uint32_t c = 0; c < chunks; c++) {\n"
    "                uint32_t count = (c + 1 == chunks) ? rowLength_ - c * chunkLength_ : chunkLength_;\n"
    "                if (c + 1 < chunks || r + 1 < rowCount_) {\n"
    "                    const uint32_t rNext = c + 1 < chunks ? r : r + 1;\n"
    "                    const uint32_t cNext = c + 1 < chunks ? c + 1 : 0;\n"
    "                    {\n                        uint32_t r = rNext;\n                        uint32_t c = cNext;\n"
    "                        uint32_t count = (c + 1 == chunks) ? rowLength_ - c * chunkLength_ : chunkLength_;\n"
    "                        CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_, count);\n"
    "                    }\n                }\n                total += ChunkSum(count);",
    "        uint32_t chunks = (rowLength_ + chunkLength_ - 1) / chunkLength_;\n        for (uint32_t r = 0; r < rowCount_; r++) {"};

const motif& rows_motif() {
  const motif* p = find_motif("prefetch_across_rows");
  if (!p) throw std::runtime_error("motif 'prefetch_across_rows' is not registered");
  return *p;
}

std::size_t count_rows_sites(const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(rows_motif(), src, d).size();
}

TEST(PrefetchAcrossRowsMotif, ForwardInverseRoundTripAndCompiles) {
  trip t;
  check_round_trip(rows_motif(), load_op("prefetch_rows_op"), t, true, across_rows);
  if (HasFailure()) return;
  std::string log;
  EXPECT_TRUE(compiles(t.y, rows_kernel, log)) << "forward output:\n" << t.y.at(rows_kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, rows_kernel, log)) << "inverse output:\n" << t.z.at(rows_kernel) << "\n" << log;
  EXPECT_EQ(t.z.at(rows_kernel), t.x.at(rows_kernel)) << "the inverse of the forward is the fixture, byte for byte";
}

TEST(PrefetchAcrossRowsMotif, RenamedAndReformatted) {
  trip t;
  check_round_trip(rows_motif(), load_op("prefetch_rows_op_renamed"), t, false, across_rows);
  if (HasFailure()) return;
  const std::string& y = t.y.at(rows_kernel);
  EXPECT_NE(y.find("    if (hi > lo && pieces_ + 1 > 1) {\n      uint64_t row = lo;\n      uint32_t k = 1;\n"
                   "      const uint64_t start = (k - 1) * static_cast<uint64_t>(piece_);\n"),
            std::string::npos)
      << y;
  EXPECT_NE(y.find("        if (k + 1 < pieces_ + 1 || row + 1 < hi) {\n          const uint64_t rowNext = k + 1 < pieces_ + 1 ? row : row + 1;\n"
                   "          const uint32_t kNext = k + 1 < pieces_ + 1 ? k + 1 : 1;\n          {\n            uint64_t row = rowNext;\n"),
            std::string::npos)
      << y;
  std::string log;
  EXPECT_TRUE(compiles(t.y, rows_kernel, log)) << "forward output:\n" << y << "\n" << log;
  EXPECT_TRUE(compiles(t.z, rows_kernel, log)) << "inverse output:\n" << t.z.at(rows_kernel) << "\n" << log;
  EXPECT_EQ(t.z.at(rows_kernel), t.x.at(rows_kernel));
}

// The two prefetch motifs do not claim each other's loops.
TEST(PrefetchAcrossRowsMotif, SingleLoopsAreTheOtherMotifs) {
  EXPECT_EQ(count_rows_sites(load_op("prefetch_op"), direction::forward), 0u);
  EXPECT_EQ(count_rows_sites(load_op("prefetch_op_renamed"), direction::forward), 0u);
  EXPECT_EQ(count_sites(load_op("prefetch_rows_op"), direction::forward), 0u);
  EXPECT_EQ(count_sites(load_op("prefetch_rows_op_renamed"), direction::forward), 0u);
}

TEST(PrefetchAcrossRowsMotif, Guards) {
  const file_set x = load_op("prefetch_rows_op");
  ASSERT_EQ(count_rows_sites(x, direction::forward), 1u);
  auto without = [&](const std::string& from, const std::string& to) { return count_rows_sites(replaced(x, rows_kernel, from, to), direction::forward); };
  // One queue slot.
  EXPECT_EQ(without("pipe_.InitBuffer(inQueue_, BUFFER_NUM,", "pipe_.InitBuffer(inQueue_, 1,"), 0u);
  // A declaration calls something (repeating it for the next chunk would call it twice).
  EXPECT_EQ(without("uint32_t count = (c + 1 == chunks)", "uint32_t count = static_cast<uint32_t>(xGm_.GetValue(0)) + (c + 1 == chunks)"), 0u);
  // A declaration of the row loop the copy-in does not read is no obstacle; one it reads is (it
  // is not visible before the row loop).
  EXPECT_EQ(without("            float total = 0.0f;\n", "            float total = 0.0f;\n            uint64_t rowAt = static_cast<uint64_t>(r) * rowLength_;\n"),
            1u);
  EXPECT_EQ(without("CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_, count);",
                    "CopyIn(static_cast<uint64_t>(r) * rowLength_ + c * chunkLength_ + static_cast<uint64_t>(total), count);"),
            0u);
  // The chunk count depends on the row.
  EXPECT_EQ(without("for (uint32_t c = 0; c < chunks; c++)", "for (uint32_t c = 0; c < chunks + r; c++)"), 0u);
  // The row loop may stop early.
  EXPECT_EQ(without("            CopyOut(r, total);\n", "            CopyOut(r, total);\n            if (total > 1.0f) {\n                break;\n            }\n"), 0u);
  // A name the copy-in reads changes in the row loop.
  EXPECT_EQ(without("            CopyOut(r, total);\n", "            CopyOut(r, total);\n            chunks = chunks;\n"), 0u);
  // The row loop touches the queue outside the chunk loop.
  EXPECT_EQ(without("            CopyOut(r, total);\n", "            CopyOut(r, total);\n            inQueue_.FreeTensor(inQueue_.DeQue<T>());\n"), 0u);
  // Nothing consumes the queue.
  EXPECT_EQ(without("                total += ChunkSum(count);\n", "                total += 1.0f;\n"), 0u);
  // The loop header does not declare its variable (no type to bind the next position with).
  EXPECT_EQ(without("        for (uint32_t r = 0; r < rowCount_; r++) {", "        uint32_t r = 0;\n        for (r = 0; r < rowCount_; r++) {"), 0u);
  // Already prefetched before the row loop.
  EXPECT_EQ(without("        for (uint32_t r = 0; r < rowCount_; r++) {", "        CopyIn(0, chunkLength_);\n        for (uint32_t r = 0; r < rowCount_; r++) {"), 0u);
}

}  // namespace
}  // namespace aopt::motifs
