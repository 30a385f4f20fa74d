// Co-tuning a kernel rewrite that is neutral on the current tiling (issue 39): Stage I first
// tunes the tiling for the kernel as it is (one buffer is a little faster while a full barrier
// closes every tile); removing the barriers is then no faster on that tiling, but much faster
// with the two buffers the operator was written with. The optimizer measures the rewrite with
// the operator's original tiling and accepts the pair as one change.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/report.h"

namespace aopt::optimize {
namespace {

const char* kTwoBufferHost = R"(#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_tileLength(TILE_LENGTH / BUFFER_NUM);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}
)";

// The same operator with the buffer count as its only tiling choice (the tile is fixed).
const char* kBufferOnlyHost = R"(#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_bufferNum(BUFFER_NUM);
    context->SetBlockDim(context->GetInputShape(0)->GetStorageShape().GetDim(0));
    return ge::GRAPH_SUCCESS;
}
}
)";

std::int64_t host_constant(const file_map& f, const std::string& name) {
  std::smatch m;
  const std::string& text = f.at("op_host/t.cpp");
  if (std::regex_search(text, m, std::regex(name + R"(\s*=\s*(\d+))"))) return std::stoll(m[1]);
  return -1;
}

std::size_t full_barriers(const file_map& f) {
  const std::string& k = f.at("op_kernel/k.cpp");
  std::size_t n = 0;
  for (auto p = k.find("PipeBarrier<PIPE_ALL>"); p != std::string::npos; p = k.find("PipeBarrier<PIPE_ALL>", p + 1)) ++n;
  return n;
}

// A full barrier anywhere in the tile loop serializes it (68 us with two buffers, 64 with one:
// the second buffer is only UB spent); without barriers two buffers overlap copy and compute
// (40 us) and one does not (64 us). Each doubling of the tile away from 4096 costs 1 us.
eval_report swish_like(const eval_request& r) {
  eval_report out;
  out.backend = "sim";
  out.profile_name = "fake";
  const auto written_tile = host_constant(r.files, "TILE_LENGTH");
  const auto tile = written_tile < 0 ? 4096 : written_tile;
  const auto buffers = host_constant(r.files, "BUFFER_NUM");
  if (tile <= 0 || tile > 65536 || buffers <= 0 || buffers > 4) {
    out.status = aopt::vocab::eval_status::runtime_error;
    out.diagnostic = "ub_overflow";
    return out;
  }
  const double spread = std::abs(std::log2(static_cast<double>(tile) / 4096.0));
  double lat = 0;
  if (full_barriers(r.files) > 0) {
    lat = (buffers == 1 ? 64.0 : 68.0) + spread;
  } else {
    lat = (buffers >= 2 ? 40.0 : 64.0) + spread;
  }
  out.ok = true;
  out.status = aopt::vocab::eval_status::ok;
  out.latency_us = lat;
  out.bound_us = 1.0;
  out.profile = {{"Task Duration(us)", lat}, {"aiv_time(us)", lat * 0.95}, {"aiv_vec_ratio", 0.3},
                 {"aiv_mte2_ratio", 0.4},    {"aiv_mte3_ratio", 0.2},      {"aiv_scalar_ratio", 0.1},
                 {"Block Dim", 8},           {"core_count", 8}};
  return out;
}

search::experience barrier_removal() {
  search::experience e;
  e.title = "Remove PIPE_ALL barriers from the main loop";
  e.description = "Full pipeline barriers serialize MTE2, vector and MTE3 in every iteration.";
  e.bottleneck = "serialized_pipes";
  e.code_diff = "-    PipeBarrier<PIPE_ALL>();\n";
  e.motif = "pipe_all_barrier";
  e.origin = search::provenance::rewind;
  return search::finalize(e);
}

file_map two_buffer_operator(const char* host = kTwoBufferHost) {
  std::ifstream in(std::string(AOPT_MOTIFS_TEST_DATA) + "/slow_kernel.cpp");
  std::stringstream ss;
  ss << in.rdbuf();
  return {{"op_host/t.cpp", host}, {"op_kernel/k.cpp", ss.str()}};
}

optimize_result run(std::uint64_t seed, std::size_t budget, bool cotune, bool widen = true,
                    const char* host = kTwoBufferHost) {
  offline_engine_config ec;
  ec.seed = seed;
  offline_engine eng(ec);
  std::vector<evaluate_fn> slots = {swish_like, swish_like};
  local_services svc(eng, {barrier_removal()}, slots, [](const search::experience&) {});
  optimizer_config cfg;
  cfg.budget = budget;
  cfg.cotune = cotune;
  cfg.widen = widen;
  return run_optimizer(two_buffer_operator(host), svc, cfg);
}

