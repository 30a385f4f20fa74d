#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

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

// --- Isolation (namespaces): skipped, with the reason, where this machine has none. ---------

namespace {

process_request isolated_sh(const std::string& script, const fs::path& rw = {}) {
  process_request r;
  r.argv = {"/bin/sh", "-c", script};
  r.limits.wall_timeout = std::chrono::seconds(20);
  r.iso.enabled = true;
  r.iso.mounts = system_mounts();
  if (!rw.empty()) r.iso.mounts.push_back({mount_entry::kind::writable, rw.string(), "", 0, false});
  return r;
}

#define REQUIRE_NAMESPACES()                                                        \
  if (!probe_isolation().namespaces) GTEST_SKIP() << probe_isolation().why

// Threads that allocate and free until destroyed: they keep malloc's locks busy, so a child
// cloned from this process may inherit one held.
struct allocating_threads {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  explicit allocating_threads(int n) {
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([this] {
        while (!stop) {
          std::vector<std::unique_ptr<char[]>> v;
          for (int i = 0; i < 64; ++i) v.emplace_back(new char[static_cast<std::size_t>(64 + i * 997)]);
        }
      });
    }
  }
  ~allocating_threads() {
    stop = true;
    for (auto& t : threads) t.join();
  }
};

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("aopt-iso-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(Isolation, RootHoldsOnlyItsMounts) {
  REQUIRE_NAMESPACES();
  const fs::path rw = scratch("root");
  const fs::path hidden = fs::temp_directory_path() / ("aopt-iso-hidden-" + std::to_string(::getpid()));
  { std::ofstream(hidden) << "secret"; }
  auto r = isolated_sh("ls /; cat " + hidden.string() + "; echo w > " + rw.string() + "/f && echo wrote; touch /usr/x || echo ro", rw);
  r.cwd = rw.string();
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok()) << o.describe() << o.err << o.error;
  EXPECT_TRUE(o.isolated);
  EXPECT_NE(o.out.find("usr\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("proc\n"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("home\n"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("secret"), std::string::npos) << "a file outside the mounts was readable";
  EXPECT_NE(o.out.find("wrote"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("ro\n"), std::string::npos) << "/usr was writable: " << o.err;
  EXPECT_TRUE(fs::exists(rw / "f"));
  fs::remove(hidden);
  fs::remove_all(rw);
}

TEST(Isolation, ChannelCarriesWhatStdinGave) {
  REQUIRE_NAMESPACES();
  const fs::path d = scratch("channel");
  auto r = isolated_sh("read x; printf '%s' \"$x\" >&3");
  r.stdin_data = "the-secret\n";
  r.channel_fd = 3;
  r.channel_file = (d / "channel.bin").string();
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok()) << o.describe() << o.err << o.error;
  std::ifstream in(d / "channel.bin");
  const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "the-secret");
  EXPECT_EQ(o.channel_bytes, 10u);
  fs::remove_all(d);
}

