// Algorithm 1 over local_services: the real offline engine (template synthesis, mutator, rule
// diagnoser, motif rewrites) and a fake evaluator whose latency is a known function of the
// sources, so every count below is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/report.h"
#include "aopt/optimize/search_job.h"

namespace aopt::optimize {
namespace {

const char* kHost = R"(#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t QUEUE_NUM = 3;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    tiling.set_tileLength(TILE_LENGTH / QUEUE_NUM);
    context->SetBlockDim(coreNum);
    return ge::GRAPH_SUCCESS;
}
}
)";

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

file_map base_files() {
  return {{"op_host/t.cpp", kHost}, {"op_kernel/k.cpp", read_file(std::string(AOPT_MOTIFS_TEST_DATA) + "/slow_kernel.cpp")}};
}

std::int64_t constant(const std::string& text, const std::string& name) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(name + R"(\s*=\s*(\d+))"))) return std::stoll(m[1]);
  return -1;
}
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Latency = 50 + |log2(TILE/16384)| * 4 + 8 per PIPE_ALL barrier in the kernel; TILE above
// 32768 fails (UB overflow). A profile that reads as serialized pipes.
struct fake_device {
  std::atomic<int> calls{0};
  double bound_us = 1.0;
  // The best tile without PIPE_ALL barriers (the kernel change moves the optimum when set).
  std::int64_t tile_optimum_without_barriers = 16384;
  // When set: a kernel with fewer than its two barriers needs more UB, so a tile above this
  // fails with the simulator's UB overflow (a rewrite that only fits smaller tiles).
  std::int64_t ub_tile_limit_after_rewrite = 0;
  // When set: each report says its case reserved ub_per_element * TILE_LENGTH bytes of UB of
  // which the emulator lets a kernel use ub_usable by default (GetCoreMemSize).
  std::uint64_t ub_per_element = 0, ub_usable = 0;
  // When set: a tile above this reads GM past its input's padding (the sim's warning, which the
  // chip would not fault on), with the fastest latency of all.
  std::int64_t over_read_above = 0;
  std::mutex mu;
  std::vector<std::string> stages;
  eval_report operator()(const eval_request& r) {
    ++calls;
    {
      std::lock_guard<std::mutex> lock(mu);
      stages.push_back(std::string(to_string(r.stage)));
    }
    eval_report out;
    out.backend = "sim";
    out.profile_name = "fake";
    const auto tile = constant(r.files.at("op_host/t.cpp"), "TILE_LENGTH");
    if (tile > 32768) {
      out.status = eval_status::resource_error;
      out.diagnostic = "UB overflow";
      return out;
    }
    const auto barriers = count(r.files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>");
    if (ub_tile_limit_after_rewrite > 0 && barriers < 2 && tile > ub_tile_limit_after_rewrite) {
      out.status = eval_status::runtime_error;
      out.diagnostic = "k.cpp:18: InitBuffer: over the UB; hardware error ub_overflow at k.cpp:18";
      return out;
    }
    const double optimum = barriers == 0 ? static_cast<double>(tile_optimum_without_barriers) : 16384.0;
    const double lat = 50.0 + std::abs(std::log2(static_cast<double>(tile) / optimum)) * 4.0 + 8.0 * static_cast<double>(barriers);
    out.ok = true;
    out.status = eval_status::ok;
    out.latency_us = lat;
    if (over_read_above > 0 && tile > over_read_above) {
      out.latency_us = 10.0;
      out.warnings.push_back(aopt::vocab::harness_warning("perf", "gm_out_of_bounds", "k.cpp", 17,
                                                          "GM read of 512 bytes at byte offset 0 of 'input x' runs 64 bytes "
                                                          "past it and its padding (448 bytes): the chip reads whatever lies there"));
    }
    out.bound_us = bound_us;
    if (ub_usable > 0) {
      case_facts perf;
      perf.name = "perf";
      perf.ub_reserved = ub_per_element * static_cast<std::uint64_t>(tile);
      perf.ub_usable = ub_usable;
      out.cases = {perf};
    }
    out.profile = {{"Task Duration(us)", lat},     {"aiv_time(us)", lat * 0.95}, {"aiv_vec_ratio", 0.3},
                   {"aiv_mte2_ratio", 0.4},        {"aiv_mte3_ratio", 0.2},      {"aiv_scalar_ratio", 0.1},
                   {"Block Dim", 40},              {"core_count", 40}};
    return out;
  }
};

search::experience barrier_tuple() {
  search::experience e;
  e.title = "Remove PIPE_ALL barriers from the main loop";
  e.description = "Full pipeline barriers serialize MTE2, vector and MTE3 in every iteration.";
  e.bottleneck = "serialized_pipes";
  e.code_diff = "-    PipeBarrier<PIPE_ALL>();\n";
  e.motif = "pipe_all_barrier";
  e.origin = search::provenance::rewind;
  return search::finalize(e);
}

offline_engine_config engine_cfg(std::uint64_t seed) {
  offline_engine_config c;
  c.seed = seed;
  return c;
}

std::vector<evaluate_fn> slots(fake_device& dev, std::size_t n) {
  std::vector<evaluate_fn> out;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back([&dev](const eval_request& r) { return dev(r); });
  return out;
}

TEST(Optimizer, AlternatesStagesWithinTheBudgetAndImproves) {
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  fake_device dev;
  offline_engine eng(engine_cfg(seed));
  std::vector<search::experience> learned;
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2), [&](const search::experience& e) { learned.push_back(e); });
  optimizer_config cfg;
  cfg.budget = 20;
  const auto r = run_optimizer(base_files(), svc, cfg);
  EXPECT_EQ(r.evaluations, 20u);
  // Every evaluation spent is one call of the device; verification is one more, outside the budget.
  EXPECT_EQ(static_cast<std::size_t>(dev.calls.load()), r.evaluations + (r.verification ? 1 : 0));
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_TRUE(r.verification->ok);
  EXPECT_DOUBLE_EQ(r.base_us, 50.0 + 2.0 * 4.0 + 16.0);  // TILE 4096: |log2(1/4)| = 2; two barriers
  EXPECT_LT(r.best_us, r.base_us);
  EXPECT_NEAR(r.speedup, r.base_us / r.best_us, 1e-12);
  // Stage II removed both barriers (the kernel change), Stage I moved the tile length.
  bool kernel = false, tiling = false;
  for (const auto& c : r.changes) {
    kernel |= c.stage == "kernel";
    tiling |= c.stage == "tiling";
    EXPECT_FALSE(c.diff.empty());
    EXPECT_LT(c.after_us, c.before_us);
  }
  EXPECT_TRUE(kernel);
  EXPECT_TRUE(tiling);
  EXPECT_EQ(count(r.best_files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>"), 0u);
  EXPECT_FALSE(learned.empty());
  EXPECT_EQ(learned.front().origin, search::provenance::refinement);
  // The trajectory's budget column ends at the budget and never decreases.
  std::size_t last = 0;
  for (const auto& p : r.trajectory) {
    EXPECT_GE(p.evaluations, last);
    last = p.evaluations;
  }
  EXPECT_EQ(last, 20u);
}

TEST(Optimizer, AKernelChangeMakesStageIRevisitTheOriginalTiling) {
  // Round 1: Stage I moves TILE_LENGTH away from 4096 (best with barriers: 16384), Stage II
  // removes the barriers, after which 4096 is the best tile again: round 2's Stage I measures the
  // operator's original tiling first and keeps it.
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  fake_device dev;
  dev.tile_optimum_without_barriers = 4096;
  offline_engine eng(engine_cfg(seed));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2), [](const search::experience&) {});
  optimizer_config cfg;
  cfg.budget = 30;
  // Without co-tuning: with it, the second barrier's removal (neutral at 16384) is measured with
  // the original tiling at once (cotune_test.cpp), and the revisit has nothing left to do.
  cfg.cotune = false;
  const auto r = run_optimizer(base_files(), svc, cfg);
  std::size_t revisits = 0;
  long kernel_round = -1;
  for (const auto& p : r.trajectory) {
    if (p.stage == "kernel" && p.accepted) kernel_round = static_cast<long>(p.round);
    if (p.proposal.rfind("original tiling after a kernel change", 0) != 0) continue;
    ++revisits;
    EXPECT_EQ(p.stage, "tiling");
    EXPECT_EQ(static_cast<long>(p.round), kernel_round + 1) << "measured in the round after the kernel change";
    EXPECT_TRUE(p.accepted) << p.proposal;
    EXPECT_DOUBLE_EQ(p.latency_us.value_or(0.0), 50.0);
  }
  ASSERT_GE(kernel_round, 0);
  EXPECT_EQ(revisits, 1u);
  EXPECT_EQ(constant(r.best_files.at("op_host/t.cpp"), "TILE_LENGTH"), 4096);
  EXPECT_DOUBLE_EQ(r.best_us, 50.0);
}

