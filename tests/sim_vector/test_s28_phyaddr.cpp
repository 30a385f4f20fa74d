// LocalTensor::GetPhyAddr in its documented (NPU) form: `uint64_t GetPhyAddr() const` and
// `uint64_t GetPhyAddr(uint32_t offset) const`, a byte address. Kernels add byte offsets to it and
// hand the sums to address-list APIs (an ND -> NZ step in the style of cann-ops' mat_mul_v3:
// `list[i] = i * 32 + buf.GetPhyAddr()` into TransDataTo5HD), or cast it to a pointer
// (`(__ubuf__ T*)t.GetPhyAddr()`). On main it returned T* (the CPU-debug form), so the integer sums
// did not compile (issue 38, session 28).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "vec_test_util.h"

#include "kernel_operator.h"

using namespace AscendC;

namespace {

static_assert(std::is_same_v<decltype(std::declval<LocalTensor<half>>().GetPhyAddr()), std::uint64_t>,
              "LocalTensor::GetPhyAddr() returns uint64_t, as documented");
static_assert(std::is_same_v<decltype(std::declval<LocalTensor<float>>().GetPhyAddr(3u)), std::uint64_t>,
              "LocalTensor::GetPhyAddr(offset) returns uint64_t, as documented");

TEST(S28PhyAddr, IsAByteAddressTheOffsetFormCountsElements) {
  vt::run_ok([&] {
    auto t = vt::ub<float>(256, 64);
    EXPECT_EQ(t.GetPhyAddr(5), t.GetPhyAddr() + 5 * sizeof(float));
    EXPECT_EQ(t[8].GetPhyAddr(), t.GetPhyAddr() + 32);
    // A pointer cast reaches the tensor's data.
    t.SetValue(9, 2.5f);
    EXPECT_EQ(reinterpret_cast<__ubuf__ float*>(t.GetPhyAddr())[9], 2.5f);
    EXPECT_EQ(*(__ubuf__ float*)t.GetPhyAddr(9), 2.5f);
  });
}

// A 16 x 16 half tile transposed by TransDataTo5HD with its address lists built as byte offsets
// added to GetPhyAddr (source rows 32 B apart, destination rows 32 B apart).
TEST(S28PhyAddr, ByteOffsetsOnItFeedTransDataTo5HD) {
  std::vector<std::uint16_t> out(256);
  vt::run_ok([&] {
    auto src = vt::ub<std::uint16_t>(0, 256), dst = vt::ub<std::uint16_t>(2048, 256);
    for (int i = 0; i < 256; ++i) src.SetValue(i, static_cast<std::uint16_t>(3 * i + 1));
    constexpr std::uint64_t kRowBytes = 32;
    std::uint64_t d[16], s[16];
    for (std::uint32_t i = 0; i < 16; ++i) {
      s[i] = i * kRowBytes + src.GetPhyAddr();
      d[i] = dst.GetPhyAddr() + i * kRowBytes;
    }
    TransDataTo5HD<half>(d, s, TransDataTo5HDParams(false, false, 1, 0, 0));
    out = vt::get(dst, 256);
  });
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(out[r * 16 + c], 3 * (c * 16 + r) + 1) << r << "," << c;
}

}  // namespace
