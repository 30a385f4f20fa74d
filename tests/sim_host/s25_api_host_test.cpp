// Host API of session 25 (issue 34), as the public graph API documentation has it:
// - ge::Tensor (graph/tensor.h): a TensorDesc with the bytes of one tensor; host code of
//   const-folding helpers reads a constant input through GetData/GetSize (math/lin_space's
//   op_host declares such a helper, so its host build failed on "'Tensor' does not name a type").
// This file does not compile when sim lacks it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/tensor.h"
#include "register/op_def_registry.h"

namespace {

// A helper of the same shape as an operator's: reads the int64 values of a constant tensor.
template <typename T>
std::vector<int64_t> s25_const_values(const ge::Tensor& t) {
  std::vector<int64_t> out;
  const T* p = reinterpret_cast<const T*>(t.GetData());
  for (std::size_t i = 0; i < t.GetSize() / sizeof(T); ++i) out.push_back(static_cast<int64_t>(p[i]));
  return out;
}

TEST(S25HostApi, GeTensorHoldsItsDescAndBytes) {
  const float vals[3] = {1.5F, -2.0F, 7.0F};
  ge::TensorDesc desc(ge::Shape({3}), ge::FORMAT_ND, ge::DT_FLOAT);
  ge::Tensor t(desc, reinterpret_cast<const uint8_t*>(vals), sizeof(vals));
  EXPECT_EQ(t.GetSize(), sizeof(vals));
  EXPECT_EQ(t.GetTensorDesc().GetDataType(), ge::DT_FLOAT);
  EXPECT_EQ(t.GetTensorDesc().GetShape().GetDims(), std::vector<int64_t>({3}));
  EXPECT_EQ(s25_const_values<float>(t), std::vector<int64_t>({1, -2, 7}));

  // SetData replaces the bytes; a null pointer with a size is refused.
  const std::vector<uint8_t> two = {4, 0, 0, 0, 9, 0, 0, 0};
  EXPECT_EQ(t.SetData(two), ge::GRAPH_SUCCESS);
  EXPECT_EQ(s25_const_values<int32_t>(t), std::vector<int64_t>({4, 9}));
  EXPECT_EQ(t.SetData(nullptr, 4), ge::GRAPH_FAILED);
  EXPECT_EQ(t.GetSize(), two.size());

  ge::Tensor empty;
  EXPECT_EQ(empty.GetSize(), 0U);
  EXPECT_EQ(empty.SetTensorDesc(desc), ge::GRAPH_SUCCESS);
  EXPECT_EQ(empty.GetTensorDesc().GetShape().GetShapeSize(), 3);
}

}  // namespace
