// An operator whose build reaches a shared directory of its tree (cann-ops' src/common idiom;
// fixture tests/integration/packages/shared_tree) through `aopt submit --tree`: the upload carries
// the shared files (aopt_shared/, evaluation::carried_shared_files), and the daemon and a node,
// which have no tree, build and check it (docs/evaluation.md, "The package's own build").
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "../support/aopt_process.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;

namespace {

// Every evaluation runs on the node (the daemon has no device of its own): the node fetches the
// package, shared files included, by its digest and builds it.
TEST(daemon_client, SubmitWithTreeCarriesTheSharedFilesToTheDaemonAndItsNodes) {
  temp_dir t("aoptd-tree");
  daemon_process::options o;
  o.max_running = 1;
  o.learn = false;
  o.fresh_cache = true;
  o.evaluator_slots = 0;
  o.tables = "[nodes]\nlisten = \"127.0.0.1:0\"\n";
  daemon_process d(t.path / "d", o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string sock = d.socket().string();
  const std::string join = request(d.socket(), "GET", "/v1/health").json().value("nodes_listen", "");
  ASSERT_FALSE(join.empty()) << d.log();
  const std::string token = (d.dir() / "state" / "node-token").string();
  const pid_t node = start_node(join, "n1", t.path / "node", t.path / "node-cache", token, t.path / "node.log");
  struct reaper {
    pid_t pid;
    ~reaper() { kill_and_reap(pid); }
  } reap{node};
  const auto node_log = [&] {
    std::ifstream in(t.path / "node.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (int i = 0; i < 600 && request(d.socket(), "GET", "/v1/devices").json().size() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(request(d.socket(), "GET", "/v1/devices").json().size(), 1u) << d.log() << node_log();

  const fs::path tree = source_dir() / "tests" / "integration" / "packages" / "shared_tree";
  const std::string pkg = (tree / "src" / "fixture" / "shared_scale").string();
  const auto sub = run_aopt({"submit", pkg, "--tree", tree.string(), "--budget", "1", "--wait", "-q", "--socket", sock}, 600);
  ASSERT_EQ(sub.exit_code, 0) << sub.out << sub.err << d.log() << node_log();
  std::string id = sub.out;  // -q: the job id alone
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();

  const fs::path out = t.path / "out";
  ASSERT_EQ(run_aopt({"fetch", id, "--out", out.string(), "--socket", sock}, 60).exit_code, 0);
  const auto rep = nlohmann::json::parse(std::ifstream(out / "report.json"));
  const auto& base = rep["result"]["base"];
  EXPECT_EQ(base.value("status", ""), "ok") << base.dump(2).substr(0, 3000);
  ASSERT_FALSE(base["cases"].empty()) << base.dump(2).substr(0, 3000);
  EXPECT_GT(base["cases"][0].value("output_elements", 0), 0) << "the output y is compared: " << base.dump(2).substr(0, 3000);
  EXPECT_NE(node_log().find("fetched into"), std::string::npos) << node_log();

  // Without --tree the upload holds the package alone: the daemon refuses it and says to give --tree.
  const auto bare = run_aopt({"submit", pkg, "--budget", "1", "-q", "--socket", sock}, 60);
  EXPECT_NE(bare.exit_code, 0) << bare.out;
  EXPECT_NE(bare.err.find("no header of op_host/ declares the tiling struct"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("--tree DIR"), std::string::npos) << bare.err;
}

}  // namespace
