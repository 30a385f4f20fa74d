// The private formats the harness lays a case's plain tensors out in (session 33: the tree's
// convolution-gradient operators take NDC1HWC0 feature maps and write FRACTAL_Z_3D filters).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aopt_sim/host/private_format.h"

namespace h = aopt::sim::host;
using shape = std::vector<std::int64_t>;

TEST(PrivateFormat, OriginRanks) {
  EXPECT_EQ(h::private_format_origin_rank(ge::FORMAT_NC1HWC0), 4u);
  EXPECT_EQ(h::private_format_origin_rank(ge::FORMAT_FRACTAL_Z), 4u);
  EXPECT_EQ(h::private_format_origin_rank(ge::FORMAT_NDC1HWC0), 5u);
  EXPECT_EQ(h::private_format_origin_rank(ge::FORMAT_FRACTAL_Z_3D), 5u);
  EXPECT_FALSE(h::private_format_origin_rank(ge::FORMAT_NCDHW));
  EXPECT_FALSE(h::private_format_origin_rank(ge::FORMAT_FRACTAL_NZ)) << "not laid out by the harness";
}

TEST(PrivateFormat, FeatureMapsSplitChannelsIntoC1AndC0) {
  // NCDHW [1, 20, 2, 3, 3] half: C1 = 2, C0 = 16.
  const shape origin{1, 20, 2, 3, 3};
  EXPECT_EQ(h::private_storage_shape(ge::FORMAT_NDC1HWC0, ge::FORMAT_NCDHW, origin, 2), (shape{1, 2, 2, 3, 3, 16}));
  const auto idx = h::private_format_index(ge::FORMAT_NDC1HWC0, ge::FORMAT_NCDHW, origin, 2);
  ASSERT_EQ(idx.size(), 360u);
  // (n 0, c 17, d 1, h 2, w 0): origin ((17 * 2 + 1) * 3 + 2) * 3 = 321; storage [0, 1, 1, 2, 0, 1].
  EXPECT_EQ(idx[321], ((((0 * 2 + 1) * 2 + 1) * 3 + 2) * 3 + 0) * 16 + 1u);
  // int8 takes C0 = 32; channel-last origins read C last.
  EXPECT_EQ(h::private_storage_shape(ge::FORMAT_NC1HWC0, ge::FORMAT_NHWC, shape{2, 4, 5, 40}, 1), (shape{2, 2, 4, 5, 32}));
  const auto nhwc = h::private_format_index(ge::FORMAT_NC1HWC0, ge::FORMAT_NHWC, shape{1, 1, 2, 3}, 2);
  ASSERT_EQ(nhwc.size(), 6u);
  EXPECT_EQ(nhwc[4], 16u + 1u) << "(h 0, w 1, c 1) at [0, 0, 0, 1, 1]";
}

TEST(PrivateFormat, FiltersAreFractalZ) {
  // NCDHW filter [18, 4, 2, 2, 2] half: C1 = 1, N1 = 2, rows D * C1 * H * W = 8.
  const shape origin{18, 4, 2, 2, 2};
  EXPECT_EQ(h::private_storage_shape(ge::FORMAT_FRACTAL_Z_3D, ge::FORMAT_NCDHW, origin, 2), (shape{8, 2, 16, 16}));
  const auto idx = h::private_format_index(ge::FORMAT_FRACTAL_Z_3D, ge::FORMAT_NCDHW, origin, 2);
  // (n 17, c 3, d 1, h 0, w 1): origin (((17 * 4 + 3) * 2 + 1) * 2 + 0) * 2 + 1; row (1 * 1 + 0) * 2 * 2 + 0 * 2 + 1 = 5.
  const std::size_t from = static_cast<std::size_t>((((17 * 4 + 3) * 2 + 1) * 2 + 0) * 2 + 1);
  EXPECT_EQ(idx[from], ((5u * 2 + 1) * 16 + 1) * 16 + 3);
  EXPECT_EQ(h::private_storage_shape(ge::FORMAT_FRACTAL_Z, ge::FORMAT_NCHW, shape{16, 32, 3, 3}, 2), (shape{18, 1, 16, 16}));
}

TEST(PrivateFormat, MismatchedRanksAndLayoutsDoNotFit) {
  EXPECT_FALSE(h::private_storage_shape(ge::FORMAT_NDC1HWC0, ge::FORMAT_NCHW, shape{1, 2, 3, 4}, 2));
  EXPECT_FALSE(h::private_storage_shape(ge::FORMAT_NDC1HWC0, ge::FORMAT_NCDHW, shape{1, 2, 3, 4}, 2));
  EXPECT_TRUE(h::private_format_index(ge::FORMAT_ND, ge::FORMAT_NCDHW, shape{1, 2, 3, 4, 5}, 2).empty());
}
