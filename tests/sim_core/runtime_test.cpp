// Runtime: GM registry, launch, per-core context, hw_error formatting.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/runtime.h"
#include "sim_core_test_util.h"

namespace aopt::sim {
namespace {

TEST(GmRegistry, AlignedZeroFilledAndFound) {
  void* p = gm_alloc(1000, "x");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 4096, 0u);
  const auto* b = static_cast<const unsigned char*>(p);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(b[i], 0) << i;
  const void* base = nullptr;
  EXPECT_STREQ(gm_find(b + 10, 990, &base), "x");
  EXPECT_EQ(base, p);
  EXPECT_STREQ(gm_find(b + 1000, 0), "x");  // one past the end, empty range
  EXPECT_EQ(gm_find(b + 10, 991), nullptr);
  EXPECT_EQ(gm_find(b - 1, 1), nullptr);
  EXPECT_EQ(gm_alloc_bytes(p), 1000u);
  EXPECT_EQ(gm_alloc_bytes(b + 1), 0u);
  gm_free(p);
  EXPECT_EQ(gm_find(p, 1), nullptr);
}

// A tensor of megabytes sits on a 2 MiB boundary (offered to transparent huge pages, issue 35),
// zero-filled, with junk past its end to the end of its page, found by gm_find, and unmapped whole
// by gm_free: the rest of the former mapping is not left behind (the same address range can be
// mapped again at the same size).
TEST(GmRegistry, AMegabyteTensorIsHugePageAlignedAndFreedWhole) {
  const std::size_t bytes = (std::size_t{8} << 20) + 100;
  void* p = gm_alloc(bytes, "big");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u);
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; i += 4096) ASSERT_EQ(b[i], 0) << i;
  EXPECT_EQ(b[bytes - 1], 0);
  EXPECT_NE(b[bytes], 0);  // junk to the end of the page, as for any tensor
  EXPECT_STREQ(gm_find(b + bytes - 8, 8), "big");
  EXPECT_EQ(gm_find(b + bytes - 8, 9), nullptr);
  std::memset(p, 0x5a, bytes);
  gm_free(p);
  EXPECT_EQ(gm_find(p, 1), nullptr);
  // Freed whole: the 2 MiB of alignment slack of each mapping is returned too (64 allocations
  // leaking it would grow the address space by up to 128 MiB).
  const auto vm_pages = [] {
    std::size_t pages = 0;
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (f != nullptr) {
      if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    return pages;
  };
  const std::size_t before = vm_pages();
  ASSERT_GT(before, 0u);
  for (int i = 0; i < 64; ++i) gm_free(gm_alloc(bytes, "again"));
  EXPECT_LT(vm_pages(), before + (std::size_t{16} << 20) / 4096);
}

