// Record and replay: answers come back in order across a close/reopen, a miss is a failure,
// re-recording keeps one entry per ask, and the API key never reaches the store.
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/llm/http_client.h"
#include "aopt/llm/replay.h"
#include "test_support.h"

namespace aopt::llm {
namespace {

using namespace aopt::llm::testing;
namespace fs = std::filesystem;

// Two different answers to the same prompt (a model sampling at temperature > 0).
constexpr const char* k_script = R"([
  {"contains": "same", "times": 1, "reply": "first-answer-MARKER"},
  {"contains": "same", "reply": "second answer"},
  {"contains": "other", "reply": "third answer"},
  {"contains": "refuse", "fault": {"status": 400}},
  {"embedding": "hash"}])";

class Replay : public with_key {
 protected:
  void SetUp() override {
    with_key::SetUp();
    dir_ = temp_dir("aopt-llm-replay");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    with_key::TearDown();
  }
  llm_config with_embeddings(const scripted_server& s) {
    llm_config c = config_for(s);
    c.models[role::embeddings] = "embed-model";
    return c;
  }
  // One "job": the same asks in the same order.
  static std::vector<std::string> run_job(client& c) {
    std::vector<std::string> out;
    for (const char* q : {"same prompt", "same prompt", "other prompt", "refuse this"}) {
      const auto r = c.chat(ask(q));
      out.push_back(r.ok() ? r.value().content : "FAILED: " + r.reason());
    }
    return out;
  }
  fs::path dir_;
};

TEST_F(Replay, ReproducesTheRecordedAnswersInOrderAfterReopen) {
  std::vector<std::string> live;
  std::vector<std::vector<float>> live_vectors;
  {
    auto server = serve(k_script);
    const llm_config c = with_embeddings(*server);
    http_client inner(c);
    replay_store store(dir_);
    recording_client rec(inner, store, c);
    live = run_job(rec);
    live_vectors = rec.embed({"double buffer", "pipe barrier"}).value();
    EXPECT_EQ(rec.usage().at("refinement").requests, 4u);  // the inner client's accounting
  }  // server stopped, store closed
  ASSERT_EQ(live[0], "first-answer-MARKER");
  ASSERT_EQ(live[1], "second answer");
  ASSERT_EQ(live[2], "third answer");
  ASSERT_EQ(live[3].rfind("FAILED: ", 0), 0u);

  llm_config c;
  c.model = "test-model";
  c.models[role::embeddings] = "embed-model";
  replay_store store(dir_, /*create_if_missing=*/false);
  EXPECT_EQ(store.size(), 4u);  // 3 distinct prompts + 1 embeddings request
  replay_client replay(store, c);
  EXPECT_EQ(run_job(replay), live);  // the failure too, with the same reason
  const auto again = replay.chat(ask("same prompt"));  // asked more often than recorded
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.value().replayed);
  EXPECT_EQ(again.value().content, "second answer");
  const auto v = replay.embed({"double buffer", "pipe barrier"});
  ASSERT_TRUE(v.ok()) << v.reason();
  EXPECT_EQ(v.value(), live_vectors);
  const auto u = replay.usage();
  EXPECT_EQ(u.at("refinement").requests, 5u);
  EXPECT_EQ(u.at("refinement").failures, 1u);
  EXPECT_GT(u.at("refinement").completion_tokens, 0u);
}

TEST_F(Replay, AMissIsAFailureThatSaysWhatToDo) {
  replay_store store(dir_);
  llm_config c;
  c.model = "m";
  replay_client replay(store, c);
  chat_request q = ask("never recorded", role::diagnosis);
  const auto r = replay.chat(q);
  ASSERT_FALSE(r.ok());
  const std::string hash = request_hash(chat_request_body(q, c));
  EXPECT_NE(r.reason().find("no recorded response for diagnosis request " + hash.substr(0, 12)), std::string::npos)
      << r.reason();
  EXPECT_NE(r.reason().find("record it first"), std::string::npos) << r.reason();
  EXPECT_EQ(replay.usage().at("diagnosis").failures, 1u);
}

