// The evaluator pool's route carries the request's stage as the vocabulary's enum
// (protocols::eval_route::stage, vocab::eval_stage), and on the wire as the stage's JSON spelling:
// every stage reads back as itself, and a stage this process does not know (a peer of another
// version, a forged message) is a clear error of the message, not a crash (issue 37).
#include <string>
#include <vector>

#include "actor_test_util.hpp"

namespace aopt::actors::test {
namespace {

using protocols::eval_route;
using vocab::eval_stage;

class route_stage_test : public deterministic_fixture {
 protected:
  // The bytes of `xs` as CAF's binary serialiser writes them.
  template <class... Ts>
  std::vector<char> bytes(Ts&&... xs) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    auto err = sink(std::forward<Ts>(xs)...);
    EXPECT_FALSE(err) << sys.render(err);
    return buf;
  }
};

TEST_F(route_stage_test, EveryStageCrossesTheWireAsItsJsonSpelling) {
  for (const auto stage : {eval_stage::base, eval_stage::tiling, eval_stage::kernel, eval_stage::tiling_kernel,
                           eval_stage::random, eval_stage::verify, eval_stage::remeasure, eval_stage::screen,
                           eval_stage::rewind}) {
    eval_route sent{"op", stage, "node/sim0"};
    const auto buf = bytes(sent);
    // The same bytes as a route whose stage is the string "tiling+kernel", "kernel", ...: the
    // binary form of earlier versions, so nodes of either version read each other's routes.
    EXPECT_EQ(buf, bytes(std::string("op"), std::string(vocab::to_string(stage)), std::string("node/sim0")))
        << vocab::to_string(stage);
    eval_route got;
    caf::binary_deserializer source{sys, buf};
    auto err = source(got);
    ASSERT_FALSE(err) << sys.render(err);
    EXPECT_EQ(got.stage, stage) << vocab::to_string(stage);
    EXPECT_EQ(got.package, "op");
    EXPECT_EQ(got.device, "node/sim0");
  }
}

TEST_F(route_stage_test, AnUnknownStageOnTheWireIsAClearError) {
  const auto buf = bytes(std::string("op"), std::string("warp-drive"), std::string("d0"));
  eval_route got;
  caf::binary_deserializer source{sys, buf};
  const auto err = source(got);
  ASSERT_TRUE(err) << "a route with stage 'warp-drive' was read as stage " << vocab::to_string(got.stage);
  const std::string text = sys.render(err);
  EXPECT_NE(text.find("unknown stage 'warp-drive'"), std::string::npos) << text;
  EXPECT_NE(text.find("another version"), std::string::npos) << text;
}

}  // namespace
}  // namespace aopt::actors::test
