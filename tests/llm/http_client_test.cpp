// The HTTP client against the scripted endpoint: every fault ends as a retried success or a
// recorded failure with a reason; the API key reaches the server and nothing else.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/llm/http_client.h"
#include "test_support.h"

namespace aopt::llm {
namespace {

using namespace aopt::llm::testing;
using clock_type = std::chrono::steady_clock;
using nlohmann::json;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

class HttpClient : public with_key {};

TEST_F(HttpClient, ChatSendsTheRequestAndTheKey) {
  auto server = serve(R"([{"reply": "hello from the model", "usage": {"prompt_tokens": 11, "completion_tokens": 4}}])");
  http_client client(config_for(*server));
  ASSERT_TRUE(client.has_api_key());
  const auto r = client.chat(ask("speed up this kernel"));
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.value().content, "hello from the model");
  EXPECT_EQ(r.value().model, "test-model");
  EXPECT_EQ(r.value().finish_reason, "stop");
  EXPECT_EQ(r.value().tokens.prompt_tokens, 11u);
  EXPECT_EQ(r.value().tokens.completion_tokens, 4u);
  EXPECT_EQ(r.value().attempts, 1);
  EXPECT_FALSE(r.value().replayed);

  const auto seen = server->last_request();
  EXPECT_EQ(seen.path, "/v1/chat/completions");
  EXPECT_EQ(seen.authorization, std::string("Bearer ") + k_key);
  const json body = json::parse(seen.body);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 4096);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "speed up this kernel");

  const auto u = client.usage();
  ASSERT_TRUE(u.count("refinement"));
  EXPECT_EQ(u.at("refinement").requests, 1u);
  EXPECT_EQ(u.at("refinement").failures, 0u);
  EXPECT_EQ(u.at("refinement").prompt_tokens, 11u);
  EXPECT_EQ(client.tokens_used(), 15u);
}

TEST_F(HttpClient, PerRequestOverridesAndRoleModels) {
  auto server = serve(R"([{"model": "strong", "reply": "template"}, {"reply": "other"}])");
  llm_config c = config_for(*server);
  c.models[role::template_synthesis] = "strong";
  http_client client(c);
  chat_request q = ask("synthesize", role::template_synthesis);
  q.temperature = 0.0;
  q.max_tokens = 77;
  const auto r = client.chat(q);
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.value().content, "template");
  const json body = json::parse(server->last_request().body);
  EXPECT_EQ(body["model"], "strong");
  EXPECT_EQ(body["max_tokens"], 77);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.0);
  EXPECT_EQ(client.chat(ask("x", role::diagnosis)).value().content, "other");
}

TEST_F(HttpClient, NoKeyMeansNoAuthorizationHeader) {
  ::unsetenv(k_key_env);
  auto server = serve(R"([{"reply": "ok"}])");
  http_client client(config_for(*server));
  EXPECT_FALSE(client.has_api_key());
  ASSERT_TRUE(client.chat(ask("hi")).ok());
  EXPECT_EQ(server->last_request().authorization, "");
}

TEST_F(HttpClient, TimeoutThenSuccessOnRetry) {
  auto server = serve(R"([{"times": 1, "reply": "too late", "fault": {"delay_ms": 1500}}, {"reply": "in time"}])");
  llm_config c = config_for(*server);
  c.request_timeout_ms = 200;
  http_client client(c);
  const auto r = client.chat(ask("hi"));
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.value().content, "in time");
  EXPECT_EQ(r.value().attempts, 2);
  EXPECT_EQ(client.usage().at("refinement").retries, 1u);
  EXPECT_EQ(server->request_count(), 2u);
}

