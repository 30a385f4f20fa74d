// Issue 39 item 4: a count of cores is probed finely near a cap: just below the operator's own
// (the largest block dim the base uses when under the device's cores: exp caps its cores at the
// input's 32-byte blocks, so every count above that tiles alike), then below the device's count
// and around its half.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aopt/stage1/mutator.h"

namespace {

using namespace aopt::stage1;

TEST(CoreLadder, AllCoresProbesBelowTheOperatorsCapAndTheDevicesCount) {
  device_limits dev{40, 196608};
  tunable cores;  // GetCoreNum(): "all cores"
  cores.name = "coreNum";
  cores.value = 0;
  cores.dom = domain{domain_kind::cores, 1, 0, false, {}};
  EXPECT_EQ(probe_ladder(cores, dev, 16), (std::vector<std::int64_t>{39, 20, 10, 38, 21, 19}));
  dev.core_cap = 24;  // the base's tiling uses 24 of the 40 cores
  EXPECT_EQ(probe_ladder(cores, dev, 16), (std::vector<std::int64_t>{39, 20, 10, 23, 22, 13, 12, 38, 21, 19}));
  // Under the default of 8 probes per tunable the values below the cap are still probed.
  EXPECT_EQ(probe_ladder(cores, dev, 8), (std::vector<std::int64_t>{39, 20, 10, 23, 22, 13, 12, 38}));
}

TEST(CoreLadder, ACapAtTheDevicesCountOrOneAddsNothing) {
  device_limits dev{40, 196608};
  tunable cores;
  cores.value = 0;
  cores.dom = domain{domain_kind::cores, 1, 0, false, {}};
  const auto plain = probe_ladder(cores, dev, 16);
  dev.core_cap = 40;
  EXPECT_EQ(probe_ladder(cores, dev, 16), plain);
  dev.core_cap = 1;
  EXPECT_EQ(probe_ladder(cores, dev, 16), plain);
}

TEST(CoreLadder, ANonCoreRangeIsNotRefined) {
  device_limits dev{40, 196608};
  dev.core_cap = 24;
  tunable tile;  // a range with an upper bound: no count of cores
  tile.value = 8;
  tile.dom = domain{domain_kind::range, 1, 64, false, {}};
  EXPECT_EQ(probe_ladder(tile, dev, 16), (std::vector<std::int64_t>{7, 9, 16, 4, 32, 2}));
}

}  // namespace
