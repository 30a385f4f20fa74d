// run_engine_rewind with a scripted fake engine (deoptimize answers and distill results in order)
// and a fake evaluator (latency from marker words in the text): exact attempt counts, the keep
// rule, failed evaluations, engine failures and retries, the distill fallback, max_attempts,
// determinism. No randomness: the loop has none of its own.
#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "aopt/motifs/edit.h"
#include "aopt/search/rewind.h"

namespace aopt::search {
namespace {

const std::string kPath = "op_kernel/k.cpp";

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size()))
    ++n;
  return n;
}

// 100 us, +50% per SLOW, +1 us per COSMETIC (below the 1.03 threshold), FAIL = a wrong result.
rewind_eval fake_eval(const motifs::file_set& f) {
  const std::string& k = f.at(kPath);
  rewind_eval r;
  if (k.find("FAIL") != std::string::npos) {
    r.status = "mismatch";
    r.diagnostic = "outputs differ from the reference";
    return r;
  }
  r.ok = true;
  r.status = "ok";
  r.latency_us = 100.0 * (1.0 + 0.5 * count(k, "SLOW")) + count(k, "COSMETIC");
  r.profile = {{"aiv_time(us)", r.latency_us}};
  return r;
}

// A step that appends `line` to the kernel of `files`.
deopt_step step(const file_map& files, const std::string& title, const std::string& line,
                const std::string& bottleneck = "serialized_pipes") {
  deopt_step d;
  d.title = title;
  d.description = title + ", described";
  d.bottleneck = bottleneck;
  d.before = files;
  d.after = files;
  d.after[kPath] += line + "\n";
  return d;
}

using deopt_answer = outcome<std::vector<deopt_step>>;
using make_answer = std::function<deopt_answer(const file_map&)>;

// Answers deoptimize from `rounds` in order (the last one repeats), distill from `distills` in
// order (then a default tuple), and records every call.
class fake_engine final : public engine {
 public:
  std::deque<make_answer> rounds;
  std::deque<outcome<experience>> distills;
  std::vector<file_map> deopt_inputs;
  std::vector<deopt_step> distill_inputs;

  std::string name() const override { return "fake"; }
  outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input&) override {
    return none();
  }
  outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template&, const stage1::stage1_history&, std::size_t) override {
    return none();
  }
  outcome<std::vector<deopt_step>> deoptimize(const file_map& files) override {
    deopt_inputs.push_back(files);
    if (rounds.empty()) return none();
    make_answer next = rounds.front();
    if (rounds.size() > 1) rounds.pop_front();
    return next(files);
  }
  outcome<experience> distill(const deopt_step& d) override {
    distill_inputs.push_back(d);
    if (!distills.empty()) {
      auto e = distills.front();
      distills.pop_front();
      return e;
    }
    return lesson("Remove " + d.title);
  }
  outcome<diagnosis> diagnose(const nlohmann::json&, const file_map&) override { return none(); }
  outcome<std::vector<kernel_rewrite>> rewrite_kernel(const file_map&,
                                                      const std::vector<experience>&) override {
    return none();
  }

  static experience lesson(const std::string& title) {
    experience e;
    e.title = title;
    e.description = "the engine's lesson";
    e.bottleneck = "serialized_pipes";
    e.code_diff = "not the measured diff";
    e.origin = provenance::import;  // the loop must say rewind
    return e;
  }

 private:
  static engine_failure none() { return engine_failure{"not scripted"}; }
};

make_answer steps_of(std::vector<std::pair<std::string, std::string>> title_line) {
  return [title_line](const file_map& f) -> deopt_answer {
    std::vector<deopt_step> out;
    for (const auto& [title, line] : title_line) out.push_back(step(f, title, line));
    return out;
  };
}

make_answer failing(const std::string& reason) {
  return [reason](const file_map&) -> deopt_answer { return engine_failure{reason}; };
}

file_map seed() {
  return {{kPath, "kernel body\n"}};
}