TEST_F(HttpClient, TimeoutsExhaustedIsAFailureNamingTheTimeout) {
  auto server = serve(R"([{"reply": "too late", "fault": {"delay_ms": 1500}}])");
  llm_config c = config_for(*server);
  c.request_timeout_ms = 150;
  c.max_retries = 1;
  http_client client(c);
  const auto r = client.chat(ask("hi"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("timed out after 150 ms"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("after 2 attempts"), std::string::npos) << r.reason();
}

TEST_F(HttpClient, RetryAfterIsHonoured) {
  auto server = serve(R"([{"times": 1, "fault": {"status": 429, "retry_after": 1}}, {"reply": "ok"}])");
  llm_config c = config_for(*server);
  c.backoff_max_ms = 5000;  // the cap must not cut the server's 1 s
  http_client client(c);
  const auto t0 = clock_type::now();
  const auto r = client.chat(ask("hi"));
  const double elapsed = ms_since(t0);
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.value().attempts, 2);
  EXPECT_GE(elapsed, 1000.0);
  EXPECT_LT(elapsed, 4000.0);
}

TEST_F(HttpClient, RetryAfterIsCappedAtBackoffMax) {
  auto server = serve(R"([{"times": 1, "fault": {"status": 503, "retry_after": 30}}, {"reply": "ok"}])");
  llm_config c = config_for(*server);
  c.backoff_max_ms = 100;
  http_client client(c);
  const auto t0 = clock_type::now();
  const auto r = client.chat(ask("hi"));
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_GE(ms_since(t0), 100.0);
  EXPECT_LT(ms_since(t0), 3000.0);
}

TEST_F(HttpClient, ServerErrorsAreRetried) {
  auto server = serve(R"([{"times": 2, "fault": {"status": 500}}, {"reply": "third time"}])");
  http_client client(config_for(*server));
  const auto r = client.chat(ask("hi"));
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.value().content, "third time");
  EXPECT_EQ(r.value().attempts, 3);
  EXPECT_EQ(server->request_count(), 3u);
}