TEST(Optimizer, ARewriteOutOfUbIsCoTunedWithTheTilingInTheNextRound) {
  // Removing a barrier needs tiles of at most 8192 (as a second queue slot halves the tile that
  // fits); round 1's Stage I moves the tile to 16384 (the optimum with barriers), so the rewrite
  // fails alone (out of UB); the next round's Stage I tunes the tiling of the rewritten operator
  // and the pair is accepted as one kernel change. With co-tuning off, the rewrite never lands.
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  auto run = [&](bool cotune) {
    fake_device dev;
    dev.ub_tile_limit_after_rewrite = 8192;
    offline_engine eng(engine_cfg(seed));
    local_services svc(eng, {barrier_tuple()}, slots(dev, 2), [](const search::experience&) {});
    optimizer_config cfg;
    cfg.budget = 30;
    cfg.cotune = cotune;
    return run_optimizer(base_files(), svc, cfg);
  };
  const auto r = run(true);
  long failed_round = -1;
  std::size_t cotuned = 0, accepted = 0;
  for (const auto& p : r.trajectory) {
    if (p.stage == "kernel" && p.status == "runtime_error" && failed_round < 0 &&
        p.proposal.rfind("co-tuning", 0) != 0) {
      failed_round = static_cast<long>(p.round);
    }
    if (p.proposal.rfind("co-tuning", 0) != 0) continue;
    ++cotuned;
    EXPECT_EQ(p.stage, "kernel");
    EXPECT_EQ(static_cast<long>(p.round), failed_round + 1) << p.proposal;
    if (p.accepted) ++accepted;
  }
  ASSERT_GE(failed_round, 0) << "the rewrite must first fail for lack of UB";
  EXPECT_GT(cotuned, 0u);
  EXPECT_EQ(accepted, 1u);
  EXPECT_LT(count(r.best_files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>"), 2u);
  EXPECT_LE(constant(r.best_files.at("op_host/t.cpp"), "TILE_LENGTH"), 8192);
  bool change = false;
  for (const auto& c : r.changes) {
    if (c.title.find(", with the tiling ") == std::string::npos) continue;
    change = true;
    EXPECT_EQ(c.stage, "kernel");
    EXPECT_NE(c.diff.find("op_kernel/k.cpp"), std::string::npos);
    EXPECT_NE(c.diff.find("op_host/t.cpp"), std::string::npos);
    EXPECT_NE(c.rationale.find("out of UB"), std::string::npos);
  }
  EXPECT_TRUE(change);

  const auto off = run(false);
  for (const auto& p : off.trajectory) EXPECT_EQ(p.proposal.rfind("co-tuning", 0), std::string::npos);
  EXPECT_EQ(count(off.best_files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>"), 2u);
  EXPECT_LT(r.best_us, off.best_us);
}

TEST(Optimizer, ACoTuningThatOnlyFailsIsGivenUpAfterTwoBatches) {
  // No tile fits the rewrite (a kernel that sizes its tiles by the UB itself): the co-tuning's
  // first two batches fail and it spends no more; the rest of the budget goes elsewhere.
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  fake_device dev;
  dev.ub_tile_limit_after_rewrite = 1;
  offline_engine eng(engine_cfg(seed));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2), [](const search::experience&) {});
  optimizer_config cfg;
  cfg.budget = 30;
  const auto r = run_optimizer(base_files(), svc, cfg);
  std::map<std::size_t, std::size_t> cotuned;  // round -> co-tuning evaluations
  for (const auto& p : r.trajectory) {
    if (p.proposal.rfind("co-tuning", 0) != 0) continue;
    EXPECT_NE(p.status, "ok") << p.proposal;
    ++cotuned[p.round];
  }
  ASSERT_FALSE(cotuned.empty()) << "the rewrite must be co-tuned";
  for (const auto& [round, k] : cotuned) EXPECT_LE(k, 4u) << "round " << round;
  EXPECT_EQ(count(r.best_files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>"), 2u);
}

TEST(Optimizer, ACandidateThatReadsPastItsInputsIsRefused) {
  // Tiles above 4096 read past the input's padding (the chip would read junk without a fault)
  // and are the fastest: the search refuses them, as the operator as given reads no such thing.
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  fake_device dev;
  dev.over_read_above = 4096;
  offline_engine eng(engine_cfg(seed));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2), [](const search::experience&) {});
  optimizer_config cfg;
  cfg.budget = 20;
  const auto r = run_optimizer(base_files(), svc, cfg);
  std::size_t refused = 0;
  for (const auto& p : r.trajectory) {
    if (p.status != "runtime_error") continue;
    ++refused;
    EXPECT_FALSE(p.accepted);
  }
  EXPECT_GT(refused, 0u) << "Stage I must have tried a larger tile";
  EXPECT_LE(constant(r.best_files.at("op_host/t.cpp"), "TILE_LENGTH"), 4096);
  EXPECT_GT(r.best_us, 10.0);
}

TEST(Optimizer, DeterministicForASeed) {
  auto once = [](std::uint64_t seed) {
    fake_device dev;
    offline_engine eng(engine_cfg(seed));
    local_services svc(eng, {barrier_tuple()}, slots(dev, 2));
    optimizer_config cfg;
    cfg.budget = 16;
    return to_json(run_optimizer(base_files(), svc, cfg));
  };
  auto strip = [](nlohmann::json j) {
    for (const char* k : {"base", "best", "verification"}) {
      if (j[k].is_object()) j[k].erase("seconds");
    }
    j.erase("time");  // wall time
    return j;
  };
  EXPECT_EQ(strip(once(3)), strip(once(3)));
}

TEST(Optimizer, OnlyAKernelFileMakesAKernelChange) {
  // After an accepted Stage II rewrite the next Stage I round forgets what broke tiling variants
  // and revisits the original tiling only when a kernel file changed; a host-only rewrite (a
  // core-count cap) keeps both.
  const file_map a = {{"op_host/t.cpp", "h1"}, {"op_kernel/k.cpp", "k1"}};
  file_map host_only = a;
  host_only["op_host/t.cpp"] = "h2";
  file_map kernel = a;
  kernel["op_kernel/k.cpp"] = "k2";
  file_map added = a;
  added["op_kernel/helper.h"] = "x";
  EXPECT_FALSE(changes_kernel(a, a));
  EXPECT_FALSE(changes_kernel(a, host_only));
  EXPECT_TRUE(changes_kernel(a, kernel));
  EXPECT_TRUE(changes_kernel(a, added));
  EXPECT_TRUE(changes_kernel(added, a));
}

TEST(Optimizer, RepeatsAreFreeAndFailuresCount) {
  fake_device dev;
  offline_engine eng(engine_cfg(11));
  local_services svc(eng, {}, slots(dev, 1));
  optimizer_config cfg;
  cfg.budget = 30;
  cfg.stage2 = false;  // Stage I only: the mutator will try tiles above 32768 that fail
  cfg.rounds = 4;
  const auto r = run_optimizer(base_files(), svc, cfg);
  std::size_t memo = 0, fails = 0, spent = 0;
  std::size_t verify_points = 0;
  for (const auto& p : r.trajectory) {
    if (p.stage == "verify") {  // the fresh-input check: shown, outside the budget
      ++verify_points;
      continue;
    }
    if (p.memo) ++memo;
    else ++spent;
    if (!p.memo && p.status != "ok") ++fails;
  }
  EXPECT_EQ(verify_points, r.verification ? 1u : 0u);
  EXPECT_EQ(memo, r.memo_hits);
  EXPECT_EQ(spent, r.evaluations);
  EXPECT_EQ(fails, r.failures);
  EXPECT_LE(r.evaluations, 30u);
  EXPECT_EQ(static_cast<std::size_t>(dev.calls.load()), r.evaluations + (r.verification ? 1 : 0));
  for (const auto& c : r.changes) EXPECT_EQ(c.stage, "tiling");
}

TEST(Optimizer, SuspectResultsAreNeverAccepted) {
  fake_device dev;
  dev.bound_us = 1000.0;  // every latency is below the bound: all suspect
  offline_engine eng(engine_cfg(5));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2));
  optimizer_config cfg;
  cfg.budget = 10;
  const auto r = run_optimizer(base_files(), svc, cfg);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_DOUBLE_EQ(r.speedup, 1.0);
  EXPECT_GT(r.suspects, 0u);
}

