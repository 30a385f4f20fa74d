// Motif outputs checked by numbers, by the real `aopt eval`.
// vectorize_scalar_loop's general form: the forward motif applied to complex_mat_dot's baseline
// (an interleaved (re, im) scalar loop), and to each loop and all three loops of the element_mix
// fixture (strides 2, 4 and 1, handing data to each other between scalar and vector code), must
// give packages that build and check exact on every case (tail and tiny shapes included); fully
// vectorized, they are faster.
// spread_single_core: the one-core fixture (tests/motifs/data/spread_op) dealt over every core
// stays exact on every case (a tail tile, a tensor smaller than a tile) and is faster.
// stagger_ub_buffers: the fixture tests/motifs/data/stagger_op with its UB buffers staggered.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "aopt/motifs/motif.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

aopt::motifs::file_set load_package(const fs::path& dir) {
  aopt::motifs::file_set out;
  for (const auto& e : fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink)) {
    if (e.is_regular_file()) out[e.path().lexically_relative(dir).generic_string()] = slurp(e.path());
  }
  return out;
}

void write_package(const fs::path& dir, const aopt::motifs::file_set& files) {
  for (const auto& [path, text] : files) {
    fs::create_directories((dir / path).parent_path());
    std::ofstream(dir / path) << text;
  }
}

nlohmann::json eval(const fs::path& pkg, const fs::path& cache) {
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY, "eval", pkg.string(), "--json", "--cache-dir", cache.string()};
  r.limits.wall_timeout = std::chrono::seconds(600);
  r.limits.max_output_bytes = 8 << 20;
  const auto o = aopt::common::run_process(r);
  EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  try {
    return nlohmann::json::parse(o.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "aopt eval printed no JSON (" << e.what() << "): " << o.out << "\n" << o.err;
    return nlohmann::json::object();
  }
}

// The forward direction of `motif` at its only site in `files` (a failure when it has another
// number of sites); `summary` gets the site's summary.
aopt::motifs::applied forward_at_the_only_site(const aopt::motifs::file_set& files, const char* motif,
                                               std::string* summary = nullptr) {
  aopt::motifs::parser parser;
  aopt::motifs::source_set src(files, parser);
  const auto* m = aopt::motifs::find_motif(motif);
  if (m == nullptr) {
    ADD_FAILURE() << motif << " is not registered";
    return {};
  }
  const auto sites = aopt::motifs::sites_for(*m, src, aopt::motifs::direction::forward);
  if (sites.size() != 1) {
    ADD_FAILURE() << motif << ": " << sites.size() << " forward sites, expected 1";
    return {};
  }
  if (summary != nullptr) *summary = sites[0].summary;
  return aopt::motifs::apply_site(*m, src, sites[0], aopt::motifs::direction::forward);
}

// `aopt eval` said ok, with `n` cases, each ok and exact.
void expect_exact(const nlohmann::json& r, std::size_t n) {
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), n);
  for (const auto& c : r["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0) << c.dump(2);
  }
}

}  // namespace

