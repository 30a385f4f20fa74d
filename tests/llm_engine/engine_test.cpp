// The LLM engine with a scripted client on the swish suite operator: each role's happy path and
// each failure kind (a failed proposal with its reason, counted in usage(), never an exception).
#include <gtest/gtest.h>

#include <filesystem>

#include "aopt/common/fs.h"
#include "aopt/llm/engine.h"
#include "fake_client.h"

namespace aopt::llm {
namespace {

using testing::fake_client;

const std::string host_path = "op_host/swish_custom.cpp";
const std::string kernel_path = "op_kernel/swish_custom.cpp";

search::file_map swish_files() {
  const auto dir = std::filesystem::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/swish/baseline";
  search::file_map out;
  for (const char* p : {"op_host/swish_custom.cpp", "op_host/swish_custom_tiling.h", "op_kernel/swish_custom.cpp"}) {
    out[p] = common::read_text_file(dir / p);
  }
  return out;
}

stage1::synthesis_input input_of(const search::file_map& files) {
  stage1::synthesis_input in;
  for (const auto& [p, c] : files) {
    if (p.starts_with("op_host/")) in.host_files.push_back({p, c});
    else in.kernel_files.push_back({p, c});
  }
  return in;
}

prompt_library prompts() {
  return prompt_library::load(std::filesystem::path(AOPT_TEST_SOURCE_DIR) / "config" / "prompts");
}

llm_engine_options opts(bool libclang = false) {
  llm_engine_options o;
  o.seed = 7;
  std::printf("llm engine seed %llu\n", static_cast<unsigned long long>(o.seed));
  o.check_parse = libclang;
  o.proposals = 4;
  return o;
}

std::size_t count_failures(const llm_engine& e, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& f : e.failures()) n += f.kind == kind ? 1 : 0;
  return n;
}

// The model's marking of the swish tiling code: from the constants to the end of TilingFunc.
const std::string mark_answer =
    "I marked the partitioning code.\n\n"
    "op_host/swish_custom.cpp\n"
    "<<<<<<< SEARCH\n"
    "namespace optiling {\n"
    "constexpr uint32_t GRANULE_BYTES = 32;\n"
    "=======\n"
    "namespace optiling {\n"
    "// EVOLVE-BLOCK-START\n"
    "constexpr uint32_t GRANULE_BYTES = 32;\n"
    ">>>>>>> REPLACE\n"
    "\n"
    "op_host/swish_custom.cpp\n"
    "<<<<<<< SEARCH\n"
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n"
    "}  // namespace optiling\n"
    "=======\n"
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n"
    "// EVOLVE-BLOCK-END\n"
    "}  // namespace optiling\n"
    ">>>>>>> REPLACE\n";

stage1::tiling_template synthesized(llm_engine& eng, fake_client& c, const search::file_map& files) {
  c.script(role::template_synthesis, mark_answer);
  auto t = eng.synthesize_template(input_of(files));
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.reason());
  return t.value();
}

TEST(LlmEngine, SynthesizeTemplateHappyPath) {
  fake_client c;
  llm_engine eng(c, prompts(), opts(true));
  const auto files = swish_files();
  const auto offline = stage1::synthesize(input_of(files));
  ASSERT_TRUE(offline.tmpl);
  const auto t = synthesized(eng, c, files);
  EXPECT_EQ(eng.name(), "llm");
  EXPECT_EQ(t.function_name, "TilingFunc");
  EXPECT_EQ(t.tunables.size(), offline.tmpl->tunables.size());  // every tunable lies in the region
  EXPECT_TRUE(t.find("BUFFER_NUM").has_value());
  // The template reproduces the original files byte for byte.
  const auto inst = t.instantiate(t.base());
  EXPECT_EQ(inst.at(host_path), files.at(host_path));
  // The prompt carried the signature and the code.
  ASSERT_EQ(c.requests.size(), 1u);
  const auto& user = c.requests[0].messages.back().content;
  EXPECT_NE(user.find("this->Input(\"x\")"), std::string::npos);
  EXPECT_NE(user.find("static ge::graphStatus TilingFunc"), std::string::npos);
  EXPECT_EQ(c.requests[0].role, role::template_synthesis);
}