TEST(Optimizer, ACandidateReservingMoreThanTheUsableUbFails) {
  // Larger tiles are faster (the optimum is 16384, the base 4096) but reserve more UB than a
  // kernel may use (4096 x 40 B fits 188160, 8192 x 40 B does not): they fail, never accepted.
  auto run = [](std::uint64_t usable) {
    fake_device dev;
    dev.ub_per_element = 40;
    dev.ub_usable = usable;
    offline_engine eng(engine_cfg(3));
    local_services svc(eng, {barrier_tuple()}, slots(dev, 2));
    optimizer_config cfg;
    cfg.budget = 16;
    cfg.stage2 = false;
    return run_optimizer(base_files(), svc, cfg);
  };
  const auto r = run(188160);
  EXPECT_LE(constant(r.best_files.at("op_host/t.cpp"), "TILE_LENGTH"), 4096);
  std::size_t over = 0;
  for (const auto& p : r.trajectory) over += p.stage == "tiling" && p.status == "runtime_error";
  EXPECT_GT(over, 0u) << "some larger tile was tried";
  // The limit is what stops them: where the evaluator states no usable UB the same search takes one.
  const auto free = run(0);
  EXPECT_GT(constant(free.best_files.at("op_host/t.cpp"), "TILE_LENGTH"), 4096);
}

