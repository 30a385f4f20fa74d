// GET /v1/version names the backends the daemon's devices really have: `cann` for an npu
// device, `sim` for a sim device (it said ["sim"] whatever the devices were).
#include <gtest/gtest.h>

#include "../daemon/daemon_process.h"
#include "standin_profile.h"

namespace aopt::testing {
namespace {

std::vector<std::string> backends_of(const daemon_process& d) {
  const auto v = request(d.socket(), "GET", "/v1/version");
  EXPECT_EQ(v.status, 200) << v.body;
  return v.json().at("backends").get<std::vector<std::string>>();
}

TEST(cann_daemon, VersionNamesTheBackendsOfItsDevices) {
  temp_dir t;
  standin_profile sp;
  sp.name = "standin-site";
  for (const char* sub : {"npu", "both"}) {
    fs::create_directories(t.path / sub);
    write_standin_profile(t.path / sub / "cann.toml", sp);
  }
  daemon_process::options o;
  o.evaluator_slots = 0;
  o.tables = "[[devices]]\nid = \"npu0\"\nkind = \"npu\"\ncann_config = \"cann.toml\"\n";
  {
    daemon_process d(t.path / "npu", o);
    ASSERT_TRUE(d.start()) << d.log();
    EXPECT_EQ(backends_of(d), std::vector<std::string>{"cann"});
  }
  o.tables += "[[devices]]\nid = \"sim0\"\n";
  daemon_process d(t.path / "both", o);
  ASSERT_TRUE(d.start()) << d.log();
  EXPECT_EQ(backends_of(d), (std::vector<std::string>{"cann", "sim"}));
}

}  // namespace
}  // namespace aopt::testing
