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

class PassMotifs : public ::testing::TestWithParam<expectation> {};

TEST_P(PassMotifs, ForwardInverseRoundTripAndCompiles) {
  const motif* m = find_motif(GetParam().id);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->bottleneck(), search::bottleneck_class::vector_bound);
  EXPECT_TRUE(m->exact_round_trip());
  trip t;
  check_round_trip(*m, load_op("pass_op"), t, true, GetParam());
  if (HasFailure()) return;
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
  EXPECT_TRUE(compiles(t.z, kernel, log)) << "inverse output:\n" << t.z.at(kernel) << "\n" << log;
}

TEST_P(PassMotifs, RenamedAndReformatted) {
  const motif* m = find_motif(GetParam().id);
  ASSERT_NE(m, nullptr);
  trip t;
  check_round_trip(*m, load_op("pass_op_renamed"), t, false, GetParam());
  if (HasFailure()) return;
  // The inverse gives the fixture back exactly, barriers included.
  EXPECT_EQ(t.z.at(kernel), t.x.at(kernel));
  std::string log;
  EXPECT_TRUE(compiles(t.y, kernel, log)) << "forward output:\n" << t.y.at(kernel) << "\n" << log;
}

TEST_P(PassMotifs, NoSiteWithoutThePattern) {
  const motif* m = find_motif(GetParam().id);
  ASSERT_NE(m, nullptr);
  for (const char* dir : {"tiling_op_none", "sync_op", "gate_op", "reuse_op", "element_op"}) {
    source_set src(load_op(dir), tiling_parser());
    EXPECT_TRUE(m->match(src).empty()) << dir;
  }
  source_set none_kernel({{"op_kernel/none.cpp", slurp(fs::path(AOPT_MOTIFS_TEST_DATA) / "none_kernel.cpp")}}, tiling_parser());
  EXPECT_TRUE(m->match(none_kernel).empty());
}

INSTANTIATE_TEST_SUITE_P(Motifs, PassMotifs, ::testing::Values(dead_write, shared), [](const auto& info) {
  return info.param.id == "dead_vector_write" ? std::string("DeadVectorWrite") : std::string("CommonSubexpression");
});

TEST(PassMotifGuards, DeadVectorWrite) {
  const std::string id = dead_write.id;
  const file_set x = load_op("pass_op");
  ASSERT_EQ(count_sites(id, x, direction::forward), 1u);
  // The next op reads the tile it writes: the first write is live.
  EXPECT_EQ(count_sites(id, replaced(x, kernel, "Mul(wf, xf, xf, count);", "Mul(wf, xf, wf, count);"), direction::forward), 0u);
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

}  // namespace
}  // namespace aopt::motifs
