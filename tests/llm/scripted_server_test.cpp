// The scripted endpoint itself: script validation, hash embeddings, rule use counts, and the
// aopt-llm-stub program end to end (port file, serving, clean stop on SIGTERM).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/subprocess.h"
#include "aopt/llm/http_client.h"
#include "test_support.h"

namespace aopt::llm {
namespace {

using namespace aopt::llm::testing;
namespace fs = std::filesystem;
using nlohmann::json;

std::string script_error(const char* text) {
  try {
    parse_script(json::parse(text), "s.json");
  } catch (const aopt::error& e) {
    return e.what();
  }
  return "";
}

TEST(Script, ErrorsNameTheRuleAndTheKey) {
  EXPECT_NE(script_error(R"([{"reply": "x"}, {"reply": "y", "contain": "z"}])").find("s.json: rule 1: unknown key 'contain'"),
            std::string::npos);
  EXPECT_NE(script_error(R"([{"times": 1}])").find("rule 0: the rule needs"), std::string::npos);
  EXPECT_NE(script_error(R"([{"reply": "x", "fault": {"status": 200}}])").find("fault.status"), std::string::npos);
  EXPECT_NE(script_error(R"([{"embedding": "words"}])").find("'embedding'"), std::string::npos);
  EXPECT_NE(script_error(R"({"rule": []})").find("JSON array of rules"), std::string::npos);
  EXPECT_EQ(script_error(R"({"rules": [{"reply": "x", "times": 2, "model": "m", "fault": {"delay_ms": 5}}]})"), "");
}

float cosine(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;  // both are unit vectors
}

TEST(Script, HashEmbeddingIsDeterministicAndSimilarForSharedWords) {
  const auto q = hash_embedding("MTE2 bound: add double buffering");
  EXPECT_EQ(q, hash_embedding("mte2 BOUND add double buffering"));  // case and punctuation ignored
  EXPECT_EQ(q.size(), 64u);
  EXPECT_NEAR(cosine(q, q), 1.0f, 1e-5f);
  EXPECT_GT(cosine(q, hash_embedding("double buffering for copies")),
            cosine(q, hash_embedding("scalar loop over the tail")));
  EXPECT_EQ(hash_embedding("", 8), std::vector<float>(8, 0.0f));
}

TEST(ScriptedServer, TimesUsesUpARuleAndModelSelects) {
  auto server = serve(R"([{"times": 1, "reply": "once"}, {"model": "other", "reply": "other model"}, {"reply": "always"}])");
  llm_config c = config_for(*server);
  http_client client(c);
  EXPECT_EQ(client.chat(ask("a")).value().content, "once");
  EXPECT_EQ(client.chat(ask("a")).value().content, "always");
  c.model = "other";
  http_client other(c);
  EXPECT_EQ(other.chat(ask("a")).value().content, "other model");
  EXPECT_EQ(server->request_count(), 3u);
  EXPECT_EQ(server->requests()[0].status, 200);
}

TEST(ScriptedServer, StopIsPromptEvenWithADelayedHandler) {
  auto server = serve(R"([{"reply": "x", "fault": {"delay_ms": 10000}}])");
  llm_config c = config_for(*server);
  c.max_retries = 0;
  http_client client(c);
  std::thread t([&] { (void)client.chat(ask("a")); });
  while (server->request_count() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto t0 = std::chrono::steady_clock::now();
  server->stop();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

// The stub program: started as a real process, it writes its port, answers, and exits 0 on SIGTERM.
TEST(LlmStub, ServesFromAScriptFileUntilSigterm) {
  const fs::path dir = temp_dir("aopt-llm-stub");
  const fs::path script = dir / "script.json";
  const fs::path port_file = dir / "port";
  common::write_text_file(script, R"([{"contains": "ping", "reply": "pong"}])");

  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(AOPT_LLM_STUB, AOPT_LLM_STUB, "--script", script.c_str(), "--port-file", port_file.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string port;
  for (int i = 0; i < 500 && port.empty(); ++i) {  // up to 5 s
    std::error_code ec;
    if (fs::exists(port_file, ec)) port = common::read_text_file(port_file);
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(port.empty()) << "the stub wrote no port file";
  while (!port.empty() && (port.back() == '\n')) port.pop_back();

  llm_config c;
  c.base_url = "http://127.0.0.1:" + port;
  c.model = "m";
  c.api_key_env = "";
  http_client client(c);
  const auto r = client.chat(ask("ping"));
  EXPECT_TRUE(r.ok()) << r.reason();
  if (r.ok()) {
    EXPECT_EQ(r.value().content, "pong");
  }

  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(LlmStub, ABadScriptIsAnErrorExit) {
  const fs::path dir = temp_dir("aopt-llm-stub");
  common::write_text_file(dir / "bad.json", R"([{"replyy": "x"}])");
  common::process_request req;
  req.argv = {AOPT_LLM_STUB, "--script", (dir / "bad.json").string()};
  req.limits.wall_timeout = std::chrono::milliseconds(5000);
  const auto out = common::run_process(req);
  EXPECT_EQ(out.end, common::process_end::exited);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.err.find("unknown key 'replyy'"), std::string::npos) << out.err;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace aopt::llm
