// The Evaluator (one per device) and the evaluator pool.
//
// The pool keeps a FIFO of (batch, index) items per package (job), each package bound to a
// device class (a profile), and hands the next item to the lowest-numbered free device of that
// class, taking the packages in turn (round-robin), so one device never runs two requests at
// once, a batch spreads over every device of its class, and jobs that share the devices get
// them fairly. Devices are this process's evaluators and the ones remote nodes register. Each
// hand-over is a request with a finite timeout. Device states:
//   free  -> busy   an item was handed over
//   busy  -> free   the report came back
//   busy  -> stale  the request timed out: the item gets a "timeout" report; the evaluator may
//                   still be working, so it gets a ping, answered after its current request
//   stale -> free   the ping came back
//   any   -> lost   the evaluator died (down message, error reply), ignored the ping, or its node
//                   was lost: the item of a node's device is queued again (at most twice: an
//                   evaluation is answered once), a local one gets a "runtime_error" report
//   lost  -> free   its node registered it again
// When no device of a class is up, its queued items fail at once (or after `device_wait`, while
// nodes may still join): a batch always completes, in request order, with one report per request.
// A report is read once, here, when its evaluator answers (it travels from the evaluator as its
// JSON text: the evaluator may be on a node); the batch's answer carries the reports as read.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "aopt/common/log.h"
#include "aopt/common/secret.h"
#include <nlohmann/json.hpp>

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
using protocols::node_down_atom;
using protocols::ok_atom;
using protocols::ping_atom;
using protocols::register_atom;
using protocols::devices_atom;
using protocols::tick_atom;