TEST(MotifVectorizeEval, InterleavedComplexLoopBecomesCorrectFasterVectorCode) {
  const fs::path op = fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/complex_mat_dot";
  const fs::path tmp = fs::temp_directory_path() / ("aopt-vec-eval-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "op");
  fs::copy_file(op / "aopt.json", tmp / "op/aopt.json");
  fs::copy_file(op / "reference.cpp", tmp / "op/reference.cpp");
  const auto base = load_package(op / "baseline");
  write_package(tmp / "op/baseline", base);

  std::string summary;
  const auto a = forward_at_the_only_site(base, "vectorize_scalar_loop", &summary);
  ASSERT_TRUE(a.ok) << a.reason;
  EXPECT_NE(summary.find("stride 2"), std::string::npos) << summary;
  // Kernel and host both change: the loop, the scratch buffer and the host's UB reservation.
  EXPECT_NE(a.diff.find("GatherMask("), std::string::npos) << a.diff;
  EXPECT_NE(a.diff.find("Gather(zLocal"), std::string::npos) << a.diff;
  EXPECT_NE(a.diff.find("ubSize -= "), std::string::npos) << a.diff;
  write_package(tmp / "op/vectorized", a.files);
  if (std::getenv("AOPT_SHOW_DIFF")) std::cout << a.diff;

  const auto before = eval(tmp / "op/baseline", tmp / "cache");
  const auto after = eval(tmp / "op/vectorized", tmp / "cache");
  ASSERT_EQ(before.value("status", ""), "ok") << before.dump(2);
  expect_exact(after, 3);
  if (HasFatalFailure()) return;
  const double speedup = before["latency_us"].get<double>() / after["latency_us"].get<double>();
  std::cout << "complex_mat_dot: " << before["latency_us"] << " us -> " << after["latency_us"]
            << " us (simulated), x" << speedup << "\n";
  EXPECT_GT(speedup, 5.0);
  fs::remove_all(tmp);
}

TEST(MotifVectorizeEval, EveryLoopOfAMixedKernelStaysExactAloneAndTogether) {
  const fs::path op = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/element_mix";
  const fs::path tmp = fs::temp_directory_path() / ("aopt-vec-mix-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  const auto base = load_package(op);  // op_host (a link to add_custom's), op_kernel, aopt.json, reference.cpp
  aopt::motifs::parser parser;
  const auto* m = aopt::motifs::find_motif("vectorize_scalar_loop");
  ASSERT_NE(m, nullptr);
  aopt::motifs::source_set src(base, parser);
  const auto sites = aopt::motifs::sites_for(*m, src, aopt::motifs::direction::forward);
  ASSERT_EQ(sites.size(), 3u);
  std::vector<std::pair<std::string, aopt::motifs::file_set>> variants = {{"baseline", base}};
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const auto a = aopt::motifs::apply_site(*m, src, sites[i], aopt::motifs::direction::forward);
    ASSERT_TRUE(a.ok) << a.reason;
    variants.push_back({"site" + std::to_string(i), a.files});
  }
  aopt::motifs::file_set all = base;
  for (int round = 0; round < 3; ++round) {
    aopt::motifs::source_set cur(all, parser);
    const auto left = aopt::motifs::sites_for(*m, cur, aopt::motifs::direction::forward);
    ASSERT_EQ(left.size(), static_cast<std::size_t>(3 - round));
    const auto a = aopt::motifs::apply_site(*m, cur, left[0], aopt::motifs::direction::forward);
    ASSERT_TRUE(a.ok) << a.reason;
    all = a.files;
  }
  variants.push_back({"all", all});
  std::map<std::string, double> latency;
  for (const auto& [name, files] : variants) {
    SCOPED_TRACE(name);
    write_package(tmp / name, files);
    const auto r = eval(tmp / name, tmp / "cache");
    expect_exact(r, 3);
    if (HasFatalFailure()) return;
    latency[name] = r["latency_us"].get<double>();
    std::cout << "element_mix " << name << ": " << latency[name] << " us (simulated)\n";
  }
  EXPECT_GT(latency["baseline"] / latency["all"], 3.0);
  fs::remove_all(tmp);
}

// A motif fixture of tests/motifs/data evaluated as it is and with `motif` applied forward at
// its only site: the two `aopt eval` records (one cache); false when the motif does not apply.
struct before_after {
  nlohmann::json before, after;
};
std::optional<before_after> eval_fixture_and_forward(const char* fixture, const char* motif) {
  const fs::path op = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/motifs/data" / fixture;
  const fs::path tmp = fs::temp_directory_path() / ("aopt-" + std::string(motif) + "-eval-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  const auto base = load_package(op);
  write_package(tmp / "baseline", base);
  const auto a = forward_at_the_only_site(base, motif);
  if (!a.ok) {
    ADD_FAILURE() << motif << ": " << a.reason;
    return std::nullopt;
  }
  write_package(tmp / "forward", a.files);
  before_after r{eval(tmp / "baseline", tmp / "cache"), eval(tmp / "forward", tmp / "cache")};
  fs::remove_all(tmp);
  return r;
}

TEST(MotifSpreadEval, OneCoreKernelDealtOverEveryCoreIsExactAndFaster) {
  const auto r = eval_fixture_and_forward("spread_op", "spread_single_core");
  ASSERT_TRUE(r);
  const auto& [before, after] = *r;
  ASSERT_EQ(before.value("status", ""), "ok") << before.dump(2);
  expect_exact(after, 3);
  if (HasFatalFailure()) return;
  for (const auto& c : after["cases"]) EXPECT_GT(c["block_dim"].get<int>(), 1) << c.dump(2);
  for (const auto& c : before["cases"]) EXPECT_EQ(c["block_dim"].get<int>(), 1) << c.dump(2);
  const double speedup = before["latency_us"].get<double>() / after["latency_us"].get<double>();
  std::cout << "spread_op: " << before["latency_us"] << " us -> " << after["latency_us"] << " us (simulated), x" << speedup << "\n";
  EXPECT_GT(speedup, 3.0);
}

// stagger_ub_buffers: the fixture whose buffers all start in bank group 0 (eight cheap binary
// passes per tile) stays exact on every case, has fewer bank-group conflict cycles, and is faster.
TEST(MotifStaggerEval, StaggeredBuffersAreExactWithFewerConflictsAndFaster) {
  const auto r = eval_fixture_and_forward("stagger_op", "stagger_ub_buffers");
  ASSERT_TRUE(r);
  const auto& [before, after] = *r;
  expect_exact(before, 3);
  expect_exact(after, 3);
  if (HasFatalFailure()) return;
  auto conflicts = [](const nlohmann::json& j) {
    for (const auto& c : j["cases"]) {
      if (c.value("timed", false)) return c["profile"].value("aiv_vec_bankgroup_cflt_ratio", -1.0);
    }
    return -1.0;
  };
  const double speedup = before["latency_us"].get<double>() / after["latency_us"].get<double>();
  std::cout << "stagger_op: " << before["latency_us"] << " us -> " << after["latency_us"] << " us (simulated), x" << speedup
            << "; bank-group conflict ratio " << conflicts(before) << " -> " << conflicts(after) << "\n";
  EXPECT_GT(conflicts(before), 0.4);
  EXPECT_LT(conflicts(after), conflicts(before) * 0.6);
  EXPECT_GT(speedup, 1.04);
}
