// The real `aopt init` on fixture operators of our own: an elementwise one (add_custom), a
// reduction with an axis attribute (reduce_sum), a gather with indices, and a log whose math
// needs positive inputs and whose tiling takes only rows of whole 32-byte blocks
// (packages/init_log). Each draft is evaluated unedited by the real `aopt eval`: ok. A shape the
// tiling takes but the kernel fails on (packages/init_one_tile) is not drafted. A tiling that
// refuses every probe (packages/init_refuse) gets a message naming the shapes tried and what the
// tiling said; `aopt corpus` drafts specs for the operators without msOpST cases. A scatter that
// writes its input `var`, not the output of that name (packages/init_scatter_rows), is drafted.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string src = AOPT_TEST_SOURCE_DIR;

class AoptInit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aopt-it-init-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `aopt init OP --out <dir>/<name>.json`, then `aopt eval OP --spec` on it: the draft.
  json init_and_eval(const std::string& op, const std::string& name, const std::string& elements = "262144") {
    const fs::path out = dir_ / (name + ".json");
    const auto i = aopt::testing::run_aopt({"init", op, "--out", out.string(), "--elements", elements}, 600);
    EXPECT_EQ(i.exit_code, 0) << i.out << i.err;
    if (i.exit_code != 0) return json();
    std::ifstream f(out);
    const json spec = json::parse(f);
    const auto e = aopt::testing::run_aopt({"eval", op, "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
    EXPECT_EQ(e.exit_code, 0) << name << ": the draft does not evaluate ok unedited\n" << spec.dump(1) << "\n" << e.out << e.err;
    if (e.exit_code == 0) {
      const auto r = json::parse(e.out);
      EXPECT_EQ(r["status"], "ok") << e.out;
      EXPECT_EQ(r["cases"].size(), 2u) << e.out;
    }
    return spec;
  }

  fs::path dir_;
};

const json& input_of(const json& spec, std::size_t c, const std::string& name) { return spec["cases"][c]["inputs"][name]; }

}  // namespace

TEST_F(AoptInit, ElementwiseDraftEvaluatesOk) {
  const auto spec = init_and_eval(src + "/examples/ops/add_custom", "add");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(spec["kernel"], "add_custom");
  EXPECT_EQ(spec["reference"], "baseline");
  EXPECT_EQ(spec["cases"][0]["timed"], true);
  EXPECT_EQ(input_of(spec, 0, "x")["shape"], json::array({256, 1024}));
  EXPECT_EQ(input_of(spec, 0, "y")["shape"], json::array({256, 1024}));
  EXPECT_EQ(input_of(spec, 1, "x")["shape"], json::array({37, 1001})) << "the tail is unaligned";
  EXPECT_FALSE(input_of(spec, 0, "x").contains("range")) << "no range where the math needs none";
  EXPECT_TRUE(spec["tolerance"].contains(input_of(spec, 0, "x")["dtype"].get<std::string>()));
  EXPECT_TRUE(spec["notes"].is_array());
}

TEST_F(AoptInit, ReductionKeepsItsAxisAttribute) {
  const auto spec = init_and_eval(src + "/examples/ops/reduce_sum/baseline", "reduce_sum");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(spec["cases"][0]["attrs"]["axis"], -1) << spec.dump();
  EXPECT_EQ(spec["cases"][0]["attrs"]["keep_dims"], false);
}

TEST_F(AoptInit, IndicesStayWithinTheTable) {
  const auto spec = init_and_eval(src + "/examples/ops/gather/baseline", "gather");
  ASSERT_TRUE(spec.is_object());
  const auto& idx = input_of(spec, 0, "indices");
  EXPECT_EQ(idx["shape"].size(), 1u) << spec.dump();
  ASSERT_TRUE(idx.contains("range")) << spec.dump();
  EXPECT_EQ(idx["range"][0], 0);
  EXPECT_LT(idx["range"][1].get<double>(), input_of(spec, 0, "x")["shape"][0].get<double>());
  EXPECT_EQ(input_of(spec, 1, "indices")["range"][1], 36) << "the tail's table has 37 rows";
}

TEST_F(AoptInit, LogGetsPositiveInputsAndAnAlignedTailWithANote) {
  const auto spec = init_and_eval(src + "/tests/integration/packages/init_log", "log");
  ASSERT_TRUE(spec.is_object());
  const auto& x = input_of(spec, 0, "x");
  ASSERT_TRUE(x.contains("range")) << spec.dump();
  EXPECT_GT(x["range"][0].get<double>(), 0);
  EXPECT_EQ(input_of(spec, 1, "x")["shape"], json::array({37, 1024})) << "the tiling refuses the unaligned tail";
  std::string notes = spec["notes"].dump();
  EXPECT_NE(notes.find("positive"), std::string::npos) << notes;
  EXPECT_NE(notes.find("failed (tiling_error"), std::string::npos) << notes;
}

TEST_F(AoptInit, AShapeTheKernelFailsOnIsNotDrafted) {
  // The tiling takes 2M elements, the kernel's one tile a core overflows UB there: --no-run
  // drafts it (and the draft fails), the default run finds a size the kernel handles.
  const std::string op = src + "/tests/integration/packages/init_one_tile";
  const auto screened = aopt::testing::run_aopt({"init", op, "--out", (dir_ / "screened.json").string(), "--no-run"}, 600);
  ASSERT_EQ(screened.exit_code, 0) << screened.out << screened.err;
  const auto e = aopt::testing::run_aopt({"eval", op, "--spec", (dir_ / "screened.json").string(), "--json", "--cache-dir",
                                          (dir_ / "cache").string()}, 900);
  EXPECT_EQ(e.exit_code, 1) << e.out << e.err;
  EXPECT_NE(e.out.find("ub_overflow"), std::string::npos) << e.out;
  const auto spec = init_and_eval(op, "one_tile", "2097152");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(input_of(spec, 0, "x")["shape"], json::array({128, 1024})) << spec.dump();
  EXPECT_NE(spec["notes"].dump().find("failed when the kernel ran"), std::string::npos) << spec.dump();
}