namespace {

using namespace std::chrono_literals;

// -- Evaluator ----------------------------------------------------------------------------

optimize::eval_report evaluate_one(const optimize::package_evaluate_fn& fn, const std::string& device,
                                   const eval_request_msg& m) {
  const auto where = "evaluator " + device;
  try {
    const auto request = unpack(m);
    return fn(request.package, request);
  } catch (const std::exception& e) {
    return failure_report(optimize::eval_status::runtime_error, where + " failed while evaluating this candidate: " + e.what() +
                                               " (a fault of the evaluator, not necessarily of the candidate)");
  } catch (...) {
    return failure_report(optimize::eval_status::runtime_error, where + " failed with an unknown exception");
  }
}

evaluator_actor::behavior_type evaluator_behavior(evaluator_actor::pointer self,
                                                  optimize::package_evaluate_fn fn, std::string device) {
  (void)self;
  return {
      [fn, device](evaluate_atom, const eval_request_msg& m) {
        auto report = evaluate_one(fn, device, m);
        report.device = device;
        return pack(report);
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

// -- Pool ---------------------------------------------------------------------------------

using clock = std::chrono::steady_clock;

enum class slot_state { free, busy, stale, lost };

const char* state_name(slot_state s) {
  switch (s) {
    case slot_state::free: return "idle";
    case slot_state::busy: return "busy";
    case slot_state::stale: return "stale";
    case slot_state::lost: return "down";
  }
  return "down";
}

struct pool_slot {
  protocols::device_info info;
  evaluator_actor handle;
  slot_state state = slot_state::free;
  std::uint64_t ticket = 0;      // the item it is working on, while busy
  std::uint64_t generation = 0;  // bumped when a node registers the device again
  std::uint64_t evaluations = 0, failures = 0, requeued = 0;
  double busy_seconds = 0;  // finished evaluations' time
  clock::time_point busy_since, joined = clock::now();
  std::string down_reason;
};

struct pool_item {
  std::uint64_t batch = 0;
  std::size_t index = 0;
  unsigned attempts = 0;  // times it was re-queued after its node was lost
};

struct pool_queue {
  std::string device_class;
  std::deque<pool_item> items;
  std::optional<clock::time_point> starving_since;  // no device of its class since then
};

struct pool_batch {
  std::string package;
  std::string device_class;
  std::vector<protocols::eval_envelope> requests;  // routed by their routes, bodies never read
  std::vector<optimize::eval_report> reports;
  std::size_t remaining = 0;
  caf::typed_response_promise<protocols::eval_reports> promise;
};

struct in_flight_item {
  pool_item item;
  std::size_t slot = 0;
};

struct pool_state {
  static inline const char* name = "aopt.evaluator_pool";
  std::vector<pool_slot> slots;
  std::map<std::string, pool_queue> queues;  // by package; no empty queue is kept
  std::string last_served;                   // the package served last
  std::map<std::uint64_t, pool_batch> batches;
  std::map<std::uint64_t, in_flight_item> in_flight;  // ticket -> item
  std::uint64_t next_batch = 1;
  std::uint64_t next_ticket = 1;
  pool_options opt;
  std::map<std::string, std::size_t> reported_queues;  // by class: what the listener was told last
  // Builders: free or busy (ticket), or lost; the items waiting for one; the items being built.
  struct builder_slot {
    evaluator_actor handle;
    std::uint64_t ticket = 0;  // 0 = free
    bool lost = false;
  };
  std::vector<builder_slot> builders;
  std::deque<pool_item> build_queue;
  std::map<std::uint64_t, in_flight_item> building;  // ticket -> (item, builder)
  bool tick_pending = false;                           // a device_wait check is scheduled
};

using pool_pointer = evaluator_pool_actor::stateful_pointer<pool_state>;

constexpr unsigned max_requeues = 2;

std::string ms_text(caf::timespan t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(t).count()) + " ms";
}

bool serves(const protocols::device_info& d, const std::string& device_class) {
  return device_class.empty() || d.device_class.empty() || d.device_class == device_class;
}

void notify(pool_pointer self, device_event::kind what, const pool_slot& s, std::string package = {},
            std::string why = {}) {
  if (!self->state.opt.listener) return;
  device_event e;
  e.what = what;
  e.device = s.info;
  e.package = std::move(package);
  e.why = std::move(why);
  self->state.opt.listener(e);
}

void finish(pool_pointer self, const pool_item& item, optimize::eval_report report) {
  auto it = self->state.batches.find(item.batch);
  if (it == self->state.batches.end()) return;
  auto& b = it->second;
  b.reports[item.index] = std::move(report);
  if (--b.remaining == 0) {
    b.promise.deliver(protocols::make_local(std::move(b.reports)));
    self->state.batches.erase(it);
  }
}

void dispatch(pool_pointer self);

// Puts an item in its package's device queue: at the end, or at the head (`first`: a request
// that was in flight on a lost node goes before the others).
void enqueue_for_device(pool_pointer self, const pool_item& item, bool first = false) {
  auto b = self->state.batches.find(item.batch);
  if (b == self->state.batches.end()) return;
  auto& q = self->state.queues[b->second.package];
  q.device_class = b->second.device_class;
  if (first) q.items.push_front(item);
  else q.items.push_back(item);
}

// Takes a slot out of service. The item it works on is queued again for another device when
// the slot is a remote node's (its node was lost: the candidate is not to blame) and it was not
// re-queued too often; otherwise it gets a "runtime_error" report.
void lose_slot(pool_pointer self, std::size_t slot, const std::string& why) {
  auto& s = self->state.slots[slot];
  if (s.state == slot_state::lost) return;
  if (s.state == slot_state::busy) {
    s.busy_seconds += std::chrono::duration<double>(clock::now() - s.busy_since).count();
    auto it = self->state.in_flight.find(s.ticket);
    if (it != self->state.in_flight.end()) {
      auto item = it->second.item;
      self->state.in_flight.erase(it);
      if (!s.info.node.empty() && item.attempts < max_requeues) {
        ++item.attempts;
        ++s.requeued;
        enqueue_for_device(self, item, true);
      } else {
        finish(self, item, failure_report(optimize::eval_status::runtime_error, "evaluator " + s.info.name() + " " + why));
      }
    }
  }
  s.state = slot_state::lost;
  s.down_reason = why;
  notify(self, device_event::kind::down, s, {}, why);
}

void on_report(pool_pointer self, std::uint64_t ticket, eval_report_msg report) {
  auto it = self->state.in_flight.find(ticket);
  if (it == self->state.in_flight.end()) return;  // already failed or re-queued (down message first)
  auto [item, slot] = it->second;
  self->state.in_flight.erase(it);
  auto& s = self->state.slots[slot];
  s.state = slot_state::free;
  s.busy_seconds += std::chrono::duration<double>(clock::now() - s.busy_since).count();
  ++s.evaluations;
  // The report is read once, here: for the device's counts, the listener and the batch's answer.
  std::optional<optimize::eval_report> r;
  try {
    r = unpack(report);
  } catch (const std::exception& e) {
    r = failure_report(optimize::eval_status::runtime_error,
                       "evaluator " + s.info.name() + " sent an unreadable report: " + e.what());
  }
  s.failures += !r->ok;
  if (self->state.opt.listener) {
    device_event e;
    e.what = device_event::kind::done;
    e.device = s.info;
    const auto& b = self->state.batches.at(item.batch);
    e.package = b.package;
    e.stage = b.requests[item.index].route.stage;
    e.report = &*r;
    self->state.opt.listener(e);
  }
  finish(self, item, std::move(*r));
  dispatch(self);
}

void ping(pool_pointer self, std::size_t slot) {
  const auto generation = self->state.slots[slot].generation;
  self->request(self->state.slots[slot].handle, self->state.opt.timeout, ping_atom::value)
      .then(
          [self, slot, generation](ping_atom) {
            auto& s = self->state.slots[slot];
            if (s.generation == generation && s.state == slot_state::stale) s.state = slot_state::free;
            dispatch(self);
          },
          [self, slot, generation](caf::error&) {
            // Still busy after two timeouts (or gone): never used again. Its thread may still
            // be running the evaluation; the actor system waits for it at shutdown.
            if (self->state.slots[slot].generation == generation)
              lose_slot(self, slot, "stopped answering (no reply to a ping after a timeout)");
            dispatch(self);
          });
}

void on_error(pool_pointer self, std::uint64_t ticket, const caf::error& err) {
  auto it = self->state.in_flight.find(ticket);
  if (it == self->state.in_flight.end()) return;
  auto [item, slot] = it->second;
  auto& s = self->state.slots[slot];
  if (err == caf::sec::request_timeout) {
    self->state.in_flight.erase(it);
    s.state = slot_state::stale;
    s.busy_seconds += std::chrono::duration<double>(clock::now() - s.busy_since).count();
    ++s.evaluations;
    ++s.failures;
    finish(self, item,
           failure_report(optimize::eval_status::timeout, "evaluator " + s.info.name() + " did not answer within " +
                                                              ms_text(self->state.opt.timeout) +
                                                              " (actor_timeouts.evaluation); raise it for slow devices"));
    ping(self, slot);
  } else {
    lose_slot(self, slot, "failed: " + self->system().render(err));
  }
  dispatch(self);
}

// A request pinned to a device waits for that device while it is up; pinned to a device that is
// down or unknown, it goes to any device of its class.
bool may_take(const pool_state& st, const pool_item& item, const protocols::device_info& device) {
  const auto b = st.batches.find(item.batch);
  if (b == st.batches.end()) return true;
  const std::string& pin = b->second.requests[item.index].route.device;
  if (pin.empty() || pin == device.name()) return true;
  return std::none_of(st.slots.begin(), st.slots.end(),
                      [&](const pool_slot& s) { return s.state != slot_state::lost && s.info.name() == pin; });
}

// The next item a device of profile `profile` can take, taking the packages in turn after the
// one served last.
std::optional<pool_item> pop_for(pool_state& st, const protocols::device_info& device) {
  if (st.queues.empty()) return std::nullopt;
  auto start = st.queues.upper_bound(st.last_served);
  if (start == st.queues.end()) start = st.queues.begin();
  auto it = start;
  do {
    auto& items = it->second.items;
    const auto take = serves(device, it->second.device_class)
                          ? std::find_if(items.begin(), items.end(), [&](const pool_item& i) { return may_take(st, i, device); })
                          : items.end();
    if (take != items.end()) {
      auto item = *take;
      items.erase(take);
      st.last_served = it->first;
      if (items.empty()) st.queues.erase(it);
      return item;
    }
    if (++it == st.queues.end()) it = st.queues.begin();
  } while (it != start);
  return std::nullopt;
}

void fail_queue(pool_pointer self, std::map<std::string, pool_queue>::iterator q, const std::string& why) {
  auto items = std::move(q->second.items);
  self->state.queues.erase(q);
  for (const auto& item : items) finish(self, item, failure_report(optimize::eval_status::runtime_error, why));
}

std::string no_device_text(const pool_state& st, const std::string& device_class) {
  return "no evaluator left for device class '" + (device_class.empty() ? std::string("any") : device_class) +
         "': of " + std::to_string(st.slots.size()) +
         " devices, none of this class is up (they died, stopped answering or never joined)";
}

// Tells the listener each class's number of queued requests when it changed.
void report_queues(pool_pointer self) {
  auto& st = self->state;
  if (!st.opt.listener) return;
  std::map<std::string, std::size_t> now;
  for (const auto& [_, q] : st.queues) now[q.device_class] += q.items.size();
  // Every class that had a batch is in reported_queues (on_batch), so no class is missed.
  for (auto& [cls, n] : st.reported_queues) {
    const auto it = now.find(cls);
    const std::size_t v = it == now.end() ? 0 : it->second;
    if (v == n) continue;
    device_event e;
    e.what = device_event::kind::queue;
    e.device.device_class = cls;
    e.queued = v;
    st.opt.listener(e);
    n = v;
  }
}

void dispatch_items(pool_pointer self);
void dispatch_builds(pool_pointer self);

void dispatch(pool_pointer self) {
  dispatch_builds(self);
  dispatch_items(self);
  report_queues(self);
}

// Whether a builder of this process should build the items of a class first: there are builders
// for it and a device serves it: one of this process (whose cache the builders fill) or a node's
// (which takes the built artifacts from this host instead of compiling them; shared builds).
bool wants_build(const pool_state& st, const std::string& device_class) {
  if (st.builders.empty() || device_class != st.opt.builder_class) return false;
  const bool builder_left = std::any_of(st.builders.begin(), st.builders.end(), [](const auto& b) { return !b.lost; });
  return builder_left && std::any_of(st.slots.begin(), st.slots.end(), [&](const pool_slot& s) {
           return s.state != slot_state::lost && serves(s.info, device_class);
         });
}

void on_built(pool_pointer self, std::uint64_t ticket, eval_report_msg report) {
  auto& st = self->state;
  auto it = st.building.find(ticket);
  if (it == st.building.end()) return;
  auto [item, builder] = it->second;
  st.building.erase(it);
  st.builders[builder].ticket = 0;
  std::optional<optimize::eval_report> r;
  try {
    r = unpack(report);
  } catch (const std::exception&) {
    r.reset();  // unreadable: a device evaluates it
  }
  if (!r || r->status == optimize::eval_status::built) {
    enqueue_for_device(self, item);
  } else {
    finish(self, item, std::move(*r));  // it does not build (or its result was cached)
  }
  dispatch(self);
}

void on_build_error(pool_pointer self, std::uint64_t ticket, const caf::error& err) {
  auto& st = self->state;
  auto it = st.building.find(ticket);
  if (it == st.building.end()) return;
  auto [item, builder] = it->second;
  st.building.erase(it);
  // A builder that failed or outlived its timeout is not used again; the device builds the item.
  st.builders[builder].lost = true;
  st.builders[builder].ticket = 0;
  common::logger()->warn("builder {} failed ({}); devices build their candidates themselves", builder,
                         self->system().render(err));
  enqueue_for_device(self, item);
  dispatch(self);
}

void dispatch_builds(pool_pointer self) {
  auto& st = self->state;
  const bool any_builder = std::any_of(st.builders.begin(), st.builders.end(), [](const auto& b) { return !b.lost; });
  if (!any_builder) {
    while (!st.build_queue.empty()) {
      enqueue_for_device(self, st.build_queue.front());
      st.build_queue.pop_front();
    }
    return;
  }
  for (std::size_t i = 0; i < st.builders.size() && !st.build_queue.empty(); ++i) {
    auto& b = st.builders[i];
    if (b.lost || b.ticket != 0) continue;
    const auto item = st.build_queue.front();
    st.build_queue.pop_front();
    const auto batch = st.batches.find(item.batch);
    if (batch == st.batches.end()) continue;
    const auto ticket = st.next_ticket++;
    b.ticket = ticket;
    st.building.emplace(ticket, in_flight_item{item, i});
    self->request(b.handle, st.opt.timeout, evaluate_atom::value, batch->second.requests[item.index].body)
        .then([self, ticket](eval_report_msg& r) { on_built(self, ticket, std::move(r)); },
              [self, ticket](caf::error& e) { on_build_error(self, ticket, e); });
  }
}

void dispatch_items(pool_pointer self) {
  auto& st = self->state;
  for (std::size_t i = 0; i < st.slots.size() && !st.queues.empty(); ++i) {
    auto& s = st.slots[i];
    if (s.state != slot_state::free) continue;
    auto next = pop_for(st, s.info);
    if (!next) continue;
    const auto item = *next;
    const auto ticket = st.next_ticket++;
    s.state = slot_state::busy;
    s.ticket = ticket;
    s.busy_since = clock::now();
    st.in_flight.emplace(ticket, in_flight_item{item, i});
    const auto& b = st.batches.at(item.batch);
    notify(self, device_event::kind::busy, s, b.package);
    self->request(s.handle, st.opt.timeout, evaluate_atom::value, b.requests[item.index].body)
        .then([self, ticket](eval_report_msg& r) { on_report(self, ticket, std::move(r)); },
              [self, ticket](caf::error& e) { on_error(self, ticket, e); });
  }
  // Queues no device can ever serve: fail them now, or, while nodes may still join, after
  // device_wait.
  const auto now = clock::now();
  for (auto q = st.queues.begin(); q != st.queues.end();) {
    const bool hope = std::any_of(st.slots.begin(), st.slots.end(), [&](const pool_slot& s) {
      return s.state != slot_state::lost && serves(s.info, q->second.device_class);
    });
    if (hope) {
      q->second.starving_since.reset();
      ++q;
      continue;
    }
    if (st.opt.device_wait.count() > 0) {
      if (!q->second.starving_since) q->second.starving_since = now;
      const auto waited = now - *q->second.starving_since;
      if (waited < st.opt.device_wait) {
        if (!st.tick_pending) {
          st.tick_pending = true;
          self->delayed_send(self, std::chrono::duration_cast<caf::timespan>(st.opt.device_wait - waited) + 1ms,
                             tick_atom::value);
        }
        ++q;
        continue;
      }
    }
    auto failing = q++;
    fail_queue(self, failing,
               no_device_text(st, failing->second.device_class) +
                   (st.opt.device_wait.count() > 0 ? " within " + ms_text(st.opt.device_wait) : std::string()));
  }
}

caf::typed_response_promise<protocols::eval_reports> on_batch(pool_pointer self, const std::string& package,
                                                                   const std::string& device_class,
                                                                   std::vector<protocols::eval_envelope> batch) {
  auto& st = self->state;
  auto promise = self->make_response_promise<protocols::eval_reports>();
  if (batch.empty()) {
    promise.deliver(protocols::make_local(std::vector<optimize::eval_report>{}));
    return promise;
  }
  const auto id = st.next_batch++;
  pool_batch b;
  b.package = package;
  b.device_class = device_class;
  b.remaining = batch.size();
  b.reports.resize(batch.size());
  b.requests = std::move(batch);
  b.promise = promise;
  // A class is reported from its first batch on (its series exists even if nothing ever waits).
  st.reported_queues.emplace(device_class, std::numeric_limits<std::size_t>::max());
  const bool build_first = wants_build(st, device_class);
  const auto n = b.requests.size();
  st.batches.emplace(id, std::move(b));
  for (std::size_t i = 0; i < n; ++i) {
    if (build_first) st.build_queue.push_back({id, i, 0});
    else enqueue_for_device(self, {id, i, 0});
  }
  dispatch(self);
  return promise;
}

void add_device(pool_pointer self, protocols::device_info info, evaluator_actor handle) {
  auto& slots = self->state.slots;
  self->monitor(handle);
  const auto name = info.name();
  auto it = std::find_if(slots.begin(), slots.end(), [&](const pool_slot& s) { return s.info.name() == name; });
  if (it == slots.end()) {
    slots.push_back({});
    it = slots.end() - 1;
  } else {
    // The same device again (its node restarted): its counts go on.
    lose_slot(self, static_cast<std::size_t>(it - slots.begin()), "was replaced: its node registered again");
    ++it->generation;
  }
  it->info = std::move(info);
  it->handle = std::move(handle);
  it->state = slot_state::free;
  it->joined = clock::now();
  it->down_reason.clear();
  notify(self, device_event::kind::joined, *it);
}

// Whether a register or node_down message comes from this process's node registry (its key).
bool from_registry(pool_pointer self, const std::string& key) {
  if (!self->state.opt.registry_key.empty() && common::equal_constant_time(key, self->state.opt.registry_key)) return true;
  common::logger()->warn("the evaluator pool ignored a node registration or loss that did not come from the node registry");
  return false;
}

ok_atom on_register(pool_pointer self, const std::string& node, std::vector<protocols::device_info> devices,
                    std::vector<evaluator_actor> handles) {
  if (node.empty() || devices.size() != handles.size()) return ok_atom::value;  // the registry checks first
  for (std::size_t i = 0; i < self->state.slots.size(); ++i) {
    auto& s = self->state.slots[i];
    const bool listed = std::any_of(devices.begin(), devices.end(), [&](const protocols::device_info& d) {
      return d.id == s.info.id;
    });
    if (s.info.node == node && !listed) lose_slot(self, i, "is gone: its node registered again without it");
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    devices[i].node = node;
    add_device(self, std::move(devices[i]), std::move(handles[i]));
  }
  dispatch(self);
  return ok_atom::value;
}

std::string devices_json(const pool_state& st) {
  auto out = nlohmann::json::array();
  const auto now = clock::now();
  for (const auto& s : st.slots) {
    std::size_t queued = 0;
    for (const auto& [_, q] : st.queues)
      if (serves(s.info, q.device_class)) queued += q.items.size();
    double busy = s.busy_seconds;
    if (s.state == slot_state::busy) busy += std::chrono::duration<double>(now - s.busy_since).count();
    const double up = std::chrono::duration<double>(now - s.joined).count();
    nlohmann::json d = {{"name", s.info.name()},     {"id", s.info.id},
                        {"node", s.info.node},       {"kind", s.info.kind},
                        {"profile", s.info.device_class}, {"labels", s.info.labels},
                        {"chip", s.info.chip},
                        {"state", state_name(s.state)}, {"queue", queued},
                        {"evaluations", s.evaluations}, {"failures", s.failures},
                        {"requeued", s.requeued},    {"busy_seconds", busy},
                        {"busy_ratio", up > 0 ? std::min(1.0, busy / up) : 0.0}};
    if (s.state == slot_state::lost) d["down_reason"] = s.down_reason;
    out.push_back(std::move(d));
  }
  return out.dump();
}

evaluator_pool_actor::behavior_type pool_behavior(pool_pointer self, std::vector<device_evaluator> devices,
                                                  pool_options opt) {
  self->state.opt = std::move(opt);
  for (auto& b : self->state.opt.builders) self->state.builders.push_back({b, 0, false});
  for (auto& d : devices) add_device(self, std::move(d.info), std::move(d.handle));
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& slots = self->state.slots;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].handle.address() == dm.source && slots[i].state != slot_state::lost) {
        lose_slot(self, i, "stopped (" + self->system().render(dm.reason) + ") while evaluating this candidate");
      }
    }
    dispatch(self);
  });
  return {
      [self](evaluate_atom, const std::string& package, const std::string& device_class,
             std::vector<protocols::eval_envelope>& batch) { return on_batch(self, package, device_class, std::move(batch)); },
      [self](parallelism_atom, const std::string& device_class) {
        const auto& slots = self->state.slots;
        const auto n = static_cast<std::uint64_t>(std::count_if(slots.begin(), slots.end(), [&](const pool_slot& s) {
          return s.state != slot_state::lost && serves(s.info, device_class);
        }));
        return n == 0 && self->state.opt.device_wait.count() > 0 ? std::uint64_t{1} : n;
      },
      [self](register_atom, const std::string& key, const std::string& node,
             std::vector<protocols::device_info>& devices, std::vector<evaluator_actor>& handles) -> caf::result<ok_atom> {
        if (!from_registry(self, key)) return caf::make_error(caf::sec::invalid_argument, "not the node registry");
        return on_register(self, node, std::move(devices), std::move(handles));
      },
      [self](node_down_atom, const std::string& key, const std::string& node, const std::string& why) {
        if (!from_registry(self, key)) return;
        for (std::size_t i = 0; i < self->state.slots.size(); ++i)
          if (self->state.slots[i].info.node == node) lose_slot(self, i, "is lost with its node: " + why);
        dispatch(self);
      },
      [self](devices_atom) { return devices_json(self->state); },
      [self](tick_atom) {
        self->state.tick_pending = false;
        dispatch(self);
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
      "slot" + std::to_string(slot), mode);
}

evaluator_actor spawn_evaluator(caf::actor_system& sys, optimize::package_evaluate_fn fn,
                                const std::string& device, spawn_mode mode) {
  if (mode == spawn_mode::detached) return sys.spawn<caf::detached>(evaluator_behavior, std::move(fn), device);
  return sys.spawn(evaluator_behavior, std::move(fn), device);
}

evaluator_pool_actor spawn_evaluator_pool(caf::actor_system& sys, std::vector<evaluator_actor> evaluators,
                                          std::chrono::milliseconds timeout) {
  std::vector<device_evaluator> devices;
  for (std::size_t i = 0; i < evaluators.size(); ++i)
    devices.push_back({{"slot" + std::to_string(i), "", "sim", "", {}}, std::move(evaluators[i])});
  pool_options opt;
  opt.timeout = timeout;
  return spawn_evaluator_pool(sys, std::move(devices), std::move(opt));
}

evaluator_pool_actor spawn_evaluator_pool(caf::actor_system& sys, std::vector<device_evaluator> devices,
                                          pool_options opt) {
  return sys.spawn(pool_behavior, std::move(devices), std::move(opt));
}

}  // namespace aopt::actors
