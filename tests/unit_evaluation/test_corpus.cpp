// `aopt corpus` as a library (evaluation/corpus.h) on the fixture tree tests/corpus/tree:
// walking, unsupported-unit detection, first error lines, classification, tables, resuming.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/evaluation/corpus.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {
const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests" / "corpus" / "tree";

std::vector<std::string> rel(const std::vector<fs::path>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.lexically_relative(tree).generic_string());
  return out;
}
}  // namespace

TEST(Corpus, FindsOperatorsWithStCases) {
  const auto ops = rel(ev::find_corpus_operators(tree));
  const std::vector<std::string> want = {"src/math/assert_tail", "src/math/broken", "src/math/pad_overread",
                                         "src/math/sort32_topk", "src/math/tanh", "src/math/unaligned_copy",
                                         "src/matmul/cube_mm", "src/norm/raw_reduce"};
  EXPECT_EQ(ops, want) << "common/ has no op_kernel/ and is not an operator";
  EXPECT_THROW(ev::find_corpus_operators(tree / "no_such_dir"), aopt::error);
}

TEST(Corpus, DetectsCubeAndAiCpu) {
  EXPECT_EQ(ev::unsupported_unit(tree / "src/matmul/cube_mm"), "cube");
  EXPECT_NE(ev::unsupported_reason(tree / "src/matmul/cube_mm").find("LoadData 3D v1"), std::string::npos)
      << ev::unsupported_reason(tree / "src/matmul/cube_mm");
  EXPECT_EQ(ev::unsupported_unit(tree / "src/math/tanh"), "");
  const auto dir = fs::temp_directory_path() / ("aopt-corpus-aicpu-" + std::to_string(::getpid()));
  fs::create_directories(dir / "op_host");
  EXPECT_EQ(ev::unsupported_unit(dir), "aicpu") << "no op_kernel/: not an AI Core operator";
  fs::remove_all(dir);
}