TEST(Isolation, EnvironmentIsClean) {
  REQUIRE_NAMESPACES();
  ::setenv("AOPT_TEST_API_KEY", "sk-not-for-candidates", 1);
  auto r = isolated_sh("env");
  r.env = {{"WANTED", "yes"}};
  const auto o = run_process(r);
  ::unsetenv("AOPT_TEST_API_KEY");
  EXPECT_TRUE(o.ok()) << o.describe() << o.err;
  EXPECT_EQ(o.out.find("sk-not-for-candidates"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("WANTED=yes"), std::string::npos) << o.out;
}

TEST(Isolation, ProcessLimitBinds) {
  REQUIRE_NAMESPACES();
  if (!probe_isolation().pids_cgroup && ::getuid() == 0) GTEST_SKIP() << "no pids cgroup, and RLIMIT_NPROC does not bind root";
  auto r = isolated_sh("n=0; for i in $(seq 60); do sleep 5 & n=$((n+1)); done; echo started=$n");
  r.iso.max_processes = 20;
  const auto o = run_process(r);
  EXPECT_NE(o.err.find("fork"), std::string::npos) << "60 processes started under a limit of 20: " << o.out << o.err;
  EXPECT_LT(o.wall_seconds, 4.0) << "the sleeping children were waited for";
}

TEST(Isolation, DescendantsDieWithTheRun) {
  REQUIRE_NAMESPACES();
  const auto o = run_process(isolated_sh("(setsid sleep 30 &) ; exec 3>&-; echo started"));
  EXPECT_TRUE(o.ok()) << o.describe() << o.err;
  EXPECT_LT(o.wall_seconds, 5.0);
}

TEST(Isolation, SpawningFromManyThreadsWhileOthersAllocateNeverHangs) {
  REQUIRE_NAMESPACES();
  // Regression: the sandbox init used glibc's fork(), which takes malloc's locks; one held by
  // another thread at clone time hung the build. Allocating threads keep those locks busy.
  allocating_threads churn(3);
  std::atomic<int> ok{0};
  std::vector<std::thread> spawners;
  for (int t = 0; t < 2; ++t) {
    spawners.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        auto r = isolated_sh("exit 0");
        r.limits.wall_timeout = std::chrono::seconds(10);
        if (run_process(r).ok()) ++ok;
      }
    });
  }
  for (auto& s : spawners) s.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST(Isolation, ALongRunHoldsNoPipeOfAnotherRun) {
  REQUIRE_NAMESPACES();
  // Regression: the sandbox init (which never execs) kept every descriptor it inherited from the
  // evaluator, the pipes of runs other threads were starting among them. A run whose exec-report
  // pipe a long run's init held waited for that run to end, its child blocked on a full stdout
  // (the daemon's evaluations stalled until their deadline). Short runs printing 200 KB beside
  // long ones must each end long before a long one does.
  std::atomic<bool> stop{false};
  std::thread longer([&] {
    while (!stop) {
      auto r = isolated_sh("sleep 3");
      r.limits.wall_timeout = std::chrono::seconds(20);
      run_process(r);
    }
  });
  std::atomic<int> ok{0}, runs{0};
  std::mutex mu;
  double slowest = 0;
  std::vector<std::thread> shorter;
  for (int t = 0; t < 2; ++t) {
    shorter.emplace_back([&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(8);  // a few long runs start meanwhile
      while (std::chrono::steady_clock::now() < until) {
        ++runs;
        auto r = isolated_sh("head -c 200000 /dev/zero");
        r.limits.wall_timeout = std::chrono::seconds(20);
        r.limits.max_output_bytes = 1 << 20;
        const auto o = run_process(r);
        if (o.ok() && o.out.size() == 200000) ++ok;
        std::lock_guard<std::mutex> lock(mu);
        slowest = std::max(slowest, o.wall_seconds);
      }
    });
  }
  for (auto& s : shorter) s.join();
  stop = true;
  longer.join();
  EXPECT_EQ(ok.load(), runs.load());
  EXPECT_GT(runs.load(), 10);
  EXPECT_LT(slowest, 2.0) << "a short run waited for a long one";
}

// --- Sessions: one prepared sandbox for the runs of an evaluation. ----------------------------

namespace {

std::shared_ptr<sandbox_session> session_on(const isolation& base) { return std::make_shared<sandbox_session>(base); }

process_request in_session(const std::shared_ptr<sandbox_session>& s, const std::string& script) {
  auto r = isolated_sh(script);
  r.iso = s->base();
  r.session = s;
  return r;
}

// A session on the system mounts whose init is up (one run done).
std::shared_ptr<sandbox_session> started_session() {
  auto s = session_on(isolated_sh("").iso);
  const auto o = run_process(in_session(s, "exit 0"));
  EXPECT_TRUE(o.ok() && s->running()) << o.describe() << o.error;
  return s;
}

}  // namespace

TEST(Session, RunsShareOneInitAndItsChannel) {
  REQUIRE_NAMESPACES();
  const fs::path d = scratch("session-channel");
  auto s = session_on(isolated_sh("").iso);
  EXPECT_FALSE(s->running());
  std::int64_t first_init = 0;
  for (int i = 0; i < 3; ++i) {
    auto r = in_session(s, "read x; printf '%s' \"$x\" >&3; echo out-$x; echo err >&2");
    r.stdin_data = "run" + std::to_string(i) + "\n";
    r.channel_fd = 3;
    r.channel_file = (d / ("channel" + std::to_string(i))).string();
    const auto o = run_process(r);
    EXPECT_TRUE(o.ok()) << o.describe() << o.err << o.error;
    EXPECT_TRUE(o.isolated);
    EXPECT_EQ(o.out, "out-run" + std::to_string(i) + "\n");
    EXPECT_EQ(o.err, "err\n");
    std::ifstream in(r.channel_file);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), "run" + std::to_string(i));
    ASSERT_TRUE(s->running());
    if (i == 0) first_init = s->init_pid();
    EXPECT_EQ(s->init_pid(), first_init) << "run " << i << " did not reuse the prepared sandbox";
  }
  s->close();
  EXPECT_FALSE(s->running());
  EXPECT_TRUE(run_process(in_session(s, "exit 0")).ok()) << "a closed session starts a new init for its next run";
  EXPECT_TRUE(s->running());
  fs::remove_all(d);
}

