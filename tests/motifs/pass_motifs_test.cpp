// dead_vector_write and common_subexpression on whole operator packages: the exact site, forward
// and inverse as minimal edits, round trip, compiling output, a renamed + reformatted copy
// (data/pass_op_renamed: qualified calls, member tiles set in Init, PIPE_V barriers), no site
// without the pattern, and the guards (one fixture line edited each).
#include <gtest/gtest.h>

#include "aopt/motifs/motif.h"
#include "package_round_trip.h"

namespace aopt::motifs {
namespace {

using namespace testing_support;

const std::string kernel = "op_kernel/gate_custom.cpp";

const expectation dead_write = {
    "dead_vector_write",
    "Cast(wf, xLocal, RoundMode::CAST_NONE, count);",
    kernel,
    "            Cast(xf, xLocal, RoundMode::CAST_NONE, count);\n            Mul(wf, xf, xf, count);\n",
    "            Cast(xf, xLocal, RoundMode::CAST_NONE, count);\n            Cast(wf, xLocal, RoundMode::CAST_NONE, count);\n"
    "            Mul(wf, xf, xf, count);\n",
};

const expectation shared = {
    "common_subexpression",
    "Mul(wf, xf, xf, count);",
    kernel,
    "            Mul(uf, xf, xf, count);\n            Muls(wf, uf, this->c0, count);\n            Adds(wf, wf, this->c1, count);\n"
    "            Mul(wf, wf, xf, count);\n            Muls(uf, uf, this->c2, count);\n",
    "            Mul(wf, xf, xf, count);\n            Muls(wf, wf, this->c0, count);\n            Adds(wf, wf, this->c1, count);\n"
    "            Mul(wf, wf, xf, count);\n            Mul(uf, xf, xf, count);\n            Muls(uf, uf, this->c2, count);\n",
};

const expectation rsqrt = {
    "sqrt_div_to_rsqrt",
    "Duplicate(ones, 1.0f, count);\n            Sqrt(xf, xf, count);\n            Div(xf, ones, xf, count);",
    kernel,
    "            Cast(xf, xLocal, RoundMode::CAST_NONE, count);\n            Rsqrt(xf, xf, count);\n            Cast(yLocal, xf, RoundMode::CAST_RINT, count);\n",
    "            Duplicate(ones, 1.0f, count);\n            Sqrt(xf, xf, count);\n            Div(xf, ones, xf, count);\n",
};

// Each motif's fixture pair, and whether the inverse gives the renamed fixture back byte for byte.
struct fixture {
  expectation want;
  std::string dir, renamed;
  bool exact_renamed;
};
void PrintTo(const fixture& f, std::ostream* os) { *os << f.want.id; }

std::size_t count_sites(const std::string& id, const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(*find_motif(id), src, d).size();
}

file_set forward_of(const std::string& id, const file_set& x) {
  source_set src(x, tiling_parser());
  const auto sites = sites_for(*find_motif(id), src, direction::forward);
  if (sites.size() != 1) throw std::runtime_error(id + ": expected one forward site");
  return apply_site(*find_motif(id), src, sites[0], direction::forward).files;
}

class PassMotifs : public ::testing::TestWithParam<fixture> {};

TEST_P(PassMotifs, ForwardInverseRoundTripAndCompiles) {
  const motif* m = find_motif(GetParam().want.id);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->bottleneck(), search::bottleneck_class::vector_bound);
  EXPECT_TRUE(m->exact_round_trip());
  trip t;
  check_round_trip(*m, load_op(GetParam().dir), t, true, GetParam().want);
  if (HasFailure()) return;
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

TEST_P(PassMotifs, RenamedAndReformatted) {
  const motif* m = find_motif(GetParam().want.id);
  ASSERT_NE(m, nullptr);
  trip t;
  check_round_trip(*m, load_op(GetParam().renamed), t, false, GetParam().want);
  if (HasFailure()) return;
  // The inverse gives the fixture back exactly, barriers included (sqrt_div_to_rsqrt writes the
  // ones as 1.0f without the Duplicate's template argument).
  if (GetParam().exact_renamed) {
    EXPECT_EQ(t.z.at(kernel), t.x.at(kernel));
  }
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
}

TEST_P(PassMotifs, NoSiteWithoutThePattern) {
  const motif* m = find_motif(GetParam().want.id);
  ASSERT_NE(m, nullptr);
  for (const char* dir : {"tiling_op_none", "sync_op", "gate_op", "reuse_op", "element_op"}) {
    source_set src(load_op(dir), tiling_parser());
    EXPECT_TRUE(m->match(src).empty()) << dir;
  }
  source_set none_kernel({{"op_kernel/none.cpp", slurp(fs::path(AOPT_MOTIFS_TEST_DATA) / "none_kernel.cpp")}}, tiling_parser());
  EXPECT_TRUE(m->match(none_kernel).empty());
}

INSTANTIATE_TEST_SUITE_P(Motifs, PassMotifs,
                         ::testing::Values(fixture{dead_write, "pass_op", "pass_op_renamed", true}, fixture{shared, "pass_op", "pass_op_renamed", true},
                                           fixture{rsqrt, "rsqrt_op", "rsqrt_op_renamed", false}),
                         [](const auto& info) {
                           const std::string& id = info.param.want.id;
                           return id == "dead_vector_write" ? std::string("DeadVectorWrite")
                                  : id == "common_subexpression" ? std::string("CommonSubexpression")
                                                                 : std::string("SqrtDivToRsqrt");
                         });

TEST(PassMotifGuards, DeadVectorWrite) {
  const std::string id = dead_write.id;
  const file_set x = load_op("pass_op");
  ASSERT_EQ(count_sites(id, x, direction::forward), 1u);
  // The next op reads the tile it writes: the first write is live.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Mul(wf, xf, xf, count);", "Mul(wf, xf, wf, count);"), direction::forward), 0u);
  // Axpy accumulates into its destination: it reads the cast.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Mul(wf, xf, xf, count);", "Axpy(wf, xf, this->c0, count);"), direction::forward), 0u);
  // It overwrites fewer elements: the rest of the cast is read later.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Mul(wf, xf, xf, count);", "Mul(wf, xf, xf, count / 2);"), direction::forward), 0u);
  // A view of the same buffer read by the next op (uf fetched from wBuf too): it would read the cast.
  const file_set shared_buffer = replaced(x, kernel, "Mul(wf, xf, xf, count);", "Mul(wf, xf, uf, count);");
  EXPECT_EQ(count_sites(id, shared_buffer, direction::forward), 1u);
  EXPECT_EQ(count_sites(id, replaced(shared_buffer, kernel, "uf = uBuf.Get<float>();", "uf = wBuf.Get<float>();"), direction::forward), 0u);
  // A tile that is a view of another tensor: its buffer is unknown.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "LocalTensor<float> wf = wBuf.Get<float>();", "LocalTensor<float> wf = xf[0];"), direction::forward), 0u);
  // A statement that is not a call between the two writes.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "            Mul(wf, xf, xf, count);\n", "            count = count + 0;\n            Mul(wf, xf, xf, count);\n"),
                        direction::forward),
            0u);
  // Inverse: only after a Cast whose next op writes another tile of the same type unread.
  const file_set y = forward_of(id, x);
  ASSERT_EQ(count_sites(id, y, direction::inverse), 1u);
  EXPECT_EQ(count_sites(id, replaced(y, kernel, "Mul(wf, xf, xf, count);", "Mul(wf, xf, wf, count);"), direction::inverse), 0u);
  EXPECT_EQ(count_sites(id, replaced(y, kernel, "LocalTensor<float> wf = wBuf.Get<float>();", "LocalTensor<half> wf = wBuf.Get<half>();"), direction::inverse), 0u);
}

