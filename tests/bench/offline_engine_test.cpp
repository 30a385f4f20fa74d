// The baselines on the real offline engine (template synthesis, the Stage I mutator, the motif
// library's unguided rewrites) through local_services, with a stand-in evaluator whose latency
// is a hash of the candidate: checks the seam contract on real operator sources. Label: slow
// (libclang parses each rewritten kernel).
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "aopt/bench/baselines.h"
#include "aopt/common/fs.h"
#include "aopt/optimize/offline_engine.h"

namespace aopt::bench {
namespace {

std::filesystem::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? std::filesystem::path(s) : std::filesystem::path(AOPT_BENCH_SOURCE_DIR);
}

file_map load(const std::filesystem::path& root) {
  file_map out;
  for (const char* sub : {"op_host", "op_kernel"}) {
    for (const auto& e : std::filesystem::directory_iterator(root / sub)) {
      out[std::string(sub) + "/" + e.path().filename().string()] = common::read_text_file(e.path());
    }
  }
  return out;
}

struct recorder {
  std::mutex mu;
  std::vector<optimize::eval_request> seen;
};

std::vector<optimize::evaluate_fn> slots(recorder& rec) {
  std::vector<optimize::evaluate_fn> out;
  for (int i = 0; i < 2; ++i) {
    out.push_back([&rec](const optimize::eval_request& r) {
      {
        std::lock_guard<std::mutex> lock(rec.mu);
        rec.seen.push_back(r);
      }
      optimize::eval_report rep;
      rep.ok = true;
      rep.status = aopt::vocab::eval_status::ok;
      rep.backend = "sim";
      const auto h = std::hash<std::string>{}(optimize::files_key(r.files));
      rep.latency_us = r.stage == aopt::vocab::eval_stage::base ? 100.0 : 70.0 + static_cast<double>(h % 60);
      return rep;
    });
  }
  return out;
}

class OfflineEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(OfflineEngine, EveryBaselineKeepsTheRules) {
  const file_map base = load(source_dir() / "examples" / "ops" / GetParam());
  bench_config cfg;
  cfg.budget = 6;
  cfg.seed = 11;
  std::printf("seed %llu\n", static_cast<unsigned long long>(cfg.seed));
  for (method m : {method::random, method::best_of_n, method::openevolve}) {
    SCOPED_TRACE(to_string(m));
    optimize::offline_engine_config ec;
    ec.seed = 3;
    optimize::offline_engine engine(ec);
    recorder rec;
    optimize::local_services svc(engine, {}, slots(rec));
    const auto r = run_method(m, base, svc, cfg);
    EXPECT_EQ(r.evaluations, 6u) << r.stop_reason;
    std::size_t budgeted = 0;
    std::set<std::string> keys;
    for (const auto& q : rec.seen) {
      std::set<std::string> paths, want;
      for (const auto& [p, c] : q.files) paths.insert(p);
      for (const auto& [p, c] : base) want.insert(p);
      EXPECT_EQ(paths, want) << "a request carries the complete source set: " << q.proposal;
      if (q.stage == aopt::vocab::eval_stage::verify) continue;
      ++budgeted;
      EXPECT_TRUE(keys.insert(optimize::files_key(q.files)).second) << "evaluated twice: " << q.proposal;
    }
    EXPECT_EQ(budgeted, r.evaluations);
    EXPECT_GE(r.speedup, 1.0);
    if (!r.changes.empty()) {
      EXPECT_FALSE(r.changes.back().diff.empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OfflineEngine, ::testing::Values("add_custom", "mul/baseline"),
                         [](const auto& info) { return info.param == "add_custom" ? std::string("add_custom") : std::string("mul"); });

}  // namespace
}  // namespace aopt::bench
