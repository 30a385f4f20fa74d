// The daemon's parts without a daemon: the tar reader/writer (hostile archives, seeded random
// corruption), the config reader (the example file is the defaults; errors name file, line and
// key), the job store (reopen, events, erase) and the evaluation journal (replay, stop).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "aopt/jobs/journal.h"
#include "aopt/storage/job_store.h"
#include "config.h"
#include "metrics_observer.h"

namespace fs = std::filesystem;
using namespace aopt;

namespace {

fs::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? fs::path(s) : fs::path(AOPT_DAEMON_SOURCE_DIR);
}

struct temp_dir {
  fs::path path;
  temp_dir() : path(common::make_unique_dir(fs::temp_directory_path(), "aopt-daemon-unit-")) {}
  ~temp_dir() {
    std::error_code e;
    fs::remove_all(path, e);
  }
};

// One ustar header for `name` with `type`, correct checksum, followed by `content`.
std::string member(const std::string& name, char type, const std::string& content) {
  auto a = common::tar_write({{"x", content}});
  std::string h = a.substr(0, 512);
  std::fill(h.begin(), h.begin() + 100, '\0');
  std::copy(name.begin(), name.end(), h.begin());
  h[156] = type;
  std::fill(h.begin() + 148, h.begin() + 156, ' ');
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06o", sum);
  std::copy(buf, buf + 7, h.begin() + 148);
  return h + a.substr(512, (content.size() + 511) / 512 * 512);
}

}  // namespace

TEST(daemon_tar, RoundTripIsExactAndDeterministic) {
  std::map<std::string, std::string> files = {{"aopt.json", "{}"},
                                              {"op_kernel/add.cpp", std::string(1000, 'k')},
                                              {"empty", ""},
                                              {std::string(120, 'd') + "/" + std::string(90, 'f'), "long"}};
  const auto a = common::tar_write(files);
  EXPECT_EQ(a, common::tar_write(files));
  EXPECT_EQ(a.size() % 512, 0u);
  EXPECT_EQ(common::tar_read(a), files);
}

TEST(daemon_tar, RefusesWhatCouldEscapeOrIsNotAFile) {
  const std::string end(1024, '\0');
  for (const auto& [name, type] : std::vector<std::pair<std::string, char>>{
           {"/etc/passwd", '0'}, {"../x", '0'}, {"a/../../x", '0'}, {"a//b", '0'}, {"link", '2'}, {"hard", '1'},
           {"dev", '3'}, {"fifo", '6'}}) {
    try {
      common::tar_read(member(name, type, "data") + end);
      ADD_FAILURE() << name << " was accepted";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), ec::invalid_spec);
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  // Truncated content, a bad checksum, duplicates, too many bytes.
  const auto good = common::tar_write({{"a", std::string(700, 'x')}});
  EXPECT_THROW(common::tar_read(good.substr(0, 600)), error);
  auto bad = good;
  bad[0] = 'b';
  EXPECT_THROW(common::tar_read(bad), error);
  EXPECT_THROW(common::tar_read(member("a", '0', "1") + member("a", '0', "2") + end), error);
  EXPECT_THROW(common::tar_read(good, {.max_members = 10, .max_total_bytes = 100}), error);
  EXPECT_TRUE(common::tar_read("").empty());
}

TEST(daemon_tar, SeededCorruptionNeverCrashes) {
  const unsigned seed = 20261126;
  std::cout << "seed " << seed << "\n";
  std::mt19937 rng(seed);
  const auto good = common::tar_write({{"aopt.json", "{}"}, {"op_kernel/k.cpp", std::string(3000, 'k')}});
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string a = good;
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < edits; ++k) a[rng() % a.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) a.resize(rng() % a.size());
    try {
      const auto files = common::tar_read(a);
      for (const auto& [p, c] : files) EXPECT_TRUE(common::safe_relative_path(p)) << p;
    } catch (const error&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000);
}

// Writes `text` as the config file `f`: reading it must fail with a message that holds `needle`
// and names the file.
void expect_config_error(const fs::path& f, const std::string& text, const std::string& needle) {
  common::write_text_file(f, text);
  try {
    daemon::read_config(f);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(f.string()), std::string::npos) << e.what();
  }
}