rewind_config config(int steps = 6) {
  rewind_config c;
  c.max_steps = steps;
  c.op = "fake_op";
  c.backend = "sim";
  c.profile = "910b4";
  return c;
}

TEST(EngineRewind, KeepsTheFirstRealSlowdownInOrder) {
  fake_engine eng;
  eng.rounds.push_back(steps_of({{"comment", "// COSMETIC"},
                                 {"wrong", "FAIL"},
                                 {"barrier", "SLOW"},
                                 {"later", "SLOW SLOW"}}));
  std::vector<int> seen;
  const auto r = run_engine_rewind(seed(), eng, fake_eval, config(1),
                                   [&](const rewind_attempt& a) { seen.push_back(a.index); });
  ASSERT_EQ(r.attempts.size(), 3u);  // the fourth step is never tried: the third was kept
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(r.attempts[0].outcome, rewind_outcome::too_small);
  EXPECT_NEAR(r.attempts[0].slowdown, 1.01, 1e-9);
  EXPECT_EQ(r.attempts[1].outcome, rewind_outcome::failed);
  EXPECT_EQ(r.attempts[1].status, "mismatch");
  EXPECT_EQ(r.attempts[1].reason, "outputs differ from the reference");
  EXPECT_FALSE(r.attempts[1].latency_us.has_value());
  EXPECT_EQ(r.attempts[2].outcome, rewind_outcome::kept);
  EXPECT_EQ(r.attempts[2].summary, "barrier");
  EXPECT_EQ(r.attempts[2].path, kPath);
  EXPECT_DOUBLE_EQ(r.attempts[2].slowdown, 1.5);
  EXPECT_EQ(r.stop_reason, "max_steps");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].title, "barrier");
  EXPECT_EQ(r.steps[0].bottleneck, bottleneck_class::serialized_pipes);
  EXPECT_EQ(r.final_files.at(kPath), "kernel body\nSLOW\n");
  // Distill saw the measured step.
  ASSERT_EQ(eng.distill_inputs.size(), 1u);
  const auto& d = eng.distill_inputs[0];
  EXPECT_EQ(d.before, seed());
  EXPECT_EQ(d.after, r.final_files);
  ASSERT_TRUE(d.fast_us && d.slow_us);
  EXPECT_DOUBLE_EQ(*d.fast_us, 100.0);
  EXPECT_DOUBLE_EQ(*d.slow_us, 150.0);
  // The engine's words, the offline rules: measured diff, evidence, provenance, finalized.
  ASSERT_EQ(r.tuples.size(), 1u);
  const auto& t = r.tuples[0];
  EXPECT_EQ(t.title, "Remove barrier");
  EXPECT_EQ(t.origin, provenance::rewind);
  EXPECT_EQ(t.code_diff, motifs::unified_diff(r.final_files, seed()));
  ASSERT_TRUE(t.evidence.has_value());
  EXPECT_EQ(t.evidence->op, "fake_op");
  EXPECT_DOUBLE_EQ(t.evidence->slow_us, 150.0);
  EXPECT_DOUBLE_EQ(t.evidence->fast_us, 100.0);
  EXPECT_TRUE(validate(t).empty());
  EXPECT_EQ(t.extra["rewind"]["engine"], "fake");
  EXPECT_DOUBLE_EQ(t.extra["rewind"]["slowdown"].get<double>(), 1.5);
  EXPECT_FALSE(t.extra.contains("distill_fallback"));
}

