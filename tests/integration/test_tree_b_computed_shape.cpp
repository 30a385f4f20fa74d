// An output whose shape depends on the computation (OutputShapeDependOnCompute: the tree's
// masked_select_v3; issue 34, session 25), reproduced by the fixture operator
// packages/tree_b/src/index/positive_select: the kernel takes one more GM argument after its
// outputs, where it writes each such output's real shape (dimension count, then dimensions, as
// uint64, 9 words per output, the documented OP_OUTSHAPE layout). The case's output shape is
// its upper bound; what is compared is the real size. Before: the argument was not passed, the
// kernel read its workspace and tiling one argument off, and every probe failed. Also (fixture
// packages/tree_b/src/math/write_nothing): a baseline that writes no element of any output
// compares nothing, which is never ok.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tree_b_draft.h"

namespace {

class TreeBComputedShape : public aopt::testing::tree_b_draft_test {
 protected:
  TreeBComputedShape() : tree_b_draft_test("aopt-it-tree-b-cs-") {}
};

}  // namespace

TEST_F(TreeBComputedShape, AnOutputTakesTheShapeItsKernelWrote) {
  const auto r = init_and_eval("src/index/positive_select");
  ASSERT_TRUE(ok_and_compared(r, "y"));
  // The inputs are drafted on both sides of 0, so fewer elements than x's are selected: the
  // comparison covers the size the kernel wrote, not the upper bound (x's size).
  const auto spec = nlohmann::json::parse(std::ifstream(dir_ / "positive_select.json"));
  ASSERT_EQ(spec["cases"].size(), r["cases"].size()) << spec.dump(1);
  for (std::size_t i = 0; i < spec["cases"].size(); ++i) {
    std::int64_t bound = 1;
    for (const auto& d : spec["cases"][i]["inputs"]["x"]["shape"]) bound *= d.get<std::int64_t>();
    const auto& c = r["cases"][i];
    for (const auto& o : c["outputs"]) {
      if (o.value("name", "") != "y") continue;
      EXPECT_GT(o.value("elements", std::int64_t{0}), 0) << c.dump(1);
      EXPECT_LT(o.value("elements", std::int64_t{0}), bound) << c.dump(1);
    }
  }
}

// An evaluation against the baseline in which the baseline wrote no element of any output
// compares nothing, so it is never ok (issue 34: "no evaluation is ok with nothing compared").
// Before: ok, with a warning per case that the elements were not compared.
TEST_F(TreeBComputedShape, ABaselineThatWritesNoOutputIsNeverOk) {
  const auto op = tree() / "src/math/write_nothing";
  const auto spec = dir_ / "write_nothing.json";
  std::ofstream(spec) << R"({"kernel": "write_nothing", "reference": "baseline", "cases": [
    {"name": "c", "timed": true, "inputs": {"x": {"shape": [1024], "dtype": "float32"}}}]})";
  const auto e = aopt::testing::run_aopt(
      {"eval", op.string(), "--tree", tree().string(), "--spec", spec.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
  const auto r = nlohmann::json::parse(e.out, nullptr, false);
  ASSERT_TRUE(r.is_object()) << e.out << e.err;
  EXPECT_EQ(r.value("status", ""), "precision_error") << r.dump(1);
  EXPECT_NE(r.value("diagnostic", "").find("nothing was compared"), std::string::npos) << r.dump(1);
}

// And `aopt init` does not draft such a case: a probe whose kernel ran clean but wrote none of
// its outputs moves on to the next shape; when none writes, no draft, saying why. Before: the
// first shape that ran was drafted and its evaluation compared nothing.
TEST_F(TreeBComputedShape, InitDoesNotDraftAShapeWhoseKernelWritesNothing) {
  const auto op = tree() / "src/math/write_nothing";
  const auto i = aopt::testing::run_aopt(
      {"init", op.string(), "--tree", tree().string(), "--out", (dir_ / "d.json").string(), "--elements", "8192"}, 600);
  EXPECT_EQ(i.exit_code, 1) << i.out << i.err;
  EXPECT_NE(i.err.find("wrote no element of its outputs"), std::string::npos) << i.err;
}
