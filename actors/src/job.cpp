#include "aopt/actors/job.hpp"

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/job_support.hpp"
#include "aopt/actors/runtime.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors {

using namespace protocols;

namespace {

std::vector<evaluator_actor> spawn_evaluators(caf::actor_system& sys,
                                              const std::vector<optimize::evaluate_fn>& slots) {
  if (slots.empty()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator slot is needed (give --slots >= 1)");
  }
  std::vector<evaluator_actor> out;
  for (std::size_t i = 0; i < slots.size(); ++i) out.push_back(spawn_evaluator(sys, slots[i], i));
  return out;
}

}  // namespace

optimize::optimize_result run_search(const search_spec& spec) {
  if (spec.engine == nullptr) {
    throw aopt::error(ec::invalid_argument,
                      "run_search: no proposal engine was given (search_spec.engine)");
  }
  spec.timeouts.validate();
  spec.config.validate();
  std::vector<optimize::package_evaluate_fn> slots;
  for (const auto& fn : spec.slots) {
    slots.emplace_back([fn](const std::string&, const optimize::eval_request& r) { return fn(r); });
  }
  runtime rt(std::move(slots), spec.timeouts);
  return rt.run_optimize(spec);
}

search::rewind_result run_rewind_job(const rewind_spec& spec) {
  spec.timeouts.validate();
  caf::actor_system_config cfg;
  caf::actor_system sys{with_message_types(cfg)};
  std::optional<search::rewind_result> result;
  std::exception_ptr failure;
  {
    auto evaluators = spawn_evaluators(sys, spec.slots);
    rewinder_config rc;
    rc.pool = spawn_evaluator_pool(sys, evaluators, spec.timeouts.evaluation);
    if (spec.learned) rc.distiller = spawn_distiller(sys, spec.learned);
    rc.parse = spec.parse;
    rc.package = spec.package;
    rc.timeouts = spec.timeouts;
    rc.engine = spec.engine;
    auto pool = rc.pool;
    auto distiller = rc.distiller;
    auto rewinder = spawn_rewinder(sys, std::move(rc));

    caf::scoped_actor self{sys};
    ask_local(self, rewinder, spec.timeouts.job, "run_rewind_job: the Rewinder", result, failure,
              rewind_atom::value, make_local(spec.seed_files), make_local(spec.config));
    flush(self, distiller, spec.timeouts.engine);
    stop_all(self, rewinder, pool, distiller);
    for (const auto& e : evaluators) stop_all(self, e);
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace aopt::actors