TEST(daemon_config, ExampleFileIsTheDefaults) {
  const auto c = daemon::read_config(source_dir() / "config" / "aoptd.example.toml");
  const auto d = daemon::default_config();
  EXPECT_EQ(c.socket, d.socket);
  EXPECT_EQ(c.state_dir, d.state_dir);
  EXPECT_EQ(c.metrics_address, d.metrics_address);
  EXPECT_EQ(c.metrics_enabled, d.metrics_enabled);
  EXPECT_EQ(c.metrics_job_retention_s, d.metrics_job_retention_s);
  EXPECT_EQ(c.max_running, d.max_running);
  EXPECT_EQ(c.evaluator_slots, d.evaluator_slots);
  EXPECT_EQ(c.builders, d.builders);
  EXPECT_EQ(c.default_budget, d.default_budget);
  EXPECT_EQ(c.max_budget, d.max_budget);
  EXPECT_EQ(c.max_body_bytes, d.max_body_bytes);
  EXPECT_EQ(c.max_header_bytes, d.max_header_bytes);
  EXPECT_EQ(c.request_timeout_ms, d.request_timeout_ms);
  EXPECT_EQ(c.max_connections, d.max_connections);
  EXPECT_EQ(c.shutdown_grace_ms, d.shutdown_grace_ms);
  EXPECT_EQ(c.learn, d.learn);
  EXPECT_EQ(c.profile, d.profile);
  EXPECT_EQ(c.socket_group, d.socket_group);
  EXPECT_FALSE(c.llm.has_value());  // the example's [llm] table is commented out
  EXPECT_TRUE(c.devices.empty());    // the example's [[devices]] are commented out
  EXPECT_EQ(c.nodes_listen, d.nodes_listen);
  EXPECT_EQ(c.node_heartbeat_timeout_ms, d.node_heartbeat_timeout_ms);
  EXPECT_EQ(c.device_wait_ms, d.device_wait_ms);
  EXPECT_EQ(c.nodes_tls_certificate, d.nodes_tls_certificate);
  EXPECT_EQ(c.nodes_token_file, d.nodes_token_file);
}

TEST(daemon_config, ErrorsNameFileLineAndKey) {
  temp_dir t;
  const auto f = t.path / "aoptd.toml";
  auto expect_error = [&](const std::string& text, const std::string& needle) { expect_config_error(f, text, needle); };
  expect_error("[jobs]\n\nmax_running = \"two\"\n", ":3:15: [jobs] max_running: expected an integer");
  expect_error("[jobs]\nmax_running = 0\n", ":2:15: [jobs] max_running: value 0 is outside [1, 1024]");
  expect_error("[daemon]\nsokcet = \"/tmp/x\"\n", ":2:10: [daemon] sokcet: unknown key");
  expect_error("[limitz]\n", "[limitz] limitz: unknown table");
  expect_error("[daemon\n", ":1:");
  expect_error("[llm]\nbase_url = \"http://127.0.0.1:1\"\ntemprature = 0.5\n", ":3:");  // [llm] has its own reader
  expect_error("[daemon]\nsocket_group = 7\n", ":2:16: [daemon] socket_group: expected a string");
  expect_error("[daemon]\nsocket = \"/" + std::string(120, 's') + "\"\n", "socket:");
  common::write_text_file(f, "[daemon]\nsocket = \"/tmp/a.sock\"\n[jobs]\nmax_running = 3\n");
  const auto c = daemon::read_config(f);
  EXPECT_EQ(c.socket, "/tmp/a.sock");
  EXPECT_EQ(c.max_running, 3u);
  EXPECT_FALSE(c.llm.has_value());
  EXPECT_THROW(daemon::read_config(t.path / "missing.toml"), error);
  common::write_text_file(f, "[daemon]\nsocket_group = \"aopt\"\n[llm]\nbase_url = \"http://127.0.0.1:9\"\nmodel = \"m\"\n");
  const auto l = daemon::read_config(f);
  EXPECT_EQ(l.socket_group, "aopt");
  ASSERT_TRUE(l.llm.has_value());
  EXPECT_EQ(l.llm->base_url, "http://127.0.0.1:9");
  EXPECT_EQ(l.llm->model, "m");
}

