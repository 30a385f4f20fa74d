// Helpers of the actor tests: a deterministic fixture on CAF 0.17's test coordinator (helpers
// named after CAF 1.x's, so an upgrade is a rename), and scripted evaluators.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/protocols/actors.hpp"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors::test {

// Every actor runs on the test coordinator: nothing happens until the test dispatches
// messages, and time only moves when the test advances it.
class deterministic_fixture : public ::testing::Test {
 protected:
  static caf::actor_system_config& init(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    protocols::add_message_types(cfg);
    return cfg;
  }

  deterministic_fixture()
      : sys(init(cfg)),
        self(sys, true),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {}

  // Runs what is left and fires every pending timeout: a request timeout holds its actor alive,
  // and ~actor_system waits for all actors.
  // Stops every tracked actor, runs what is left and fires every pending timeout (a request
  // timeout holds its actor alive, and ~actor_system waits for all actors).
  ~deterministic_fixture() override {
    dispatch_messages();
    for (auto& a : tracked_) self->send_exit(a, caf::exit_reason::user_shutdown);
    tracked_.clear();
    dispatch_messages();
    while (sched.trigger_timeouts() > 0) dispatch_messages();
  }

  // Registers an actor to stop at the end of the test; returns it.
  template <class Handle>
  Handle track(Handle h) {
    tracked_.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }

  // Runs every actor until all mailboxes are empty (timeouts do not fire). Returns the count.
  std::size_t dispatch_messages() {
    std::size_t n = 0;
    while (sched.try_run_once()) ++n;
    return n;
  }

  // Moves the fake clock; fires the timeouts that expire. Returns how many fired.
  std::size_t advance_time(caf::timespan d) { return sched.advance_time(d); }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
  caf::scheduler::test_coordinator& sched;

 private:
  std::vector<caf::actor> tracked_;
};

// A scripted evaluator. Per slot a mode:
//   answer: replies at once with latency = 1000 * slot + the request's round;
//   hold:   keeps the request until the test calls release(); pings are answered;
//   hang:   keeps requests and pings forever;
//   die:    quits on its first request without answering.
enum class script { answer, hold, hang, die };

struct script_log {
  std::vector<std::pair<std::size_t, std::string>> received;  // (slot, proposal) in arrival order
  std::map<std::size_t, std::deque<caf::typed_response_promise<protocols::eval_report_wire>>> held;
  std::vector<caf::typed_response_promise<protocols::ping_atom>> held_pings;
  // Reports the test released, per slot: delivered by the evaluator itself on its next ping (a
  // promise must be delivered from its actor's context; outside it CAF 0.17 crashes).
  std::map<std::size_t, std::deque<double>> released;

  void deliver_released(std::size_t slot) {
    auto& lat = released[slot];
    auto& q = held[slot];
    while (!lat.empty() && !q.empty()) {
      optimize::eval_report r;
      r.ok = true;
      r.status = aopt::vocab::eval_status::ok;
      r.latency_us = lat.front();
      q.front().deliver(pack(r));
      q.pop_front();
      lat.pop_front();
    }
  }
};

inline protocols::evaluator_actor::behavior_type scripted_evaluator(
    protocols::evaluator_actor::pointer self, std::size_t slot, script mode,
    std::shared_ptr<script_log> log) {
  using namespace protocols;
  return {
      [=](evaluate_atom, const eval_request_wire& w) -> caf::result<eval_report_wire> {
        const auto m = unpack(w);
        log->received.emplace_back(slot, m.proposal);
        if (mode == script::answer) {
          optimize::eval_report r;
          r.ok = true;
          r.status = aopt::vocab::eval_status::ok;
          r.latency_us = 1000.0 * static_cast<double>(slot) + m.round;
          return pack(r);
        }
        if (mode == script::die) {
          self->quit(caf::exit_reason::user_shutdown);
          return caf::make_error(caf::sec::runtime_error, "scripted death");
        }
        auto p = self->make_response_promise<eval_report_wire>();
        log->held[slot].push_back(p);
        return p;
      },
      [=](ping_atom) -> caf::result<ping_atom> {
        log->deliver_released(slot);
        if (mode == script::hang) {
          auto p = self->make_response_promise<ping_atom>();
          log->held_pings.push_back(p);
          return p;
        }
        return ping_atom::value;
      },
  };
}

inline optimize::eval_request request_record(int round, const std::string& proposal) {
  optimize::eval_request m;
  m.package = "test_op";
  m.files = {{"op_kernel/k.cpp", "// " + proposal}};
  m.stage = aopt::vocab::eval_stage::kernel;
  m.round = round;
  m.proposal = proposal;
  return m;
}

inline protocols::eval_envelope request(int round, const std::string& proposal) {
  return pack_routed(request_record(round, proposal));
}

}  // namespace aopt::actors::test