TEST(Session, NothingCarriesOverFromOneRunToTheNext) {
  REQUIRE_NAMESPACES();
  const fs::path run1 = scratch("session-run1"), run2 = scratch("session-run2");
  auto s = session_on(isolated_sh("").iso);
  auto r1 = in_session(s, "echo a > /tmp/left; echo b > /dev/shm/left; echo c > " + run1.string() +
                              "/left; (setsid sleep 30 &); exec 3>&-; echo started");
  r1.iso.mounts.push_back({mount_entry::kind::tmpfs, "", run1.string(), 1 << 20, false});
  r1.cwd = run1.string();
  const auto o1 = run_process(r1);
  ASSERT_TRUE(o1.ok()) << o1.describe() << o1.err << o1.error;
  EXPECT_LT(o1.wall_seconds, 5.0);
  auto r2 = in_session(s, "ls -A /tmp /dev/shm " + run1.string() + " 2>&1; for c in /proc/[0-9]*/comm; do cat $c; done");
  r2.iso.mounts.push_back({mount_entry::kind::tmpfs, "", run2.string(), 1 << 20, false});
  r2.cwd = run2.string();
  const auto o2 = run_process(r2);
  EXPECT_TRUE(o2.ok()) << o2.describe() << o2.err << o2.error;
  EXPECT_EQ(o2.out.find("left"), std::string::npos) << "a file of the first run was visible:\n" << o2.out;
  EXPECT_EQ(o2.out.find("sleep"), std::string::npos) << "a process of the first run survived it:\n" << o2.out;
  EXPECT_FALSE(fs::exists(run1 / "left")) << "the run's directory is a tmpfs of its own";
  fs::remove_all(run1);
  fs::remove_all(run2);
}