TEST(daemon_config, DevicesAndNodes) {
  temp_dir t;
  const auto f = t.path / "aoptd.toml";
  auto expect_error = [&](const std::string& text, const std::string& needle) { expect_config_error(f, text, needle); };
  common::write_text_file(f, "[[devices]]\nid = \"a\"\nprofile = \"a2\"\nlabels = [\"rack1\"]\n"
                             "[[devices]]\nid = \"b\"\n[nodes]\nlisten = \"127.0.0.1:0\"\nheartbeat_timeout_ms = 500\n");
  const auto c = daemon::read_config(f);
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[0].id, "a");
  EXPECT_EQ(c.devices[0].profile, "a2");
  EXPECT_EQ(c.devices[0].labels, std::vector<std::string>{"rack1"});
  EXPECT_EQ(c.devices[1].profile, "");
  EXPECT_EQ(c.nodes_listen, "127.0.0.1:0");
  EXPECT_EQ(c.node_heartbeat_timeout_ms, 500u);
  expect_error("[[devices]]\nid = \"a\"\n[[devices]]\nid = \"a\"\n", "device id 'a' is used twice");
  expect_error("[[devices]]\nid = \"a\"\nkind = \"npu\"\n", "needs cann_config");
  expect_error("[[devices]]\nid = \"a\"\nkind = \"gpu\"\n", "a device is \"sim\" or \"npu\"");
  expect_error("[[devices]]\nid = \"a\"\ndevice = 1\n", "only npu devices take");
  expect_error("[[devices]]\nid = \"a\"\nkind = \"npu\"\ncann_config = \"missing.toml\"\n", "missing.toml");
  expect_error("[[devices]]\nid = \"a\"\nprofile = \"nope\"\n", ":3:");
  expect_error("[nodes]\nlisten = \"10.0.0.5:4000\"\n", "nodes on other hosts need mutual TLS");
  expect_error("[nodes]\nlisten = \"127.0.0.1\"\n", "is not HOST:PORT");
  expect_error("[nodes]\nlisten = \"10.0.0.5:4000\"\ntls_certificate = \"c.pem\"\n", "key is missing");
  // With the three TLS files (relative to the config file), another address is accepted.
  for (const char* name : {"c.pem", "k.pem", "ca.pem"}) common::write_text_file(t.path / name, "x");
  common::write_text_file(f, "[nodes]\nlisten = \"10.0.0.5:4000\"\ntls_certificate = \"c.pem\"\n"
                             "tls_key = \"k.pem\"\ntls_ca = \"ca.pem\"\n");
  const auto tls = daemon::read_config(f);
  EXPECT_EQ(tls.nodes_tls_ca, (t.path / "ca.pem").string());
}

TEST(daemon_job_store, PersistsAcrossReopen) {
  temp_dir t;
  {
    storage::job_store s(t.path / "db");
    EXPECT_EQ(s.next_id(), "j000001");
    EXPECT_EQ(s.next_id(), "j000002");
    s.put_job("j000001", {{"id", "j000001"}, {"state", "queued"}});
    s.put_job("j000002", {{"id", "j000002"}, {"state", "running"}});
    for (int i = 0; i < 12; ++i) s.put_event("j000001", i, {{"i", i}});
    s.put_evaluation("j000001", "k1", {{"x", 1}});
  }
  storage::job_store s(t.path / "db");
  EXPECT_EQ(s.next_id(), "j000003");
  ASSERT_EQ(s.jobs().size(), 2u);
  EXPECT_EQ(s.get_job("j000002")->at("state"), "running");
  EXPECT_EQ(s.event_count("j000001"), 12u);
  EXPECT_EQ(s.event_count("j000002"), 0u);
  const auto evs = s.events("j000001", 10);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].at("i"), 10);
  EXPECT_EQ(s.get_evaluation("j000001", "k1")->at("x"), 1);
  EXPECT_FALSE(s.get_evaluation("j000001", "k2"));
  s.erase_job("j000001");
  EXPECT_FALSE(s.get_job("j000001"));
  EXPECT_EQ(s.event_count("j000001"), 0u);
  EXPECT_EQ(s.evaluation_count("j000001"), 0u);
  EXPECT_TRUE(s.get_job("j000002"));
  // A second store on the same directory in this process is refused with a clear error.
  EXPECT_THROW(storage::job_store(t.path / "db"), error);
}

