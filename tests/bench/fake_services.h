// A deterministic `services` for the bench tests (the dummy twin of local_services): a synthetic
// operator whose host file holds three tunables and whose kernel file collects rewrite markers.
// Latency is a known function of the files, so every test knows what each candidate costs,
// which ones fail and which ones are suspect. It records every request it was sent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aopt/optimize/services.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::bench::test {

inline const char* const host_path = "op_host/fake_tiling.cpp";
inline const char* const kernel_path = "op_kernel/fake_kernel.cpp";

inline optimize::file_map base_files() {
  return {{host_path, "// tiling\nconstexpr int TILE = 64;\nconstexpr int BUF = 1;\nconstexpr int CORES = 8;\n"},
          {kernel_path, "// kernel\n"},
          {"op_host/fake_tiling.h", "// unchanged header\n"}};
}

// The rewrites the fake refine knows. Latency factor (multiplies the tiling latency):
//   VEC 0.7, PIPE 0.9, BROKEN fails to compile, MAGIC is suspect (faster than the bound),
//   FLAKY 0.5 but fails when checked on fresh inputs (input_seed set).
inline const std::vector<std::string>& motif_names() {
  static const std::vector<std::string> names{"VEC", "PIPE", "BROKEN", "MAGIC", "FLAKY"};
  return names;
}

struct fake_options {
  std::size_t parallelism = 3;
  bool has_template = true;
  bool has_rewrites = true;
  bool base_fails = false;
  std::vector<std::string> motifs = motif_names();
};

class fake_services final : public search::engine, public optimize::runner, public optimize::database {
 public:
  explicit fake_services(fake_options o = {}) : o_(std::move(o)) {}
  operator optimize::services() { return {*this, *this, *this}; }  // NOLINT: implicit on purpose

  // What the fake saw.
  std::vector<optimize::eval_request> requests;  // every request, verification included
  std::vector<std::size_t> batch_sizes;          // size of every evaluate() call
  std::size_t failures_reported = 0;             // non-verify reports that were not ok
  std::size_t refine_calls = 0;

  std::size_t evaluations() const {  // budget-relevant requests (not "verify")
    return static_cast<std::size_t>(std::count_if(requests.begin(), requests.end(),
                                                  [](const auto& r) { return r.stage != aopt::vocab::eval_stage::verify; }));
  }
  std::size_t verifications() const { return requests.size() - evaluations(); }

  std::string name() const override { return "fake"; }
  std::size_t parallelism() const override { return o_.parallelism; }

  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override {
    if (!o_.has_template) return search::engine_failure{"no tiling function in the fake"};
    for (const auto& f : input.host_files) {
      if (f.path == host_path) return make_template(f.content);
    }
    return search::engine_failure{"fake: host file missing"};
  }

  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(const stage1::tiling_template& tmpl,
                                                                                const stage1::stage1_history& history,
                                                                                std::size_t n) override {
    // One seeded mutator per call, seeded by the call number: deterministic, and successive
    // calls give different variants (as the offline engine's persistent mutator does).
    stage1::mutator m(tmpl, stage1::mutator_config{}, 1000 + propose_calls_++);
    auto out = m.propose(history, n);
    for (auto& p : out) p.files = tmpl.instantiate(p.values);
    return out;
  }

  search::outcome<std::vector<search::deopt_step>> deoptimize(const optimize::file_map&) override {
    return search::engine_failure{"the baselines never rewind"};
  }
  search::outcome<search::experience> distill(const search::deopt_step&) override {
    return search::engine_failure{"the baselines never rewind"};
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json&, const optimize::file_map&) override {
    return search::engine_failure{"the baselines never diagnose"};
  }
  std::vector<search::experience> retrieve(const search::diagnosis&, std::size_t) override { return {}; }

  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(const optimize::file_map& files,
                                                                      const std::vector<search::experience>& tuples) override {
    ++refine_calls;
    if (!tuples.empty()) ADD_FAILURE() << "baselines must ask for unguided rewrites (no tuples)";
    if (!o_.has_rewrites) return search::engine_failure{"no rewrite site in the fake"};
    std::vector<search::kernel_rewrite> out;
    const std::string& k = files.at(kernel_path);
    for (const auto& m : o_.motifs) {
      if (k.find("// " + m + "\n") != std::string::npos) continue;
      search::kernel_rewrite rw;
      rw.files[kernel_path] = k + "// " + m + "\n";
      rw.title = "apply " + m;
      rw.rationale = "fake motif " + m;
      out.push_back(std::move(rw));
    }
    return out;
  }