TEST(Session, TheInitAndTheEvaluatorsTreeStayOutOfReach) {
  REQUIRE_NAMESPACES();
  // The session's init keeps the evaluator's tree mounted (to bind each run's files from): no
  // process a run can see may be in its mount namespace.
  auto s = session_on(isolated_sh("").iso);
  const auto o = run_process(in_session(s, "ls -A / /proc/1/root /proc/1/cwd 2>&1; for m in /proc/[0-9]*/mountinfo; do cat $m; done 2>&1"));
  EXPECT_TRUE(o.ok()) << o.describe() << o.err << o.error;
  EXPECT_EQ(o.out.find("oldroot"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("newroot"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("home"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("usr"), std::string::npos) << o.out;
}

TEST(Session, ATimeoutEndsTheInitAndTheNextRunGetsANewOne) {
  REQUIRE_NAMESPACES();
  auto s = started_session();
  const auto before = s->init_pid();
  auto r = in_session(s, "sleep 30");
  r.limits.wall_timeout = std::chrono::milliseconds(500);
  const auto o = run_process(r);
  EXPECT_EQ(o.end, process_end::timed_out) << o.describe();
  EXPECT_LT(o.wall_seconds, 5.0);
  EXPECT_FALSE(s->running());
  const auto again = run_process(in_session(s, "echo fine"));
  EXPECT_TRUE(again.ok()) << again.describe() << again.error;
  EXPECT_EQ(again.out, "fine\n");
  EXPECT_NE(s->init_pid(), before);
}

TEST(Session, AFailedMountIsReportedAndTheSessionRecovers) {
  REQUIRE_NAMESPACES();
  auto s = session_on(isolated_sh("").iso);
  const std::string missing = (fs::temp_directory_path() / ("aopt-iso-missing-" + std::to_string(::getpid()))).string();
  auto r = in_session(s, "exit 0");
  r.iso.mounts.push_back({mount_entry::kind::read_only, missing, "", 0, false});
  const auto o = run_process(r);
  EXPECT_EQ(o.end, process_end::spawn_failed);
  EXPECT_NE(o.error.find("bind mount of " + missing), std::string::npos) << o.error;
  EXPECT_TRUE(run_process(in_session(s, "exit 0")).ok());
}

TEST(Session, ARunThatDoesNotExtendTheBaseRunsOnItsOwn) {
  REQUIRE_NAMESPACES();
  const fs::path extra = scratch("session-base-extra");
  { std::ofstream(extra / "marker") << "in the base"; }
  auto base = isolated_sh("").iso;
  base.mounts.push_back({mount_entry::kind::read_only, extra.string(), "", 0, false});
  auto s = session_on(base);
  auto r = isolated_sh("cat " + (extra / "marker").string() + " 2>&1 || echo absent");  // lacks the base's bind
  r.session = s;
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok()) << o.describe() << o.err << o.error;
  EXPECT_NE(o.out.find("absent"), std::string::npos) << "a bind the run did not ask for was visible: " << o.out;
  EXPECT_FALSE(s->running()) << "the run should not have used the session";
  const auto o2 = run_process(in_session(s, "cat " + (extra / "marker").string()));
  EXPECT_EQ(o2.out, "in the base") << o2.err << o2.error;
  fs::remove_all(extra);
}

TEST(Session, TheProcessLimitBindsEveryRun) {
  REQUIRE_NAMESPACES();
  if (!probe_isolation().pids_cgroup && ::getuid() == 0) GTEST_SKIP() << "no pids cgroup, and RLIMIT_NPROC does not bind root";
  auto base = isolated_sh("").iso;
  base.max_processes = 20;
  auto s = session_on(base);
  for (int i = 0; i < 2; ++i) {  // the first run's processes are gone before the second starts
    const auto o = run_process(in_session(s, "n=0; for i in $(seq 60); do sleep 5 & n=$((n+1)); done; echo started=$n"));
    EXPECT_NE(o.err.find("fork"), std::string::npos) << "run " << i << ": 60 processes under a limit of 20: " << o.out << o.err;
    EXPECT_LT(o.wall_seconds, 4.0);
    const auto few = run_process(in_session(s, "for i in 1 2 3 4 5; do sleep 0 & done; wait; echo done"));
    EXPECT_TRUE(few.ok()) << "run " << i << ": leftovers of the previous run still counted: " << few.err;
  }
}

TEST(Session, ManyThreadsEachWithASessionWhileOthersAllocateNeverHang) {
  REQUIRE_NAMESPACES();
  // The session's init is a copy of a process with threads and parses each request without
  // allocating: allocating threads keep malloc's locks busy while sessions start and serve. Two
  // threads share one session (their runs wait for each other), a third has its own.
  allocating_threads churn(2);
  auto shared = session_on(isolated_sh("").iso);
  auto own = session_on(isolated_sh("").iso);
  std::atomic<int> ok{0};
  std::vector<std::thread> runners;
  for (int t = 0; t < 3; ++t) {
    runners.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        auto r = in_session(t == 2 ? own : shared, "echo " + std::to_string(t) + "-" + std::to_string(i));
        r.limits.wall_timeout = std::chrono::seconds(10);
        const auto o = run_process(r);
        if (o.ok() && o.out == std::to_string(t) + "-" + std::to_string(i) + "\n") ++ok;
        if (i % 10 == 9) (t == 2 ? own : shared)->close();  // and sessions end and start meanwhile
      }
    });
  }
  for (auto& r : runners) r.join();
  EXPECT_EQ(ok.load(), 90);
}

TEST(Session, ARequestTooLargeForTheSessionRunsOnItsOwnAndTheSessionStays) {
  REQUIRE_NAMESPACES();
  auto s = started_session();
  const auto init = s->init_pid();
  auto r = in_session(s, "echo $((${#BIG0} + ${#BIG1} + ${#BIG2} + ${#BIG3} + ${#BIG4} + ${#BIG5}))");
  for (int i = 0; i < 6; ++i) {  // 600 KiB in all: beyond the session socket's buffer, within exec's limits
    r.env.emplace_back("BIG" + std::to_string(i), std::string(std::size_t(100) << 10, 'x'));
  }
  const auto o = run_process(r);
  EXPECT_TRUE(o.ok()) << o.describe() << o.err.substr(0, 200) << o.error.substr(0, 200);
  EXPECT_EQ(o.out, std::to_string(std::size_t(600) << 10) + "\n");
  EXPECT_EQ(s->init_pid(), init) << "the session was ended for a request it could not take";
}
