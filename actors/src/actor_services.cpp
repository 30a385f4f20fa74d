#include "aopt/actors/actor_services.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/common/error.h"

namespace aopt::actors {

using namespace protocols;

struct actor_services::impl {
  impl(caf::actor_system& sys, service_actors a, search_id j, std::string pkg, std::string cls, actor_timeouts t)
      : self(sys), actors(std::move(a)), job(j), package(std::move(pkg)), device_class(std::move(cls)), timeouts(t) {}

  // One blocking round trip. No answer in time, or an error reply, is a system fault.
  template <class Result, class Handle, class... Ts>
  Result ask(const Handle& dest, std::chrono::milliseconds timeout, const char* role, Ts&&... xs) {
    if (!dest) {
      throw aopt::error(ec::internal,
                        std::string("actor_services: no ") + role + " actor was given");
    }
    std::optional<Result> out;
    caf::error err;
    self->request(dest, timeout, std::forward<Ts>(xs)...)
        .receive([&](Result& r) { out = std::move(r); },
                 [&](caf::error& e) { err = std::move(e); });
    if (!out) {
      throw aopt::error(ec::internal,
                        std::string("actor_services: the ") + role +
                            " did not answer: " + self->system().render(err) +
                            " (it stopped, or took longer than its actor_timeouts entry)");
    }
    return std::move(*out);
  }

  caf::scoped_actor self;
  service_actors actors;
  search_id job = 0;
  std::string package;
  std::string device_class;
  actor_timeouts timeouts;
  std::string engine_name;
  std::size_t parallelism = 1;
};

actor_services::actor_services(caf::actor_system& sys, service_actors actors, search_id job,
                               std::string package, std::string device_class, actor_timeouts timeouts)
    : impl_(std::make_unique<impl>(sys, std::move(actors), job, std::move(package), std::move(device_class),
                                   timeouts)) {
  timeouts.validate();
  impl_->engine_name = impl_->ask<std::string>(impl_->actors.mutator, timeouts.engine, "Mutator",
                                               name_atom::value, job);
  const auto n = impl_->ask<std::uint64_t>(impl_->actors.pool, timeouts.engine, "evaluator pool",
                                           parallelism_atom::value, impl_->device_class);
  if (n == 0) {
    throw aopt::error(
        ec::invalid_argument,
        "actor_services: the evaluator pool has no usable evaluator; give it at least one slot");
  }
  impl_->parallelism = static_cast<std::size_t>(n);
}

actor_services::~actor_services() = default;

std::string actor_services::name() const {
  return impl_->engine_name;
}

std::size_t actor_services::parallelism() const {
  return impl_->parallelism;
}

search::outcome<stage1::tiling_template> actor_services::synthesize_template(
    const stage1::synthesis_input& input) {
  auto r =
      impl_->ask<local<template_outcome>>(impl_->actors.mutator, impl_->timeouts.engine, "Mutator",
                                          synthesize_atom::value, impl_->job, make_local(input));
  return r.get();
}

search::outcome<std::vector<stage1::tiling_proposal>> actor_services::propose_tiling_variants(
    const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) {
  // The template's identity is its content (stage1::template_id), never this object's address.
  auto r = impl_->ask<local<proposals_outcome>>(
      impl_->actors.mutator, impl_->timeouts.engine, "Mutator", propose_atom::value, impl_->job,
      make_local(tmpl), make_local(history), static_cast<std::uint64_t>(n));
  return r.get();
}

search::outcome<std::vector<search::deopt_step>> actor_services::deoptimize(const optimize::file_map&) {
  return search::engine_failure{"de-optimization is the Rewinder's, not the optimizer's actors'"};
}

search::outcome<search::experience> actor_services::distill(const search::deopt_step&) {
  return search::engine_failure{"distillation of rewind steps is the Rewinder's, not the optimizer's actors'"};
}

search::outcome<search::diagnosis> actor_services::diagnose(const nlohmann::json& profile,
                                                            const optimize::file_map& code) {
  auto r = impl_->ask<local<diagnosis_outcome>>(impl_->actors.diagnoser, impl_->timeouts.engine,
                                                "Diagnoser", diagnose_atom::value, impl_->job,
                                                make_local(profile), make_local(code));
  return r.get();
}

std::vector<search::experience> actor_services::retrieve(const search::diagnosis& d,
                                                         std::size_t k) {
  auto r = impl_->ask<local<experiences>>(impl_->actors.retriever, impl_->timeouts.engine,
                                          "Retriever", retrieve_atom::value, impl_->job, make_local(d),
                                          static_cast<std::uint64_t>(k));
  return r.get();
}

search::outcome<std::vector<search::kernel_rewrite>> actor_services::rewrite_kernel(
    const optimize::file_map& files, const std::vector<search::experience>& tuples) {
  auto r = impl_->ask<local<rewrites_outcome>>(impl_->actors.refiner, impl_->timeouts.engine,
                                               "Refiner", refine_atom::value, impl_->job, make_local(files),
                                               make_local(tuples));
  return r.get();
}

std::vector<optimize::eval_report> actor_services::evaluate(
    const std::vector<optimize::eval_request>& batch) {
  if (batch.empty()) return {};
  std::vector<eval_envelope> msgs;
  msgs.reserve(batch.size());
  for (const auto& r : batch) {
    auto named = r;
    named.package = impl_->package;
    msgs.push_back(pack_routed(named));
  }
  // The pool answers every batch within its own timeouts (each request: one evaluation timeout,
  // plus one ping timeout before its slot is reused); this bound only guards against a pool
  // that is gone.
  const auto p = std::max<std::size_t>(impl_->parallelism, 1);
  const auto waves = static_cast<std::int64_t>((batch.size() + p - 1) / p);
  // Requests re-queued after a lost node take up to two more evaluations each.
  const auto bound = impl_->timeouts.evaluation * (2 * waves + 5);
  const auto answer = impl_->ask<eval_reports>(impl_->actors.pool, bound, "evaluator pool", evaluate_atom::value,
                                               impl_->package, impl_->device_class, std::move(msgs));
  const auto& reports = answer.get();
  if (reports.size() != batch.size()) {
    throw aopt::error(ec::internal, "actor_services: the evaluator pool answered " +
                                        std::to_string(reports.size()) + " reports for " +
                                        std::to_string(batch.size()) + " requests");
  }
  return reports;
}

void actor_services::learn(const search::experience& accepted) {
  // Fire and forget: the Distiller hands it to the bank in order; run_search flushes it.
  if (impl_->actors.distiller)
    caf::anon_send(impl_->actors.distiller, learn_atom::value, impl_->job, make_local(accepted));
}

}  // namespace aopt::actors
