// aoptd with npu devices ([[devices]] kind = "npu"): each is a cann backend evaluator on its own
// device id, of the class its command profile names; a job submitted for that class runs only
// on those devices (here against the stand-in toolchain of tests/cann/standin/), and a job of
// the sim class only on the sim device.
#include <gtest/gtest.h>

#include "../daemon/daemon_process.h"
#include "standin_profile.h"

namespace aopt::testing {
namespace {

nlohmann::json device_named(const nlohmann::json& devices, const std::string& name) {
  for (const auto& d : devices) {
    if (d.value("name", std::string()) == name) return d;
  }
  return nlohmann::json();
}

TEST(cann_daemon, NpuDevicesRunTheJobsOfTheirClass) {
  temp_dir t;
  standin_profile sp;
  sp.name = "standin-site";
  sp.warmup = 1;
  sp.repeat = 5;
  sp.environment["AOPT_STANDIN_DEVICES"] = "2";
  sp.environment["AOPT_STANDIN_SEED"] = "31";
  std::cout << "stand-in noise seed 31\n";
  write_standin_profile(t.path / "cann.toml", sp);
  daemon_process::options o;
  o.fresh_cache = true;
  o.evaluator_slots = 0;
  o.tables = "[[devices]]\nid = \"npu0\"\nkind = \"npu\"\ncann_config = \"cann.toml\"\ndevice = 0\nlabels = [\"standin\"]\n"
             "[[devices]]\nid = \"npu1\"\nkind = \"npu\"\ncann_config = \"cann.toml\"\ndevice = 1\n"
             "[[devices]]\nid = \"sim0\"\n";
  daemon_process d(t.path, o);
  ASSERT_TRUE(d.start()) << d.log();

  const auto before = request(d.socket(), "GET", "/v1/devices");
  ASSERT_EQ(before.status, 200) << before.body;
  for (const char* n : {"npu0", "npu1"}) {
    const auto dev = device_named(before.json(), n);
    ASSERT_TRUE(dev.is_object()) << before.body;
    EXPECT_EQ(dev["kind"], "npu") << dev.dump();
    EXPECT_EQ(dev["profile"], "standin-site") << dev.dump();
    EXPECT_EQ(dev["profile_source"], (t.path / "cann.toml").string()) << dev.dump();
  }
  EXPECT_EQ(device_named(before.json(), "sim0")["profile"], "910b4");

  // A job for the npu class: every evaluation on npu0 or npu1, none on sim0.
  const std::string id = submit(d, "budget=3&seed=5&profile=standin-site");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  const auto job = get_job(d, id);
  ASSERT_EQ(job["state"], "finished") << job.dump(2) << d.log();
  const auto after = request(d.socket(), "GET", "/v1/devices").json();
  const int on_npu = device_named(after, "npu0")["evaluations"].get<int>() + device_named(after, "npu1")["evaluations"].get<int>();
  EXPECT_GE(on_npu, 2) << after.dump(1);
  EXPECT_EQ(device_named(after, "sim0")["evaluations"], 0) << after.dump(1);
  // Its latencies are measured ones (the cann backend's repetitions), not simulated.
  const auto rj = request(d.socket(), "GET", "/v1/jobs/" + id + "/report.json");
  ASSERT_EQ(rj.status, 200);
  EXPECT_NE(rj.body.find("\"measured\": true"), std::string::npos) << rj.body.substr(0, 2000);
  EXPECT_EQ(rj.json()["backend"], "cann") << rj.body.substr(0, 2000);
  EXPECT_EQ(rj.json()["device_profile"], "standin-site") << rj.body.substr(0, 2000);
  const auto md = request(d.socket(), "GET", "/v1/jobs/" + id + "/report.md");
  EXPECT_EQ(md.body.find("simulated"), std::string::npos) << md.body.substr(0, 2000);

  // A job for the sim class stays on sim0.
  const std::string sim_id = submit(d, "budget=2&seed=5");
  ASSERT_TRUE(wait_final(d, {sim_id}, 300)) << d.log();
  const auto last = request(d.socket(), "GET", "/v1/devices").json();
  EXPECT_GE(device_named(last, "sim0")["evaluations"].get<int>(), 1) << last.dump(1);
  EXPECT_EQ(device_named(last, "npu0")["evaluations"].get<int>() + device_named(last, "npu1")["evaluations"].get<int>(), on_npu);
}

TEST(cann_daemon, RefusesAClassNamedLikeASimProfile) {
  temp_dir t;
  standin_profile sp;
  sp.name = "910b4";
  write_standin_profile(t.path / "cann.toml", sp);
  daemon_process::options o;
  o.evaluator_slots = 0;
  o.tables = "[[devices]]\nid = \"npu0\"\nkind = \"npu\"\ncann_config = \"cann.toml\"\n";
  daemon_process d(t.path, o);
  EXPECT_FALSE(d.start());
  EXPECT_NE(d.log().find("also the name of a sim profile"), std::string::npos) << d.log();
}

}  // namespace
}  // namespace aopt::testing
