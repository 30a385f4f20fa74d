// `aopt optimize --engine llm` end to end against the scripted OpenAI-compatible endpoint
// (aopt-llm-stub on loopback): the whole alternating loop with every role answered by the script,
// faults included (500 then success, 429 with Retry-After, malformed JSON, a truncated code block,
// an edit that does not apply), the same report format as offline plus token usage, the API key
// in no output, and a replay from the recording that reproduces the run without any server.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "llm_stub_process.h"

namespace fs = std::filesystem;
using namespace aopt_llm_it;

namespace {

const std::string kSrc = AOPT_TEST_SOURCE_DIR;

// The swish baseline's tiling file with the evolution markers around TilingFunc: what a model
// asked for the template answers (whole file, code unchanged).
std::string marked_tiling() {
  std::string s = read(kSrc + "/examples/ops/swish/baseline/op_host/swish_custom.cpp");
  const auto begin = s.find("static ge::graphStatus TilingFunc");
  const auto end = s.find("}  // namespace optiling");
  s.insert(end, "// EVOLVE-BLOCK-END\n");
  s.insert(begin, "// EVOLVE-BLOCK-START\n");
  return s;
}

std::string fenced(const std::string& path, const std::string& code) { return path + "\n```cpp\n" + code + "```\n"; }

nlohmann::json script() {
  const std::string host = "op_host/swish_custom.cpp", kernel = "op_kernel/swish_custom.cpp";
  const std::string barrier = "            CopyOut(i, len);\n            PipeBarrier<PIPE_ALL>();";
  nlohmann::json rules = nlohmann::json::array();
  auto rule = [&](const std::string& model, nlohmann::json r) {
    r["model"] = model;
    rules.push_back(std::move(r));
  };
  // Template synthesis: the first answer is cut inside its code block, the retry is whole.
  rule("m-template", {{"times", 1}, {"reply", fenced(host, marked_tiling())}, {"fault", {{"truncated", true}}}});
  rule("m-template", {{"reply", fenced(host, marked_tiling())}});
  // Tiling mutation: one 429 with Retry-After, one edit that does not apply, then two variants.
  rule("m-mutation", {{"times", 1}, {"fault", {{"status", 429}, {"retry_after", 1}}}});
  rule("m-mutation", {{"times", 1}, {"reply", "### Variant 1: bigger tiles\n" + edit(host, "uint32_t tileLength = 12345;", "uint32_t tileLength = 1;")}});
  rule("m-mutation", {{"reply", "### Variant 1: fewer cores\n" +
                                    edit(host, "    if (coreNum == 0) {\n        coreNum = 1;\n    }",
                                         "    if (coreNum > 20) {\n        coreNum = 20;\n    }\n    if (coreNum == 0) {\n        coreNum = 1;\n    }") +
                                    "\n### Variant 2: half the tile\n" +
                                    edit(host, "    tileLength = tileLength / 64 * 64;  // whole 256 B fp32 repeats",
                                         "    tileLength = tileLength / 2 / 64 * 64;  // whole 256 B fp32 repeats")}});
  // Diagnosis: malformed JSON once (a failed proposal), then a valid list.
  rule("m-diagnosis", {{"times", 1}, {"fault", {{"malformed", true}}}});
  rule("m-diagnosis", {{"reply", R"([{"class": "serialized_pipes", "evidence": "PipeBarrier<PIPE_ALL> closes every tile", "score": 0.9}])"}});
  // Refinement: a 500 (retried), then the barrier removed.
  rule("m-refine", {{"times", 1}, {"fault", {{"status", 500}}}});
  rule("m-refine", {{"reply", "### Rewrite 1: let the pipes overlap\nUses: T1\nRationale: the queues already order the stages.\n" +
                                  edit(kernel, barrier, "            CopyOut(i, len);")}});
  rule("m-distill", {{"reply", R"({"title": "Drop the PIPE_ALL barrier", "description": "Queues order the stages; the barrier serialises them.", "bottleneck": "serialized_pipes"})"}});
  rule("m-embed", {{"embedding", "hash"}});
  return rules;
}

using AoptOptimizeLlm = llm_it_test;

TEST_F(AoptOptimizeLlm, WholeLoopOnTheScriptedEndpointThenReplay) {
  write(root_ / "script.json", script().dump(1));
  const fs::path bank = root_ / "bank", rec = root_ / "recording";
  auto imp = run_aopt({"bank", "--bank", bank.string(), "import", kSrc + "/tests/integration/data/pipe_all_tuple.jsonl"});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  // The same job each time; only the output directory and the recording mode differ.
  auto optimize = [&](const std::string& out, const std::string& mode, const fs::path& dir) {
    return run_aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--engine", "llm", "--config", (root_ / "aopt.toml").string(),
                 "--budget", "12", "--rounds", "2", "--stage1-steps", "1", "--stage2-steps", "1", "--bank", bank.string(),
                 "--no-learn", "--cache-dir", (root_ / "cache").string(), "--out", (root_ / out).string(), mode, dir.string()});
  };
  std::string first_report;
  {
    stub_process stub(root_ / "script.json", root_ / "port");
    ASSERT_FALSE(stub.port().empty()) << "the stub did not start";
    write(root_ / "aopt.toml", stub_config(stub.port(), "m-refine", 3,
                                          {{"template_synthesis", "m-template"}, {"tiling_mutation", "m-mutation"},
                                           {"diagnosis", "m-diagnosis"}, {"refinement", "m-refine"},
                                           {"distillation", "m-distill"}, {"rewind", "m-distill"},
                                           {"embeddings", "m-embed"}}));
    const auto o = optimize("out", "--llm-record", rec);
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    EXPECT_NE(o.out.find("llm: "), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find(kKey), std::string::npos);
    EXPECT_EQ(o.err.find(kKey), std::string::npos);
    first_report = read(root_ / "out" / "report.json");
  }
  // The imported tuple had no embedding; the job embedded it with the configured model and wrote
  // it back (put() left a stored tuple as it was, so the embedding was lost: fixed by update()).
  const auto exported = run_aopt({"bank", "--bank", bank.string(), "export"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::size_t tuples = 0;
  for (std::size_t at = 0; at < exported.out.size();) {
    const auto nl = exported.out.find('\n', at);
    const std::string line = exported.out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? exported.out.size() : nl + 1;
    if (line.empty()) continue;
    const auto t = nlohmann::json::parse(line);
    ++tuples;
    ASSERT_TRUE(t.contains("embedding") && t["embedding"].is_object()) << line.substr(0, 400);
    EXPECT_EQ(t["embedding"]["model"], "m-embed");
    EXPECT_FALSE(t["embedding"]["vector"].empty());
  }
  EXPECT_GT(tuples, 0u) << exported.out;
  const auto rep = nlohmann::json::parse(first_report);
  const auto& r = rep["result"];
  EXPECT_EQ(r["engine"], "llm");
  EXPECT_LE(r["evaluations"].get<int>(), 12);
  EXPECT_GT(r["speedup"].get<double>(), 1.2) << r.dump(1).substr(0, 3000);
  EXPECT_TRUE(r["verification"]["ok"].get<bool>());
  bool kernel_change = false;
  for (const auto& c : r["changes"]) kernel_change = kernel_change || c["stage"] == "kernel";
  EXPECT_TRUE(kernel_change) << r["changes"].dump(1);
  // Token usage per role, and the failed proposals the faults caused.
  const auto& usage = rep["engine_usage"];
  ASSERT_TRUE(usage.is_object()) << rep.dump(1).substr(0, 2000);
  EXPECT_GT(usage["client"]["total"]["prompt_tokens"].get<long>(), 0);
  EXPECT_GT(usage["client"]["refinement"]["requests"].get<long>(), 0);
  EXPECT_GT(usage["client"]["refinement"]["retries"].get<long>(), 0);       // the 500
  EXPECT_GT(usage["client"]["tiling_mutation"]["retries"].get<long>(), 0);  // the 429
  EXPECT_TRUE(usage["failures"].contains("diagnosis")) << usage.dump(1);   // malformed JSON
  EXPECT_TRUE(usage["failures"].contains("template_synthesis")) << usage.dump(1);  // truncated
  EXPECT_TRUE(usage["failures"].contains("tiling_mutation")) << usage.dump(1);     // does not apply
  const std::string md = read(root_ / "out" / "report.md");
  EXPECT_NE(md.find("## Model usage"), std::string::npos);
  // The key is nowhere: reports, the recording, the bank.
  for (const auto& dir : {root_ / "out", rec, bank}) {
    EXPECT_TRUE(files_containing(dir, kKey).empty()) << dir;
  }
  // Replay: no server; the same trajectory and result.
  const auto again = optimize("replayed", "--llm-replay", rec);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("replayed from a recording"), std::string::npos) << again.out;
  const auto rep2 = nlohmann::json::parse(read(root_ / "replayed" / "report.json"));
  EXPECT_EQ(rep2["result"]["best_us"], r["best_us"]);
  EXPECT_EQ(rep2["result"]["changes"].size(), r["changes"].size());
  ASSERT_EQ(rep2["result"]["trajectory"].size(), r["trajectory"].size());
  for (std::size_t i = 0; i < r["trajectory"].size(); ++i) {
    EXPECT_EQ(rep2["result"]["trajectory"][i]["proposal"], r["trajectory"][i]["proposal"]) << i;
    EXPECT_EQ(rep2["result"]["trajectory"][i]["status"], r["trajectory"][i]["status"]) << i;
  }
  for (const auto& f : fs::recursive_directory_iterator(root_ / "replayed")) {
    if (f.is_regular_file() && f.path().filename() != "report.json" && f.path().filename() != "report.md") {
      const auto rel = fs::relative(f.path(), root_ / "replayed");
      EXPECT_EQ(read(f.path()), read(root_ / "out" / rel)) << rel;
    }
  }
}

TEST_F(AoptOptimizeLlm, BadConfigAndMissingRecordingAreClearErrors) {
  write(root_ / "bad.toml", "[llm]\nbase_url = \"http://127.0.0.1:1\"\ntemprature = 0.1\n");
  auto o = run_aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--engine", "llm", "--config", (root_ / "bad.toml").string(),
                 "--out", (root_ / "o").string()});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("bad.toml:3"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("temprature"), std::string::npos) << o.err;
  o = run_aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--engine", "llm", "--llm-model", "m", "--llm-set",
                 "max_concurrency=0", "--out", (root_ / "o").string()});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--llm-set max_concurrency=0"), std::string::npos) << o.err;
  o = run_aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--engine", "llm", "--llm-model", "m", "--llm-replay",
            (root_ / "nothing").string(), "--out", (root_ / "o").string()});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--llm-record"), std::string::npos) << o.err;
  o = run_aopt({"optimize", kSrc + "/examples/ops/swish/baseline", "--llm-model", "m", "--out", (root_ / "o").string()});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--engine llm"), std::string::npos) << o.err;
}

}  // namespace
