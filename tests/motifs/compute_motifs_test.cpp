// sigmoid_gate_direct and inplace_to_dead_temp on whole operator packages: the exact site, forward and inverse as minimal
// edits, round trip, compiling output, a renamed + reformatted fp32 copy (data/gate_op_renamed),
// no site without the pattern, the guards (one fixture line edited each), and the scalar
// literal evaluator the guards rest on.
#include <gtest/gtest.h>

#include "../../search/motifs/src/motifs_impl.h"
#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/gate_custom.cpp";

const expectation gate = {
    "sigmoid_gate_direct",
    "Abs(absX, xLocal, count);\n        PipeBarrier<PIPE_V>();\n        Mins(xLocal, xLocal, zero, count);\n        PipeBarrier<PIPE_V>();\n"
    "        Muls(yLocal, absX, slope, count);\n        PipeBarrier<PIPE_V>();\n        Exp(yLocal, yLocal, count);\n        PipeBarrier<PIPE_V>();\n"
    "        Adds(yLocal, yLocal, static_cast<float>(1), count);\n        PipeBarrier<PIPE_V>();\n        Div(yLocal, absX, yLocal, count);\n"
    "        PipeBarrier<PIPE_V>();\n        Add(yLocal, yLocal, xLocal, count);",
    kernel,
    "        Muls(absX, xLocal, slope, count);\n        PipeBarrier<PIPE_V>();\n        Exp(yLocal, absX, count);\n        PipeBarrier<PIPE_V>();\n"
    "        Adds(absX, yLocal, static_cast<float>(1), count);\n        PipeBarrier<PIPE_V>();\n        Div(yLocal, xLocal, absX, count);\n"
    "        yQueue_.EnQue(yLocal);",
    "        Abs(absX, xLocal, count);\n        PipeBarrier<PIPE_V>();\n        Muls(yLocal, absX, slope, count);\n",
};

TEST(ComputeMotifs, SigmoidGateForwardInverseRoundTripAndCompiles) {
  const motif* m = find_motif(gate.id);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->bottleneck(), search::bottleneck_class::vector_bound);
  trip t;
  check_round_trip(*m, load_op("gate_op"), t, true, gate);
  if (HasFailure()) return;
  // The inverse writes the stable form back on the temporary, min(x, 0) typed like x.
  EXPECT_NE(t.z.at(kernel).find("Mins(xLocal, xLocal, static_cast<float>(0), count);"), std::string::npos) << t.z.at(kernel);
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

TEST(ComputeMotifs, SigmoidGateRenamedAndReformatted) {
  const motif* m = find_motif(gate.id);
  ASSERT_NE(m, nullptr);
  trip t;
  check_round_trip(*m, load_op("gate_op_renamed"), t, false, gate);
  if (HasFailure()) return;
  const std::string& y = t.y.at(kernel);
  EXPECT_NE(y.find("AscendC::Muls(m, v, negBeta_, len);\n    AscendC::Exp(g, m, len);\n    AscendC::Adds(m, g, 1.0f, len);\n"
                   "    AscendC::Div(g, v, m, len);\n    AscendC::Cast(b, g"),
            std::string::npos)
      << y;
  EXPECT_NE(t.z.at(kernel).find("AscendC::Abs(m, v, len);"), std::string::npos) << t.z.at(kernel);
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << y << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

TEST(ComputeMotifs, SigmoidGateNoSiteWithoutThePattern) {
  const motif* m = find_motif(gate.id);
  ASSERT_NE(m, nullptr);
  source_set none_op(load_op("tiling_op_none"), tiling_parser());
  source_set none_kernel({{"op_kernel/none.cpp", slurp(fs::path(AOPT_MOTIFS_TEST_DATA) / "none_kernel.cpp")}}, tiling_parser());
  source_set sync_op(load_op("sync_op"), tiling_parser());
  EXPECT_TRUE(m->match(none_op).empty());
  EXPECT_TRUE(m->match(none_kernel).empty());
  EXPECT_TRUE(m->match(sync_op).empty());
  EXPECT_TRUE(find_motif("inplace_to_dead_temp")->match(none_op).empty());
  EXPECT_TRUE(find_motif("inplace_to_dead_temp")->match(none_kernel).empty());
}

file_set replaced_all(file_set files, const std::string& path, const std::string& from, const std::string& to) {
  auto& text = files.at(path);
  std::size_t n = 0;
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()), ++n) text.replace(pos, from.size(), to);
  if (n == 0) throw std::runtime_error("fixture text '" + from + "' not found in " + path);
  return files;
}

