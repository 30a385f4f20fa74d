// The Evaluator (one per slot) and the evaluator pool.
//
// The pool keeps a FIFO of (batch, index) items per package (job) and hands the next item to
// the lowest-numbered free evaluator, taking the packages in turn (round-robin), so one
// evaluator never runs two requests at once, a batch spreads over all of them, and jobs that
// share the evaluators get them fairly. Each hand-over is a request with a finite timeout. Slot states:
//   free  -> busy   an item was handed over
//   busy  -> free   the report came back
//   busy  -> stale  the request timed out: the item gets a "timeout" report; the evaluator may
//                   still be working, so it gets a ping, answered after its current request
//   stale -> free   the ping came back
//   any   -> lost   the evaluator died (down message, error reply) or ignored the ping: its item
//                   gets a "runtime_error" report and it is never used again
// When no slot is left that could ever become free, queued items fail at once: a batch always
// completes, in request order, with one report per request.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"

namespace aopt::actors {

using eval_report_msg = protocols::eval_report_wire;
using eval_request_msg = protocols::eval_request_wire;
using optimize::failure_report;
using protocols::evaluate_atom;
using protocols::evaluator_actor;
using protocols::evaluator_pool_actor;
using protocols::parallelism_atom;
using protocols::ping_atom;

namespace {

// -- Evaluator ----------------------------------------------------------------------------

eval_report_msg evaluate_one(const optimize::package_evaluate_fn& fn, std::size_t slot,
                             const eval_request_msg& m) {
  const auto where = "evaluator slot " + std::to_string(slot);
  try {
    const auto request = unpack(m);
    return pack(fn(request.package, request));
  } catch (const std::exception& e) {
    return pack(failure_report("runtime_error",
                               where + " failed while evaluating this candidate: " + e.what() +
                                   " (a fault of the evaluator, not necessarily of the candidate)"));
  } catch (...) {
    return pack(failure_report("runtime_error", where + " failed with an unknown exception"));
  }
}

evaluator_actor::behavior_type evaluator_behavior(evaluator_actor::pointer self,
                                                  optimize::package_evaluate_fn fn, std::size_t slot) {
  (void)self;
  return {
      [fn, slot](evaluate_atom, const eval_request_msg& m) { return evaluate_one(fn, slot, m); },
      [](ping_atom) { return ping_atom::value; },
  };
}

// -- Pool ---------------------------------------------------------------------------------

enum class slot_state { free, busy, stale, lost };

struct pool_slot {
  evaluator_actor handle;
  slot_state state = slot_state::free;
  std::uint64_t ticket = 0;  // the item it is working on, while busy
};

struct pool_item {
  std::uint64_t batch = 0;
  std::size_t index = 0;
};

struct pool_batch {
  std::vector<eval_request_msg> requests;
  std::vector<eval_report_msg> reports;
  std::size_t remaining = 0;
  caf::typed_response_promise<std::vector<eval_report_msg>> promise;
};

struct pool_state {
  static inline const char* name = "aopt.evaluator_pool";
  std::vector<pool_slot> slots;
  std::map<std::string, std::deque<pool_item>> queues;  // by package; no empty queue is kept
  std::string last_served;                              // the package served last
  std::map<std::uint64_t, pool_batch> batches;
  std::map<std::uint64_t, std::pair<pool_item, std::size_t>> in_flight;  // ticket -> (item, slot)
  std::uint64_t next_batch = 1;
  std::uint64_t next_ticket = 1;
  caf::timespan timeout{};
};

using pool_pointer = evaluator_pool_actor::stateful_pointer<pool_state>;

std::string ms_text(caf::timespan t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(t).count()) + " ms";
}

void finish(pool_pointer self, const pool_item& item, eval_report_msg report) {
  auto it = self->state.batches.find(item.batch);
  if (it == self->state.batches.end()) return;
  auto& b = it->second;
  b.reports[item.index] = std::move(report);
  if (--b.remaining == 0) {
    b.promise.deliver(std::move(b.reports));
    self->state.batches.erase(it);
  }
}

void dispatch(pool_pointer self);

// Fails the item a slot works on (if any) and takes the slot out of service.
void lose_slot(pool_pointer self, std::size_t slot, const std::string& why) {
  auto& s = self->state.slots[slot];
  if (s.state == slot_state::busy) {
    auto it = self->state.in_flight.find(s.ticket);
    if (it != self->state.in_flight.end()) {
      auto item = it->second.first;
      self->state.in_flight.erase(it);
      finish(self, item,
             pack(failure_report("runtime_error", "evaluator slot " + std::to_string(slot) + " " + why)));
    }
  }
  s.state = slot_state::lost;
}

void on_report(pool_pointer self, std::uint64_t ticket, eval_report_msg report) {
  auto it = self->state.in_flight.find(ticket);
  if (it == self->state.in_flight.end()) return;  // already failed (down message first)
  auto [item, slot] = it->second;
  self->state.in_flight.erase(it);
  self->state.slots[slot].state = slot_state::free;
  finish(self, item, std::move(report));
  dispatch(self);
}

void ping(pool_pointer self, std::size_t slot) {
  self->request(self->state.slots[slot].handle, self->state.timeout, ping_atom::value)
      .then(
          [self, slot](ping_atom) {
            auto& s = self->state.slots[slot];
            if (s.state == slot_state::stale) s.state = slot_state::free;
            dispatch(self);
          },
          [self, slot](caf::error&) {
            // Still busy after two timeouts (or gone): never used again. Its thread may still
            // be running the evaluation; the actor system waits for it at shutdown.
            self->state.slots[slot].state = slot_state::lost;
            dispatch(self);
          });
}

void on_error(pool_pointer self, std::uint64_t ticket, const caf::error& err) {
  auto it = self->state.in_flight.find(ticket);
  if (it == self->state.in_flight.end()) return;
  auto [item, slot] = it->second;
  if (err == caf::sec::request_timeout) {
    self->state.in_flight.erase(it);
    self->state.slots[slot].state = slot_state::stale;
    finish(self, item,
           pack(failure_report("timeout", "evaluator slot " + std::to_string(slot) +
                                              " did not answer within " + ms_text(self->state.timeout) +
                                              " (actor_timeouts.evaluation); raise it for slow devices")));
    ping(self, slot);
  } else {
    lose_slot(self, slot, "failed: " + self->system().render(err));
  }
  dispatch(self);
}

// The next item, taking the packages in turn after the one served last.
pool_item pop_next(pool_state& st) {
  auto it = st.queues.upper_bound(st.last_served);
  if (it == st.queues.end()) it = st.queues.begin();
  auto item = it->second.front();
  it->second.pop_front();
  st.last_served = it->first;
  if (it->second.empty()) st.queues.erase(it);
  return item;
}

void dispatch(pool_pointer self) {
  auto& st = self->state;
  while (!st.queues.empty()) {
    auto free_slot = std::find_if(st.slots.begin(), st.slots.end(),
                                  [](const pool_slot& s) { return s.state == slot_state::free; });
    if (free_slot == st.slots.end()) {
      const bool any_hope = std::any_of(st.slots.begin(), st.slots.end(), [](const pool_slot& s) {
        return s.state != slot_state::lost;
      });
      if (any_hope) return;  // wait for a report or a ping
      // Nothing can ever run the queued items: fail them now instead of hanging the batch.
      while (!st.queues.empty()) {
        auto item = pop_next(st);
        finish(self, item,
               pack(failure_report("runtime_error", "no evaluator left: all " +
                                                        std::to_string(st.slots.size()) +
                                                        " evaluator slots died or stopped answering")));
      }
      return;
    }
    const auto slot = static_cast<std::size_t>(free_slot - st.slots.begin());
    auto item = pop_next(st);
    const auto ticket = st.next_ticket++;
    free_slot->state = slot_state::busy;
    free_slot->ticket = ticket;
    st.in_flight.emplace(ticket, std::make_pair(item, slot));
    const auto& request = st.batches.at(item.batch).requests[item.index];
    self->request(free_slot->handle, st.timeout, evaluate_atom::value, request)
        .then([self, ticket](eval_report_msg& r) { on_report(self, ticket, std::move(r)); },
              [self, ticket](caf::error& e) { on_error(self, ticket, e); });
  }
}

caf::typed_response_promise<std::vector<eval_report_msg>> on_batch(
    pool_pointer self, const std::string& package, std::vector<eval_request_msg> batch) {
  auto& st = self->state;
  auto promise = self->make_response_promise<std::vector<eval_report_msg>>();
  if (batch.empty()) {
    promise.deliver(std::vector<eval_report_msg>{});
    return promise;
  }
  const auto id = st.next_batch++;
  pool_batch b;
  b.remaining = batch.size();
  b.reports.resize(batch.size());
  b.requests = std::move(batch);
  b.promise = promise;
  auto& queue = st.queues[package];
  for (std::size_t i = 0; i < b.requests.size(); ++i) queue.push_back({id, i});
  st.batches.emplace(id, std::move(b));
  dispatch(self);
  return promise;
}

evaluator_pool_actor::behavior_type pool_behavior(pool_pointer self,
                                                  std::vector<evaluator_actor> evaluators,
                                                  caf::timespan timeout) {
  self->state.timeout = timeout;
  for (auto& e : evaluators) {
    self->monitor(e);
    self->state.slots.push_back({std::move(e), slot_state::free, 0});
  }
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& slots = self->state.slots;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].handle.address() == dm.source && slots[i].state != slot_state::lost) {
        lose_slot(
            self, i,
            "stopped (" + self->system().render(dm.reason) + ") while evaluating this candidate");
      }
    }
    dispatch(self);
  });
  return {
      [self](evaluate_atom, const std::string& package, std::vector<eval_request_msg>& batch) {
        return on_batch(self, package, std::move(batch));
      },
      [self](parallelism_atom) {
        const auto& slots = self->state.slots;
        return static_cast<std::uint64_t>(
            std::count_if(slots.begin(), slots.end(),
                          [](const pool_slot& s) { return s.state != slot_state::lost; }));
      },
  };
}

}  // namespace

evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::evaluate_fn fn, std::size_t slot,
                                spawn_mode mode) {
  return spawn_evaluator(
      sys,
      optimize::package_evaluate_fn(
          [fn = std::move(fn)](const std::string&, const optimize::eval_request& r) { return fn(r); }),
      slot, mode);
}

evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::package_evaluate_fn fn,
                                std::size_t slot, spawn_mode mode) {
  if (mode == spawn_mode::detached)
    return sys.spawn<caf::detached>(evaluator_behavior, std::move(fn), slot);
  return sys.spawn(evaluator_behavior, std::move(fn), slot);
}

evaluator_pool_actor spawn_evaluator_pool(caf::actor_system& sys,
                                          std::vector<evaluator_actor> evaluators,
                                          std::chrono::milliseconds timeout) {
  return sys.spawn(pool_behavior, std::move(evaluators), caf::timespan{timeout});
}

}  // namespace aopt::actors
