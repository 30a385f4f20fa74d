// The evaluator pool on the deterministic test coordinator: request order, spreading over free
// evaluators, one request per evaluator at a time, jobs served in turn, timeouts, dead and hung
// evaluators.
#include <chrono>
#include <optional>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "actor_test_util.hpp"
#include "aopt/actors/spawn.hpp"

namespace aopt::actors::test {
namespace {

using namespace protocols;
using namespace std::chrono_literals;

class pool_test : public deterministic_fixture {
 protected:
  // Held promises keep their evaluators alive (and the evaluators keep the log): break the cycle.
  ~pool_test() override {
    log->held.clear();
    log->held_pings.clear();
  }

  // The pool over one scripted evaluator per mode; timeout 100 ms.
  evaluator_pool_actor make_pool(const std::vector<script>& modes) {
    evs.clear();
    for (std::size_t i = 0; i < modes.size(); ++i)
      evs.push_back(track(sys.spawn(scripted_evaluator, i, modes[i], log)));
    auto pool = track(spawn_evaluator_pool(sys, evs, 100ms));
    dispatch_messages();
    return pool;
  }

  // Sends a batch; the reply is collected by collect().
  void send_batch(const evaluator_pool_actor& pool, int n) {
    std::vector<eval_envelope> batch;
    for (int i = 0; i < n; ++i) batch.push_back(request(i, "p" + std::to_string(i)));
    pending_.emplace(self->request(pool, caf::infinite, evaluate_atom::value, std::string("test_op"), std::string(), std::move(batch)));
  }

  std::optional<std::vector<optimize::eval_report>> collect() {
    std::optional<std::vector<optimize::eval_report>> out;
    pending_->receive(
        [&](eval_reports& r) { out = r.get(); },
                      [&](caf::error& e) { ADD_FAILURE() << "pool failed: " << sys.render(e); });
    return out;
  }

  std::uint64_t parallelism(const evaluator_pool_actor& pool) { return parallelism_of(pool, ""); }

  std::uint64_t parallelism_of(const evaluator_pool_actor& pool, const std::string& device_class) {
    auto h = self->request(pool, caf::infinite, parallelism_atom::value, device_class);
    dispatch_messages();
    std::uint64_t n = 999;
    h.receive([&](std::uint64_t x) { n = x; }, [&](caf::error&) {});
    return n;
  }

  // The evaluator of `slot` answers its oldest held request with `latency_us`.
  void release(std::size_t slot, double latency_us) {
    log->released[slot].push_back(latency_us);
    caf::anon_send(evs.at(slot), ping_atom::value);
    dispatch_messages();
  }

  std::shared_ptr<script_log> log = std::make_shared<script_log>();
  std::vector<evaluator_actor> evs;