TEST(Optimizer, AReportTellsTheUbItsCasesReserved) {
  eval_report r;
  EXPECT_EQ(r.ub_reserved(), 0u);
  for (const auto& [name, ub] : std::vector<std::pair<std::string, std::uint64_t>>{{"perf", 94720}, {"tail", 188416}, {"small", 0}}) {
    case_facts c;
    c.name = name;
    if (ub > 0) c.ub_reserved = ub;
    r.cases.push_back(c);
  }
  EXPECT_EQ(r.ub_reserved("perf"), 94720u);
  EXPECT_EQ(r.ub_reserved("small"), 0u);
  EXPECT_EQ(r.ub_reserved("none"), 0u);
  EXPECT_EQ(r.ub_reserved(), 188416u);
}

TEST(Optimizer, BaseFailureStopsTheJob) {
  fake_device dev;
  offline_engine eng(engine_cfg(1));
  local_services svc(eng, {}, slots(dev, 1));
  auto files = base_files();
  files["op_host/t.cpp"] = std::regex_replace(files["op_host/t.cpp"], std::regex("4096"), "65536");
  const auto r = run_optimizer(files, svc, {});
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_TRUE(r.stop_reason.starts_with("base failed: resource_error"));
}

TEST(Optimizer, VerificationFailureFallsBackToThePreviousBest) {
  // The device fails every "verify" request of a kernel without barriers: the fresh-input check
  // rejects the Stage II winner, and the job falls back to the best state before it.
  fake_device dev;
  offline_engine eng(engine_cfg(2));
  local_services svc(eng, {barrier_tuple()}, {[&dev](const eval_request& r) {
    if (r.stage == eval_stage::verify && count(r.files.at("op_kernel/k.cpp"), "PIPE_ALL") == 0) {
      eval_report bad;
      bad.status = eval_status::precision_error;
      bad.diagnostic = "fresh inputs: mismatch";
      return bad;
    }
    return dev(r);
  }});
  optimizer_config cfg;
  cfg.budget = 12;
  cfg.stage1 = false;
  const auto r = run_optimizer(base_files(), svc, cfg);
  EXPECT_GT(count(r.best_files.at("op_kernel/k.cpp"), "PIPE_ALL"), 0u);
  for (const auto& c : r.changes) EXPECT_GT(count(c.diff, "PIPE_ALL"), 0u);
}