TEST_F(Replay, ADifferentTemperatureIsADifferentRequest) {
  {
    auto server = serve(k_script);
    const llm_config c = config_for(*server);
    http_client inner(c);
    replay_store store(dir_);
    recording_client rec(inner, store, c);
    ASSERT_TRUE(rec.chat(ask("other prompt")).ok());
  }
  replay_store store(dir_);
  llm_config c;
  c.model = "test-model";
  replay_client same(store, c);
  EXPECT_TRUE(same.chat(ask("other prompt")).ok());
  c.temperature = 0.7;
  replay_client hotter(store, c);
  EXPECT_FALSE(hotter.chat(ask("other prompt")).ok());
}

TEST_F(Replay, RecordingTheSameJobTwiceKeepsOneEntryPerAsk) {
  auto server = serve(R"([{"reply": "stable"}])");
  const llm_config c = config_for(*server);
  http_client inner(c);
  replay_store store(dir_);
  for (int run = 0; run < 2; ++run) {
    recording_client rec(inner, store, c);  // a new job: occurrences count from 0 again
    ASSERT_TRUE(rec.chat(ask("a")).ok());
    ASSERT_TRUE(rec.chat(ask("a")).ok());
    ASSERT_TRUE(rec.chat(ask("b")).ok());
  }
  EXPECT_EQ(store.size(), 2u);
  const std::string hash_a = request_hash(chat_request_body(ask("a"), c));
  EXPECT_EQ(store.occurrences(hash_a), 2u);
  const auto body = store.request(hash_a);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ((*body)["messages"][1]["content"], "a");
}

// A job resumed over its own recording (aoptd after a crash): what was recorded is answered from
// the recording, only the asks beyond it reach the server, and the answers are those of one
// uninterrupted run although the server's script has moved on.
TEST_F(Replay, ResumeAnswersRecordedAsksAndForwardsOnlyNewOnes) {
  auto server = serve(k_script);
  const llm_config c = config_for(*server);
  http_client inner(c);
  replay_store store(dir_);
  {
    recording_client first(inner, store, c, /*resume=*/true);  // interrupted after one ask
    ASSERT_EQ(first.chat(ask("same prompt")).value().content, "first-answer-MARKER");
  }
  const std::size_t before = server->request_count();
  recording_client resumed(inner, store, c, /*resume=*/true);
  const auto again = resumed.chat(ask("same prompt"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().content, "first-answer-MARKER");  // the server would now say "second answer"
  EXPECT_TRUE(again.value().replayed);
  EXPECT_EQ(server->request_count(), before);
  const auto next = resumed.chat(ask("same prompt"));  // beyond the recording: asked and recorded
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next.value().content, "second answer");
  EXPECT_FALSE(next.value().replayed);
  EXPECT_EQ(server->request_count(), before + 1);
  EXPECT_EQ(store.occurrences(request_hash(chat_request_body(ask("same prompt"), c))), 2u);
  // Without resume, a recording client always asks.
  recording_client plain(inner, store, c);
  EXPECT_EQ(plain.chat(ask("same prompt")).value().content, "second answer");
  EXPECT_EQ(server->request_count(), before + 2);
}

TEST_F(Replay, TheApiKeyNeverReachesTheStore) {
  {
    auto server = serve(k_script);
    const llm_config c = with_embeddings(*server);
    http_client inner(c);
    replay_store store(dir_);
    recording_client rec(inner, store, c);
    run_job(rec);
    ASSERT_TRUE(rec.embed({"x"}).ok());
    // The key did go over the wire.
    EXPECT_EQ(server->last_request().authorization, std::string("Bearer ") + k_key);
  }
  std::string all_bytes;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    all_bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ++files;
  }
  ASSERT_GT(files, 0u);
  // The scan sees recorded text (so it would see the key if it were there) ...
  EXPECT_NE(all_bytes.find("first-answer-MARKER"), std::string::npos);
  // ... and the key is nowhere, nor its distinctive middle part.
  EXPECT_EQ(all_bytes.find(k_key), std::string::npos);
  EXPECT_EQ(all_bytes.find("S3CRET-7f3a9c21d4e8"), std::string::npos);
}

TEST_F(Replay, SecondOpenInTheSameProcessIsAClearError) {
  replay_store store(dir_);
  try {
    replay_store again(dir_);
    FAIL() << "opened twice";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("already open in this process"), std::string::npos) << e.what();
  }
  EXPECT_THROW(replay_store(dir_ / "missing", false), aopt::error);
}

}  // namespace
}  // namespace aopt::llm
