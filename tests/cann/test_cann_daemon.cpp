// aoptd with npu devices ([[devices]] kind = "npu"): each is a cann backend evaluator on its own
// device id, of the class its command profile names; a job submitted for that class runs only
// on those devices (here against the stand-in toolchain of tests/cann/standin/), and a job of
// the sim class only on the sim device.
#include <gtest/gtest.h>

#include "../daemon/daemon_process.h"
#include "../distributed/node_process.h"
#include "standin_profile.h"

namespace aopt::testing {
namespace {

nlohmann::json device_named(const nlohmann::json& devices, const std::string& name) {
  for (const auto& d : devices) {
    if (d.value("name", std::string()) == name) return d;
  }
  return nlohmann::json();
}

// The command profile of a class `name` of two stand-in devices, written to `file`.
void write_two_device_profile(const fs::path& file, const std::string& name) {
  standin_profile sp;
  sp.name = name;
  sp.warmup = 1;
  sp.repeat = 5;
  sp.environment["AOPT_STANDIN_DEVICES"] = "2";
  sp.environment["AOPT_STANDIN_SEED"] = "31";
  std::cout << "stand-in noise seed 31\n";
  write_standin_profile(file, sp);
}

TEST(cann_daemon, NpuDevicesRunTheJobsOfTheirClass) {
  temp_dir t;
  write_two_device_profile(t.path / "cann.toml", "standin-site");
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

// aopt-node --npu: a node's NPUs register as npu devices of their class; a job of that class
// runs on them.
TEST(cann_daemon, ANodesNpuDevicesServeTheirClass) {
  temp_dir t;
  write_two_device_profile(t.path / "cann.toml", "standin-node");
  daemon_process::options o;
  o.fresh_cache = true;
  o.evaluator_slots = 0;
  o.tables = "[nodes]\nlisten = \"127.0.0.1:0\"\nheartbeat_timeout_ms = 3000\ndevice_wait_ms = 120000\n";
  daemon_process d(t.path / "d", o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string join = request(d.socket(), "GET", "/v1/health").json().value("nodes_listen", std::string());
  ASSERT_FALSE(join.empty()) << d.log();
  // Before the node joins, the class is unknown: the submission says what the profile may be.
  const auto early = request(d.socket(), "POST", "/v1/jobs?budget=2&profile=standin-node", add_custom_tar());
  EXPECT_EQ(early.status, 400) << early.body;
  EXPECT_NE(early.body.find("joined node"), std::string::npos) << early.body;

  node_process node(t.path / "n1", "n1");
  node.start(join, with_token(d, {"--npu", "npu0:" + (t.path / "cann.toml").string() + ":0", "--npu",
                                  "npu1:" + (t.path / "cann.toml").string() + ":1"}));
  auto node_log = [&] { return node.log(); };
  bool up = false;
  for (int i = 0; i < 600 && !up; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int n = 0;
    for (const auto& dev : request(d.socket(), "GET", "/v1/devices").json()) {
      n += dev.value("kind", "") == "npu" && dev.value("state", "") != "down" && dev.value("profile", "") == "standin-node";
    }
    up = n == 2;
  }
  ASSERT_TRUE(up) << d.log() << node_log();
  const std::string id = submit(d, "budget=3&seed=5&profile=standin-node");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  const auto job = get_job(d, id);
  ASSERT_EQ(job["state"], "finished") << job.dump(2) << d.log() << node_log();
  EXPECT_EQ(job["options"]["backend"], "cann") << job.dump();
  EXPECT_EQ(job["options"]["chip"], "910b4") << job.dump();
  const auto devs = request(d.socket(), "GET", "/v1/devices").json();
  EXPECT_GE(device_named(devs, "n1/npu0")["evaluations"].get<int>() + device_named(devs, "n1/npu1")["evaluations"].get<int>(), 2)
      << devs.dump(1);
  EXPECT_EQ(device_named(devs, "n1/npu0")["chip"], "910b4") << devs.dump(1);
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
