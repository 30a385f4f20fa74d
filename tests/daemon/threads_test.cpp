// aoptd runs no thread per job (issue 37): its jobs live in the job supervisor actor and run on
// its workers, spawned once, so the daemon's threads (/proc/PID/task) with four jobs running are
// as many as with one (before, each running job added a runner thread, a driver thread and a
// progress listener thread).
//
// The jobs run with no device of their class (a daemon that waits for evaluator nodes): each one
// is inside its search, waiting in the evaluator pool for its base evaluation, and nothing
// compiles. With a device, the one evaluator's build adds threads of its own while it compiles (a
// thread per compile step: evaluation/src/sim_backend.cpp), a few per evaluation slot and not
// per job, and whether a count falls inside a build is chance: that made this test's earlier
// figures (idle 34, one job 34, four 40: the four-job count inside a build) look like threads per
// job (session 24: the 40 were the 34 and the compile steps' threads, seen with gdb).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt::testing;

namespace {

// The fewest threads of `pid` over a few samples (a connection's thread may be on its way out).
std::size_t thread_count(pid_t pid) {
  std::size_t fewest = static_cast<std::size_t>(-1);
  for (int i = 0; i < 10; ++i) {
    std::size_t n = 0;
    std::error_code e;
    for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", e); !e && it != fs::directory_iterator();
         it.increment(e))
      ++n;
    fewest = std::min(fewest, n);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return fewest;
}

// Waits up to `seconds` until every job of `ids` is "running".
bool all_running(const daemon_process& d, const std::vector<std::string>& ids, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (std::all_of(ids.begin(), ids.end(), [&](const auto& id) { return get_job(d, id).value("state", "") == "running"; }))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Waits up to `seconds` until job `id` has an event of kind "stage" (its search began: the
// job's whole setup is done and it waits for its first evaluation).
bool searching(const daemon_process& d, const std::string& id, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto r = request(d.socket(), "GET", "/v1/jobs/" + id + "/events?follow=0");
    if (r.status == 200 && r.body.find("\"kind\":\"stage\"") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace

TEST(daemon_threads, NoThreadPerRunningJob) {
  temp_dir tmp;
  daemon_process::options o;
  o.max_running = 4;
  o.evaluator_slots = 0;  // no device: the jobs wait for a node in the evaluator pool
  o.tables = "[nodes]\nlisten = \"127.0.0.1:0\"\ndevice_wait_ms = 3600000\n";
  daemon_process d(tmp.path / "d", o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::size_t idle = thread_count(d.pid());

  std::vector<std::string> ids{submit(d, "budget=40&seed=1")};
  ASSERT_TRUE(all_running(d, ids, 60)) << d.log();
  ASSERT_TRUE(searching(d, ids[0], 60)) << d.log();
  const std::size_t one = thread_count(d.pid());
  for (int seed = 2; seed <= 4; ++seed) ids.push_back(submit(d, "budget=40&seed=" + std::to_string(seed)));
  ASSERT_TRUE(all_running(d, ids, 60)) << d.log();
  for (const auto& id : ids) ASSERT_TRUE(searching(d, id, 60)) << id << ": " << d.log();
  const std::size_t four = thread_count(d.pid());
  ASSERT_TRUE(all_running(d, ids, 1)) << "a job ended while the threads were counted: " << d.log();
  std::cout << "aoptd threads: idle " << idle << ", one job running " << one << ", four jobs running " << four << "\n";
  EXPECT_LE(four, one) << "threads grew with the running jobs";
  d.kill9();
}
