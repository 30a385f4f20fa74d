// aoptd with an [llm] table: a job submitted with engine llm runs its whole loop against the
// scripted OpenAI-compatible endpoint (aopt-llm-stub on loopback), reports the model usage, and
// after a kill -9 resumes from its own recording: it takes the same path as an uninterrupted
// run although the endpoint, whose scripted answers change with each ask, has moved on. A daemon
// without [llm] refuses engine llm with 400. A real socket group is given to the socket.
#include <gtest/gtest.h>

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "../integration/llm_stub_process.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt::testing;
using aopt_llm_it::edit;
using aopt_llm_it::stub_config;
using aopt_llm_it::stub_process;
using nlohmann::json;

namespace {

const std::string kHost = "op_host/add_custom.cpp";

// add_custom's tiling file with the evolution markers around TilingFunc (the template answer).
std::string marked_tiling() {
  std::string s = aopt_llm_it::read(source_dir() / "examples/ops/add_custom" / kHost);
  s.insert(s.find("}  // namespace optiling"), "// EVOLVE-BLOCK-END\n");
  s.insert(s.find("static ge::graphStatus TilingFunc"), "// EVOLVE-BLOCK-START\n");
  return s;
}

std::string tile_variant(const std::string& title, int divisor) {
  return "### Variant 1: " + title + "\n" +
         edit(kHost, "    const uint32_t tileLength = static_cast<uint32_t>(bufBytes / typeSize);",
              "    const uint32_t tileLength = static_cast<uint32_t>(bufBytes / typeSize / " + std::to_string(divisor) + ");");
}

// The endpoint's answers change with each ask (the first mutation differs from the later ones),
// so a resumed job that asked again would get other answers and take another path.
json script() {
  json rules = json::array();
  auto rule = [&](const std::string& model, json r) {
    r["model"] = model;
    rules.push_back(std::move(r));
  };
  rule("m-template", {{"reply", kHost + "\n```cpp\n" + marked_tiling() + "```\n"}});
  rule("m-mutation", {{"times", 1}, {"reply", tile_variant("half the tile", 2)}});
  rule("m-mutation", {{"times", 1}, {"fault", {{"status", 500}}}});
  rule("m-mutation", {{"times", 1}, {"reply", tile_variant("a quarter of the tile", 4)}});
  rule("m-mutation", {{"times", 1}, {"reply", tile_variant("an eighth of the tile", 8)}});
  rule("m-mutation", {{"reply", tile_variant("a third of the tile", 3)}});
  rule("m-diagnosis", {{"reply", R"([{"class": "serialized_pipes", "evidence": "one tile at a time", "score": 0.8}])"}});
  rule("m-refine", {{"reply", "### Rewrite 1: nothing that applies\n" + edit("op_kernel/add_custom.cpp", "no such line", "x")}});
  rule("m-distill", {{"reply", R"({"title": "t", "description": "d", "bottleneck": "serialized_pipes"})"}});
  return rules;
}

std::string llm_table(const std::string& port) {
  return stub_config(port, "m-refine", 1,
                     {{"template_synthesis", "m-template"}, {"tiling_mutation", "m-mutation"},
                      {"diagnosis", "m-diagnosis"}, {"refinement", "m-refine"}, {"distillation", "m-distill"},
                      {"rewind", "m-distill"}});
}

daemon_process::options llm_daemon(const std::string& port) {
  daemon_process::options o;
  o.max_running = 1;
  o.learn = false;
  o.fresh_cache = true;
  o.tables = llm_table(port);
  return o;
}

daemon_process::options with_group(const std::string& group) {
  daemon_process::options o;
  o.daemon_keys = "socket_group = \"" + group + "\"\n";
  return o;
}

std::size_t points(const daemon_process& d, const std::string& id) {
  std::size_t n = 0;
  for (const auto& e : all_events(d, id)) n += e.value("kind", "") == "point";
  return n;
}

// The number of requests a stopped stub served (its log's last line).
long served(const fs::path& log) {
  const std::string text = aopt_llm_it::read(log);
  const auto at = text.rfind("stopped after ");
  return at == std::string::npos ? -1 : std::atol(text.c_str() + at + 14);
}

json report(const daemon_process& d, const std::string& id) {
  return json::parse(request(d.socket(), "GET", "/v1/jobs/" + id + "/report.json").body);
}

}  // namespace