TEST(EngineRewind, ChainsFromTheSlowFilesAndStopsWhenNothingNewIsKept) {
  fake_engine eng;
  eng.rounds.push_back(steps_of({{"one", "SLOW"}}));
  eng.rounds.push_back(steps_of({{"two", "SLOW"}}));
  eng.rounds.push_back(steps_of({{"comment", "// COSMETIC"}}));  // repeats from here on
  const auto r = run_engine_rewind(seed(), eng, fake_eval, config(6));
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(r.steps[0].fast_us, 100.0);
  EXPECT_DOUBLE_EQ(r.steps[0].slow_us, 150.0);
  EXPECT_DOUBLE_EQ(r.steps[1].fast_us, 150.0);
  EXPECT_DOUBLE_EQ(r.steps[1].slow_us, 200.0);
  EXPECT_EQ(r.steps[1].fast_files, r.steps[0].slow_files);
  // The cosmetic step is tried once; asked again it is the same files, skipped unevaluated.
  ASSERT_EQ(r.attempts.size(), 3u);
  EXPECT_EQ(r.attempts[2].outcome, rewind_outcome::too_small);
  EXPECT_EQ(r.stop_reason, "no_step_left");
  // 2 kept rounds, then engine_rounds (3) rounds that keep nothing.
  EXPECT_EQ(eng.deopt_inputs.size(), 5u);
  EXPECT_EQ(eng.deopt_inputs[1], r.steps[0].slow_files);
  EXPECT_EQ(r.final_files, r.steps[1].slow_files);
  EXPECT_EQ(r.tuples.size(), 2u);
}

TEST(EngineRewind, EngineFailuresAreAttemptsAskedAgainThenTheStop) {
  fake_engine eng;
  eng.rounds.push_back(failing("model returned no code block"));
  const auto r = run_engine_rewind(seed(), eng, fake_eval, config(6));
  ASSERT_EQ(r.attempts.size(), 3u);
  for (const auto& a : r.attempts) {
    EXPECT_EQ(a.outcome, rewind_outcome::failed);
    EXPECT_EQ(a.status, "engine_failed");
    EXPECT_EQ(a.reason, "model returned no code block");
  }
  EXPECT_EQ(r.stop_reason, "engine: model returned no code block");
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.final_files, seed());
}

TEST(EngineRewind, AFailureThenASuccessGoesOn) {
  fake_engine eng;
  eng.rounds.push_back(failing("HTTP 500 after 3 attempts"));
  eng.rounds.push_back(
      [](const file_map&) -> deopt_answer { throw std::runtime_error("socket closed"); });
  eng.rounds.push_back(steps_of({{"one", "SLOW"}}));
  eng.rounds.push_back(failing("token budget of 10 exhausted"));
  const auto r = run_engine_rewind(seed(), eng, fake_eval, config(6));
  ASSERT_EQ(r.attempts.size(), 6u);  // 2 failures, 1 kept, 3 failures
  EXPECT_EQ(r.attempts[0].reason, "HTTP 500 after 3 attempts");
  EXPECT_NE(r.attempts[1].reason.find("socket closed"), std::string::npos) << r.attempts[1].reason;
  EXPECT_EQ(r.attempts[2].outcome, rewind_outcome::kept);
  EXPECT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.stop_reason, "engine: token budget of 10 exhausted");
}

TEST(EngineRewind, MaxAttemptsCountsEveryTriedStep) {
  fake_engine eng;
  eng.rounds.push_back(
      steps_of({{"a", "// COSMETIC a"}, {"b", "// COSMETIC b"}, {"c", "FAIL"}, {"d", "SLOW"}}));
  auto cfg = config(6);
  cfg.max_attempts = 2;
  const auto r = run_engine_rewind(seed(), eng, fake_eval, cfg);
  EXPECT_EQ(r.attempts.size(), 2u);
  EXPECT_EQ(r.stop_reason, "max_attempts");
  EXPECT_TRUE(r.steps.empty());

  fake_engine failing_engine;
  failing_engine.rounds.push_back(failing("down"));
  cfg.max_attempts = 2;
  const auto f = run_engine_rewind(seed(), failing_engine, fake_eval, cfg);
  EXPECT_EQ(f.attempts.size(), 2u);  // engine failures count too
  EXPECT_EQ(f.stop_reason, "max_attempts");
}

TEST(EngineRewind, ThresholdDecides) {
  fake_engine eng;
  eng.rounds.push_back(steps_of({{"comment", "// COSMETIC"}}));
  auto cfg = config(1);
  cfg.min_slowdown = 1.01;  // 101 / 100 is enough now
  const auto r = run_engine_rewind(seed(), eng, fake_eval, cfg);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.attempts[0].outcome, rewind_outcome::kept);
}

