// The Mutator, Diagnoser, Refiner (engine calls), Retriever (bank retrieval), Distiller (bank
// sink) and the progress listener. Each handler is one engine or library call; a system fault
// (an exception) travels back inside the local reply and is rethrown by the requester.
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/log.h"
#include "aopt/search/retrieve.h"

namespace aopt::actors {

using namespace protocols;

namespace {

// Runs `f` and wraps its value, or the exception it threw, into a local reply.
template <class T, class F>
local<T> guarded(F&& f) {
  try {
    return make_local<T>(f());
  } catch (...) {
    return local_error<T>(std::current_exception());
  }
}

// -- Mutator --------------------------------------------------------------------------------

struct mutator_state {
  static inline const char* name = "aopt.mutator";
  // The engine keeps per-template state keyed by the template object's address (the offline
  // engine's mutator). The caller's template arrives as a copy, so the Mutator keeps one object
  // per caller identity and refreshes its contents in place: the engine sees a stable address
  // exactly while the caller's address is stable, and always the caller's current contents.
  std::uint64_t identity = 0;
  std::unique_ptr<stage1::tiling_template> held;
};

stage1::tiling_template& hold(mutator_state& st, std::uint64_t identity,
                              const stage1::tiling_template& t) {
  if (!st.held || st.identity != identity) {
    // The new object is allocated before the old one is freed: a new identity never gets the
    // old address, so the engine starts afresh.
    auto fresh = std::make_unique<stage1::tiling_template>(t);
    st.held = std::move(fresh);
    st.identity = identity;
  } else {
    *st.held = t;
  }
  return *st.held;
}

mutator_actor::behavior_type mutator_behavior(mutator_actor::stateful_pointer<mutator_state> self,
                                              std::shared_ptr<shared_engine> engine) {
  return {
      [engine](name_atom) { return engine->name(); },
      [engine](synthesize_atom, const local<stage1::synthesis_input>& in) {
        return guarded<template_outcome>([&] {
          return engine->call([&](search::engine& e) { return e.synthesize_template(in.get()); });
        });
      },
      [self, engine](propose_atom, std::uint64_t identity,
                     const local<stage1::tiling_template>& tmpl,
                     const local<stage1::stage1_history>& history, std::uint64_t n) {
        return guarded<proposals_outcome>([&] {
          auto& t = hold(self->state, identity, tmpl.get());
          return engine->call([&](search::engine& e) {
            return e.propose_tiling_variants(t, history.get(), static_cast<std::size_t>(n));
          });
        });
      },
  };
}

// -- Diagnoser, Refiner ----------------------------------------------------------------------

diagnoser_actor::behavior_type diagnoser_behavior(diagnoser_actor::pointer self,
                                                  std::shared_ptr<shared_engine> engine) {
  (void)self;
  return {
      [engine](diagnose_atom, const local<nlohmann::json>& profile, const local<file_map>& code) {
        return guarded<diagnosis_outcome>([&] {
          return engine->call(
              [&](search::engine& e) { return e.diagnose(profile.get(), code.get()); });
        });
      },
  };
}

refiner_actor::behavior_type refiner_behavior(refiner_actor::pointer self,
                                              std::shared_ptr<shared_engine> engine) {
  (void)self;
  return {
      [engine](refine_atom, const local<file_map>& files, const local<experiences>& tuples) {
        return guarded<rewrites_outcome>([&] {
          return engine->call(
              [&](search::engine& e) { return e.rewrite_kernel(files.get(), tuples.get()); });
        });
      },
  };
}

// -- Retriever ------------------------------------------------------------------------------

retriever_actor::behavior_type retriever_behavior(retriever_actor::pointer self,
                                                  std::shared_ptr<const search::retriever> index) {
  (void)self;
  return {
      [index](retrieve_atom, const local<search::diagnosis>& d, std::uint64_t k) {
        return guarded<experiences>([&] {
          experiences out;
          for (const auto& hit : search::top_k_for(*index, d.get(), static_cast<std::size_t>(k))) {
            out.push_back(index->at(hit.index));
          }
          return out;
        });
      },
  };
}

// -- Distiller, progress listener ------------------------------------------------------------

distiller_actor::behavior_type distiller_behavior(
    distiller_actor::pointer self, std::function<void(const search::experience&)> sink) {
  (void)self;
  return {
      [sink](learn_atom, const local<search::experience>& tuple) {
        try {
          if (sink) sink(tuple.get());
        } catch (const std::exception& e) {
          common::logger()->warn("distiller: a tuple was not stored and is dropped: {}", e.what());
        } catch (...) {
          common::logger()->warn(
              "distiller: a tuple was not stored and is dropped (unknown exception)");
        }
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

progress_listener_actor::behavior_type listener_behavior(progress_listener_actor::pointer self,
                                                         optimize::progress_fn fn) {
  (void)self;
  return {
      [fn](progress_atom, const progress_msg& m) {
        optimize::progress_event e;
        e.kind = m.kind;
        e.message = m.message;
        optimize::trajectory_point p;
        if (m.has_point) {
          p = point_of(m);
          e.point = &p;
        }
        try {
          if (fn) fn(e);
        } catch (const std::exception& ex) {
          common::logger()->warn("progress listener: the callback failed: {}", ex.what());
        }
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

template <class F, class... Ts>
auto spawn_as(caf::actor_system& sys, spawn_mode mode, F f, Ts&&... xs) {
  if (mode == spawn_mode::detached) return sys.spawn<caf::detached>(f, std::forward<Ts>(xs)...);
  return sys.spawn(f, std::forward<Ts>(xs)...);
}

}  // namespace

mutator_actor spawn_mutator(caf::actor_system& sys, std::shared_ptr<shared_engine> engine,
                            spawn_mode mode) {
  return spawn_as(sys, mode, mutator_behavior, std::move(engine));
}

diagnoser_actor spawn_diagnoser(caf::actor_system& sys, std::shared_ptr<shared_engine> engine,
                                spawn_mode mode) {
  return spawn_as(sys, mode, diagnoser_behavior, std::move(engine));
}

refiner_actor spawn_refiner(caf::actor_system& sys, std::shared_ptr<shared_engine> engine,
                            spawn_mode mode) {
  return spawn_as(sys, mode, refiner_behavior, std::move(engine));
}

retriever_actor spawn_retriever(caf::actor_system& sys, std::vector<search::experience> bank,
                                spawn_mode mode, std::unique_ptr<search::ranker> ranker) {
  auto index = std::make_shared<const search::retriever>(std::move(bank), std::move(ranker));
  return spawn_as(sys, mode, retriever_behavior, std::move(index));
}

distiller_actor spawn_distiller(caf::actor_system& sys,
                                std::function<void(const search::experience&)> sink,
                                spawn_mode mode) {
  return spawn_as(sys, mode, distiller_behavior, std::move(sink));
}

progress_listener_actor spawn_progress_listener(caf::actor_system& sys, optimize::progress_fn fn,
                                                spawn_mode mode) {
  return spawn_as(sys, mode, listener_behavior, std::move(fn));
}

}  // namespace aopt::actors