namespace {

struct memory_journal final : jobs::eval_journal {
  std::map<std::string, optimize::eval_report> m;
  std::optional<optimize::eval_report> find(const std::string& k) override {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  }
  void record(const std::string& k, const optimize::eval_report& r) override { m[k] = r; }
};

// Evaluates by counting.
struct counting_runner final : optimize::runner {
  int calls = 0;
  std::size_t parallelism() const override { return 2; }
  std::vector<optimize::eval_report> evaluate(const std::vector<optimize::eval_request>& batch) override {
    std::vector<optimize::eval_report> out;
    for (const auto& r : batch) {
      optimize::eval_report rep;
      rep.ok = true;
      rep.status = aopt::vocab::eval_status::ok;
      rep.latency_us = 10.0 + static_cast<double>(r.files.begin()->second.size()) + calls++;
      out.push_back(rep);
    }
    return out;
  }
};

optimize::eval_request req(const std::string& content, std::optional<std::uint64_t> seed = std::nullopt) {
  optimize::eval_request r;
  r.files = {{"op_kernel/k.cpp", content}};
  r.input_seed = seed;
  return r;
}

}  // namespace

TEST(daemon_journal, ReplaysWhatItHoldsAndEvaluatesTheRest) {
  memory_journal j;
  counting_runner inner;
  {
    jobs::journaled_runner s(inner, j);
    const auto a = s.evaluate({req("a"), req("bb")});
    EXPECT_EQ(inner.calls, 2);
    EXPECT_EQ(s.evaluated(), 2u);
  }
  jobs::journaled_runner s(inner, j);
  const auto b = s.evaluate({req("a"), req("ccc"), req("a", 7)});
  EXPECT_EQ(inner.calls, 4) << "only the two new candidates were evaluated";
  EXPECT_EQ(s.replayed(), 1u);
  EXPECT_DOUBLE_EQ(b[0].latency_us, 11.0) << "the journal's answer, not a new one";
  EXPECT_EQ(j.m.size(), 4u);
  // A stop request is seen before the next evaluation; what was journaled stays.
  bool stop = false;
  jobs::journaled_runner st(inner, j, [&]() -> std::optional<std::string> {
    if (stop) return std::string("cancelled");
    return std::nullopt;
  });
  (void)st.evaluate({req("dddd")});
  stop = true;
  EXPECT_THROW(st.evaluate({req("eeeee")}), jobs::job_stopped);
  EXPECT_EQ(j.m.size(), 5u);
}

// The llm engine's requests reach Prometheus by role and outcome; every role's series exists
// from the start.
TEST(daemon_metrics, LlmRequestsByRoleAndOutcome) {
  auto m = std::make_shared<monitoring::metrics>();
  daemon::metrics_observer obs(m, nullptr);
  auto text = m->text();
  EXPECT_NE(text.find("aopt_llm_requests_total{outcome=\"ok\",role=\"template_synthesis\"} 0"), std::string::npos) << text;
  obs.on_llm_request("j1", {llm::role::tiling_mutation, true, {120, 30}, 0.5, false});
  obs.on_llm_request("j1", {llm::role::tiling_mutation, false, {}, 2.0, false});
  text = m->text();
  EXPECT_NE(text.find("aopt_llm_requests_total{outcome=\"ok\",role=\"tiling_mutation\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("aopt_llm_requests_total{outcome=\"failed\",role=\"tiling_mutation\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("aopt_llm_tokens_total{kind=\"prompt\",role=\"tiling_mutation\"} 120"), std::string::npos) << text;
}