TEST(daemon_llm, JobRunsOnTheEndpointAndResumesFromItsRecording) {
  ::setenv("AOPT_TEST_LLM_KEY", aopt_llm_it::kKey.c_str(), 1);  // aoptd inherits it (api_key_env)
  temp_dir t("aoptd-l");
  aopt_llm_it::write(t.path / "script.json", script().dump(1));
  const std::string query = "budget=8&seed=3&engine=llm";
  // The uninterrupted reference.
  json reference;
  {
    stub_process stub(t.path / "script.json", t.path / "port-a", t.path / "stub-a.log");
    ASSERT_FALSE(stub.port().empty()) << "the stub did not start";
    daemon_process d(t.path / "a", llm_daemon(stub.port()));
    ASSERT_TRUE(d.start()) << d.log();
    const auto version = request(d.socket(), "GET", "/v1/version").json();
    EXPECT_EQ(version["engines"], json::array({"offline", "llm"})) << version;
    const auto id = submit(d, query);
    ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
    ASSERT_EQ(get_job(d, id)["state"], "finished") << get_job(d, id).dump(2) << d.log();
    reference = report(d, id);
    const auto& usage = reference["engine_usage"];
    ASSERT_TRUE(usage.is_object()) << reference.dump(1).substr(0, 2000);
    EXPECT_GT(usage["client"]["tiling_mutation"]["requests"].get<long>(), 0) << usage.dump(1);
    EXPECT_GT(usage["client"]["total"]["prompt_tokens"].get<long>(), 0) << usage.dump(1);
    EXPECT_TRUE(fs::exists(t.path / "a" / "state" / "jobs" / id / "llm" / "CURRENT")) << "the job's recording";
    EXPECT_TRUE(aopt_llm_it::files_containing(t.path / "a" / "state", aopt_llm_it::kKey).empty()) << "no API key stored";
  }
  // The same job killed once it has evaluated twice, then resumed; the endpoint keeps running.
  json resumed;
  {
    stub_process stub(t.path / "script.json", t.path / "port-b", t.path / "stub-b.log");
    ASSERT_FALSE(stub.port().empty()) << "the stub did not start";
    daemon_process d(t.path / "b", llm_daemon(stub.port()));
    ASSERT_TRUE(d.start()) << d.log();
    const auto id = submit(d, query);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (points(d, id) < 2 && !is_final(get_job(d, id)) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_FALSE(is_final(get_job(d, id))) << "the job ended before it could be interrupted";
    d.kill9();
    ASSERT_TRUE(d.start()) << d.log();
    ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
    const auto job = get_job(d, id);
    ASSERT_EQ(job["state"], "finished") << job.dump(2) << d.log();
    EXPECT_GT(job["attempts"].get<int>(), 1);
    resumed = report(d, id);
  }
  // Every answer recorded before the kill is replayed, not asked again. Only a request in flight
  // at the kill (asked, not yet recorded) is asked again, and its new answer may send the job
  // another way; otherwise the resumed job takes exactly the uninterrupted path.
  const long asked_a = served(t.path / "stub-a.log"), asked_b = served(t.path / "stub-b.log");
  std::cout << "llm job: the endpoint served " << asked_a << " request(s) uninterrupted, " << asked_b
            << " with a kill -9 and resume\n";
  ASSERT_GT(asked_a, 0);
  EXPECT_LE(asked_b, asked_a + 1) << "recorded answers were asked again";
  const auto& a = reference["result"]["trajectory"];
  const auto& b = resumed["result"]["trajectory"];
  if (asked_b == asked_a) {
    ASSERT_EQ(a.size(), b.size()) << a.dump(1) << "\n---\n" << b.dump(1);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i]["proposal"], b[i]["proposal"]) << i;
      EXPECT_EQ(a[i]["status"], b[i]["status"]) << i;
    }
    EXPECT_EQ(reference["result"]["best_us"], resumed["result"]["best_us"]);
  } else {
    std::cout << "llm job: a request was in flight at the kill; paths not compared\n";
  }
  std::cout << "llm job: " << a.size() << " trajectory point(s), speedup " << resumed["result"]["speedup"] << ", "
            << resumed["result"]["stop_reason"] << "\n";
}

TEST(daemon_llm, WithoutAnLlmTableEngineLlmIsRefused) {
  temp_dir t("aoptd-n");
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  EXPECT_EQ(request(d.socket(), "GET", "/v1/version").json()["engines"], json::array({"offline"}));
  for (const std::string engine : {"llm", "gpt"}) {
    const auto r = request(d.socket(), "POST", "/v1/jobs?engine=" + engine, add_custom_tar());
    ASSERT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.json()["error"]["field"], "engine") << r.body;
    EXPECT_NE(r.json()["error"]["message"].get<std::string>().find(engine == "llm" ? "[llm]" : "unknown"), std::string::npos)
        << r.body;
  }
  EXPECT_EQ(request(d.socket(), "GET", "/v1/jobs").json()["jobs"].size(), 0u) << "nothing was accepted";
}

TEST(daemon_socket, AGroupMayBeGivenTheSocket) {
  temp_dir t("aoptd-g");
  const group* g = ::getgrgid(::getgid());
  ASSERT_NE(g, nullptr);
  daemon_process d(t.path, with_group(g->gr_name));
  ASSERT_TRUE(d.start()) << d.log();
  struct stat sock {}, dir {};
  ASSERT_EQ(::stat(d.socket().c_str(), &sock), 0);
  ASSERT_EQ(::stat(d.socket().parent_path().c_str(), &dir), 0);
  EXPECT_EQ(sock.st_mode & 0777, 0660u);
  EXPECT_EQ(dir.st_mode & 0777, 0710u);  // enough to reach the socket
  EXPECT_EQ(sock.st_gid, g->gr_gid);
  EXPECT_EQ(dir.st_gid, g->gr_gid);
  d.kill9();
  // An unknown group stops aoptd at start with the key named.
  temp_dir u("aoptd-g");
  daemon_process bad(u.path, with_group("no-such-group-aopt"));
  EXPECT_FALSE(bad.start());
  EXPECT_NE(bad.log().find("socket_group"), std::string::npos) << bad.log();
}
