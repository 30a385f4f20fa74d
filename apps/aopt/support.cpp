#include "support.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt_sim/profile.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

optimize::file_map load_files(const ev::op_package& pkg) {
  optimize::file_map files;
  for (const auto& rel : pkg.source_files()) {
    std::ifstream in(pkg.dir / rel, std::ios::binary);
    if (!in) {
      throw error(ec::io_error, fmt::format("{}: cannot read this source file of the package", (pkg.dir / rel).string()));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    files[rel] = ss.str();
  }
  return files;
}

optimize::eval_report to_report(const ev::eval_result& r) {
  optimize::eval_report out;
  out.status = r.status;
  out.ok = r.ok() && r.latency_us.has_value();
  out.diagnostic = r.diagnostic;
  if (r.ok() && !r.latency_us) {
    out.status = "runtime_error";
    out.diagnostic = "no timed case ran ok (no latency)";
  }
  if (r.latency_us) out.latency_us = *r.latency_us;
  if (r.bound.is_object() && r.bound.contains("bound_us") && r.bound["bound_us"].is_number()) {
    out.bound_us = r.bound["bound_us"].get<double>();
  }
  out.suspect = out.ok && out.bound_us && out.latency_us < *out.bound_us * (1.0 - 1e-9);
  out.cached = r.cached;
  out.backend = r.backend;
  out.profile_name = r.profile;
  for (const auto& c : r.cases) {
    if (r.timed_case && c.name == *r.timed_case) out.profile = c.profile;
  }
  if (out.bound_us && out.profile.is_object()) out.profile["bound_us"] = *out.bound_us;
  out.result = r.to_json();
  out.seconds = r.total_seconds;
  return out;
}

std::vector<optimize::evaluate_fn> make_sim_slots(std::shared_ptr<const ev::op_package> pkg, const slot_options& opt) {
  struct slot_state {
    // (input seed, fresh) -> evaluator; seed 0 = the package's; fresh: no result cache (remeasure)
    std::map<std::pair<std::uint64_t, bool>, std::unique_ptr<ev::evaluator>> by_seed;
  };
  const optimize::file_map base = load_files(*pkg);
  ev::check_case_memory(pkg->spec, ev::eval_options::default_limits().address_space_bytes);
  std::vector<optimize::evaluate_fn> out;
  for (std::size_t s = 0; s < std::max<std::size_t>(1, opt.slots); ++s) {
    auto state = std::make_shared<slot_state>();
    out.emplace_back([pkg, base, opt, state](const optimize::eval_request& req) {
      const bool fresh = req.stage == "remeasure";
      auto& e = state->by_seed[{req.input_seed.value_or(0), fresh}];
      if (!e) {
        ev::eval_options eo;
        eo.backend = opt.backend;
        eo.profile = opt.profile;
        eo.cann_config = opt.cann_config;
        eo.use_cache = opt.use_cache && !fresh;
        eo.cache_dir = opt.cache_dir;
        if (req.input_seed) eo.seed = *req.input_seed;
        e = std::make_unique<ev::evaluator>(eo);
      }
      ev::candidate cand(pkg);
      for (const auto& [path, text] : req.files) {
        auto it = base.find(path);
        if (it == base.end() || it->second != text) cand.replace(path, text);
      }
      cand.info().stage = req.stage;
      cand.info().round = req.round;
      cand.info().proposal = req.proposal;
      return to_report(e->evaluate(cand));
    });
  }
  return out;
}

optimize::offline_engine_config offline_config(const std::string& profile, std::uint64_t seed) {
  optimize::offline_engine_config cfg;
  cfg.seed = seed;
  const auto p = sim::load_profile(profile);
  cfg.mutator.limits.core_count = p.aiv_cores;
  cfg.mutator.limits.ub_bytes = static_cast<std::int64_t>(p.ub_bytes);
  cfg.diagnosis.ub_capacity_bytes = p.ub_bytes;
  return cfg;
}

std::size_t default_slots() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc <= 1 ? 1 : 2;
}

}  // namespace aopt::app
