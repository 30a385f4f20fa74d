// Observers receive messages (issue 37): a runtime's device listener runs on an observer actor,
// never on the evaluator pool's thread, so a listener that blocks does not hold the pool (before,
// the pool called it and stopped answering until it returned).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "aopt/actors/runtime.hpp"

namespace aopt::actors::test {
namespace {

using namespace std::chrono_literals;

TEST(runtime_observers, ABlockedDeviceListenerDoesNotHoldThePool) {
  std::mutex m;
  std::condition_variable cv;
  bool released = false;
  std::size_t events = 0;
  runtime_options o;
  o.listener = [&](const device_event&) {  // blocks until released, at most 30 s
    std::unique_lock<std::mutex> lock(m);
    ++events;
    cv.wait_for(lock, 30s, [&] { return released; });
  };
  std::vector<device_slot> devices;
  devices.push_back({{"sim0", "", "sim", "", {}}, [](const std::string&, const optimize::eval_request&) {
                       return optimize::eval_report{};
                     }});
  const auto t0 = std::chrono::steady_clock::now();
  runtime rt(std::move(devices), o);  // the pool tells the listener its device joined
  nlohmann::json listed;
  EXPECT_NO_THROW(listed = rt.devices());  // the pool answers while its listener is blocked
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(listed.size(), 1u);
  {
    std::lock_guard<std::mutex> lock(m);
    released = true;
  }
  cv.notify_all();
}

}  // namespace
}  // namespace aopt::actors::test