TEST(Optimizer, EmptyBankFallsBackToUnguidedRewritesOnlyWhenAllowed) {
  auto once = [](bool fallback) {
    fake_device dev;
    offline_engine eng(engine_cfg(4));
    local_services svc(eng, {}, slots(dev, 2));
    optimizer_config cfg;
    cfg.budget = 6;
    cfg.stage1 = false;
    cfg.unguided_fallback = fallback;
    return run_optimizer(base_files(), svc, cfg);
  };
  const auto with = once(true);
  EXPECT_EQ(count(with.best_files.at("op_kernel/k.cpp"), "PipeBarrier<PIPE_ALL>"), 0u);
  ASSERT_FALSE(with.changes.empty());
  EXPECT_NE(with.changes.front().rationale.find("unguided"), std::string::npos);
  const auto without = once(false);
  EXPECT_TRUE(without.changes.empty());
  EXPECT_EQ(without.evaluations, 1u);  // the base only
  EXPECT_NE(without.stop_reason.find("no new candidate"), std::string::npos) << without.stop_reason;
}

TEST(Optimizer, ConfigErrorsNameTheField) {
  optimizer_config cfg;
  cfg.budget = 0;
  EXPECT_THROW(cfg.validate(), aopt::error);
  cfg.budget = 5;
  cfg.stage1 = cfg.stage2 = false;
  try {
    cfg.validate();
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("stage1"), std::string::npos);
  }
}

