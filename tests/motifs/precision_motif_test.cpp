// compute_in_input_type on a fixture whose half path casts up to float (data/precision_op: the
// negated test around the float-up path, then the native one; the same test in Init around
// InitBuffer calls, which is no site) and on the other spelling (data/precision_op_renamed: the
// plain test first, an `else if constexpr` on the negated one, float32_t, a two-line
// condition): the site, the widened condition, the exact round trip, compiling output (the
// native path instantiated for half), and the guards.
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/soft_gate.cpp";

std::vector<site> sites(const file_set& files, direction d) { return sites_of("compute_in_input_type", files, d); }

TEST(ComputeInInputTypeMotif, HalfTakesTheNativePathAndExactRoundTrip) {
  const file_set x = load_op("precision_op");
  const auto fwd = sites(x, direction::forward);
  ASSERT_EQ(fwd.size(), 1u) << "the Init test guards InitBuffer calls only: no site";
  EXPECT_TRUE(sites(x, direction::inverse).empty());
  const applied y = forward_then_back("compute_in_input_type", x, kernel);
  ASSERT_TRUE(y.ok) << y.reason;
  const std::string& k = y.files.at(kernel);
  EXPECT_NE(k.find("if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, half>) {\n            AscendC::LocalTensor<float> xf"),
            std::string::npos)
      << y.diff;
  // Init's test is untouched (the float temporaries are still allocated: only the path changes).
  EXPECT_NE(k.find("if constexpr (!std::is_same_v<T, float>) {\n            pipe.InitBuffer(xBuf"), std::string::npos) << y.diff;
  EXPECT_TRUE(sites(y.files, direction::forward).empty());
  EXPECT_EQ(sites(y.files, direction::inverse).size(), 1u);
  EXPECT_TRUE(registered("compute_in_input_type").exact_round_trip());
}

TEST(ComputeInInputTypeMotif, ThePlainTestFirstAndUnqualifiedCalls) {
  const file_set x = load_op("precision_op_renamed");
  const applied y = forward_then_back("compute_in_input_type", x, kernel);
  ASSERT_TRUE(y.ok) << y.reason;
  EXPECT_NE(y.files.at(kernel).find("if constexpr (std::is_same_v<DTYPE_X,\n                                     float32_t> || std::is_same_v<DTYPE_X, half>)"),
            std::string::npos)
      << y.diff;
}

TEST(ComputeInInputTypeMotif, NoSiteWithoutAFloatUpPathBesideANativeOne) {
  const file_set x = load_op("precision_op");
  struct guard {
    const char* why;
    std::string from, to;
    std::string from2 = {}, to2 = {};  // a second edit, when the guard needs one
  };
  const guard guards[] = {
      {"no native path", "        } else {\n            AscendC::Muls(yLocal, xLocal", "        }\n        {\n            AscendC::Muls(yLocal, xLocal"},
      {"the native path casts too", "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);",
       "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum); AscendC::Cast(yLocal, yLocal, AscendC::RoundMode::CAST_NONE, 1);"},
      {"a run-time test", "        if constexpr (!std::is_same_v<T, float>) {\n            AscendC::LocalTensor<float> xf",
       "        if (!std::is_same_v<T, float>) {\n            AscendC::LocalTensor<float> xf"},
      {"a float tile of the function in the native path", "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);\n        }",
       "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);\n            AscendC::LocalTensor<float> scratch = xBuf.Get<float>();\n            AscendC::Adds(scratch, scratch, 1.0f, 8);\n        }"},
      {"a helper taking float tiles in the native path", "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);\n        }",
       "AscendC::Div(yLocal, xLocal, yLocal, this->processDataNum);\n            Scale(yLocal);\n        }",
       "    __aicore__ inline void CopyOut(", "    __aicore__ inline void Scale(AscendC::LocalTensor<float>& t) { AscendC::Muls(t, t, 2.0f, 8); }\n    __aicore__ inline void CopyOut("},
      {"a test on another type", "        if constexpr (!std::is_same_v<T, float>) {\n            AscendC::LocalTensor<float> xf",
       "        if constexpr (!std::is_same_v<T, int32_t>) {\n            AscendC::LocalTensor<float> xf"},
  };
  for (const auto& g : guards) {
    file_set v = replaced(x, kernel, g.from, g.to);
    if (!g.from2.empty()) v = replaced(v, kernel, g.from2, g.to2);
    EXPECT_TRUE(sites(v, direction::forward).empty()) << g.why;
  }
}

}  // namespace
}  // namespace aopt::motifs