std::size_t count_sites(const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(*find_motif(gate.id), src, d).size();
}

// The fixture after the forward: the direct form, ping-ponged between absX and yLocal.
file_set direct_form() {
  source_set src(load_op("gate_op"), tiling_parser());
  const auto sites = sites_for(*find_motif(gate.id), src, direction::forward);
  if (sites.size() != 1) throw std::runtime_error("gate_op: expected one forward site");
  return apply_site(*find_motif(gate.id), src, sites[0], direction::forward).files;
}

TEST(ComputeMotifs, SigmoidGateForwardGuards) {
  const file_set x = load_op("gate_op");
  ASSERT_EQ(count_sites(x, direction::forward), 1u);
  const std::string tail = "        yQueue_.EnQue(yLocal);\n";
  // x is read after the chain: the stable form left min(x, 0) there, the direct form would not.
  EXPECT_EQ(count_sites(replaced(x, kernel, tail, "        Adds(yLocal, xLocal, zero, count);\n" + tail), direction::forward), 0u);
  // The temporary |x| is read after the chain.
  EXPECT_EQ(count_sites(replaced(x, kernel, tail, "        Add(yLocal, yLocal, absX, count);\n" + tail), direction::forward), 0u);
  // fp16 tiles: the stable form's own cancellation error exceeds fp16 tolerances (no site).
  EXPECT_EQ(count_sites(replaced_all(x, kernel, "LocalTensor<float>", "LocalTensor<half>"), direction::forward), 0u);
  // A coefficient known to be tiny: exp(k x) overflows where x * exp(-k x) is not negligible.
  EXPECT_EQ(count_sites(replaced(x, kernel, "float slope = -1.5f;", "float slope = 1e-9f;"), direction::forward), 0u);
  // Assigned again, the coefficient is no longer a known (tiny) constant: the site is back.
  EXPECT_EQ(count_sites(replaced(x, kernel, "float slope = -1.5f;", "float slope = 1e-9f;\n        slope = slope * 1e9f;"), direction::forward), 1u);
  // Another offset than 1 is not the gate; another clamp than min(x, 0) neither.
  EXPECT_EQ(count_sites(replaced(x, kernel, "static_cast<float>(1)", "static_cast<T>(2)"), direction::forward), 0u);
  EXPECT_EQ(count_sites(replaced(x, kernel, "float zero = 0;", "float zero = 1;"), direction::forward), 0u);
  // Another statement inside the chain stops it.
  EXPECT_EQ(count_sites(replaced(x, kernel, "        Exp(yLocal, yLocal, count);\n", "        Exp(yLocal, yLocal, count);\n        count = count + 0;\n"),
                        direction::forward),
            0u);
  // The Mins before the Abs would clamp |x| too: not the identity.
  const std::string abs_mins = "        Abs(absX, xLocal, count);\n        PipeBarrier<PIPE_V>();\n        Mins(xLocal, xLocal, zero, count);\n";
  EXPECT_EQ(count_sites(replaced(x, kernel, abs_mins, "        Mins(xLocal, xLocal, zero, count);\n        PipeBarrier<PIPE_V>();\n        Abs(absX, xLocal, count);\n"),
                        direction::forward),
            0u);
  // fp32 tiles with a coefficient of magnitude < 1 but not tiny are safe (renamed fixture).
  const file_set r = load_op("gate_op_renamed");
  EXPECT_EQ(count_sites(replaced(r, kernel, "AscendC::Muls(g, m, negBeta_, len);", "AscendC::Muls(g, m, -0.25f, len);"), direction::forward), 1u);
  EXPECT_EQ(count_sites(replaced(r, kernel, "AscendC::Muls(g, m, negBeta_, len);", "AscendC::Muls(g, m, 1e-9f, len);"), direction::forward), 0u);
}

