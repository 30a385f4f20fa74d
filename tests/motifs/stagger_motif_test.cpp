// stagger_ub_buffers on a fixture whose every UB buffer gets the same 512 B-multiple tile
// (data/stagger_op: three double-buffered queues and two TBufs, `pipe.InitBuffer`) and on a
// renamed, reformatted kernel (data/stagger_op_renamed: `pipe_->InitBuffer`, a queue depth
// spelled `1 + 1`, TBuf lengths with a cast, initialised in a helper): every length edited, the
// exact round trip, compiling output, and the guards.
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/mul_add_custom.cpp";

const motif& m() { return registered("stagger_ub_buffers"); }
std::vector<site> sites(const file_set& files, direction d) { return sites_of("stagger_ub_buffers", files, d); }
applied apply_only(const file_set& files, direction d) { return apply_at_only_site("stagger_ub_buffers", files, d); }

TEST(StaggerUbBuffersMotif, EveryLengthStaggeredAndExactRoundTrip) {
  const file_set x = load_op("stagger_op");
  const auto fwd = sites(x, direction::forward);
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_TRUE(sites(x, direction::inverse).empty());
  EXPECT_EQ(fwd[0].path, kernel);
  const applied y = apply_only(x, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  EXPECT_EQ(changed_paths(x, y.files), (std::vector<std::string>{kernel}));
  const std::string& k = y.files.at(kernel);
  // A queue's slots share the 256 B: its InitBuffer as a whole ends 256 B past a 512 B multiple.
  for (const char* q : {"inQueueX", "inQueueY", "outQueueZ"}) {
    EXPECT_NE(k.find(std::string("pipe.InitBuffer(") + q + ", BUFFER_NUM, ((this->tileDataNum * sizeof(T)) + 511) / 512 * 512 + 256 / BUFFER_NUM);"),
              std::string::npos)
        << q << "\n" << y.diff;
  }
  for (const char* b : {"productBuf", "sumBuf"}) {
    EXPECT_NE(k.find(std::string("pipe.InitBuffer(") + b + ", ((this->tileDataNum * sizeof(T)) + 511) / 512 * 512 + 256);"), std::string::npos)
        << b << "\n" << y.diff;
  }
  std::string log;
  EXPECT_TRUE(compiles(y.files, kernel, log)) << k << "\n" << log;

  // The staggered package: one inverse site, no forward site; inv(fwd(x)) == x byte for byte.
  EXPECT_TRUE(sites(y.files, direction::forward).empty());
  const applied z = apply_only(y.files, direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_EQ(z.files, x) << z.diff;
  EXPECT_TRUE(m().exact_round_trip());
  // A stale site is refused with a reason.
  source_set sy(y.files, tiling_parser());
  const applied again = apply_site(m(), sy, fwd[0], direction::forward);
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.reason.empty());
}

TEST(StaggerUbBuffersMotif, RenamedAndReformatted) {
  const file_set x = load_op("stagger_op_renamed");
  const applied y = forward_then_back("stagger_ub_buffers", x, kernel);
  ASSERT_TRUE(y.ok) << y.reason;
  const std::string& k = y.files.at(kernel);
  EXPECT_NE(k.find("pipe_->InitBuffer(qy_, 1 + 1, ((tile_ * sizeof(T)) + 511) / 512 * 512 + 256 / (1 + 1));"), std::string::npos) << y.diff;
  EXPECT_NE(k.find("pipe_->InitBuffer(sum_, ((static_cast<uint32_t>(tile_ * sizeof(T))) + 511) / 512 * 512 + 256);"), std::string::npos) << y.diff;
}

TEST(StaggerUbBuffersMotif, NoSiteWherePaddingCouldChangeWhatRunsOrNothingConflicts) {
  const file_set x = load_op("stagger_op");
  struct guard {
    const char* why;
    std::string from, to;
  };
  const guard guards[] = {
      // A length read back from a tensor grows with the padding: the kernel would copy or compute more.
      {"a count from GetSize()", "AscendC::Add(zLocal, product, xLocal, this->processDataNum);",
       "AscendC::Add(zLocal, product, xLocal, zLocal.GetSize());"},
      {"a count from GetLength()", "AscendC::Add(zLocal, product, xLocal, this->processDataNum);",
       "AscendC::Add(zLocal, product, xLocal, zLocal.GetLength());"},
      // Half staggered already: the author placed the buffers; neither direction is this motif's.
      {"one length already staggered", "pipe.InitBuffer(sumBuf, this->tileDataNum * sizeof(T));",
       "pipe.InitBuffer(sumBuf, ((this->tileDataNum * sizeof(T)) + 511) / 512 * 512 + 256);"},
  };
  for (const auto& g : guards) {
    const file_set e = replaced(x, kernel, g.from, g.to);
    EXPECT_TRUE(sites(e, direction::forward).empty()) << g.why;
    EXPECT_TRUE(sites(e, direction::inverse).empty()) << g.why;
  }
  // No vector instruction at all: nothing reads two buffers at once.
  file_set copy_only = x;
  std::string& k = copy_only.at(kernel);
  const auto from = k.find("        AscendC::Mul(product, xLocal, yLocal");
  const auto to = k.find("        outQueueZ.EnQue<T>(zLocal);");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  k.replace(from, to - from, "        AscendC::DataCopy(zLocal, xLocal, this->processDataNum);\n");
  EXPECT_TRUE(sites(copy_only, direction::forward).empty());
  // One buffer: no pair to separate.
  file_set one = x;
  for (const char* q : {"        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileDataNum * sizeof(T));\n",
                        "        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileDataNum * sizeof(T));\n",
                        "        pipe.InitBuffer(productBuf, this->tileDataNum * sizeof(T));\n",
                        "        pipe.InitBuffer(sumBuf, this->tileDataNum * sizeof(T));\n"}) {
    one = replaced(one, kernel, q, "");
  }
  EXPECT_TRUE(sites(one, direction::forward).empty());
}

}  // namespace
}  // namespace aopt::motifs
