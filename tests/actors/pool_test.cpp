// The evaluator pool on the deterministic test coordinator: request order, spreading over free
// evaluators, one request per evaluator at a time, jobs served in turn, timeouts, dead and hung
// evaluators.
#include <chrono>
#include <optional>
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
    std::vector<eval_request_wire> batch;
    for (int i = 0; i < n; ++i) batch.push_back(request(i, "p" + std::to_string(i)));
    pending_.emplace(self->request(pool, caf::infinite, evaluate_atom::value, std::string("test_op"), std::string(), std::move(batch)));
  }

  std::optional<std::vector<optimize::eval_report>> collect() {
    std::optional<std::vector<optimize::eval_report>> out;
    pending_->receive(
        [&](std::vector<eval_report_wire>& r) {
          out.emplace();
          for (const auto& w : r) out->push_back(unpack(w));
        },
                      [&](caf::error& e) { ADD_FAILURE() << "pool failed: " << sys.render(e); });
    return out;
  }

  std::uint64_t parallelism(const evaluator_pool_actor& pool) {
    auto h = self->request(pool, caf::infinite, parallelism_atom::value, std::string());
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
      std::declval<std::vector<eval_request_wire>>()));
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
    EXPECT_EQ(r.status, "ok");
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
  EXPECT_EQ((*reports)[0].status, "timeout");
  EXPECT_FALSE((*reports)[0].ok);
  EXPECT_NE((*reports)[0].diagnostic.find("evaluator slot 0"), std::string::npos)
      << (*reports)[0].diagnostic;
  EXPECT_EQ((*reports)[1].status, "ok");
  EXPECT_EQ((*reports)[2].status, "ok");
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
  EXPECT_EQ((*reports)[0].status, "runtime_error");
  EXPECT_NE((*reports)[0].diagnostic.find("evaluator slot 0"), std::string::npos);
  EXPECT_EQ((*reports)[1].status, "ok");
  EXPECT_EQ((*reports)[2].status, "ok");
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
  EXPECT_EQ((*reports)[0].status, "runtime_error");
  EXPECT_NE((*reports)[0].diagnostic.find("stopped"), std::string::npos)
      << (*reports)[0].diagnostic;
  EXPECT_EQ((*reports)[1].status, "runtime_error");
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
  EXPECT_EQ((*reports)[0].status, "timeout");
  EXPECT_EQ((*reports)[1].status, "runtime_error");
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
    std::vector<eval_request_wire> b;
    for (int i = 0; i < 3; ++i) {
      auto m = request_record(i, package + std::to_string(i));
      m.package = package;
      b.push_back(pack(m));
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
  a.receive([&](std::vector<eval_report_wire>& r) { answered += r.size(); }, [](caf::error&) {});
  b.receive([&](std::vector<eval_report_wire>& r) { answered += r.size(); }, [](caf::error&) {});
  EXPECT_EQ(answered, 6u);
}

}  // namespace
}  // namespace aopt::actors::test
