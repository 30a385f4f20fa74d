// `aopt init`'s matrix-size idiom (issue 34, session 25): integer attributes naming a matrix's row
// and column counts (`num_rows`, `num_columns`, as TensorFlow's Eye) left at 0 take the main
// shape's last two dimensions, and an empty `batch_shape` the dimensions before them (a tiling
// that divides the element count by the row count crashed with SIGFPE on every probe).
#include <gtest/gtest.h>

#include <vector>

#include "aopt/evaluation/spec_draft.h"
#include "spec_draft_test_util.h"

namespace ev = aopt::evaluation;
using nlohmann::json;
using spec_draft_test::attr;
using spec_draft_test::rank_case;

TEST(SpecDraftRuns, RowAndColumnCountsTakeTheLastTwoDimensions) {
  const auto op = spec_draft_test::unary_op("EyeLike", "eye_like", "y",
                                            {attr("num_rows", "int", 0), attr("num_columns", "int", 0),
                                             attr("batch_shape", "list_int", json::array()), attr("dtype", "int", 0)});
  std::vector<std::string> notes;
  for (int rank : {2, 3}) {
    const auto c = rank_case(op, rank, notes);
    const auto& main = c.inputs.at(0).tensors.at(0).shape;
    ASSERT_EQ(main.size(), static_cast<std::size_t>(rank));
    EXPECT_EQ(c.attrs["num_rows"], main[rank - 2]) << c.attrs.dump();
    EXPECT_EQ(c.attrs["num_columns"], main[rank - 1]) << c.attrs.dump();
    EXPECT_EQ(c.attrs["batch_shape"].get<std::vector<std::int64_t>>(),
              std::vector<std::int64_t>(main.begin(), main.end() - 2)) << c.attrs.dump();
  }
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("row and column") != std::string::npos; }));
}

TEST(SpecDraftRuns, RowCountsTheOpDefSetsAreKept) {
  const auto op = spec_draft_test::unary_op("EyeLike", "eye_like", "y", {attr("num_rows", "int", 7)});
  std::vector<std::string> notes;
  const auto c = rank_case(op, 2, notes);
  EXPECT_EQ(c.attrs["num_rows"], 7) << c.attrs.dump();
}

// The rigid-motion idiom (point-cloud operators, the tree's motion_compensation): empty float
// lists naming a translation or a quaternion take the identity motion, 3 and 4 values (its
// tiling reads that many: SIGSEGV on every probe before), the max of a min/max pair another pose.
TEST(SpecDraftRuns, EmptyTranslationAndQuaternionListsTakeTheIdentityMotion) {
  const auto op = spec_draft_test::unary_op("PointMotion", "point_motion", "points",
                                            {attr("translation_min", "list_float", json::array()),
                                             attr("quaterniond_max", "list_float", json::array()),
                                             attr("weights", "list_float", json::array({0.5}))});
  std::vector<std::string> notes;
  const auto c = rank_case(op, 2, notes);
  EXPECT_EQ(c.attrs["translation_min"], json::array({0.0, 0.0, 0.0})) << c.attrs.dump();
  // The end of a min/max pair: another pose (a unit quaternion other than the identity).
  ASSERT_EQ(c.attrs["quaterniond_max"].size(), 4u) << c.attrs.dump();
  double norm = 0;
  for (const auto& q : c.attrs["quaterniond_max"]) norm += q.get<double>() * q.get<double>();
  EXPECT_NEAR(norm, 1.0, 1e-9) << c.attrs.dump();
  EXPECT_NE(c.attrs["quaterniond_max"], json::array({1.0, 0.0, 0.0, 0.0})) << c.attrs.dump();
  EXPECT_EQ(c.attrs["weights"], json::array({0.5})) << c.attrs.dump();
}