TEST_F(HttpClient, ExhaustedRetriesFailWithReason) {
  auto server = serve(R"([{"fault": {"status": 503}}])");
  http_client client(config_for(*server));  // max_retries = 2
  const auto r = client.chat(ask("hi", role::diagnosis));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("HTTP 503"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("after 3 attempts"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("diagnosis"), std::string::npos) << r.reason();
  EXPECT_EQ(r.reason().find('\n'), std::string::npos);
  EXPECT_EQ(server->request_count(), 3u);
  const auto u = client.usage().at("diagnosis");
  EXPECT_EQ(u.requests, 1u);
  EXPECT_EQ(u.failures, 1u);
  EXPECT_EQ(u.retries, 2u);
}

TEST_F(HttpClient, ClientErrorsAreNotRetried) {
  auto server = serve(R"([{"fault": {"status": 400}}])");
  http_client client(config_for(*server));
  const auto r = client.chat(ask("hi"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("HTTP 400"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("not retried"), std::string::npos) << r.reason();
  EXPECT_EQ(server->request_count(), 1u);
}

TEST_F(HttpClient, NoMatchingRuleIsA404Failure) {
  auto server = serve(R"([{"contains": "tiling", "reply": "x"}])");
  http_client client(config_for(*server));
  const auto r = client.chat(ask("kernel please"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("HTTP 404"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("no rule matches"), std::string::npos) << r.reason();
}

TEST_F(HttpClient, MalformedJsonIsAFailureNotRetried) {
  auto server = serve(R"([{"fault": {"malformed": true}}])");
  http_client client(config_for(*server));
  const auto r = client.chat(ask("hi"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("malformed response"), std::string::npos) << r.reason();
  EXPECT_EQ(server->request_count(), 1u);
  EXPECT_EQ(client.usage().at("refinement").failures, 1u);
}

TEST_F(HttpClient, TruncatedReplyArrivesCutInsideItsCodeBlock) {
  auto server = serve(R"([{"reply": "Change:\n```cpp\nint a = 1;\nint b = 2;\nint c = 3;\n```\nDone.", "fault": {"truncated": true}}])");
  http_client client(config_for(*server));
  const auto r = client.chat(ask("hi"));
  ASSERT_TRUE(r.ok()) << r.reason();
  const std::string& s = r.value().content;
  EXPECT_EQ(r.value().finish_reason, "length");
  EXPECT_NE(s.find("```cpp"), std::string::npos) << s;
  EXPECT_EQ(s.find("```", s.find("```cpp") + 3), std::string::npos) << "the block must be unterminated: " << s;
  EXPECT_EQ(s.find("Done."), std::string::npos);
}

TEST_F(HttpClient, ConnectionRefusedIsRetriedThenFails) {
  int port = 0;
  {
    auto server = serve(R"([{"reply": "x"}])");
    port = server->port();
  }  // stopped: nothing listens on the port now
  llm_config c;
  c.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1/";  // trailing /v1/ is accepted
  c.model = "m";
  c.max_retries = 1;
  c.backoff_initial_ms = 5;
  c.backoff_max_ms = 10;
  c.seed = k_seed;
  http_client client(c);
  const auto r = client.chat(ask("hi"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("connection error"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find("after 2 attempts"), std::string::npos) << r.reason();
  EXPECT_NE(r.reason().find(":" + std::to_string(port) + "/v1/chat/completions"), std::string::npos) << r.reason();
}

TEST_F(HttpClient, TokenBudgetStopsCallsWithoutContactingTheServer) {
  auto server = serve(R"([{"reply": "ok", "usage": {"prompt_tokens": 8, "completion_tokens": 7}}])");
  llm_config c = config_for(*server);
  c.token_budget = 10;
  http_client client(c);
  ASSERT_TRUE(client.chat(ask("first")).ok());  // starts under budget, ends over it (15)
  const auto r = client.chat(ask("second"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("token budget of 10 exhausted"), std::string::npos) << r.reason();
  EXPECT_EQ(server->request_count(), 1u);
  EXPECT_EQ(client.usage().at("refinement").failures, 1u);
  // Embeddings share the budget.
  c.models[role::embeddings] = "e";
  http_client client2(c);
  ASSERT_TRUE(client2.chat(ask("first")).ok());
  EXPECT_FALSE(client2.embed({"x"}).ok());
}

TEST_F(HttpClient, ConcurrencyLimitIsObservedByTheServer) {
  auto server = serve(R"([{"reply": "slow", "fault": {"delay_ms": 150}}])");
  llm_config c = config_for(*server);
  c.max_concurrency = 2;
  http_client client(c);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      if (client.chat(ask("q" + std::to_string(i))).ok()) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 6);
  EXPECT_EQ(server->request_count(), 6u);
  EXPECT_EQ(server->max_in_flight(), 2);
}

TEST_F(HttpClient, TheKeyAppearsInNoReasonAndNoJson) {
  // The 404 message quotes the start of the user message: a prompt that contains the key (a
  // user pasted it into a file) must still not leak it through a failure reason.
  auto server = serve(R"([{"contains": "budget", "reply": "ok", "usage": {"prompt_tokens": 50, "completion_tokens": 50}},
                          {"contains": "boom", "fault": {"status": 500}},
                          {"contains": "bad", "fault": {"status": 401}},
                          {"contains": "junk", "fault": {"malformed": true}}])");
  llm_config c = config_for(*server);
  c.token_budget = 10;
  http_client client(c);
  std::vector<std::string> reasons;
  for (const std::string& text : {std::string("boom"), std::string("bad"), std::string("junk"),
                                 std::string(k_key) + " no rule", std::string("budget"), std::string("after budget")}) {
    const auto r = client.chat(ask(text));
    if (!r.ok()) reasons.push_back(r.reason());
  }
  ASSERT_EQ(reasons.size(), 5u);
  for (const auto& reason : reasons) EXPECT_EQ(reason.find(k_key), std::string::npos) << reason;
  EXPECT_NE(reasons[3].find("<redacted>"), std::string::npos) << reasons[3];
  EXPECT_EQ(to_json(client.config()).dump().find(k_key), std::string::npos);
  EXPECT_EQ(to_json(client.usage()).dump().find(k_key), std::string::npos);
  // ... while every request did carry it.
  for (const auto& seen : server->requests()) EXPECT_EQ(seen.authorization, std::string("Bearer ") + k_key);
}

TEST_F(HttpClient, MissingModelIsAConfigError) {
  auto server = serve(R"([{"reply": "x"}])");
  llm_config c = config_for(*server);
  c.model = "";
  c.models[role::refinement] = "r";
  try {
    http_client client(c);
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("no model for role 'template_synthesis'"), std::string::npos) << e.what();
  }
}

TEST_F(HttpClient, EmbeddingsParseInOrder) {
  auto server = serve(R"([{"contains": "fixed", "embedding": [0.5, 0.25]}, {"embedding": "hash"}])");
  llm_config c = config_for(*server);
  c.models[role::embeddings] = "embed-model";
  http_client client(c);
  EXPECT_EQ(client.embedding_model(), "embed-model");
  const std::vector<std::string> texts = {"double buffering of the copy queue", "scalar loop", "vector add"};
  const auto r = client.embed(texts);
  ASSERT_TRUE(r.ok()) << r.reason();
  ASSERT_EQ(r.value().size(), 3u);
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(r.value()[i], hash_embedding(texts[i]));
  const json body = json::parse(server->last_request().body);
  EXPECT_EQ(server->last_request().path, "/v1/embeddings");
  EXPECT_EQ(body["model"], "embed-model");
  EXPECT_EQ(body["input"].size(), 3u);

  const auto f = client.embed({"fixed one", "fixed two"});
  ASSERT_TRUE(f.ok()) << f.reason();
  EXPECT_EQ(f.value()[1], (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(client.usage().at("embeddings").requests, 2u);
}

TEST_F(HttpClient, EmbeddingsWithoutAModelFailWithoutContactingTheServer) {
  auto server = serve(R"([{"embedding": "hash"}])");
  http_client client(config_for(*server));
  EXPECT_EQ(client.embedding_model(), "");
  const auto r = client.embed({"x"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason().find("no embeddings model configured"), std::string::npos) << r.reason();
  EXPECT_EQ(server->request_count(), 0u);
}

TEST(ResponseParsing, EmbeddingsOutOfOrderAndBadShapes) {
  token_usage t;
  const auto v = parse_embeddings_response(
      R"({"data": [{"index": 1, "embedding": [2.0]}, {"index": 0, "embedding": [1.0]}], "usage": {"prompt_tokens": 3}})", 2, t);
  EXPECT_EQ(v[0], std::vector<float>{1.0f});
  EXPECT_EQ(v[1], std::vector<float>{2.0f});
  EXPECT_EQ(t.prompt_tokens, 3u);
  EXPECT_THROW(parse_embeddings_response(R"({"data": [{"embedding": [1]}]})", 2, t), std::runtime_error);
  EXPECT_THROW(parse_embeddings_response(R"({"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]})", 2, t),
               std::runtime_error);
  EXPECT_THROW(parse_embeddings_response(R"({"data": [{"index": 0, "embedding": ["a"]}]})", 1, t), std::runtime_error);
}

TEST(ResponseParsing, ChatMissingFieldsAreMalformed) {
  auto reason = [](const std::string& body) {
    try {
      parse_chat_response(body);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(reason(R"({"choices": [{"message": {"content": "x"}}]})"), "");
  EXPECT_NE(reason(R"({"choices": []})").find("malformed response: no choices"), std::string::npos);
  EXPECT_NE(reason(R"({"choices": [{"message": {"content": null}}]})").find("content"), std::string::npos);
  EXPECT_NE(reason(R"({"choices": [{}]})").find("malformed response"), std::string::npos);
  EXPECT_NE(reason("<html>").find("not JSON"), std::string::npos);
}

}  // namespace
}  // namespace aopt::llm
