// The evaluator pool routes each request by the route beside its body (protocols::eval_route),
// never by parsing the body; the envelope travels between hosts (issue 37).
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actor_test_util.hpp"
#include "aopt/actors/spawn.hpp"

namespace aopt::actors::test {
namespace {

using namespace protocols;
using namespace std::chrono_literals;

// An evaluator that never reads the body: it records (its slot, the body's text) and reports a
// parse failure, as the real evaluator does for a body that does not read back.
struct body_log {
  std::vector<std::pair<std::size_t, std::string>> received;
};

evaluator_actor::behavior_type body_recorder(evaluator_actor::pointer, std::size_t slot,
                                             std::shared_ptr<body_log> log) {
  return {
      [=](evaluate_atom, const eval_request_wire& w) {
        log->received.emplace_back(slot, w.json);
        optimize::eval_report r;
        r.status = aopt::vocab::eval_status::runtime_error;
        r.diagnostic = "the body does not read back";
        return pack(r);
      },
      [](ping_atom) { return ping_atom::value; },
  };
}

class route_test : public deterministic_fixture {};

TEST_F(route_test, ABodyThatDoesNotParseRunsOnTheDeviceItsRoutePins) {
  auto log = std::make_shared<body_log>();
  std::vector<device_evaluator> devices;
  for (std::size_t i = 0; i < 3; ++i)
    devices.push_back({{"d" + std::to_string(i), "", "sim", "910b4", {}}, track(sys.spawn(body_recorder, i, log))});
  pool_options o;
  o.timeout = 100ms;
  auto pool = track(spawn_evaluator_pool(sys, std::move(devices), std::move(o)));
  dispatch_messages();
  // Neither body is an eval_request's JSON: only their routes say where they go.
  std::vector<eval_envelope> batch{{{"op", aopt::vocab::eval_stage::kernel, "d2"}, {"{not json"}}, {{"op", aopt::vocab::eval_stage::verify, "d2"}, {"[]"}}};
  auto h = self->request(pool, caf::infinite, evaluate_atom::value, std::string("op"), std::string("910b4"),
                         std::move(batch));
  dispatch_messages();
  std::size_t reports = 0;
  h.receive([&](eval_reports& r) { reports = r.get().size(); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_EQ(reports, 2u);
  ASSERT_EQ(log->received.size(), 2u);
  for (const auto& [slot, body] : log->received) EXPECT_EQ(slot, 2u) << "body " << body << " ran on d" << slot;
  EXPECT_EQ(log->received[0].second, "{not json") << "the body reaches the evaluator unchanged";
}

TEST_F(route_test, TheEnvelopeIsRoutedFromItsRequestAndCrossesTheNetwork) {
  optimize::eval_request r = request_record(3, "p3");
  r.device = "node/npu1";
  const auto e = pack_routed(r);
  EXPECT_EQ(e.route.package, "test_op");
  EXPECT_EQ(e.route.stage, aopt::vocab::eval_stage::kernel);
  EXPECT_EQ(e.route.device, "node/npu1");
  EXPECT_EQ(unpack(e.body).proposal, "p3");
  // As a remote peer gets it: a message of registered types (add_message_types), serialised.
  auto msg = caf::make_message(evaluate_atom::value, std::string("op"), std::string("910b4"),
                               std::vector<eval_envelope>{e});
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(msg);
  ASSERT_FALSE(err) << sys.render(err);
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  err = source(back);
  ASSERT_FALSE(err) << sys.render(err);
  ASSERT_TRUE((back.match_elements<evaluate_atom, std::string, std::string, std::vector<eval_envelope>>()));
  const auto& got = back.get_as<std::vector<eval_envelope>>(3);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].route.device, "node/npu1");
  EXPECT_EQ(got[0].route.stage, aopt::vocab::eval_stage::kernel);
  EXPECT_EQ(got[0].route.package, "test_op");
  EXPECT_EQ(got[0].body.json, e.body.json);
}

}  // namespace
}  // namespace aopt::actors::test