TEST(LlmEngine, SynthesizeTemplateRegionDropsTunablesOutside) {
  fake_client c;
  llm_engine eng(c, prompts(), opts());
  const auto files = swish_files();
  // A region around the function only: the constants above it are not evolved.
  const std::string answer =
      "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nstatic ge::graphStatus TilingFunc(gert::TilingContext* context)\n=======\n"
      "// EVOLVE-BLOCK-START\nstatic ge::graphStatus TilingFunc(gert::TilingContext* context)\n>>>>>>> REPLACE\n"
      "op_host/swish_custom.cpp\n<<<<<<< SEARCH\n}\n}  // namespace optiling\n=======\n}\n// EVOLVE-BLOCK-END\n}  // namespace optiling\n>>>>>>> REPLACE\n";
  c.script(role::template_synthesis, answer);
  const auto t = eng.synthesize_template(input_of(files));
  ASSERT_TRUE(t.ok()) << t.reason();
  EXPECT_FALSE(t.value().find("BUFFER_NUM").has_value());
  bool noted = false;
  for (const auto& n : t.value().notes) noted = noted || n.find("BUFFER_NUM lies outside") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(LlmEngine, SynthesizeTemplateFailures) {
  fake_client c;
  llm_engine eng(c, prompts(), opts());
  const auto in = input_of(swish_files());
  // Unbalanced markers.
  c.script(role::template_synthesis,
           "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nnamespace optiling {\n=======\nnamespace optiling {\n// EVOLVE-BLOCK-START\n>>>>>>> REPLACE\n");
  auto t = eng.synthesize_template(in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason().find("1 EVOLVE-BLOCK-START and 0 EVOLVE-BLOCK-END"), std::string::npos) << t.reason();
  // Markers plus a code change.
  c.script(role::template_synthesis,
           "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nnamespace optiling {\nconstexpr uint32_t GRANULE_BYTES = 32;\n=======\n"
           "namespace optiling {\n// EVOLVE-BLOCK-START\nconstexpr uint32_t GRANULE_BYTES = 64;\n// EVOLVE-BLOCK-END\n>>>>>>> REPLACE\n");
  t = eng.synthesize_template(in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason().find("changes code"), std::string::npos) << t.reason();
  // A region without any tunable (around InferShape).
  c.script(role::template_synthesis,
           "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nnamespace ge {\n=======\nnamespace ge {\n// EVOLVE-BLOCK-START\n>>>>>>> REPLACE\n"
           "op_host/swish_custom.cpp\n<<<<<<< SEARCH\n}  // namespace ge\n=======\n// EVOLVE-BLOCK-END\n}  // namespace ge\n>>>>>>> REPLACE\n");
  t = eng.synthesize_template(in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason().find("holds none of the"), std::string::npos) << t.reason();
  // No edit at all, and a client failure.
  c.script(role::template_synthesis, "The tiling function is fine.");
  t = eng.synthesize_template(in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason().find("no edit"), std::string::npos) << t.reason();
  c.script_failure(role::template_synthesis, "HTTP 500 after 3 attempts");
  t = eng.synthesize_template(in);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.reason().find("HTTP 500"), std::string::npos);
  EXPECT_EQ(count_failures(eng, "markers"), 1u);
  EXPECT_EQ(count_failures(eng, "code_changed"), 1u);
  EXPECT_EQ(count_failures(eng, "no_tunable_in_region"), 1u);
  EXPECT_EQ(count_failures(eng, "no_edit"), 1u);
  EXPECT_EQ(count_failures(eng, "client"), 1u);
}

