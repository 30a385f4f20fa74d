// `aopt bank rewind --engine llm` end to end against the scripted endpoint (aopt-llm-stub): the
// model's rewind answer for the gelu expert holds a step whose edit does not apply, a cosmetic
// step (a comment: no slowdown) and a real de-optimization (a PIPE_ALL barrier closing every
// tile); every step goes through the offline rewind's validation (applies, parses, evaluates,
// slows down by >= min_slowdown). Only the barrier reaches the bank, with provenance rewind and
// the distilled title; the next rewind request finds no rule (a failed call, asked again, then
// the stop); a replay of the recording puts the same tuple in a fresh bank; the API key
// appears in no output, bank or recording.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "llm_stub_process.h"

namespace fs = std::filesystem;
using namespace aopt_llm_it;

namespace {

const std::string kSrc = AOPT_TEST_SOURCE_DIR;
const std::string kTitle = "Let the tile pipeline overlap: no PIPE_ALL barrier per tile";

nlohmann::json script() {
  const std::string kernel = "op_kernel/gelu_custom.cpp";
  const std::string answer =
      "### Step 1: Shrink the tiles\nBottleneck: mte2_bound\nDescription: smaller copies.\n" +
      edit(kernel, "    uint32_t tileLength_ = 123456;", "    uint32_t tileLength_ = 1;") +
      "\n### Step 2: Explain the compute call\nBottleneck: scalar_bound\nDescription: a comment "
      "only.\n" +
      edit(kernel, "            Compute(len);", "            Compute(len);  // the whole tile") +
      "\n### Step 3: Serialize every tile\nBottleneck: serialized_pipes\n"
      "Description: a PIPE_ALL barrier after each tile stops copy-in, compute and copy-out from "
      "overlapping.\n" +
      edit(kernel, "            CopyOut(i, len);\n        }",
           "            CopyOut(i, len);\n            PipeBarrier<PIPE_ALL>();\n        }");
  nlohmann::json rules = nlohmann::json::array();
  rules.push_back({{"model", "m-rewind"}, {"times", 1}, {"reply", answer}});
  rules.push_back(
      {{"model", "m-distill"},
       {"reply",
        nlohmann::json{
            {"title", kTitle},
            {"description",
             "The queues already order the stages; a PIPE_ALL barrier per tile serializes them."},
            {"bottleneck", "serialized_pipes"}}
            .dump()}});
  return rules;
}

using AoptRewindLlm = llm_it_test;

TEST_F(AoptRewindLlm, OnlyTheRealSlowdownReachesTheBank) {
  write(root_ / "script.json", script().dump(1));
  const fs::path bank = root_ / "bank", rec = root_ / "recording";
  stub_process stub(root_ / "script.json", root_ / "port");
  ASSERT_FALSE(stub.port().empty()) << "the stub did not start";
  write(root_ / "aopt.toml", stub_config(stub.port(), "m-distill", 1,
                                         {{"rewind", "m-rewind"}, {"distillation", "m-distill"}}));
  // llm options without the llm engine: a clear error before anything runs.
  const auto wrong = run_aopt({"bank", "rewind", kSrc + "/examples/ops/gelu/expert", "--llm-model",
                               "m", "--bank", bank.string()});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("--engine llm"), std::string::npos) << wrong.err;

  const auto o = run_aopt({"bank", "rewind", kSrc + "/examples/ops/gelu/expert", "--engine", "llm",
                           "--config", (root_ / "aopt.toml").string(), "--steps", "2", "--bank",
                           bank.string(), "--llm-record", rec.string()});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // The cosmetic step was measured and refused; the barrier was kept; the second request found
  // no rule in the script: an engine failure, asked again, then the stop.
  EXPECT_NE(o.out.find("Explain the compute call"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not kept (too small)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Serialize every tile"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("KEPT"), std::string::npos) << o.out;
  // The edit that does not apply is refused by the engine with its reason: never evaluated.
  EXPECT_NE(o.out.find("rejected rewind proposal (not_found): step 1 (Shrink the tiles)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("op_kernel/gelu_custom.cpp: Shrink the tiles"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("5 attempt(s), 1 step(s) kept, 1 new tuple(s); stopped: engine: rewind: "),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("llm: "), std::string::npos) << o.out;

  const auto list = run_aopt({"bank", "--bank", bank.string(), "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto tuples = nlohmann::json::parse(list.out);
  ASSERT_EQ(tuples.size(), 1u) << tuples.dump(1);
  const auto& t = tuples[0];
  EXPECT_EQ(t["title"], kTitle);
  EXPECT_EQ(t["provenance"], "rewind");
  EXPECT_EQ(t["bottleneck"], "serialized_pipes");
  EXPECT_NE(t["code_diff"].get<std::string>().find("-            PipeBarrier<PIPE_ALL>();"),
            std::string::npos)
      << "forward diff: slow -> fast removes the barrier\n"
      << t["code_diff"].get<std::string>();
  EXPECT_EQ(t["code_diff"].get<std::string>().find("the whole tile"), std::string::npos);
  EXPECT_GT(t["evidence"]["slow_us"].get<double>(), 1.03 * t["evidence"]["fast_us"].get<double>())
      << t["evidence"].dump();
  const auto show =
      run_aopt({"bank", "--bank", bank.string(), "show", t["id"].get<std::string>().substr(0, 12)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find(kTitle), std::string::npos) << show.out;

  // Replay: no server asked, the same tuple in a fresh bank.
  const fs::path bank2 = root_ / "bank2";
  const auto again = run_aopt({"bank", "rewind", kSrc + "/examples/ops/gelu/expert", "--engine",
                               "llm", "--config", (root_ / "aopt.toml").string(), "--steps", "2",
                               "--bank", bank2.string(), "--llm-replay", rec.string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("(replayed from a recording)"), std::string::npos) << again.out;
  const auto list2 = run_aopt({"bank", "--bank", bank2.string(), "list", "--json"});
  ASSERT_EQ(list2.exit_code, 0) << list2.err;
  const auto tuples2 = nlohmann::json::parse(list2.out);
  ASSERT_EQ(tuples2.size(), 1u);
  EXPECT_EQ(tuples2[0]["id"], t["id"]);

  for (const auto& text : {o.out, o.err, list.out, show.out, again.out, again.err}) {
    EXPECT_EQ(text.find(kKey), std::string::npos);
  }
  for (const auto& dir : {bank, bank2, rec})
    EXPECT_TRUE(files_containing(dir, kKey).empty()) << dir;
}

}  // namespace