  std::vector<optimize::eval_report> evaluate(const std::vector<optimize::eval_request>& batch) override {
    batch_sizes.push_back(batch.size());
    std::vector<optimize::eval_report> out;
    for (const auto& r : batch) {
      requests.push_back(r);
      out.push_back(judge(r));
      if (r.stage != aopt::vocab::eval_stage::verify && !out.back().ok) ++failures_reported;
    }
    return out;
  }

  // The latency the fake gives `files` (nullopt when it fails), for test expectations.
  static std::optional<double> latency_of(const optimize::file_map& files) {
    const auto& h = files.at(host_path);
    const double tile = value(h, "TILE"), buf = value(h, "BUF"), cores = value(h, "CORES");
    if (tile == 256 && buf == 2) return std::nullopt;  // UB overflow
    double lat = 1000.0 / cores * (1.0 + 16.0 / tile) * (buf == 2 ? 0.8 : 1.0);
    const auto& k = files.at(kernel_path);
    if (has(k, "BROKEN")) return std::nullopt;
    if (has(k, "VEC")) lat *= 0.7;
    if (has(k, "PIPE")) lat *= 0.9;
    if (has(k, "FLAKY")) lat *= 0.5;
    if (has(k, "MAGIC")) lat = 0.5;
    return lat;
  }
  static bool has(const std::string& kernel, const std::string& m) {
    return kernel.find("// " + m + "\n") != std::string::npos;
  }

 private:
  static double value(const std::string& host, const std::string& name) {
    std::smatch m;
    const std::regex re(name + " = ([0-9]+);");
    if (!std::regex_search(host, m, re)) ADD_FAILURE() << "fake: no " << name << " in host file";
    return std::stod(m[1].str());
  }

  optimize::eval_report judge(const optimize::eval_request& r) const {
    optimize::eval_report rep;
    rep.backend = "sim";
    rep.profile_name = "fake910";
    const auto& k = r.files.at(kernel_path);
    if (o_.base_fails || has(k, "BROKEN")) {
      rep.status = aopt::vocab::eval_status::compile_error;
      rep.diagnostic = "fake: does not compile";
      return rep;
    }
    const auto lat = latency_of(r.files);
    if (!lat) {
      rep.status = aopt::vocab::eval_status::resource_error;
      rep.diagnostic = "fake: UB overflow";
      return rep;
    }
    if (r.input_seed && has(k, "FLAKY")) {
      rep.status = aopt::vocab::eval_status::precision_error;
      rep.diagnostic = "fake: wrong on fresh inputs";
      return rep;
    }
    rep.ok = true;
    rep.status = aopt::vocab::eval_status::ok;
    rep.latency_us = *lat;
    rep.bound_us = 2.0;  // MAGIC (0.5 us) is under the roofline: suspect
    rep.profile = {{"aiv_vec_ratio", 0.5}};
    return rep;
  }

  static stage1::tiling_template make_template(const std::string& host) {
    stage1::tiling_template t;
    t.files.push_back({host_path, host});
    t.function_name = "FakeTiling";
    t.function_begin = 0;
    t.function_end = host.size();
    auto add = [&](const std::string& name, stage1::tunable_kind kind, std::vector<std::int64_t> choices) {
      const std::string key = name + " = ";
      const auto at = host.find(key);
      const auto begin = at + key.size();
      const auto end = host.find(';', begin);
      stage1::tunable u;
      u.name = name;
      u.kind = kind;
      u.value = std::stoll(host.substr(begin, end - begin));
      u.dom.kind = stage1::domain_kind::choices;
      u.dom.choices = std::move(choices);
      u.occurrences.push_back({0, begin, end - begin, host.substr(begin, end - begin), 0});
      u.origin = "constexpr " + name;
      t.tunables.push_back(std::move(u));
    };
    add("TILE", stage1::tunable_kind::size, {16, 32, 64, 128, 256});
    add("BUF", stage1::tunable_kind::buffer_num, {1, 2});
    add("CORES", stage1::tunable_kind::block_dim, {1, 2, 4, 8});
    return t;
  }

  fake_options o_;
  std::uint64_t propose_calls_ = 0;
};

}  // namespace aopt::bench::test