TEST(PassMotifGuards, CommonSubexpression) {
  const std::string id = shared.id;
  const file_set x = load_op("pass_op");
  ASSERT_EQ(count_sites(id, x, direction::forward), 1u);
  const std::string second = "            Mul(uf, xf, xf, count);\n";
  // The operands change between the two ops.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, second, "            Adds(xf, xf, this->c1, count);\n" + second), direction::forward), 0u);
  // The tile that would keep the value is read in between.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Mul(wf, wf, xf, count);", "Mul(wf, wf, uf, count);"), direction::forward), 0u);
  // ... or shares its buffer with a tile written in between.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "uf = uBuf.Get<float>();", "uf = wBuf.Get<float>();"), direction::forward), 0u);
  // The first value's next op does not update it in place: nothing to redirect.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Muls(wf, wf, this->c0, count);", "Muls(wf, xf, this->c0, count);"), direction::forward), 0u);
  // An Axpy as the next op reads its destination too: redirecting its source would be wrong.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Muls(wf, wf, this->c0, count);", "Axpy(wf, wf, this->c0, count);"), direction::forward), 0u);
  // Another count is another value.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, second, "            Mul(uf, xf, xf, count / 2);\n"), direction::forward), 0u);
  // A tile of another element type cannot keep it.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "LocalTensor<float> uf = uBuf.Get<float>();", "LocalTensor<half> uf = uBuf.Get<half>();"), direction::forward), 0u);
  // Inverse: the operands must still hold their values at the reader.
  const file_set y = forward_of(id, x);
  ASSERT_EQ(count_sites(id, y, direction::inverse), 1u);
  const std::string reader = "            Muls(uf, uf, this->c2, count);\n";
  EXPECT_EQ(count_sites(id, replaced(y, kernel, reader, "            Adds(xf, xf, this->c1, count);\n" + reader), direction::inverse), 0u);
}

