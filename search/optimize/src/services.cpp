#include "aopt/optimize/services.h"

#include <atomic>
#include <cctype>
#include <exception>
#include <mutex>
#include <thread>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/search/retrieve.h"

namespace aopt::optimize {

stage1::synthesis_input synthesis_input_of(const file_map& files) {
  stage1::synthesis_input in;
  for (const auto& [path, content] : files) {
    if (path.starts_with("op_host/")) in.host_files.push_back({path, content});
    else if (path.starts_with("op_kernel/")) in.kernel_files.push_back({path, content});
  }
  return in;
}

std::vector<double> eval_report::samples() const {
  std::vector<double> out;
  if (result.is_object() && result.contains("measurement") && result["measurement"].is_object()) {
    for (const auto& v : result["measurement"].value("samples_us", nlohmann::json::array())) {
      if (v.is_number()) out.push_back(v.get<double>());
    }
  }
  if (out.empty()) out.push_back(latency_us);
  return out;
}

bool eval_report::out_of_ub() const {
  if (ok) return false;
  std::string d;
  for (char c : diagnostic) d.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // sim: "hardware error ub_overflow ..."; the CANN runtime's wording names the UB overflow too.
  return d.find("ub_overflow") != std::string::npos || d.find("ub overflow") != std::string::npos;
}

std::string files_key(const file_map& files) {
  common::sha256 h;
  for (const auto& [path, content] : files) {
    const std::uint64_t sizes[2] = {path.size(), content.size()};
    h.update(sizes, sizeof sizes);
    h.update(path);
    h.update(content);
  }
  return common::to_hex(h.finish());
}

struct local_services::impl {
  search::engine& engine;
  search::retriever retriever;
  std::vector<evaluate_fn> slots;
  std::function<void(const search::experience&)> learned;
};

local_services::local_services(search::engine& engine, std::vector<search::experience> bank,
                               std::vector<evaluate_fn> slots, std::function<void(const search::experience&)> learned)
    : impl_(std::make_unique<impl>(impl{engine, search::retriever(std::move(bank)), std::move(slots), std::move(learned)})) {
  if (impl_->slots.empty()) throw aopt::error(ec::invalid_argument, "local_services: at least one evaluator slot is needed");
}

local_services::~local_services() = default;

std::string local_services::engine_name() const { return impl_->engine.name(); }
std::size_t local_services::parallelism() const { return impl_->slots.size(); }

search::outcome<stage1::tiling_template> local_services::synthesize_template(const stage1::synthesis_input& input) {
  return impl_->engine.synthesize_template(input);
}

search::outcome<std::vector<stage1::tiling_proposal>> local_services::propose_tiling(
    const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) {
  return impl_->engine.propose_tiling_variants(tmpl, history, n);
}

search::outcome<search::diagnosis> local_services::diagnose(const nlohmann::json& profile, const file_map& code) {
  return impl_->engine.diagnose(profile, code);
}

std::vector<search::experience> local_services::retrieve(const search::diagnosis& d, std::size_t k) {
  std::vector<search::experience> out;
  for (const auto& hit : search::top_k_for(impl_->retriever, d, k)) out.push_back(impl_->retriever.at(hit.index));
  return out;
}

search::outcome<std::vector<search::kernel_rewrite>> local_services::refine(
    const file_map& files, const std::vector<search::experience>& tuples) {
  return impl_->engine.rewrite_kernel(files, tuples);
}

std::vector<eval_report> local_services::evaluate(const std::vector<eval_request>& batch) {
  std::vector<eval_report> out(batch.size());
  std::vector<std::exception_ptr> errors(batch.size());
  std::atomic<std::size_t> next{0};
  auto work = [&](std::size_t slot) {
    for (std::size_t i = next++; i < batch.size(); i = next++) {
      try {
        out[i] = impl_->slots[slot](batch[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t n = std::min(impl_->slots.size(), batch.size());
  if (n <= 1) {
    if (!batch.empty()) work(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::size_t s = 0; s < n; ++s) threads.emplace_back(work, s);
    for (auto& t : threads) t.join();
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return out;
}

void local_services::learn(const search::experience& accepted) {
  if (impl_->learned) impl_->learned(accepted);
}

}  // namespace aopt::optimize