 private:
  using handle_t = decltype(std::declval<caf::scoped_actor&>()->request(
      std::declval<evaluator_pool_actor&>(), caf::infinite, evaluate_atom::value, std::declval<std::string>(), std::declval<std::string>(),
      std::declval<std::vector<eval_envelope>>()));
  std::optional<handle_t> pending_;
};

TEST_F(pool_test, RepliesInRequestOrderAndSpreadsOverEvaluators) {
  auto pool = make_pool({script::answer, script::answer, script::answer});
  send_batch(pool, 7);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  ASSERT_EQ(reports->size(), 7u);
  // latency = 1000 * slot + round: the round gives the order back, the slot who did it.
  std::vector<int> per_slot(3, 0);
  for (std::size_t i = 0; i < reports->size(); ++i) {
    const auto& r = (*reports)[i];
    EXPECT_EQ(r.status, aopt::vocab::eval_status::ok);
    const auto slot = static_cast<std::size_t>(r.latency_us / 1000);
    EXPECT_EQ(r.latency_us - 1000.0 * static_cast<double>(slot), static_cast<double>(i))
        << "report " << i;
    ++per_slot.at(slot);
  }
  for (int n : per_slot) EXPECT_GE(n, 1) << "every evaluator takes part";
  EXPECT_EQ(log->received.size(), 7u);
}

TEST_F(pool_test, NextRequestGoesToWhicheverEvaluatorIsFree) {
  auto pool = make_pool({script::hold, script::answer});
  send_batch(pool, 4);
  dispatch_messages();
  // Slot 0 holds p0; slot 1 did p1, p2 and p3 meanwhile; slot 0 never got a second request.
  ASSERT_EQ(log->received.size(), 4u);
  EXPECT_EQ(log->received[0], std::make_pair(std::size_t{0}, std::string("p0")));
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(log->received[i].first, 1u) << i;
  ASSERT_EQ(log->held[0].size(), 1u);
  release(0, 42);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  ASSERT_EQ(reports->size(), 4u);
  EXPECT_EQ((*reports)[0].latency_us, 42);
  for (std::size_t i = 1; i < 4; ++i)
    EXPECT_EQ((*reports)[i].latency_us, 1000.0 + static_cast<double>(i));
}

TEST_F(pool_test, SlowEvaluatorTimesOutAndIsReusedAfterItsPing) {
  auto pool = make_pool({script::hold, script::answer});
  send_batch(pool, 3);
  dispatch_messages();
  EXPECT_EQ(log->held[0].size(), 1u);
  advance_time(150ms);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  EXPECT_EQ((*reports)[0].status, aopt::vocab::eval_status::timeout);
  EXPECT_FALSE((*reports)[0].ok);
  EXPECT_NE((*reports)[0].diagnostic.find("evaluator slot0"), std::string::npos)
      << (*reports)[0].diagnostic;
  EXPECT_EQ((*reports)[1].status, aopt::vocab::eval_status::ok);
  EXPECT_EQ((*reports)[2].status, aopt::vocab::eval_status::ok);
  // The held evaluator answered its ping: it is free again and takes the next batch's request.
  release(0, 1);  // the late report is dropped
  dispatch_messages();
  EXPECT_EQ(parallelism(pool), 2u);
  log->received.clear();
  send_batch(pool, 1);
  dispatch_messages();
  ASSERT_EQ(log->received.size(), 1u);
  EXPECT_EQ(log->received[0].first, 0u);
  release(0, 7);
  dispatch_messages();
  reports = collect();
  ASSERT_TRUE(reports);
  EXPECT_EQ((*reports)[0].latency_us, 7);
}

TEST_F(pool_test, EvaluatorThatDiesYieldsRuntimeErrorAndTheOthersGoOn) {
  auto pool = make_pool({script::die, script::answer});
  send_batch(pool, 3);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  ASSERT_EQ(reports->size(), 3u);
  EXPECT_EQ((*reports)[0].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE((*reports)[0].diagnostic.find("evaluator slot0"), std::string::npos);
  EXPECT_EQ((*reports)[1].status, aopt::vocab::eval_status::ok);
  EXPECT_EQ((*reports)[2].status, aopt::vocab::eval_status::ok);
  EXPECT_EQ(parallelism(pool), 1u);
}

TEST_F(pool_test, EvaluatorKilledWhileBusyYieldsRuntimeError) {
  evs = {track(sys.spawn(scripted_evaluator, std::size_t{0}, script::hold, log))};
  auto pool = track(spawn_evaluator_pool(sys, evs, 100ms));
  dispatch_messages();
  send_batch(pool, 2);
  dispatch_messages();
  self->send_exit(evs[0], caf::exit_reason::kill);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  ASSERT_EQ(reports->size(), 2u);
  EXPECT_EQ((*reports)[0].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE((*reports)[0].diagnostic.find("stopped"), std::string::npos)
      << (*reports)[0].diagnostic;
  EXPECT_EQ((*reports)[1].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE((*reports)[1].diagnostic.find("no evaluator left"), std::string::npos)
      << (*reports)[1].diagnostic;
  log->held.clear();
}

TEST_F(pool_test, HungEvaluatorIsDroppedAfterItsPingTimesOut) {
  auto pool = make_pool({script::hang});
  send_batch(pool, 2);
  dispatch_messages();
  advance_time(150ms);  // p0 times out; a ping goes out
  dispatch_messages();
  advance_time(150ms);  // the ping times out: the slot is lost, p1 cannot run anywhere
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  EXPECT_EQ((*reports)[0].status, aopt::vocab::eval_status::timeout);
  EXPECT_EQ((*reports)[1].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE((*reports)[1].diagnostic.find("no evaluator left"), std::string::npos);
  EXPECT_EQ(parallelism(pool), 0u);
  log->held.clear();
  log->held_pings.clear();
}

TEST_F(pool_test, EmptyBatchIsAnsweredAtOnce) {
  auto pool = make_pool({script::answer});
  send_batch(pool, 0);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  EXPECT_TRUE(reports->empty());
}

TEST_F(pool_test, BatchesQueueBehindEachOther) {
  auto pool = make_pool({script::hold});
  send_batch(pool, 2);
  dispatch_messages();
  ASSERT_EQ(log->held[0].size(), 1u);
  release(0, 10);
  dispatch_messages();
  ASSERT_EQ(log->held[0].size(), 1u);  // p1 now, still one at a time
  release(0, 11);
  dispatch_messages();
  auto reports = collect();
  ASSERT_TRUE(reports);
  EXPECT_EQ((*reports)[0].latency_us, 10);
  EXPECT_EQ((*reports)[1].latency_us, 11);
}

TEST_F(pool_test, JobsSharingThePoolAreServedInTurn) {
  // One evaluator, two jobs (packages) with three requests each, queued before any is done:
  // the evaluator alternates between the jobs instead of finishing the first job's batch first.
  auto pool = make_pool({script::answer});
  auto batch = [](const std::string& package) {
    std::vector<eval_envelope> b;
    for (int i = 0; i < 3; ++i) {
      auto m = request_record(i, package + std::to_string(i));
      m.package = package;
      b.push_back(pack_routed(m));
    }
    return b;
  };
  auto a = self->request(pool, caf::infinite, evaluate_atom::value, std::string("a"), std::string(), batch("a"));
  auto b = self->request(pool, caf::infinite, evaluate_atom::value, std::string("b"), std::string(), batch("b"));
  dispatch_messages();
  std::vector<std::string> order;
  for (const auto& [slot, proposal] : log->received) order.push_back(proposal);
  EXPECT_EQ(order, (std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"}));
  std::size_t answered = 0;
  a.receive([&](eval_reports& r) { answered += r.get().size(); }, [](caf::error&) {});
  b.receive([&](eval_reports& r) { answered += r.get().size(); }, [](caf::error&) {});
  EXPECT_EQ(answered, 6u);
}

// -- Devices, classes and remote nodes ----------------------------------------------------------

class device_pool_test : public pool_test {
 protected:
  // A scripted evaluator for slot number `slot` (its reports' latency is 1000 * slot + round).
  evaluator_actor scripted(std::size_t slot, script mode) {
    return track(sys.spawn(scripted_evaluator, slot, mode, log));
  }

  // What the node registry's messages carry (the pool's registry_key).
  const std::string registry_key = "the registry's key";

  evaluator_pool_actor device_pool(std::vector<device_evaluator> devices, std::chrono::milliseconds wait = 0ms) {
    pool_options o;
    o.timeout = 100ms;
    o.device_wait = wait;
    o.listener = [this](const device_event& e) { events.push_back(e); };
    o.registry_key = registry_key;
    auto pool = track(spawn_evaluator_pool(sys, std::move(devices), std::move(o)));
    dispatch_messages();
    return pool;
  }

  // `pins[i]`, when given, is the device request i must run on.
  std::vector<optimize::eval_report> run_batch(const evaluator_pool_actor& pool, const std::string& device_class,
                                               int n, const std::string& package = "op",
                                               const std::vector<std::string>& pins = {}) {
    std::vector<eval_envelope> batch;
    for (int i = 0; i < n; ++i) {
      auto m = request_record(i, package + std::to_string(i));
      m.package = package;
      if (static_cast<std::size_t>(i) < pins.size()) m.device = pins[static_cast<std::size_t>(i)];
      batch.push_back(pack_routed(m));
    }
    auto h = self->request(pool, caf::infinite, evaluate_atom::value, package, device_class, std::move(batch));
    dispatch_messages();
    std::vector<optimize::eval_report> out;
    h.receive(
        [&](eval_reports& r) { for (const auto& x : r.get()) out.push_back(x); },
        [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    return out;
  }

  void register_node(const evaluator_pool_actor& pool, const std::string& node, std::vector<std::string> ids,
                     std::vector<evaluator_actor> handles, const std::string& profile = "910b4",
                     const std::string* key = nullptr) {
    std::vector<device_info> devices;
    for (auto& id : ids) devices.push_back({id, "", "sim", profile, {}});
    auto h = self->request(pool, caf::infinite, register_atom::value, key ? *key : registry_key, node, devices, handles);
    dispatch_messages();
    h.receive([&](ok_atom) { EXPECT_EQ(key, nullptr) << "registered without the registry's key"; },
              [&](caf::error& e) {
                if (key == nullptr) ADD_FAILURE() << sys.render(e);
              });
  }

  nlohmann::json devices(const evaluator_pool_actor& pool) {
    auto h = self->request(pool, caf::infinite, devices_atom::value);
    dispatch_messages();
    nlohmann::json out;
    h.receive([&](std::string& t) { out = nlohmann::json::parse(t); }, [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    return out;
  }

  // The scripted evaluator that answered (its latency is 1000 * slot + round).
  static std::size_t slot_of(const optimize::eval_report& r) { return static_cast<std::size_t>(r.latency_us / 1000); }

  std::vector<device_event> events;
};

TEST_F(device_pool_test, AJobsRequestsGoOnlyToDevicesOfItsClass) {
  auto pool = device_pool({{{"d0", "", "sim", "910b4", {}}, scripted(0, script::answer)},
                           {{"d1", "", "sim", "a2", {}}, scripted(1, script::answer)},
                           {{"d2", "", "sim", "a2", {}}, scripted(2, script::answer)}});
  const auto a2 = run_batch(pool, "a2", 6);
  ASSERT_EQ(a2.size(), 6u);
  std::set<std::size_t> used;
  for (const auto& r : a2) {
    EXPECT_EQ(r.status, aopt::vocab::eval_status::ok);
    used.insert(slot_of(r));
  }
  // Both a2 devices took part, the 910b4 one never did.
  EXPECT_EQ(used, (std::set<std::size_t>{1, 2}));
  for (const auto& [slot, proposal] : log->received) EXPECT_NE(slot, 0u) << proposal;
  // A class nobody serves fails at once when no node may join; "" is served by anyone.
  const auto none = run_batch(pool, "310p", 2);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE(none[0].diagnostic.find("device class '310p'"), std::string::npos) << none[0].diagnostic;
  EXPECT_EQ(run_batch(pool, "", 3).size(), 3u);
}

// A request that names a device (a noisy backend's confirming measurements) runs there, even
// while other devices of the class are free; one naming a device that is down or unknown runs
// anywhere.
TEST_F(device_pool_test, APinnedRequestRunsOnItsDevice) {
  auto pool = device_pool({{{"d0", "", "sim", "910b4", {}}, scripted(0, script::answer)},
                           {{"d1", "", "sim", "910b4", {}}, scripted(1, script::answer)},
                           {{"d2", "", "sim", "910b4", {}}, scripted(2, script::answer)}});
  const auto pinned = run_batch(pool, "910b4", 4, "op", {"d2", "d2", "", "d2"});
  ASSERT_EQ(pinned.size(), 4u);
  EXPECT_EQ(slot_of(pinned[0]), 2u);
  EXPECT_EQ(slot_of(pinned[1]), 2u);
  EXPECT_EQ(slot_of(pinned[3]), 2u);
  EXPECT_NE(slot_of(pinned[2]), 2u) << "the unpinned request took a free device";
  for (const auto& r : pinned) EXPECT_EQ(r.status, aopt::vocab::eval_status::ok) << r.diagnostic;
  const auto anywhere = run_batch(pool, "910b4", 3, "op", {"nosuch", "nosuch", "nosuch"});
  ASSERT_EQ(anywhere.size(), 3u);
  std::set<std::size_t> used;
  for (const auto& r : anywhere) {
    EXPECT_EQ(r.status, aopt::vocab::eval_status::ok) << r.diagnostic;
    used.insert(slot_of(r));
  }
  EXPECT_GT(used.size(), 1u) << "an unknown device pins nothing";
}

TEST_F(device_pool_test, ARequestOnALostNodeIsQueuedAgainAndAnsweredOnce) {
  auto pool = device_pool({}, std::chrono::minutes(1));
  // Node n1's first device dies on its first request (like a node killed mid-evaluation).
  register_node(pool, "n1", {"sim0", "sim1"}, {scripted(0, script::die), scripted(1, script::answer)});
  const auto reports = run_batch(pool, "910b4", 4);
  ASSERT_EQ(reports.size(), 4u);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    EXPECT_EQ(reports[i].status, aopt::vocab::eval_status::ok) << i << ": " << reports[i].diagnostic;
    EXPECT_EQ(reports[i].latency_us, 1000.0 + static_cast<double>(i)) << "answered by n1/sim1, in order";
  }
  // Five hand-overs for four requests: the one on the dead device went again.
  EXPECT_EQ(log->received.size(), 5u);
  const auto list = devices(pool);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["name"], "n1/sim0");
  EXPECT_EQ(list[0]["state"], "down");
  EXPECT_EQ(list[0]["requeued"], 1);
  EXPECT_EQ(list[0]["evaluations"], 0);
  EXPECT_EQ(list[1]["name"], "n1/sim1");
  EXPECT_EQ(list[1]["state"], "idle");
  EXPECT_EQ(list[1]["evaluations"], 4);
  bool down_event = false;
  for (const auto& e : events) down_event |= e.what == device_event::kind::down && e.device.name() == "n1/sim0";
  EXPECT_TRUE(down_event);
}

TEST_F(device_pool_test, ANodeDownMovesItsWorkAndARestartedNodeGetsWorkAgain) {
  auto pool = device_pool({}, std::chrono::minutes(1));
  register_node(pool, "n1", {"sim0"}, {scripted(0, script::hold)});
  register_node(pool, "n2", {"sim0"}, {scripted(1, script::answer)});
  std::vector<eval_envelope> batch;
  for (int i = 0; i < 3; ++i) batch.push_back(pack_routed(request_record(i, "p" + std::to_string(i))));
  auto h = self->request(pool, caf::infinite, evaluate_atom::value, std::string("op"), std::string("910b4"),
                         std::move(batch));
  dispatch_messages();
  ASSERT_EQ(log->held[0].size(), 1u) << "n1 holds p0";
  // The registry finds n1 silent: its request goes to n2.
  caf::anon_send(pool, node_down_atom::value, registry_key, std::string("n1"), std::string("no heartbeat"));
  dispatch_messages();
  std::vector<optimize::eval_report> reports;
  h.receive([&](eval_reports& r) { for (const auto& x : r.get()) reports.push_back(x); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(reports.size(), 3u);
  for (const auto& r : reports) EXPECT_EQ(slot_of(r), 1u) << "n2's evaluator answered everything";
  // n1 restarts and registers again: same device, new evaluator, and it takes work.
  log->held.clear();
  register_node(pool, "n1", {"sim0"}, {scripted(2, script::answer)});
  auto list = devices(pool);
  EXPECT_EQ(list[0]["name"], "n1/sim0");
  EXPECT_EQ(list[0]["state"], "idle");
  const auto again = run_batch(pool, "910b4", 4);
  std::set<std::size_t> used;
  for (const auto& r : again) used.insert(slot_of(r));
  EXPECT_TRUE(used.contains(2)) << "the restarted node evaluates again";
}

TEST_F(device_pool_test, RequestsWaitForANodeToJoinThenFailAfterTheWait) {
  auto pool = device_pool({}, 300ms);
  EXPECT_EQ(parallelism_of(pool, "910b4"), 1u) << "while nodes may join, a job sees one device";
  std::vector<eval_envelope> batch{pack_routed(request_record(0, "p0"))};
  auto h = self->request(pool, caf::infinite, evaluate_atom::value, std::string("op"), std::string("910b4"),
                         std::move(batch));
  dispatch_messages();
  EXPECT_TRUE(log->received.empty());
  // A node joins within the wait: the request runs there.
  register_node(pool, "n1", {"sim0"}, {scripted(3, script::answer)});
  std::vector<optimize::eval_report> reports;
  h.receive([&](eval_reports& r) { for (const auto& x : r.get()) reports.push_back(x); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].status, aopt::vocab::eval_status::ok);
  // A class no node has fails once the wait is over (the pool measures it in real time).
  std::vector<eval_envelope> other{pack_routed(request_record(0, "q0"))};
  auto h2 = self->request(pool, caf::infinite, evaluate_atom::value, std::string("op2"), std::string("a2"),
                          std::move(other));
  dispatch_messages();
  std::this_thread::sleep_for(350ms);
  while (sched.trigger_timeouts() > 0) dispatch_messages();
  dispatch_messages();
  std::vector<optimize::eval_report> failed;
  h2.receive([&](eval_reports& r) { for (const auto& x : r.get()) failed.push_back(x); },
             [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE(failed[0].diagnostic.find("within 300 ms"), std::string::npos) << failed[0].diagnostic;
  EXPECT_EQ(log->received.size(), 1u) << "nothing ran the a2 request";
}

// A builder: "built" for every request but those whose proposal starts with "bad" (a compile
// error, final). Records what it built.
evaluator_actor::behavior_type scripted_builder(evaluator_actor::pointer, std::shared_ptr<std::vector<std::string>> built) {
  return {
      [built](evaluate_atom, const eval_request_wire& w) {
        const auto m = unpack(w);
        built->push_back(m.proposal);
        optimize::eval_report r;
        r.status = m.proposal.starts_with("bad") ? aopt::vocab::eval_status::compile_error : aopt::vocab::eval_status::built;
        r.diagnostic = r.status == aopt::vocab::eval_status::compile_error ? "error: scripted" : "";
        return pack(r);
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

// The pool's handle crosses the network once it sends work to a node (CAF 0.17 then lets any
// peer address it): a registration or a loss without the registry's key changes nothing.
TEST_F(device_pool_test, OnlyTheRegistrysKeyAddsOrDropsANode) {
  auto pool = device_pool({}, std::chrono::minutes(1));
  const std::string wrong = "a guess", none;
  register_node(pool, "intruder", {"sim0"}, {scripted(0, script::answer)}, "910b4", &wrong);
  register_node(pool, "intruder", {"sim0"}, {scripted(1, script::answer)}, "910b4", &none);
  EXPECT_TRUE(devices(pool).empty()) << devices(pool).dump();
  register_node(pool, "n1", {"sim0"}, {scripted(2, script::answer)});
  caf::anon_send(pool, node_down_atom::value, wrong, std::string("n1"), std::string("forged"));
  dispatch_messages();
  const auto list = devices(pool);
  ASSERT_EQ(list.size(), 1u) << list.dump();
  EXPECT_EQ(list[0]["name"], "n1/sim0");
  EXPECT_NE(list[0]["state"], "down") << list.dump();
}

TEST_F(device_pool_test, BuildersBuildFirstAndACandidateThatDoesNotCompileNeverTakesADevice) {
  auto built = std::make_shared<std::vector<std::string>>();
  pool_options o;
  o.timeout = 100ms;
  o.builders = {track(sys.spawn(scripted_builder, built))};
  o.builder_class = "910b4";
  auto pool = track(spawn_evaluator_pool(sys, {{{"d0", "", "sim", "910b4", {}}, scripted(0, script::answer)}}, o));
  dispatch_messages();
  std::vector<eval_envelope> batch;
  for (const char* p : {"p0", "bad1", "p2"}) batch.push_back(pack_routed(request_record(static_cast<int>(batch.size()), p)));
  auto h = self->request(pool, caf::infinite, evaluate_atom::value, std::string("op"), std::string("910b4"), batch);
  dispatch_messages();
  std::vector<optimize::eval_report> reports;
  h.receive([&](eval_reports& r) { for (const auto& x : r.get()) reports.push_back(x); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(*built, (std::vector<std::string>{"p0", "bad1", "p2"})) << "every request was built first";
  EXPECT_EQ(reports[0].status, aopt::vocab::eval_status::ok);
  EXPECT_EQ(reports[1].status, aopt::vocab::eval_status::compile_error) << "the builder's answer is final";
  EXPECT_EQ(reports[2].status, aopt::vocab::eval_status::ok);
  std::vector<std::string> ran;
  for (const auto& [slot, proposal] : log->received) ran.push_back(proposal);
  EXPECT_EQ(ran, (std::vector<std::string>{"p0", "p2"})) << "the device ran only what built";
  // Another class (no builder for it) goes to a device directly.
  auto other = run_batch(pool, "", 1);
  EXPECT_EQ(built->size(), 3u);
  EXPECT_EQ(other.size(), 1u);
}

}  // namespace
}  // namespace aopt::actors::test
