#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>

#include "aopt/common/subprocess.h"

using namespace aopt::common;
namespace fs = std::filesystem;

namespace {
process_request child(const std::string& mode) {
  process_request r;
  r.argv = {AOPT_SANDBOX_CHILD, mode};
  r.limits.wall_timeout = std::chrono::seconds(10);
  return r;
}
}  // namespace

TEST(Sandbox, NormalExitCapturesOutput) {
  const auto o = run_process(child("ok"));
  EXPECT_TRUE(o.ok()) << o.describe();
  EXPECT_EQ(o.out, "ok\n");
}

TEST(Sandbox, ExitCodeAndStderr) {
  const auto o = run_process(child("exit3"));
  EXPECT_EQ(o.end, process_end::exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.err, "bad things\n");
}

TEST(Sandbox, InfiniteLoopTimesOut) {
  auto r = child("loop");
  r.limits.wall_timeout = std::chrono::milliseconds(500);
  const auto t0 = std::chrono::steady_clock::now();
  const auto o = run_process(r);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.end, process_end::timed_out) << o.describe();
  EXPECT_LT(s, 5.0);
}

TEST(Sandbox, CpuLimit) {
  auto r = child("loop");
  r.limits.cpu_seconds = 1;
  const auto o = run_process(r);
  EXPECT_TRUE(o.cpu_limit_hit()) << o.describe();
}

TEST(Sandbox, SegfaultIsReportedAsSignal) {
  const auto o = run_process(child("segv"));
  EXPECT_EQ(o.end, process_end::signaled);
  EXPECT_EQ(o.term_signal, SIGSEGV);
  EXPECT_EQ(signal_name(o.term_signal), "SIGSEGV");
  EXPECT_EQ(o.describe(), "killed by SIGSEGV");
}

TEST(Sandbox, RunawayAllocationHitsTheMemoryLimit) {
  auto r = child("alloc");
  r.limits.address_space_bytes = std::uint64_t(512) << 20;
  const auto o = run_process(r);
  EXPECT_FALSE(o.ok());
  EXPECT_TRUE(o.memory_exhausted()) << o.describe() << " / " << o.err;
  EXPECT_NE(o.end, process_end::timed_out);
}

TEST(Sandbox, OutputIsBounded) {
  auto r = child("spew");
  r.limits.max_output_bytes = 10000;
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok());
  EXPECT_EQ(o.out.size(), 10000u);
  EXPECT_TRUE(o.out_truncated);
}

TEST(Sandbox, GrandchildrenDoNotKeepUsWaiting) {
  auto r = child("grandchild");
  r.limits.wall_timeout = std::chrono::seconds(20);
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok()) << o.describe();
  EXPECT_LT(o.wall_seconds, 5.0);
}

TEST(Sandbox, FileSizeLimitAndCwd) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-sbx-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto r = child("bigfile");
  r.cwd = dir.string();
  r.limits.file_size_bytes = 1 << 20;
  const auto o = run_process(r);
  EXPECT_TRUE(o.file_limit_hit()) << o.describe();
  auto p = child("pwd");
  p.cwd = dir.string();
  EXPECT_EQ(run_process(p).out, fs::canonical(dir).string() + "\n");
  fs::remove_all(dir);
}

TEST(Sandbox, MissingExecutableIsSpawnFailure) {
  process_request r;
  r.argv = {"/nonexistent/aopt-no-such-tool"};
  const auto o = run_process(r);
  EXPECT_EQ(o.end, process_end::spawn_failed);
  EXPECT_NE(o.error.find("No such file"), std::string::npos) << o.error;
}

TEST(Sandbox, ParentUnharmedAfterManyFailures) {
  for (const char* m : {"segv", "alloc", "segv"}) {
    auto r = child(m);
    r.limits.address_space_bytes = std::uint64_t(256) << 20;
    EXPECT_FALSE(run_process(r).ok());
  }
  EXPECT_TRUE(run_process(child("ok")).ok());
}