TEST(LlmEngine, ProposeTilingVariants) {
  fake_client c;
  llm_engine eng(c, prompts(), opts());
  const auto files = swish_files();
  const auto t = synthesized(eng, c, files);
  stage1::stage1_history history;
  stage1::tiling_proposal base;
  base.values = t.base();
  base.op = "base";
  history.record(base, {true, 120.0, "ok", "", false});
  const std::string answer =
      "### Variant 1: Single buffering\n"
      "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nconstexpr uint32_t BUFFER_NUM = 2;\n=======\nconstexpr uint32_t BUFFER_NUM = 1;\n>>>>>>> REPLACE\n"
      "### Variant 2: Cap the tile\n"
      "op_host/swish_custom.cpp\n<<<<<<< SEARCH\n    tileLength = tileLength / 64 * 64;  // whole 256 B fp32 repeats\n=======\n"
      "    tileLength = tileLength / 64 * 64;  // whole 256 B fp32 repeats\n    if (units * unitLength / coreNum < tileLength) {\n"
      "        tileLength = (units * unitLength / coreNum + 63) / 64 * 64;\n    }\n>>>>>>> REPLACE\n"
      "### Variant 3: Touch InferShape\n"
      "op_host/swish_custom.cpp\n<<<<<<< SEARCH\n    *context->GetOutputShape(0) = *context->GetInputShape(0);\n=======\n"
      "    *context->GetOutputShape(0) = *context->GetInputShape(0);  // same\n>>>>>>> REPLACE\n";
  c.script(role::tiling_mutation, answer);
  auto got = eng.propose_tiling_variants(t, history, 4);
  ASSERT_TRUE(got.ok()) << got.reason();
  ASSERT_EQ(got.value().size(), 2u);
  const auto& p1 = got.value()[0];
  EXPECT_EQ(p1.op, "llm-mutate");
  ASSERT_EQ(p1.values.size(), t.tunables.size());
  EXPECT_NE(p1.description.find("BUFFER_NUM=1"), std::string::npos) << p1.description;
  // BUFFER_NUM is linked: the kernel's copy changes with it.
  EXPECT_NE(p1.files.at(kernel_path).find("constexpr int32_t BUFFER_NUM = 1;"), std::string::npos);
  const auto& p2 = got.value()[1];
  EXPECT_EQ(p2.op, "llm-rewrite");
  EXPECT_TRUE(p2.values.empty());
  EXPECT_NE(p2.files.at(host_path).find("+ 63) / 64 * 64"), std::string::npos);
  EXPECT_EQ(p2.files.at(host_path).find("EVOLVE-BLOCK"), std::string::npos);  // markers stripped
  EXPECT_EQ(count_failures(eng, "outside_region"), 1u);
  // The prompt showed the marked region and the history.
  const auto& user = c.requests.back().messages.back().content;
  EXPECT_NE(user.find("// EVOLVE-BLOCK-START"), std::string::npos);
  EXPECT_NE(user.find("base [base]: ok, 120"), std::string::npos) << user.substr(0, 2000);

  // The same parameter change again, once evaluated: a duplicate, so nothing is proposed.
  history.record(p1, {false, 0, "precision_error", "mismatch 3%", false});
  c.script(role::tiling_mutation,
           "### Variant 1: Single buffering again\nop_host/swish_custom.cpp\n<<<<<<< SEARCH\nconstexpr uint32_t BUFFER_NUM = 2;\n=======\n"
           "constexpr uint32_t BUFFER_NUM = 1;\n>>>>>>> REPLACE\n");
  got = eng.propose_tiling_variants(t, history, 2);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.reason().find("repeats an evaluated variant"), std::string::npos) << got.reason();
  EXPECT_NE(c.requests.back().messages.back().content.find("precision_error (mismatch 3%)"), std::string::npos);
  // A value outside its domain is refused before evaluation.
  c.script(role::tiling_mutation,
           "op_host/swish_custom.cpp\n<<<<<<< SEARCH\nconstexpr uint32_t BUFFER_NUM = 2;\n=======\nconstexpr uint32_t BUFFER_NUM = 3;\n>>>>>>> REPLACE\n");
  got = eng.propose_tiling_variants(t, history, 2);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(count_failures(eng, "domain"), 1u);
}

search::file_map kernel_files() {
  auto f = swish_files();
  f.erase(host_path);
  return f;
}

const std::string deopt_answer =
    "### Step 1: Single-buffer the queues\n"
    "Bottleneck: Serialized pipes\n"
    "Description: one slot per queue, so copy-in waits for compute.\n"
    "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\nconstexpr int32_t BUFFER_NUM = 2;\n=======\nconstexpr int32_t BUFFER_NUM = 1;\n>>>>>>> REPLACE\n"
    "### Step 2: Broken\n"
    "Bottleneck: scalar_bound\n"
    "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n        Exp(yf, yf, len);\n=======\n        Exp(yf, yf, len;\n>>>>>>> REPLACE\n"
    "### Step 3: No bottleneck named\n"
    "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n        Adds(yf, yf, 1.0f, len);\n=======\n        Adds(yf, yf, 1.0f, len);\n        PipeBarrier<PIPE_V>();\n>>>>>>> REPLACE\n";

