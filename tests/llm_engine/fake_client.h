// A scripted in-memory llm::client for the engine tests: answers per role from a queue (or a
// failure), records every request, embeds text as a bag of hashed tokens.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "aopt/llm/client.h"
#include "aopt/search/retrieve.h"

namespace aopt::llm::testing {

class fake_client final : public client {
 public:
  struct answer {
    bool ok = true;
    std::string content;  // or the failure reason
    std::string finish_reason = "stop";
  };
  void script(role r, std::string content, std::string finish = "stop") {
    answers_[r].push_back({true, std::move(content), std::move(finish)});
  }
  void script_failure(role r, std::string reason) { answers_[r].push_back({false, std::move(reason), ""}); }

  aopt::outcome<chat_response> chat(const chat_request& request) override {
    requests.push_back(request);
    auto& u = usage_[to_string(request.role)];
    ++u.requests;
    auto& q = answers_[request.role];
    if (q.empty()) {
      ++u.failures;
      return aopt::engine_failure{std::string("fake client: no scripted answer for ") + to_string(request.role)};
    }
    answer a = q.front();
    q.pop_front();
    if (!a.ok) {
      ++u.failures;
      return aopt::engine_failure{a.content};
    }
    u.prompt_tokens += 100;
    u.completion_tokens += a.content.size() / 4;
    chat_response resp;
    resp.content = a.content;
    resp.model = model_for(request.role);
    resp.finish_reason = a.finish_reason;
    return resp;
  }

  // A 64-dimensional bag of hashed tokens (search::tokenize), L2-normalised.
  aopt::outcome<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override {
    ++usage_["embeddings"].requests;
    ++embed_calls;
    if (embedding_model_.empty()) return aopt::engine_failure{"fake client: no embeddings model"};
    if (fail_embeddings) return aopt::engine_failure{"fake client: embeddings endpoint down"};
    std::vector<std::vector<float>> out;
    for (const auto& t : texts) {
      std::vector<float> v(64, 0.0f);
      for (const auto& tok : search::tokenize(t)) {
        std::uint64_t h = 1469598103934665603ULL;
        for (char c : tok) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        v[h % 64] += 1.0f;
      }
      double n = 0;
      for (float x : v) n += static_cast<double>(x) * x;
      if (n > 0) {
        for (float& x : v) x = static_cast<float>(x / std::sqrt(n));
      }
      out.push_back(std::move(v));
    }
    return out;
  }
  std::string embedding_model() const override { return embedding_model_; }
  std::string model_for(role r) const override { return std::string("fake-") + to_string(r); }
  usage_by_role usage() const override { return usage_; }

  void set_embedding_model(std::string m) { embedding_model_ = std::move(m); }
  std::size_t pending(role r) const {
    auto it = answers_.find(r);
    return it == answers_.end() ? 0 : it->second.size();
  }

  std::vector<chat_request> requests;
  int embed_calls = 0;
  bool fail_embeddings = false;

 private:
  std::map<role, std::deque<answer>> answers_;
  usage_by_role usage_;
  std::string embedding_model_ = "fake-embed-1";
};

}  // namespace aopt::llm::testing