TEST(ComputeMotifs, SigmoidGateInverseGuards) {
  const file_set y = direct_form();
  ASSERT_EQ(count_sites(y, direction::inverse), 1u);
  // No free temporary: absX is used elsewhere in the function.
  EXPECT_EQ(count_sites(replaced(y, kernel, "        yQueue_.EnQue(yLocal);\n", "        Abs(absX, yLocal, count);\n        yQueue_.EnQue(yLocal);\n"),
                        direction::inverse),
            0u);
  // x read after the division: the stable form would clobber it.
  EXPECT_EQ(count_sites(replaced(y, kernel, "        yQueue_.EnQue(yLocal);\n", "        Add(yLocal, yLocal, xLocal, count);\n        yQueue_.EnQue(yLocal);\n"),
                        direction::inverse),
            0u);
  // The in-place spelling (every step on y): the unused temporary absX takes |x|.
  file_set w = y;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"Muls(absX, xLocal, slope, count);", "Muls(yLocal, xLocal, slope, count);"},
           {"Exp(yLocal, absX, count);", "Exp(yLocal, yLocal, count);"},
           {"Adds(absX, yLocal, static_cast<float>(1), count);", "Adds(yLocal, yLocal, static_cast<float>(1), count);"},
           {"Div(yLocal, xLocal, absX, count);", "Div(yLocal, xLocal, yLocal, count);"}}) {
    w = replaced(w, kernel, from, to);
  }
  source_set sw(w, tiling_parser());
  const auto ws = sites_for(*find_motif(gate.id), sw, direction::inverse);
  ASSERT_EQ(ws.size(), 1u);
  applied z = apply_site(*find_motif(gate.id), sw, ws[0], direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_NE(z.files.at(kernel).find("Abs(absX, xLocal, count);"), std::string::npos) << z.diff;
  EXPECT_NE(z.files.at(kernel).find("Div(yLocal, absX, yLocal, count);"), std::string::npos) << z.diff;
  // ... and with absX named elsewhere in the function there is no temporary left.
  EXPECT_EQ(count_sites(replaced(w, kernel, "        yQueue_.EnQue(yLocal);\n", "        Abs(absX, yLocal, count);\n        yQueue_.EnQue(yLocal);\n"),
                        direction::inverse),
            0u);
}

// ---- inplace_to_dead_temp ----

const expectation reuse = {
    "inplace_to_dead_temp",
    "Maxs(zLocal, zLocal, zero, count);",
    kernel,
    "        Abs(den, xLocal, count);\n        PipeBarrier<PIPE_V>();\n        Adds(den, den, one, count);\n        PipeBarrier<PIPE_V>();\n"
    "        Div(yLocal, xLocal, den, count);\n        PipeBarrier<PIPE_V>();\n        Maxs(den, zLocal, zero, count);\n"
    "        PipeBarrier<PIPE_V>();\n        Add(yLocal, yLocal, den, count);\n        yQueue_.EnQue(yLocal);",
    "        Maxs(zLocal, zLocal, zero, count);\n        PipeBarrier<PIPE_V>();\n        Add(yLocal, yLocal, zLocal, count);",
};

TEST(ComputeMotifs, InplaceToDeadTempRoundTripAndCompiles) {
  const motif* m = find_motif(reuse.id);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->bottleneck(), search::bottleneck_class::vector_bound);
  trip t;
  check_round_trip(*m, load_op("reuse_op"), t, true, reuse);
  if (HasFailure()) return;
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

