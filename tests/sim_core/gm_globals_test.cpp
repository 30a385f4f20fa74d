// A kernel's `__gm__` global: a constant table the kernel defines (`static const __gm__ int16_t
// table[] = {...}`) lies in GM on the chip and is read with DataCopy like any GM buffer (the
// AscendC documentation's GlobalTensor::SetGlobalBuffer takes any __gm__ address). sim accepts
// the address as GM (a data segment of the loaded kernel image); an address that is neither a
// buffer the kernel was given nor such a global (a host stack array) is still an error.
#include <gnu/libc-version.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

constexpr std::uint32_t table_len = 256;

// A constant table as a kernel header defines one; values i * 3 - 100 (no pattern sim could fake).
static const __gm__ std::int16_t gm_table[table_len] = {
#define AOPT_ROW(b) (b) * 3 - 100, (b + 1) * 3 - 100, (b + 2) * 3 - 100, (b + 3) * 3 - 100,
#define AOPT_ROW16(b) AOPT_ROW(b) AOPT_ROW(b + 4) AOPT_ROW(b + 8) AOPT_ROW(b + 12)
    AOPT_ROW16(0) AOPT_ROW16(16) AOPT_ROW16(32) AOPT_ROW16(48) AOPT_ROW16(64) AOPT_ROW16(80)
    AOPT_ROW16(96) AOPT_ROW16(112) AOPT_ROW16(128) AOPT_ROW16(144) AOPT_ROW16(160) AOPT_ROW16(176)
    AOPT_ROW16(192) AOPT_ROW16(208) AOPT_ROW16(224) AOPT_ROW16(240)
#undef AOPT_ROW16
#undef AOPT_ROW
};

TEST(GmGlobals, KernelConstantTableIsReadWithDataCopy) {
  gm_buffer out(table_len * sizeof(std::int16_t), "y");
  auto r = run(2, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, table_len * sizeof(std::int16_t));
    GlobalTensor<std::int16_t> table, y;
    table.SetGlobalBuffer((__gm__ std::int16_t*)gm_table, table_len);
    y.SetGlobalBuffer(reinterpret_cast<__gm__ std::int16_t*>(out.get()), table_len);
    LocalTensor<std::int16_t> t = b.Get<std::int16_t>();
    DataCopy(t, table, table_len);
    PipeBarrier<PIPE_ALL>();
    if (GetBlockIdx() == 0) DataCopy(y, t, table_len);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < table_len; ++i) {
    ASSERT_EQ(out.as<std::int16_t>()[i], static_cast<std::int16_t>(i * 3 - 100)) << i;
  }
}

TEST(GmGlobals, HostStackArrayIsStillNotGm) {
  std::int16_t host_array[table_len] = {};
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, table_len * sizeof(std::int16_t));
    GlobalTensor<std::int16_t> gt;
    gt.SetGlobalBuffer(host_array, table_len);
    DataCopy(b.Get<std::int16_t>(), gt, table_len);
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("not inside any GM buffer"), std::string::npos) << r.error->to_string();
}

// A read-only string of another loaded object (libc's version string) is not the kernel's global:
// before, any object's data segment passed as GM and a write through it faulted in libc's pages.
TEST(GmGlobals, AnotherObjectsDataIsNotGm) {
  const char* libc_data = gnu_get_libc_version();
  auto r = run(1, [&] {
    GlobalTensor<char> gt;
    gt.SetGlobalBuffer(const_cast<__gm__ char*>(libc_data), 4);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 32);
    DataCopy(gt, b.Get<char>(), 32);
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("not inside any GM buffer"), std::string::npos) << r.error->to_string();
}

// A per-core global (`__BLOCK_LOCAL__ __inline__ CallBackContext ctx;`, mat_mul_v3's callback
// context): each core has its own copy, so cores writing it at once do not see each other's value.
struct block_context {
  std::uint32_t owner;
};
__BLOCK_LOCAL__ __inline__ block_context block_ctx;

TEST(GmGlobals, BlockLocalVariableIsPerCore) {
  constexpr std::uint32_t blocks = 4;
  gm_buffer out(blocks * sizeof(std::int32_t), "seen");
  auto r = run(blocks, [&] {
    block_ctx.owner = GetBlockIdx();
    SyncAll();  // every core has written its copy before any reads it back
    reinterpret_cast<std::int32_t*>(out.get())[GetBlockIdx()] = static_cast<std::int32_t>(block_ctx.owner);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < blocks; ++i) EXPECT_EQ(out.as<std::int32_t>()[i], static_cast<std::int32_t>(i)) << i;
}

}  // namespace
