// aoptd's configuration against its documentation: every key the docs name is one the example
// file (config/aoptd.example.toml) has, the example with every key set (its commented-out ones
// too) is read, the [metrics] table of docs/monitoring.md is the daemon's, and an unknown key or
// table is refused naming the file, the line, the table and the key.
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "config.h"
#include "example_config.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;

namespace {

fs::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? fs::path(s) : fs::path(AOPT_DAEMON_SOURCE_DIR);
}

struct temp_dir {
  fs::path path = common::make_unique_dir("/tmp", "aoptd-k");
  ~temp_dir() {
    std::error_code e;
    fs::remove_all(path, e);
  }
};

// Where the docs talk about aoptd's configuration.
std::vector<fs::path> doc_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(source_dir() / "docs")) {
    if (e.path().extension() == ".md") out.push_back(e.path());
  }
  for (const char* f : {"README.md", "ARCHITECTURE.md", "config/aoptd.example.toml", "config/systemd/aoptd.service",
                        "monitoring/prometheus/prometheus.yml"}) {
    out.push_back(source_dir() / f);
  }
  return out;
}

std::string read_error(const fs::path& f, const std::string& text) {
  common::write_text_file(f, text);
  try {
    (void)daemon::read_config(f);
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

TEST(daemon_config_keys, EveryKeyTheDocsNameIsOneOfTheExample) {
  const auto example = example_keys(source_dir() / "config" / "aoptd.example.toml");
  const auto named = documented_keys(doc_files());
  EXPECT_GE(named.size(), 15u);  // the extraction finds what the docs name
  for (const auto& [key, where] : named) {
    // The older name of [metrics] address, still read (test TheMetricsTable), not in the example.
    if (key == config_key{"daemon", "metrics_address"}) continue;
    EXPECT_TRUE(example.contains(key)) << where << " names [" << key.first << "] " << key.second
                                       << ", which config/aoptd.example.toml does not have";
  }
  for (const config_key& k : {config_key{"metrics", "address"}, {"metrics", "enabled"}, {"metrics", "job_retention_seconds"}}) {
    EXPECT_TRUE(named.contains(k)) << "docs/monitoring.md documents [" << k.first << "] " << k.second;
  }
}

// aoptd reads every key the example has, each with the example's value: the example with all
// of them set (its commented-out [llm] and [[devices]] tables too) is a valid configuration.
TEST(daemon_config_keys, TheExampleWithEveryKeySetIsRead) {
  temp_dir t;
  common::write_text_file(t.path / "cann.toml", common::read_text_file(source_dir() / "config" / "cann.example.toml"));
  fs::create_directories(t.path / "profiles");
  common::write_text_file(t.path / "profiles" / "a2-site0.json",
                          common::read_text_file(source_dir() / "sim" / "profiles" / "a2.json"));
  const auto f = t.path / "aoptd.toml";
  const std::string text = example_with_every_key(source_dir() / "config" / "aoptd.example.toml",
                                                  {{{"metrics", "job_retention_seconds"}, "120"}}, /*npu=*/true);
  common::write_text_file(f, text);
  daemon::daemon_config c;
  try {
    c = daemon::read_config(f);
  } catch (const error& e) {
    FAIL() << e.what() << "\n" << text;
  }
  EXPECT_EQ(c.socket, "/run/aopt/aoptd.sock");
  EXPECT_EQ(c.state_dir, "/var/lib/aopt");
  EXPECT_EQ(c.metrics_address, "127.0.0.1:9464");
  EXPECT_TRUE(c.metrics_enabled);
  EXPECT_EQ(c.metrics_job_retention_s, 120u);
  ASSERT_TRUE(c.llm.has_value());
  EXPECT_EQ(c.llm->model, "your-model");
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[1].kind, "npu");
  EXPECT_EQ(c.devices[1].npu_device, 0);
}

TEST(daemon_config_keys, TheMetricsTable) {
  temp_dir t;
  const auto f = t.path / "aoptd.toml";
  common::write_text_file(f, "[metrics]\naddress = \"127.0.0.1:9500\"\nenabled = true\njob_retention_seconds = 86400\n");
  auto c = daemon::read_config(f);
  EXPECT_EQ(c.metrics_address, "127.0.0.1:9500");
  EXPECT_EQ(c.metrics_job_retention_s, 86400u);
  EXPECT_TRUE(c.serves_metrics());
  // Off: the address is not even checked.
  common::write_text_file(f, "[metrics]\naddress = \"nonsense\"\nenabled = false\n");
  c = daemon::read_config(f);
  EXPECT_FALSE(c.serves_metrics());
  // The older name still works; both at once is refused, naming both lines.
  common::write_text_file(f, "[daemon]\nmetrics_address = \"127.0.0.1:9501\"\n");
  EXPECT_EQ(daemon::read_config(f).metrics_address, "127.0.0.1:9501");
  std::string e = read_error(f, "[daemon]\nmetrics_address = \"127.0.0.1:9501\"\n[metrics]\naddress = \"127.0.0.1:9502\"\n");
  EXPECT_NE(e.find(":2:19: [daemon] metrics_address: set twice"), std::string::npos) << e;
  EXPECT_NE(e.find("line 4"), std::string::npos) << e;
  e = read_error(f, "[metrics]\naddress = \"127.0.0.1:http\"\n");
  EXPECT_NE(e.find("metrics.address: '127.0.0.1:http'"), std::string::npos) << e;
  EXPECT_NE(e.find("enabled = false"), std::string::npos) << e;
  e = read_error(f, "[metrics]\njob_retention_seconds = -1\n");
  EXPECT_NE(e.find(":2:25: [metrics] job_retention_seconds: value -1 is outside"), std::string::npos) << e;
  e = read_error(f, "[metrics]\nenabled = \"no\"\n");
  EXPECT_NE(e.find(":2:11: [metrics] enabled: expected true or false"), std::string::npos) << e;
}

TEST(daemon_config_keys, UnknownKeysAndTablesAreRefusedNamingWhere) {
  temp_dir t;
  const auto f = t.path / "aoptd.toml";
  for (const std::string table : {"daemon", "metrics", "jobs", "limits", "nodes"}) {
    const std::string e = read_error(f, "# a comment\n[" + table + "]\nretention = 5\n");
    EXPECT_NE(e.find(f.string() + ":3:13: [" + table + "] retention: unknown key; [" + table + "] has "), std::string::npos)
        << e;
  }
  std::string e = read_error(f, "[[devices]]\nid = \"sim0\"\nlables = [\"a\"]\n");
  EXPECT_NE(e.find(f.string() + ":3:10: [devices] lables: unknown key"), std::string::npos) << e;
  e = read_error(f, "[llm]\nbase_url = \"http://127.0.0.1:1\"\nmodle = \"m\"\n");
  EXPECT_NE(e.find(f.string() + ":3:1: unknown key 'modle' in [llm]"), std::string::npos) << e;
  e = read_error(f, "[monitoring]\naddress = \"127.0.0.1:9464\"\n");
  EXPECT_EQ(e.find(f.string() + ":"), 0u) << e;
  EXPECT_NE(e.find("[monitoring] monitoring: unknown table; aoptd reads [daemon], [metrics]"), std::string::npos) << e;
}

}  // namespace