TEST(CoTune, ARewriteNeutralOnTheTunedTilingIsMeasuredWithTheOriginalTiling) {
  for (const std::uint64_t seed : {1u, 7u}) {
    std::cout << "seed " << seed << "\n";
    const auto r = run(seed, 16, true);
    ASSERT_FALSE(r.changes.empty());
    EXPECT_EQ(r.changes.front().stage, "tiling");
    EXPECT_NE(r.changes.front().diff.find("+constexpr uint32_t BUFFER_NUM = 1;"), std::string::npos)
        << "Stage I gives up the second buffer first:\n" << r.changes.front().diff;
    EXPECT_EQ(full_barriers(r.best_files), 0u) << "seed " << seed;
    EXPECT_EQ(host_constant(r.best_files, "BUFFER_NUM"), 2) << "seed " << seed;
    EXPECT_DOUBLE_EQ(r.best_us, 40.0) << "seed " << seed;
    bool pair = false;
    for (const auto& c : r.changes) {
      if (c.title.find(", with the tiling ") == std::string::npos) continue;
      pair = true;
      EXPECT_EQ(c.stage, "kernel");
      EXPECT_NE(c.rationale.find("no faster on the best's tiling"), std::string::npos) << c.rationale;
      EXPECT_NE(c.diff.find("op_kernel/k.cpp"), std::string::npos);
      EXPECT_NE(c.diff.find("op_host/t.cpp"), std::string::npos);
    }
    EXPECT_TRUE(pair) << "seed " << seed;
    EXPECT_LE(r.evaluations, 16u);
  }
}

TEST(CoTune, WithoutCoTuningTheNeutralRewriteNeverLands) {
  const std::uint64_t seed = 1;
  std::cout << "seed " << seed << "\n";
  const auto r = run(seed, 16, false);
  EXPECT_GT(full_barriers(r.best_files), 0u);
  EXPECT_GT(r.best_us, 60.0);
}

// Without co-tuning the search runs out of ideas with budget left (Stage I's few tilings, the
// buffer count alone, are all measured; every rewrite of the best was tried). Widening then rewrites the kernels of the
// other candidates: the barrier removal on the two-buffer base is the 40 us operator.
TEST(Widen, ASearchOutOfIdeasRewritesOtherCandidatesBeforeItStops) {
  const std::uint64_t seed = 1;
  std::cout << "seed " << seed << "\n";
  const auto narrow = run(seed, 60, false, false, kBufferOnlyHost);
  ASSERT_LT(narrow.evaluations, 60u) << "the search must run out of ideas: " << narrow.stop_reason;
  EXPECT_GT(narrow.best_us, 60.0);

  const auto r = run(seed, 60, false, true, kBufferOnlyHost);
  EXPECT_DOUBLE_EQ(r.best_us, 40.0) << r.stop_reason;
  bool widened = false;
  for (const auto& c : r.changes) widened = widened || c.title.rfind("widening: ", 0) == 0;
  EXPECT_TRUE(widened);
  if (r.evaluations < 60) {
    EXPECT_NE(r.stop_reason.find("widening: "), std::string::npos) << r.stop_reason;
  }
}

// A rewrite that failed to compile on one candidate is not proposed again on the others when the
// search widens: here the barrier removal never compiles; it is tried once, on the best, and
// widening spends nothing more on it (before, once more per elite).
TEST(Widen, ARewriteThatFailedToCompileIsNotRetriedOnOtherCandidates) {
  const std::uint64_t seed = 1;
  std::cout << "seed " << seed << "\n";
  offline_engine_config ec;
  ec.seed = seed;
  offline_engine eng(ec);
  const evaluate_fn no_build_without_barriers = [](const eval_request& r) {
    if (full_barriers(r.files) == 0) {
      eval_report out;
      out.backend = "sim";
      out.status = aopt::vocab::eval_status::compile_error;
      out.diagnostic = "k.cpp:1: error: the rewritten kernel does not compile";
      return out;
    }
    return swish_like(r);
  };
  std::vector<evaluate_fn> slots = {no_build_without_barriers, no_build_without_barriers};
  local_services svc(eng, {barrier_removal()}, slots, [](const search::experience&) {});
  optimizer_config cfg;
  cfg.budget = 60;
  cfg.cotune = false;
  cfg.widen = true;
  const auto r = run_optimizer(two_buffer_operator(kBufferOnlyHost), svc, cfg);
  std::size_t failed_builds = 0;
  for (const auto& p : r.trajectory) {
    if (p.status == "compile_error" && !p.memo) ++failed_builds;
  }
  EXPECT_EQ(failed_builds, 1u) << r.stop_reason;
  EXPECT_GT(full_barriers(r.best_files), 0u);
  // Why it failed is kept with the point and shown in the report (a reader need not rerun it).
  bool kept = false;
  for (const auto& p : r.trajectory) {
    if (p.status == "compile_error") kept = p.diagnostic == "k.cpp:1: error: the rewritten kernel does not compile";
    if (p.status == "ok") {
      EXPECT_TRUE(p.diagnostic.empty());
    }
  }
  EXPECT_TRUE(kept);
  report_context ctx;
  const std::string md = report_markdown(r, ctx);
  EXPECT_NE(md.find("## Why candidates failed"), std::string::npos);
  EXPECT_NE(md.find("compile_error: k.cpp:1: error: the rewritten kernel does not compile"), std::string::npos) << md;
  EXPECT_EQ(to_json(r.trajectory.front()).count("diagnostic"), 1u);
}

}  // namespace
}  // namespace aopt::optimize