TEST(LlmEngine, DeoptimizeAndDistill) {
  fake_client c;
  llm_engine eng(c, prompts(), opts(true));
  const auto kf = kernel_files();
  c.script(role::rewind, deopt_answer);
  auto steps = eng.deoptimize(kf);
  ASSERT_TRUE(steps.ok()) << steps.reason();
  ASSERT_EQ(steps.value().size(), 1u);
  auto st = steps.value()[0];
  EXPECT_EQ(st.title, "Single-buffer the queues");
  EXPECT_EQ(st.bottleneck, "serialized_pipes");
  EXPECT_EQ(st.before, kf);
  EXPECT_NE(st.after.at(kernel_path).find("BUFFER_NUM = 1;"), std::string::npos);
  EXPECT_EQ(count_failures(eng, "does_not_parse"), 1u);
  EXPECT_EQ(count_failures(eng, "malformed"), 1u);

  EXPECT_FALSE(eng.distill(st).ok());  // not measured yet
  st.fast_us = 80;
  st.slow_us = 110;
  c.script(role::distillation,
           "```json\n{\"title\": \"Double-buffer the queues\", \"description\": \"Two slots per queue let MTE2 overlap the vector "
           "pipe.\", \"bottleneck\": \"serialized pipes\"}\n```\n");
  auto e = eng.distill(st);
  ASSERT_TRUE(e.ok()) << e.reason();
  EXPECT_EQ(e.value().title, "Double-buffer the queues");
  EXPECT_EQ(e.value().bottleneck, "serialized_pipes");
  EXPECT_EQ(e.value().origin, search::provenance::rewind);
  EXPECT_NE(e.value().code_diff.find("+constexpr int32_t BUFFER_NUM = 2;"), std::string::npos) << e.value().code_diff;
  ASSERT_TRUE(e.value().evidence);
  EXPECT_DOUBLE_EQ(e.value().evidence->slow_us, 110);
  EXPECT_EQ(e.value().id, search::content_id(e.value()));
  EXPECT_NE(c.requests.back().messages.back().content.find("1.375"), std::string::npos);

  c.script(role::distillation, "Sure! The lesson is: double buffer your queues.");
  e = eng.distill(st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.reason().find("no JSON object"), std::string::npos) << e.reason();
  c.script(role::distillation, "{\"title\": \"x\", \"bottleneck\": \"mte2_bound\"}");
  e = eng.distill(st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.reason().find("'description'"), std::string::npos) << e.reason();
  EXPECT_EQ(count_failures(eng, "bad_json"), 2u);
}

TEST(LlmEngine, Diagnose) {
  fake_client c;
  llm_engine eng(c, prompts(), opts());
  const nlohmann::json profile = {{"Task Duration(us)", 100.0}, {"aiv_time(us)", 95.0}, {"aiv_mte2_ratio", 0.92},
                                  {"aiv_vec_ratio", 0.3}, {"bound_us", 40.0}};
  c.script(role::diagnosis,
           "Looking at the profile:\n[{\"class\": \"MTE2-bound\", \"evidence\": \"aiv_mte2_ratio 0.92\", \"score\": 0.9},"
           " {\"class\": \"warp_divergence\", \"evidence\": \"?\"},"
           " {\"class\": \"serialized_pipes\", \"evidence\": \"PIPE_ALL each tile\", \"score\": 0.95}]");
  auto d = eng.diagnose(profile, kernel_files());
  ASSERT_TRUE(d.ok()) << d.reason();
  ASSERT_EQ(d.value().findings.size(), 2u);
  EXPECT_EQ(d.value().findings[0].kind, search::bottleneck_class::serialized_pipes);  // highest score first
  EXPECT_EQ(d.value().findings[1].kind, search::bottleneck_class::mte2_bound);
  EXPECT_NE(d.value().summary.find("warp_divergence"), std::string::npos);
  ASSERT_TRUE(d.value().roofline_headroom);
  EXPECT_DOUBLE_EQ(*d.value().roofline_headroom, 2.5);
  EXPECT_EQ(count_failures(eng, "unknown_class"), 1u);
  EXPECT_NE(c.requests.back().messages.back().content.find("aiv_mte2_ratio"), std::string::npos);

  c.script(role::diagnosis, "{\"findings\": [{\"class\": \"cosmic_rays\", \"evidence\": \"none\"}]}");
  d = eng.diagnose(profile, kernel_files());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.reason().find("no valid bottleneck class"), std::string::npos) << d.reason();
  c.script(role::diagnosis, "[{\"class\": \"mte2_bound\", \"evidence\": ");
  d = eng.diagnose(profile, kernel_files());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(count_failures(eng, "bad_json"), 1u);
}