TEST(PassMotifGuards, SqrtDivToRsqrt) {
  const std::string id = rsqrt.id;
  const file_set x = load_op("rsqrt_op");
  ASSERT_EQ(count_sites(id, x, direction::forward), 1u);
  // fp16 tiles: an ulp of fp16 is within reach of the tolerances (no site).
  file_set half_tiles = x;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"LocalTensor<float> xf = xBuf.Get<float>();", "LocalTensor<half> xf = xBuf.Get<half>();"},
                                                                                {"LocalTensor<float> ones = onesBuf.Get<float>();", "LocalTensor<half> ones = onesBuf.Get<half>();"}}) {
    half_tiles = replaced(half_tiles, kernel, from, to);
  }
  EXPECT_EQ(count_sites(id, half_tiles, direction::forward), 0u);
  // Another value than 1 is not a reciprocal.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Duplicate(ones, 1.0f, count);", "Duplicate(ones, 2.0f, count);"), direction::forward), 0u);
  // The ones tile read afterwards: it must still hold the ones.
  const std::string tail = "            Cast(yLocal, xf, RoundMode::CAST_RINT, count);\n";
  EXPECT_EQ(count_sites(id, replaced(x, kernel, tail, tail + "            Add(xf, xf, ones, count);\n"), direction::forward), 0u);
  // The root kept in another tile that is read afterwards.
  file_set root = replaced(x, kernel, "Sqrt(xf, xf, count);", "Sqrt(ones, xf, count);");
  root = replaced(root, kernel, "Div(xf, ones, xf, count);", "Div(xf, ones, ones, count);");
  EXPECT_EQ(count_sites(id, root, direction::forward), 0u);
  // A statement between the Sqrt and the Div.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "            Div(xf, ones, xf, count);\n", "            count = count + 0;\n            Div(xf, ones, xf, count);\n"),
                        direction::forward),
            0u);
  // Inverse: the in-place Rsqrt needs a tile named nowhere else for the ones.
  const file_set y = forward_of(id, x);
  ASSERT_EQ(count_sites(id, y, direction::inverse), 1u);
  EXPECT_EQ(count_sites(id, replaced(y, kernel, tail, tail + "            Adds(ones, xf, 1.0f, count);\n"), direction::inverse), 0u);
}

}  // namespace
}  // namespace aopt::motifs