TEST(EngineRewind, DistillFailureFallsBackToTheOfflineDistiller) {
  fake_engine eng;
  eng.rounds.push_back(steps_of({{"one", "SLOW"}}));
  eng.rounds.push_back(steps_of({{"two", "SLOW"}}));
  eng.rounds.push_back(steps_of({{"three", "SLOW"}}));
  eng.distills.push_back(engine_failure{"bad_json: no JSON object"});
  eng.distills.push_back(fake_engine::lesson(""));  // an invalid tuple: empty title
  const auto r = run_engine_rewind(seed(), eng, fake_eval, config(3));
  ASSERT_EQ(r.tuples.size(), 3u);
  EXPECT_EQ(r.tuples[0].title, "one");  // the step's own title, as the offline Distiller writes it
  EXPECT_EQ(r.tuples[0].extra["distill_fallback"], "bad_json: no JSON object");
  EXPECT_EQ(r.tuples[0].origin, provenance::rewind);
  EXPECT_EQ(r.tuples[0].code_diff, r.steps[0].diff);
  EXPECT_TRUE(validate(r.tuples[0]).empty());
  EXPECT_EQ(r.tuples[1].title, "two");
  EXPECT_NE(r.tuples[1].extra["distill_fallback"].get<std::string>().find("invalid"),
            std::string::npos)
      << r.tuples[1].extra.dump();
  EXPECT_EQ(r.tuples[2].title, "Remove three");
  EXPECT_FALSE(r.tuples[2].extra.contains("distill_fallback"));
}

TEST(EngineRewind, SameScriptSameChain) {
  auto run = [] {
    fake_engine eng;
    eng.rounds.push_back(steps_of({{"comment", "// COSMETIC"}, {"one", "SLOW"}}));
    eng.rounds.push_back(steps_of({{"wrong", "FAIL"}, {"two", "SLOW"}}));
    eng.rounds.push_back(failing("no more ideas"));
    return run_engine_rewind(seed(), eng, fake_eval, config(6));
  };
  const auto a = run(), b = run();
  ASSERT_EQ(a.attempts.size(), b.attempts.size());
  EXPECT_EQ(a.attempts.size(), 7u);  // 2 + 2 + 3 failures
  for (std::size_t i = 0; i < a.attempts.size(); ++i) {
    EXPECT_EQ(a.attempts[i].summary, b.attempts[i].summary) << i;
    EXPECT_EQ(a.attempts[i].outcome, b.attempts[i].outcome) << i;
  }
  ASSERT_EQ(a.tuples.size(), 2u);
  ASSERT_EQ(b.tuples.size(), 2u);
  EXPECT_EQ(a.tuples[0].id, b.tuples[0].id);
  EXPECT_EQ(a.tuples[1].id, b.tuples[1].id);
  EXPECT_EQ(a.final_files, b.final_files);
  EXPECT_EQ(a.stop_reason, "engine: no more ideas");
}

TEST(EngineRewind, FailedSeedAsksTheEngineNothing) {
  fake_engine eng;
  eng.rounds.push_back(steps_of({{"one", "SLOW"}}));
  const file_map bad = {{kPath, "FAIL\n"}};
  const auto r = run_engine_rewind(bad, eng, fake_eval, config());
  EXPECT_EQ(r.stop_reason, "seed_failed");
  EXPECT_TRUE(r.attempts.empty());
  EXPECT_TRUE(eng.deopt_inputs.empty());
}

TEST(EngineRewind, RejectsBadConfig) {
  fake_engine eng;
  auto cfg = config();
  cfg.engine_rounds = 0;
  EXPECT_THROW(run_engine_rewind(seed(), eng, fake_eval, cfg), std::exception);
  EXPECT_THROW(run_engine_rewind(seed(), eng, rewind_evaluator{}, config()), std::exception);
  cfg = config();
  cfg.min_slowdown = 0;
  EXPECT_THROW(run_engine_rewind(seed(), eng, fake_eval, cfg), std::exception);
}

}  // namespace
}  // namespace aopt::search
