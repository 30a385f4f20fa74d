#include "aopt/optimize/services.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/search/retrieve.h"

namespace aopt::optimize {

bool is_kernel_file(const std::string& path) {
  if (path.starts_with("op_kernel/")) return true;
  if (!path.starts_with("aopt_shared/")) return false;
  return path.ends_with(".h") || path.ends_with(".hpp");
}

stage1::synthesis_input synthesis_input_of(const file_map& files) {
  stage1::synthesis_input in;
  for (const auto& [path, content] : files) {
    if (is_kernel_file(path)) in.kernel_files.push_back({path, content});
    else if (path.starts_with("op_host/") || path.starts_with("aopt_shared/")) in.host_files.push_back({path, content});
  }
  return in;
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

slot_runner::slot_runner(std::vector<evaluate_fn> slots) : slots_(std::move(slots)) {
  if (slots_.empty()) throw aopt::error(ec::invalid_argument, "slot_runner: at least one evaluator slot is needed");
}

std::vector<eval_report> slot_runner::evaluate(const std::vector<eval_request>& batch) {
  std::vector<eval_report> out(batch.size());
  std::vector<std::exception_ptr> errors(batch.size());
  std::atomic<std::size_t> next{0};
  auto work = [&](std::size_t slot) {
    for (std::size_t i = next++; i < batch.size(); i = next++) {
      try {
        out[i] = slots_[slot](batch[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t n = std::min(slots_.size(), batch.size());
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

struct bank_database::impl {
  search::retriever retriever;
  std::function<void(const search::experience&)> learned;
};

bank_database::bank_database(std::vector<search::experience> bank, std::function<void(const search::experience&)> learned)
    : impl_(std::make_unique<impl>(impl{search::retriever(std::move(bank)), std::move(learned)})) {}

bank_database::~bank_database() = default;

std::vector<search::experience> bank_database::retrieve(const search::diagnosis& d, std::size_t k) {
  std::vector<search::experience> out;
  for (const auto& hit : search::top_k_for(impl_->retriever, d, k)) out.push_back(impl_->retriever.at(hit.index));
  return out;
}

void bank_database::learn(const search::experience& accepted) {
  if (impl_->learned) impl_->learned(accepted);
}

}  // namespace aopt::optimize
