// protocols/actors.hpp includes what it uses: compiled first in this file, it must name
// aopt::outcome (common/) and the experience tuple (vocab/) itself. On 46680a0 it forward-declared
// search::outcome, a template nothing defines, so this file did not compile.
#include "aopt/protocols/actors.hpp"

#include <type_traits>

#include <gtest/gtest.h>

namespace {

static_assert(std::is_same_v<aopt::protocols::diagnosis_outcome, aopt::outcome<aopt::search::diagnosis>>);
static_assert(std::is_same_v<aopt::protocols::experiences::value_type, aopt::vocab::experience>);

TEST(protocols_headers, ActorsHeaderIncludesWhatItUses) {
  aopt::protocols::experiences tuples(1);
  tuples[0].title = "t";
  EXPECT_EQ(tuples.size(), 1u);
}

}  // namespace