TEST(Corpus, CubeKernelsOnTheEmulatedPrimitivesAreEvaluatedTheRestSayWhatIsMissing) {
  // Nd2Nz, LoadData 2D, Mmad and Fixpipe are emulated (issue 38): such a kernel is not refused.
  const std::string basic = R"(
    TQue<TPosition::A1, 1> qa; TQue<TPosition::CO1, 1> qc;
    DataCopy(a1, ga, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
    LoadData(a2, a1, LoadData2DParams(0, 4, 1, 0, 0, false, 0));
    Mmad(c1, a2, b2, mmadParams);
    Fixpipe<float, float, CFG_ROW_MAJOR>(gc, c1, fixpipeParams);
    CrossCoreSetFlag<0, PIPE_FIX>(3);)";
  EXPECT_TRUE(ev::cube_missing(basic).empty());
  EXPECT_TRUE(ev::cube_missing("Add(z, x, y, n);").empty()) << "not a cube kernel";
  // Each missing feature is named once; the high-level Matmul API (i38-matmul) and mixed AIC/AIV
  // kernels (i38-mix) are emulated too.
  EXPECT_TRUE(ev::cube_missing(basic + R"(
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIC { mm.Iterate(); }
    CrossCoreSetFlag<SYNC_MODE2, PIPE_MTE2>(SYNC_AIV_AIC_FLAG);)").empty())
      << "a mixed kernel is evaluated, not refused";
  const auto m = ev::cube_missing(basic + R"(
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    SetFixPipeConfig(reluPre, quantPre);)");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("SetFixPipeConfig"), std::string::npos) << m[0];
  EXPECT_TRUE(ev::cube_missing(basic + "\n    matmul::Matmul<aType, bType, cType, biasType> mm;").empty())
      << "a Matmul kernel on the emulated API is evaluated, not refused";
  // LoadData 3D v2 and v2 Pro (im2col) with their registers are emulated too (i38-conv).
  EXPECT_TRUE(ev::cube_missing(basic + R"(
    LoadData3DParamsV2<half> load3d; LoadData3DParamsV2Pro pro;
    SetFmatrix(h, w, padList, FmatrixMode::FMATRIX_LEFT); Load3DSetFMatrixCal(1, w, padList);
    SetLoadDataRepeat({0, 1, 0}); SetLoadDataBoundary(0); SetLoadDataPaddingValue(0);
    LoadData<half, LOAD3D_CONFIG>(b2, b1, load3d);)").empty())
      << "a kernel on LoadData 3D v2 is evaluated, not refused";
  // The conv operators' Conv3d / Conv3DBackprop classes are their own sources, not a CANN API sim lacks.
  EXPECT_TRUE(ev::cube_missing(basic + "\n    Conv3d<Conv3dCfg> conv; ConvBackpropFilter<Cfg> bp;").empty());
}

TEST(Corpus, FirstErrorLinePrefersErrorLines) {
  EXPECT_EQ(ev::first_error_line("kernel does not compile:\n  In function 'f':\n  k.cpp:3:5: error: 'Foo' was not declared\n"),
            "k.cpp:3:5: error: 'Foo' was not declared");
  EXPECT_EQ(ev::first_error_line("\n  hardware error ub_overflow at k.cpp:9: over\n"), "hardware error ub_overflow at k.cpp:9: over");
  EXPECT_EQ(ev::first_error_line(""), "");
  EXPECT_EQ(ev::first_error_line("/tmp/aopt-work/ab-1/build/src/op_kernel/k.cpp:7: error: no"), "op_kernel/k.cpp:7: error: no")
      << "work-directory paths name the operator's file";
}

TEST(Corpus, ClassifiesEvaluationFailures) {
  ev::eval_result r;
  EXPECT_EQ(ev::classify_failure(r), "ok");
  r.status = "compile_error";
  EXPECT_EQ(ev::classify_failure(r), "missing_api");
  r.status = "timeout";
  EXPECT_EQ(ev::classify_failure(r), "limits");
  r.status = "runtime_error";
  r.diagnostic = "case 'a': hardware error deadlock at k.cpp:4: WaitFlag never set";
  EXPECT_EQ(ev::classify_failure(r), "timing");
  r.diagnostic = "case 'a': hardware error gm_out_of_bounds at k.cpp:4: past the end";
  EXPECT_EQ(ev::classify_failure(r), "semantics");
  r.status = "tiling_error";
  EXPECT_EQ(ev::classify_failure(r), "semantics");
}

TEST(Corpus, TablesCountSupportedOperatorsApart) {
  ev::corpus_report rep;
  rep.entries = {{"a/ok", "ok", "ok", "", "", 1.0, ""},
                 {"a/bad", "compile_error", "missing_api", "k.cpp:1: error: x | y", "", 2.0, ""},
                 {"b/mm", "unsupported", "cube", "uses the Cube unit", "", 0.0, ""}};
  const auto j = rep.to_json();
  EXPECT_EQ(j["summary"]["operators"], 3);
  EXPECT_EQ(j["summary"]["supported"], 2);
  EXPECT_EQ(j["summary"]["ok"], 1);
  EXPECT_EQ(j["by_cause"]["missing_api"], 1);
  const auto md = rep.to_markdown();
  EXPECT_NE(md.find("# Corpus: 1 of 2 supported operators evaluate ok (3 operators, 1 unsupported)"), std::string::npos) << md;
  EXPECT_NE(md.find("| a/bad | compile_error | missing_api | k.cpp:1: error: x \\| y |"), std::string::npos) << md;
  EXPECT_EQ(ev::corpus_entry::from_json(j["operators"][1]).first_error, "k.cpp:1: error: x | y");
}

// Operators already in the JSON output are not evaluated again (no --rerun); the notes file
// names causes found by hand; --only restricts the walk and rejects an unknown operator.
TEST(Corpus, ResumesFromItsJsonAndAppliesNotes) {
  const auto dir = fs::temp_directory_path() / ("aopt-corpus-resume-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ev::corpus_report old;
  for (const auto& p : rel(ev::find_corpus_operators(tree))) {
    old.entries.push_back({p, "ok", "ok", "", "", 42.0, ""});
  }
  aopt::common::write_json_file(dir / "c.json", old.to_json());
  ev::corpus_options o;
  o.root = tree;
  o.json_out = dir / "c.json";
  o.markdown_out = dir / "c.md";
  o.jobs = 2;
  std::size_t progress_calls = 0;
  o.progress = [&](const ev::corpus_entry&, std::size_t, std::size_t) { ++progress_calls; };
  const auto rep = ev::run_corpus(o);
  EXPECT_EQ(progress_calls, 0u) << "nothing left to evaluate";
  ASSERT_EQ(rep.entries.size(), old.entries.size());
  for (const auto& e : rep.entries) EXPECT_EQ(e.seconds, 42.0) << e.op;
  EXPECT_TRUE(fs::exists(dir / "c.md"));

  // --only an operator that is not there.
  o.only = {"src/math/no_such_op"};
  EXPECT_THROW(ev::run_corpus(o), aopt::error);

  // The cube fixture evaluated again (no build: classified from its source), with a note.
  aopt::common::write_text_file(dir / "notes.json", R"({"src/matmul/cube_mm": {"note": "needs the Cube unit"}})");
  o.only = {"src/matmul/cube_mm"};
  o.rerun = true;
  o.notes_file = dir / "notes.json";
  o.eval.cache_dir = dir / "cache";
  const auto again = ev::run_corpus(o);
  EXPECT_EQ(progress_calls, 1u);
  bool found = false;
  for (const auto& e : again.entries) {
    if (e.op != "src/matmul/cube_mm") continue;
    found = true;
    EXPECT_EQ(e.cause, "cube");
    EXPECT_EQ(e.status, "unsupported");
    EXPECT_EQ(e.note, "needs the Cube unit");
    EXPECT_NE(e.seconds, 42.0);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(again.entries.size(), old.entries.size()) << "the other operators stay in the table";
  fs::remove_all(dir);
}