TEST(ComputeMotifs, InplaceToDeadTempOnTheGateFixtures) {
  // The stable gate's Mins(x, x, 0): |x| is dead once the Div has read it (qualified calls, no
  // barriers in the renamed copy; the reader's operand order kept).
  source_set r(load_op("gate_op_renamed"), tiling_parser());
  const auto sites = sites_for(*find_motif(reuse.id), r, direction::forward);
  ASSERT_EQ(sites.size(), 1u);
  applied y = apply_site(*find_motif(reuse.id), r, sites[0], direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  EXPECT_NE(y.files.at(kernel).find("    AscendC::Mins(m, v, 0.0f, len);\n    AscendC::Add(g, m, g, len);"), std::string::npos) << y.diff;
  std::string log;
  EXPECT_TRUE(compiles(y.files, kernel, log)) << y.diff << "\n" << log;
}

TEST(ComputeMotifs, InplaceToDeadTempGuards) {
  const file_set x = load_op("reuse_op");
  const std::string tail = "        yQueue_.EnQue(yLocal);\n";
  auto sites = [](const file_set& files) {
    source_set src(files, tiling_parser());
    return sites_for(*find_motif(reuse.id), src, direction::forward);
  };
  ASSERT_EQ(sites(x).size(), 1u);
  // z read again after its reader: the in-place result is still needed there.
  EXPECT_EQ(sites(replaced(x, kernel, tail, "        Mul(yLocal, yLocal, zLocal, count);\n" + tail)).size(), 0u);
  // den read after the reader: the other dead tile of the same type (xLocal) takes the result.
  {
    const auto s = sites(replaced(x, kernel, tail, "        Mul(yLocal, yLocal, den, count);\n" + tail));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_NE(s[0].summary.find("-> xLocal"), std::string::npos) << s[0].summary;
  }
  // Tiles seen only with another element count may be smaller: not candidates.
  EXPECT_EQ(sites(replaced(x, kernel, "Abs(den, xLocal, count);", "Abs(den, xLocal, count / 2);")).size(), 0u);
  // A statement that is not a call between the op and its reader (not straight-line calls).
  EXPECT_EQ(sites(replaced(x, kernel, "        Div(yLocal, xLocal, den, count);\n", "        Div(yLocal, xLocal, den, count);\n        count = count + 0;\n")).size(), 0u);
  // The next statement naming z writes it: no reader to redirect.
  EXPECT_EQ(sites(replaced(x, kernel, "Add(yLocal, yLocal, zLocal, count);", "Adds(zLocal, zLocal, one, count);")).size(), 0u);
  // Inverse: only when the temporary is read once, right after, and dead afterwards.
  source_set sy(x, tiling_parser());
  const file_set y = apply_site(*find_motif(reuse.id), sy, sites(x)[0], direction::forward).files;
  source_set s2(replaced(y, kernel, tail, "        Mul(yLocal, yLocal, den, count);\n" + tail), tiling_parser());
  EXPECT_TRUE(sites_for(*find_motif(reuse.id), s2, direction::inverse).empty());
}

TEST(ComputeMotifs, ScalarLiterals) {
  using detail::literal_value;
  EXPECT_EQ(literal_value("1"), 1.0);
  EXPECT_EQ(literal_value("1.0f"), 1.0);
  EXPECT_EQ(literal_value("static_cast<float>(1)"), 1.0);
  EXPECT_EQ(literal_value("(T)1"), 1.0);
  EXPECT_EQ(literal_value("T(1)"), 1.0);
  EXPECT_EQ(literal_value("-1.702"), -1.702);
  EXPECT_EQ(literal_value("2e-3"), 2e-3);
  EXPECT_EQ(literal_value(".5f"), 0.5);
  EXPECT_FALSE(literal_value("(1").has_value());
  EXPECT_FALSE(literal_value("x").has_value());
  EXPECT_FALSE(literal_value("1+1").has_value());
  EXPECT_FALSE(literal_value("").has_value());
}

}  // namespace
}  // namespace aopt::motifs
