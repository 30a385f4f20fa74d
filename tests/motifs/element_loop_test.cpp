// vectorize_scalar_loop's general form (search/motifs/src/element_loop.cpp) on the element_op
// fixture and its renamed, reformatted copy: exactly the qualifying loops are sites (stride 2, 1
// and 4), each forward compiles, edits only the loop plus the scratch buffer and the host's UB
// reservation, and all three applied one after the other still compile with distinct names.
// The numbers are checked on a real operator by integration_motif_vectorize_eval_test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/element_custom.cpp";
const std::string host = "op_host/element_custom.cpp";

std::vector<site> element_sites(const source_set& src) {
  std::vector<site> out;
  for (const auto& s : sites_for(*find_motif("vectorize_scalar_loop"), src, direction::forward)) {
    if (s.summary.find("element loop") != std::string::npos) out.push_back(s);
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Inside each generated chunk loop: no vector instruction reads an operand written since the last
// PipeBarrier<PIPE_V>, or writes one read or written since then (an independent check of the
// generator's barrier placement).
bool barriers_complete(const std::string& kernel_text) {
  static const std::regex instr(R"(^\s*(GatherMask|Gather|Add|Sub|Mul|Div|Adds|Muls|Duplicate)\((.*)\);\s*$)");
  static const std::regex operand(R"(\w+\[[^\]]+\])");
  std::set<std::string> written, read;
  bool in_chunk = false;
  std::istringstream in(kernel_text);
  for (std::string line; std::getline(in, line);) {
    if (line.find("for (uint32_t vecBase") != std::string::npos) {
      in_chunk = true;
      written.clear();
      read.clear();
      continue;
    }
    if (!in_chunk) continue;
    if (line.find("PipeBarrier<PIPE_V>()") != std::string::npos) {
      written.clear();
      read.clear();
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, instr)) continue;
    const std::string args = m[2].str();
    std::vector<std::string> ops;
    for (auto it = std::sregex_iterator(args.begin(), args.end(), operand); it != std::sregex_iterator(); ++it) ops.push_back(it->str());
    if (ops.empty()) return false;
    const std::string dst = ops[0];
    if (written.count(dst) || read.count(dst)) return false;
    for (std::size_t i = 1; i < ops.size(); ++i) {
      if (written.count(ops[i])) return false;
      read.insert(ops[i]);
    }
    written.insert(dst);
  }
  return in_chunk;
}

class ElementLoop : public ::testing::TestWithParam<std::string> {};

TEST_P(ElementLoop, ExactlyTheQualifyingLoopsAreSites) {
  source_set src(load_op(GetParam()), tiling_parser());
  const auto sites = element_sites(src);
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_NE(sites[0].summary.find("stride 2, 2 store(s)"), std::string::npos) << sites[0].summary;
  EXPECT_NE(sites[1].summary.find("stride 1, 1 store(s)"), std::string::npos) << sites[1].summary;
  EXPECT_NE(sites[2].summary.find("stride 4, 4 store(s)"), std::string::npos) << sites[2].summary;
  for (const auto& s : sites) EXPECT_EQ(s.path, kernel);
}

TEST_P(ElementLoop, EachForwardCompilesAndEditsOnlyWhatItNeeds) {
  const file_set files = load_op(GetParam());
  source_set src(files, tiling_parser());
  const auto* m = find_motif("vectorize_scalar_loop");
  const auto sites = element_sites(src);
  ASSERT_EQ(sites.size(), 3u);
  const int strides[] = {2, 1, 4};
  for (std::size_t i = 0; i < sites.size(); ++i) {
    SCOPED_TRACE(sites[i].summary);
    const auto a = apply_site(*m, src, sites[i], direction::forward);
    ASSERT_TRUE(a.ok) << a.reason;
    if (std::getenv("AOPT_SHOW_DIFF")) std::cout << a.diff;
    EXPECT_EQ(changed_paths(files, a.files), (std::vector<std::string>{host, kernel}));
    const std::string& k = a.files.at(kernel);
    std::string log;
    EXPECT_TRUE(compiles(a.files, kernel, log)) << log << "\n" << a.diff;
    EXPECT_TRUE(compiles(a.files, host, log)) << log;
    // The loop's stores are gone (the other loops untouched); stride > 1 adds the offset table's one.
    const std::size_t stores[] = {2, 1, 4};
    EXPECT_EQ(count(k, "SetValue("), count(files.at(kernel), "SetValue(") - stores[i] + (strides[i] > 1 ? 1 : 0));
    EXPECT_EQ(count(k, "TBuf<QuePosition::VECCALC> vecScratch_;"), 1u);
    EXPECT_EQ(count(k, "InitBuffer(vecScratch_, "), 1u);
    EXPECT_EQ(count(a.files.at(host), "ubSize -= "), 1u);
    if (strides[i] > 1) {
      EXPECT_EQ(count(k, "GatherMask("), 4u) << a.diff;  // one plane per (tensor, offset) loaded
      EXPECT_EQ(count(k, "Gather(dstT[") + count(k, "Gather(zLocal["), 1u) << a.diff;
    } else {
      EXPECT_EQ(count(k, "GatherMask("), 0u);
      // Stride 1 works on the tensors directly; the scalar subtraction and division become a
      // broadcast and tensor instructions.
      EXPECT_NE(k.find("Duplicate("), std::string::npos) << a.diff;
      EXPECT_NE(k.find("Div("), std::string::npos) << a.diff;
    }
    EXPECT_TRUE(barriers_complete(k)) << a.diff;
  }
}

TEST_P(ElementLoop, AllThreeInSequenceCompileWithDistinctNames) {
  file_set files = load_op(GetParam());
  const auto* m = find_motif("vectorize_scalar_loop");
  for (int round = 0; round < 3; ++round) {
    source_set src(files, tiling_parser());
    const auto sites = element_sites(src);
    ASSERT_EQ(sites.size(), static_cast<std::size_t>(3 - round));
    const auto a = apply_site(*m, src, sites[0], direction::forward);
    ASSERT_TRUE(a.ok) << a.reason;
    files = a.files;
  }
  std::string log;
  EXPECT_TRUE(compiles(files, kernel, log)) << log;
  EXPECT_TRUE(compiles(files, host, log)) << log;
  EXPECT_EQ(count(files.at(kernel), "TBuf<QuePosition::VECCALC> vecScratch"), 3u);
  EXPECT_EQ(count(files.at(host), "ubSize -= "), 3u);
  source_set done(files, tiling_parser());
  EXPECT_TRUE(element_sites(done).empty());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ElementLoop, ::testing::Values("element_op", "element_op_renamed"),
                         [](const auto& info) { return info.param; });

TEST(ElementLoopGuards, NoSiteOnTheOtherFixtures) {
  for (const std::string dir : {"tiling_op", "sync_op", "tiling_op_none"}) {
    source_set src(load_op(dir), tiling_parser());
    EXPECT_TRUE(element_sites(src).empty()) << dir;
  }
}

}  // namespace
}  // namespace aopt::motifs