TEST(LlmEngine, RewriteKernelWithTuples) {
  fake_client c;
  llm_engine eng(c, prompts(), opts(true));
  const auto files = swish_files();
  std::vector<search::experience> tuples(2);
  tuples[0].title = "Use TBuf for temporaries";
  tuples[0].bottleneck = "vector_bound";
  tuples[0].description = "...";
  tuples[0].code_diff = "-TQue\n+TBuf\n";
  tuples[1].title = "Drop the PIPE_ALL barrier";
  tuples[1].bottleneck = "serialized_pipes";
  tuples[1].description = "Queues already synchronize the pipes.";
  tuples[1].code_diff = "-            PipeBarrier<PIPE_ALL>();\n";
  for (auto& t : tuples) search::finalize(t);
  const std::string answer =
      "### Rewrite 1: Remove the per-tile barrier\nUses: T2\nRationale: the EnQue/DeQue pairs already order the pipes.\n"
      "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n            CopyOut(i, len);\n            PipeBarrier<PIPE_ALL>();\n=======\n"
      "            CopyOut(i, len);\n>>>>>>> REPLACE\n"
      "### Rewrite 2: Ambiguous\nUses: T1\n"
      "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};\n=======\n"
      "        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0}; // x\n>>>>>>> REPLACE\n"
      "### Rewrite 3: Cut off\nop_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n        Exp(yf, yf, len);\n=======\n";
  c.script(role::refinement, answer, "length");
  auto got = eng.rewrite_kernel(files, tuples);
  ASSERT_TRUE(got.ok()) << got.reason();
  ASSERT_EQ(got.value().size(), 1u);
  const auto& rw = got.value()[0];
  EXPECT_EQ(rw.title, "Remove the per-tile barrier");
  ASSERT_EQ(rw.experience_ids.size(), 1u);
  EXPECT_EQ(rw.experience_ids[0], tuples[1].id);
  EXPECT_NE(rw.rationale.find("Drop the PIPE_ALL barrier"), std::string::npos);
  EXPECT_EQ(rw.files.size(), files.size());  // the complete new file set
  EXPECT_EQ(rw.files.at(kernel_path).find("PipeBarrier<PIPE_ALL>();\n        }"), std::string::npos);
  EXPECT_EQ(count_failures(eng, "ambiguous"), 1u);
  EXPECT_EQ(count_failures(eng, "truncated"), 1u);
  const auto& user = c.requests.back().messages.back().content;
  EXPECT_NE(user.find("### T2: Drop the PIPE_ALL barrier"), std::string::npos);

  // An answer without any edit, and a not-found SEARCH: failures with their reasons.
  c.script(role::refinement, "I would remove the barrier, but I am not sure.");
  got = eng.rewrite_kernel(files, tuples);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.reason().find("no edit"), std::string::npos) << got.reason();
  c.script(role::refinement, "op_kernel/swish_custom.cpp\n<<<<<<< SEARCH\n    PipeBarrier<PIPE_MTE2>();\n=======\n\n>>>>>>> REPLACE\n");
  got = eng.rewrite_kernel(files, {});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.reason().find("does not occur"), std::string::npos) << got.reason();

  const auto u = eng.usage();
  EXPECT_EQ(u["proposals"]["refinement"]["ok"], 1);
  EXPECT_EQ(u["proposals"]["refinement"]["failed"], 4);
  EXPECT_EQ(u["failures"]["refinement"]["no_edit"], 1);
  EXPECT_EQ(u["failures"]["refinement"]["not_found"], 1);
  EXPECT_EQ(u["client"]["refinement"]["requests"], 3);
}

TEST(LlmEngine, NeverThrowsOnGarbage) {
  fake_client c;
  llm_engine eng(c, prompts(), opts());
  const auto files = swish_files();
  const std::vector<std::string> garbage = {"", "<<<<<<< SEARCH", "```", "=======\n>>>>>>> REPLACE", "### Rewrite 1:\n```cpp\n",
                                            "[[[{{{", "op_kernel/swish_custom.cpp\n```cpp\n```\n"};
  for (const auto& g : garbage) {
    c.script(role::refinement, g);
    c.script(role::diagnosis, g);
    c.script(role::rewind, g);
    c.script(role::distillation, g);
    EXPECT_NO_THROW({
      auto a = eng.rewrite_kernel(files, {});
      auto b = eng.diagnose(nlohmann::json::object(), files);
      auto d = eng.deoptimize(files);
      search::deopt_step st;
      st.before = files;
      st.after = files;
      st.after[kernel_path] += "// x\n";
      st.fast_us = 1;
      st.slow_us = 2;
      auto e = eng.distill(st);
      (void)a;
      (void)b;
      (void)d;
      (void)e;
    }) << g;
  }
}

}  // namespace
}  // namespace aopt::llm