TEST(GmRegistry, ThreadSafe) {
  std::vector<std::thread> ts;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        void* p = gm_alloc(64 + i, "t" + std::to_string(t));
        if (gm_find(p, 64 + i) == nullptr) ++bad;
        gm_free(p);
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(HwError, KindNamesAndToString) {
  EXPECT_STREQ(hw_error_kind_name(hw_error_kind::ub_overflow), "ub_overflow");
  EXPECT_STREQ(hw_error_kind_name(hw_error_kind::sync_all_missing_core), "sync_all_missing_core");
  EXPECT_STREQ(hw_error_kind_name(hw_error_kind::gm_out_of_bounds), "gm_out_of_bounds");
  hw_error e;
  e.kind = hw_error_kind::misaligned;
  e.message = "bad";
  e.site = call_site{"k.cpp", 12, "Process", "DataCopy"};
  e.block_idx = 3;
  EXPECT_EQ(e.to_string(), "k.cpp:12: in Process: DataCopy: bad (core 3)");
}

TEST(Launch, EveryBlockRunsWithItsContext) {
  std::vector<std::atomic<int>> seen(50);
  std::atomic<int> wrong_num{0};
  auto r = test::run(50, [&] {
    seen[block_idx()]++;
    if (block_num() != 50) ++wrong_num;
  }, 8);
  EXPECT_FALSE(r.error.has_value());
  ASSERT_EQ(r.cores.size(), 50u);
  for (std::uint32_t i = 0; i < 50; ++i) {
    EXPECT_EQ(seen[i].load(), 1) << i;
    EXPECT_EQ(r.cores[i].block_idx, i);
  }
  EXPECT_EQ(wrong_num.load(), 0);
}

TEST(Launch, UbIsPoisonedAndPrivate) {
  std::atomic<int> bad{0};
  auto r = test::run(4, [&] {
    const std::byte* ub = ub_base();
    for (std::uint32_t i = 0; i < ub_capacity(); i += 997) {
      if (ub[i] != std::byte{0xFF}) ++bad;
    }
    std::memset(ub_base(), static_cast<int>(block_idx()), 1024);
    for (int i = 0; i < 1024; ++i) {
      if (ub[i] != static_cast<std::byte>(block_idx())) ++bad;
    }
  }, 40, 65536);
  EXPECT_FALSE(r.error.has_value());
  EXPECT_EQ(bad.load(), 0);
}

// Reads 16 KiB of the stack a callee of the kernel would use as it finds them (true when they
// all hold the launch's paint, zero), then dirties them as a kernel's own frames would.
[[gnu::noinline]] bool stack_holds_paint_then_dirty() {
  unsigned char probe[16384];
  asm volatile("" : : "r"(probe) : "memory");  // may have written probe: read what is there
  bool painted = true;
  for (const unsigned char c : probe) painted = painted && c == 0;
  std::memset(probe, 0xAB, sizeof probe);
  asm volatile("" : : "r"(probe) : "memory");
  return painted;
}

// A kernel that reads a local it never set (add_rms_norm's merge_n kernel, `bool isNumColAlign`)
// finds the same bytes on every core and in every run: each block starts on a painted stack,
// also the second block a pool thread runs after the first left its frames there (4 blocks on
// 2 threads). Without the paint the simulated latency of one program changed from run to run.
TEST(Launch, EachBlockStartsOnAPaintedStack) {
  std::vector<std::atomic<int>> painted(4);
  auto r = test::run(4, [&] { painted[block_idx()] = stack_holds_paint_then_dirty() ? 1 : 0; }, 1);
  EXPECT_FALSE(r.error.has_value());
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(painted[i].load(), 1) << "block " << i;
}

TEST(Launch, FailReportsSiteAndCore) {
  auto r = test::run(3, [&] {
    if (block_idx() == 2) fail(hw_error_kind::invalid_use, "boom", src_loc{"f.cpp", 7, "fn"}, "Api");
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::invalid_use);
  EXPECT_EQ(r.error->block_idx, 2u);
  EXPECT_EQ(r.error->site.file, "f.cpp");
  EXPECT_EQ(r.error->site.line, 7u);
  EXPECT_EQ(r.error->site.api, "Api");
}

TEST(Launch, CppExceptionBecomesError) {
  auto r = test::run(1, [] { throw std::runtime_error("oops"); });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("oops"), std::string::npos);
}

TEST(Launch, OutsideCoreIsInvalidUse) {
  try {
    (void)ub_base();
    FAIL() << "ub_base outside a core must throw";
  } catch (const hw_fault& f) {
    EXPECT_EQ(f.error.kind, hw_error_kind::invalid_use);
  }
}

TEST(Launch, ScalarRecordsMerge) {
  auto r = test::run(1, [] {
    for (int i = 0; i < 100; ++i) record_scalar(1, 0, src_loc::current(), "GetValue");
    record_scalar(0, 5, src_loc::current(), "SetMaskCount");
  });
  ASSERT_FALSE(r.error.has_value());
  ASSERT_EQ(r.cores[0].recs.size(), 1u);
  EXPECT_EQ(r.cores[0].recs[0].kind, rec_kind::scalar);
  EXPECT_EQ(r.cores[0].recs[0].repeats, 100u);
  EXPECT_EQ(r.cores[0].recs[0].cycles, 5u);
}

TEST(Launch, TracingOff) {
  launch_options o;
  o.block_dim = 1;
  o.record_trace = false;
  auto r = launch(o, [] { record_scalar(3, 0, src_loc::current(), "GetValue"); });
  ASSERT_FALSE(r.error.has_value());
  EXPECT_TRUE(r.cores[0].recs.empty());
}

TEST(Launch, SiteInterning) {
  auto r = test::run(1, [] {
    for (int i = 0; i < 3; ++i) {
      trace_rec a;
      a.site = site_of(src_loc::current(), "A");
      record(a);
    }
    trace_rec b;
    b.site = site_of(src_loc::current(), "B");
    record(b);
  });
  ASSERT_FALSE(r.error.has_value());
  const auto& c = r.cores[0];
  ASSERT_EQ(c.recs.size(), 4u);
  EXPECT_EQ(c.recs[0].site, c.recs[2].site);
  EXPECT_NE(c.recs[0].site, c.recs[3].site);
  ASSERT_EQ(c.sites.size(), 2u);
  EXPECT_EQ(c.sites[c.recs[3].site].api, "B");
  EXPECT_TRUE(test::file_is(c.sites[0].file, "runtime_test.cpp"));
}

TEST(Launch, TilingKeyVisible) {
  launch_options o;
  o.block_dim = 2;
  o.tiling_key = 42;
  std::atomic<int> ok{0};
  auto r = launch(o, [&] { ok += tiling_key() == 42; });
  EXPECT_FALSE(r.error.has_value());
  EXPECT_EQ(ok.load(), 2);
}

TEST(Launch, BadAllocInEveryCoreIsAnOutOfMemoryError) {
  launch_options o;
  o.block_dim = 8;
  o.core_count = 8;
  auto r = launch(o, [] { throw std::bad_alloc(); });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(r.error->message.find("out of memory"), std::string::npos) << r.error->message;
  EXPECT_NE(r.error->message.find("bad_alloc"), std::string::npos) << r.error->message;
}

TEST(Launch, BadAllocInOneCoreReleasesTheOthersWaitingInSyncAll) {
  launch_options o;
  o.block_dim = 4;
  o.core_count = 4;
  auto r = launch(o, [] {
    if (block_idx() == 2) throw std::bad_alloc();
    sync_all(src_loc::current(), "SyncAll");
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("out of memory"), std::string::npos) << r.error->message;
}

}  // namespace
}  // namespace aopt::sim
