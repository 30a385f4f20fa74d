// Issue 34: a SetFlag from the scalar pipe set again before the WaitFlag of the previous set ran,
// with every SetFlag paired with one WaitFlag in program order, is ordering (the scalar thread
// waits for that WaitFlag), not an error: the AscendC documentation makes SetFlag/WaitFlag pairs
// the contract and calls only consecutive sets with no wait between them undefined. The pipe-side
// case is Model.ReSetPairedInProgramOrderWaitsForTheConsumer.
#include <gtest/gtest.h>

#include "aopt_sim/profile.h"
#include "aopt_sim/timing.h"
#include "trace_builder.h"

namespace {

using namespace aopt::sim;
using aopt::sim::test::trace_builder;

const timing_params& a2() {
  static const timing_params p = parse_timing_params(load_profile("a2").raw, "a2");
  return p;
}

TEST(FlagReset, ScalarReSetPairedInProgramOrderWaitsForTheConsumer) {
  // V runs a long instruction, then waits for S_V(1); the scalar thread sets S_V(1), and sets it
  // again (after the first WaitFlag in program order) while V is still busy.
  auto r = simulate({trace_builder()
                         .vec(255, vec_class::div, 0, 10)
                         .set(pipe::s, pipe::v, 1, 11)
                         .wait(pipe::s, pipe::v, 1, 12)
                         .set(pipe::s, pipe::v, 1, 13)
                         .wait(pipe::s, pipe::v, 1, 14)
                         .vec(1, vec_class::binary, 0, 15)
                         .build()},
                    a2());
  ASSERT_FALSE(r.error) << r.error->message;
  auto alone = simulate({trace_builder().vec(255, vec_class::div, 0, 10).build()}, a2());
  ASSERT_FALSE(alone.error);
  // The second set waited for the first wait, which ran after the long instruction.
  EXPECT_GT(r.blocks[0].end_us, alone.blocks[0].end_us);
}

TEST(FlagReset, ScalarDoubleSetWithoutAWaitBetweenStaysAnError) {
  auto r = simulate({trace_builder()
                         .vec(255, vec_class::div, 0, 10)
                         .set(pipe::s, pipe::v, 2, 11)
                         .set(pipe::s, pipe::v, 2, 12)
                         .wait(pipe::s, pipe::v, 2, 13)
                         .wait(pipe::s, pipe::v, 2, 14)
                         .build()},
                    a2());
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::double_set_event);
  EXPECT_EQ(r.error->site.line, 12u);
}

TEST(FlagReset, ScalarReSetWhoseWaitNeverRunsIsADeadlock) {
  // V waits for an MTE2 flag nobody sets before it could consume S_V(3): the scalar thread's
  // second set can never go on.
  auto r = simulate({trace_builder()
                         .wait(pipe::mte2, pipe::v, 4, 10)
                         .set(pipe::s, pipe::v, 3, 11)
                         .wait(pipe::s, pipe::v, 3, 12)
                         .set(pipe::s, pipe::v, 3, 13)
                         .wait(pipe::s, pipe::v, 3, 14)
                         .build()},
                    a2());
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, hw_error_kind::deadlock);
}

}  // namespace