TEST(Report, MarkdownLabelsSimulatedLatenciesAndShowsDiffs) {
  fake_device dev;
  offline_engine eng(engine_cfg(7));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2));
  optimizer_config cfg;
  cfg.budget = 12;
  const auto r = run_optimizer(base_files(), svc, cfg);
  report_context ctx;
  ctx.op_dir = "ops/x";
  ctx.backend = "sim";
  ctx.profile = "fake";
  ctx.config = cfg;
  const std::string md = report_markdown(r, ctx);
  EXPECT_NE(md.find("simulated"), std::string::npos);
  EXPECT_NE(md.find("```diff"), std::string::npos);
  const auto j = report_json(r, ctx);
  EXPECT_EQ(j["simulated"], true);
  EXPECT_EQ(j["result"]["changes"].size(), r.changes.size());
  EXPECT_EQ(j["result"]["trajectory"].size(), r.trajectory.size());
}

}  // namespace
}  // namespace aopt::optimize

namespace aopt::optimize {
namespace {

// A timed case of a few microseconds is mostly launch: the job says so before it spends its
// budget (report.json "warnings", a progress event), and says nothing for a case worth optimizing.
// A noisy backend (repeated timings) confirms an acceptance by measuring champion and challenger
// again, both on the device that measured the challenger: devices of one class still differ.
TEST(Optimizer, ConfirmingMeasurementsRunOnTheChallengersDevice) {
  fake_device dev;
  std::mutex mu;
  std::vector<std::string> remeasured_on;  // the device each "remeasure" request named
  std::atomic<int> calls{0};
  auto noisy = [&](const eval_request& r) {
    auto out = dev(r);
    const int k = calls++;
    out.device = r.device.empty() ? "dev" + std::to_string(k % 3) : r.device;
    const double l = out.latency_us;
    if (out.ok) out.samples_us = {l * 0.999, l, l * 1.001, l * 0.9995, l * 1.0005};
    if (r.stage == eval_stage::remeasure) {
      std::lock_guard<std::mutex> lock(mu);
      remeasured_on.push_back(r.device);
    }
    return out;
  };
  offline_engine eng(engine_cfg(7));
  local_services svc(eng, {barrier_tuple()}, {noisy, noisy});
  optimizer_config cfg;
  cfg.budget = 12;
  const auto r = run_optimizer(base_files(), svc, cfg);
  ASSERT_FALSE(r.changes.empty());
  ASSERT_FALSE(remeasured_on.empty());
  ASSERT_EQ(remeasured_on.size() % 2, 0u) << "champion and challenger, in pairs";
  for (std::size_t i = 0; i < remeasured_on.size(); i += 2) {
    EXPECT_FALSE(remeasured_on[i].empty()) << "pair " << i / 2 << " named no device";
    EXPECT_EQ(remeasured_on[i], remeasured_on[i + 1]) << "pair " << i / 2;
  }
  const auto j = to_json(eval_request{{}, eval_stage::remeasure, 1, "p", std::nullopt, {}, "n1/sim0"});
  eval_request back;
  from_json(j, back);
  EXPECT_EQ(back.device, "n1/sim0");
}

TEST(Optimizer, WarnsWhenTheTimedCaseIsMostlyLaunch) {
  auto run = [](double latency_us) {
    offline_engine eng(engine_cfg(1));
    local_services svc(eng, {}, {[latency_us](const eval_request&) {
      eval_report r;
      r.ok = true;
      r.status = eval_status::ok;
      r.latency_us = latency_us;
      return r;
    }});
    optimizer_config cfg;
    cfg.budget = 2;
    std::vector<std::string> warned;
    const auto r = run_optimizer(base_files(), svc, cfg, [&](const progress_event& e) {
      if (e.kind == "warning") warned.push_back(e.message);
    });
    EXPECT_EQ(warned, r.warnings);
    EXPECT_EQ(to_json(r).at("warnings").size(), r.warnings.size());
    return r.warnings;
  };
  const auto small = run(1.25);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_NE(small[0].find("1.25 us"), std::string::npos) << small[0];
  EXPECT_NE(small[0].find("larger timed case"), std::string::npos) << small[0];
  EXPECT_TRUE(run(small_case_us + 0.5).empty());
}

// Progress says when a change is accepted (kind "accepted", with the point that produced the new
// best), once per change, and the base's own point already carries the base as the best: what
// the daemon's metrics count and what `aopt watch` prints as the first line.
TEST(Optimizer, ProgressTellsEachAcceptedChangeAndTheBaseIsItsOwnBest) {
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  fake_device dev;
  offline_engine eng(engine_cfg(seed));
  local_services svc(eng, {barrier_tuple()}, slots(dev, 2));
  optimizer_config cfg;
  cfg.budget = 20;
  std::vector<progress_event> events;
  const auto r = run_optimizer(base_files(), svc, cfg, [&](const progress_event& e) { events.push_back(e); });
  ASSERT_FALSE(r.changes.empty());
  ASSERT_TRUE(r.verification && r.verification->ok);  // nothing accepted was dropped afterwards
  std::vector<const progress_event*> accepted;
  for (const auto& e : events) {
    if (e.kind == "accepted") accepted.push_back(&e);
  }
  ASSERT_EQ(accepted.size(), r.changes.size());
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    const auto& e = *accepted[i];
    EXPECT_EQ(e.message.rfind("accepted (" + r.changes[i].stage + "): ", 0), 0u) << e.message;
    ASSERT_TRUE(e.point.has_value());
    EXPECT_TRUE(e.point->accepted);
    EXPECT_EQ(e.point->stage, r.changes[i].stage);
    ASSERT_TRUE(e.point->latency_us.has_value());
    EXPECT_DOUBLE_EQ(e.point->best_us, r.changes[i].after_us);
    EXPECT_DOUBLE_EQ(*e.point->latency_us, r.changes[i].after_us);
    EXPECT_TRUE(r.trajectory.at(e.point->index).accepted);
  }
  const auto first = std::find_if(events.begin(), events.end(), [](const progress_event& e) { return e.kind == "point"; });
  ASSERT_NE(first, events.end());
  ASSERT_EQ(first->point->stage, "base");
  EXPECT_DOUBLE_EQ(first->point->best_us, r.base_us);
  EXPECT_EQ(progress_line(*first->point).find("best       0.00 us"), std::string::npos) << progress_line(*first->point);
}

}  // namespace
}  // namespace aopt::optimize