TEST_F(AoptInit, AShapeWhoseOutputTheKernelMostlyLeavesUnwrittenIsPassedOver) {
  // PartialAdds runs clean on a rank-2 input but writes a tenth of y there (4 of 40 cores): before,
  // the draft took that first probe and evaluated "ok" comparing a tenth of the output; now the
  // probe is "mostly_unwritten" and the draft takes the next one, rank 1, which writes all of y.
  const auto spec = init_and_eval(src + "/tests/integration/packages/init_partial", "partial");
  ASSERT_TRUE(spec.is_object());
  EXPECT_EQ(input_of(spec, 0, "x")["shape"].size(), 1u) << spec.dump();
  EXPECT_NE(spec["notes"].dump().find("the ones before failed"), std::string::npos) << spec.dump();
  const auto o = aopt::testing::run_aopt({"init", src + "/tests/integration/packages/init_partial", "--out", (dir_ / "p2.json").string(),
                                          "--elements", "262144", "--json"}, 600);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("mostly_unwritten"), std::string::npos) << o.out;
}

TEST_F(AoptInit, AScatterIntoItsInputIsDrafted) {
  // ScatterRows declares an output `var` and writes only its input `var` (as cann-ops' scatters
  // do): the probe counts the written input as written (on main every probe ended
  // "nothing_written"), and the draft evaluates ok, the input compared as written in place.
  const auto spec = init_and_eval(src + "/tests/integration/packages/init_scatter_rows", "scatter_rows");
  ASSERT_TRUE(spec.is_object());
  const auto& indices = input_of(spec, 0, "indices");
  EXPECT_EQ(indices["shape"].size(), 1u) << spec.dump();
  EXPECT_EQ(indices["shape"][0], input_of(spec, 0, "var")["shape"][0]) << spec.dump();
}

TEST_F(AoptInit, ARefusingTilingIsExplained) {
  const auto o = aopt::testing::run_aopt({"init", src + "/tests/integration/packages/init_refuse", "--out", (dir_ / "r.json").string()}, 600);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
  EXPECT_NE(o.err.find("refused every shape tried"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("[2048, 1024]"), std::string::npos) << "the shapes tried are listed: " << o.err;
  EXPECT_NE(o.err.find("tiling_error"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("the tiling function of RefuseCustom returned failure"), std::string::npos) << "what the tiling said: " << o.err;
  EXPECT_NE(o.err.find("[stdout: RefuseCustom: needs a 7-D tensor, got 2 dimensions]"), std::string::npos) << "what it logged: " << o.err;
}

TEST_F(AoptInit, AnExistingSpecIsKeptUnlessForced) {
  const fs::path out = dir_ / "aopt.json";
  std::ofstream(out) << "{}";
  const auto o = aopt::testing::run_aopt({"init", src + "/tests/integration/packages/init_log", "--out", out.string()}, 600);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--force"), std::string::npos) << o.err;
  const auto f = aopt::testing::run_aopt({"init", src + "/tests/integration/packages/init_log", "--out", out.string(), "--force",
                                          "--elements", "65536"}, 600);
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  std::ifstream in(out);
  EXPECT_EQ(json::parse(in)["kernel"], "log_custom");
}

TEST_F(AoptInit, CorpusDraftsSpecsForOperatorsWithoutCases) {
  const fs::path tree = dir_ / "tree";
  for (const char* op : {"init_log", "init_refuse"}) {
    fs::create_directories(tree / "src" / "math");
    fs::copy(src + "/tests/integration/packages/" + op, tree / "src" / "math" / op, fs::copy_options::recursive);
  }
  const fs::path prefix = dir_ / "corpus";
  const auto o = aopt::testing::run_aopt({"corpus", tree.string(), "--out", prefix.string(), "--cache-dir", (dir_ / "cache").string()}, 900);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(prefix.string() + ".json");
  const auto rep = json::parse(in);
  std::map<std::string, json> by_op;
  for (const auto& e : rep["operators"]) by_op[e["op"].get<std::string>()] = e;
  ASSERT_EQ(by_op.size(), 2u) << rep.dump(1);
  EXPECT_EQ(by_op["src/math/init_log"]["cases"], "init");
  EXPECT_EQ(by_op["src/math/init_log"]["status"], "ok") << rep.dump(1);
  EXPECT_EQ(by_op["src/math/init_refuse"]["status"], "init_error");
  EXPECT_EQ(by_op["src/math/init_refuse"]["cause"], "import");
  EXPECT_NE(by_op["src/math/init_refuse"]["first_error"].get<std::string>().find("aopt init"), std::string::npos);
  EXPECT_TRUE(fs::exists(prefix.string() + ".specs/src/math/init_log/aopt.json")) << "the drafted spec is kept for review";
  std::ifstream md(prefix.string() + ".md");
  const std::string table((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(table.find("| cases from | operators | ok |"), std::string::npos) << table;
  EXPECT_NE(table.find("| src/math/init_log | ok | ok |  | init |"), std::string::npos) << table;
  // --msopst-only: as before, operators without msOpST cases are not part of the corpus.
  const auto m = aopt::testing::run_aopt({"corpus", tree.string(), "--out", (dir_ / "m").string(), "--msopst-only"}, 300);
  EXPECT_EQ(m.exit_code, 0) << m.out << m.err;
  EXPECT_NE(m.out.find("(0 operators"), std::string::npos) << m.out;
}
