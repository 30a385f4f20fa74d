// [llm] config: parsing, errors that name file:line and the key, validate(), to_json, roles.
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/llm/config.h"

namespace aopt::llm {
namespace {

std::string error_of(const std::string& toml) {
  try {
    parse_llm_config(toml, "cfg/aopt.toml");
  } catch (const aopt::error& e) {
    return e.what();
  }
  return "";
}

TEST(LlmRoles, NamesRoundTrip) {
  for (std::size_t i = 0; i < role_count; ++i) {
    const auto r = static_cast<role>(i);
    const auto back = parse_role(to_string(r));
    ASSERT_TRUE(back.has_value()) << to_string(r);
    EXPECT_EQ(*back, r);
  }
  EXPECT_STREQ(to_string(role::template_synthesis), "template_synthesis");
  EXPECT_FALSE(parse_role("Refinement").has_value());
  EXPECT_FALSE(parse_role("").has_value());
}

TEST(LlmRoles, UsageJsonHasTotals) {
  usage_by_role u;
  u["refinement"] = {2, 1, 3, 100, 50, 1.5};
  u["diagnosis"] = {1, 0, 0, 10, 5, 0.5};
  const auto j = to_json(u);
  EXPECT_EQ(j["refinement"]["retries"], 3);
  EXPECT_EQ(j["total"]["requests"], 3);
  EXPECT_EQ(j["total"]["prompt_tokens"], 110);
  EXPECT_DOUBLE_EQ(j["total"]["seconds"].get<double>(), 2.0);
}

TEST(LlmConfig, ExampleFileParsesAndShowsTheDefaults) {
  const llm_config c = load_llm_config(AOPT_LLM_EXAMPLE_CONFIG);
  EXPECT_EQ(c.model, "deepseek-chat");
  EXPECT_EQ(c.model_for(role::template_synthesis), "deepseek-reasoner");
  EXPECT_EQ(c.model_for(role::rewind), "deepseek-reasoner");
  EXPECT_EQ(c.model_for(role::refinement), "deepseek-chat");
  EXPECT_EQ(c.model_for(role::embeddings), "");
  // Every other value in the example is the default: the example documents the defaults.
  llm_config expected;
  expected.model = c.model;
  expected.models = c.models;
  EXPECT_EQ(to_json(c), to_json(expected));
}

TEST(LlmConfig, MissingSectionGivesDefaults) {
  const llm_config c = parse_llm_config("[other]\nx = 1\n", "a.toml");
  EXPECT_EQ(to_json(c), to_json(llm_config{}));
}

TEST(LlmConfig, EveryKeyIsRead) {
  const llm_config c = parse_llm_config(R"([llm]
base_url = "https://api.deepseek.com"
api_key_env = "DEEPSEEK_API_KEY"
model = "m0"
temperature = 0
max_tokens = 100
request_timeout_ms = 1000
connect_timeout_ms = 200
max_retries = 0
backoff_initial_ms = 5
backoff_max_ms = 6
jitter = 0.0
seed = 99
max_concurrency = 8
token_budget = 12345
[llm.models]
diagnosis = "m1"
embeddings = "e1"
)", "b.toml");
  EXPECT_EQ(c.base_url, "https://api.deepseek.com");
  EXPECT_EQ(c.api_key_env, "DEEPSEEK_API_KEY");
  EXPECT_DOUBLE_EQ(c.temperature, 0.0);
  EXPECT_EQ(c.max_tokens, 100);
  EXPECT_EQ(c.request_timeout_ms, 1000);
  EXPECT_EQ(c.connect_timeout_ms, 200);
  EXPECT_EQ(c.max_retries, 0);
  EXPECT_EQ(c.backoff_initial_ms, 5);
  EXPECT_EQ(c.backoff_max_ms, 6);
  EXPECT_EQ(c.seed, 99u);
  EXPECT_EQ(c.max_concurrency, 8);
  EXPECT_EQ(c.token_budget, 12345u);
  EXPECT_EQ(c.model_for(role::diagnosis), "m1");
  EXPECT_EQ(c.model_for(role::refinement), "m0");
  EXPECT_EQ(c.model_for(role::embeddings), "e1");
  const auto j = to_json(c);
  EXPECT_EQ(j["models"]["diagnosis"], "m1");
  EXPECT_EQ(j["token_budget"], 12345);
}

TEST(LlmConfig, UnknownKeyNamesFileLineAndKey) {
  const std::string e = error_of("[llm]\nbase_url = \"http://x\"\nmodle = \"m\"\n");
  EXPECT_NE(e.find("cfg/aopt.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'modle'"), std::string::npos) << e;
  EXPECT_NE(e.find("known keys"), std::string::npos) << e;
}

TEST(LlmConfig, WrongTypeNamesFileLineAndKey) {
  const std::string e = error_of("[llm]\n\nmax_tokens = \"lots\"\n");
  EXPECT_NE(e.find("cfg/aopt.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("max_tokens"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
  const std::string t = error_of("[llm]\ntemperature = \"hot\"\n");
  EXPECT_NE(t.find(":2:"), std::string::npos) << t;
  EXPECT_NE(t.find("temperature"), std::string::npos) << t;
}

TEST(LlmConfig, UnknownRoleAndOutOfRangeAreErrors) {
  const std::string r = error_of("[llm]\nmodel = \"m\"\n[llm.models]\nrefiner = \"x\"\n");
  EXPECT_NE(r.find("cfg/aopt.toml:4:"), std::string::npos) << r;
  EXPECT_NE(r.find("unknown role 'refiner'"), std::string::npos) << r;
  const std::string n = error_of("[llm]\nmax_retries = -1\n");
  EXPECT_NE(n.find("cfg/aopt.toml:2:"), std::string::npos) << n;
  EXPECT_NE(n.find("max_retries"), std::string::npos) << n;
  const std::string j = error_of("[llm]\njitter = 1.5\n");
  EXPECT_NE(j.find("jitter"), std::string::npos) << j;
  EXPECT_NE(j.find("cfg/aopt.toml"), std::string::npos) << j;
}

TEST(LlmConfig, SyntaxErrorHasPosition) {
  try {
    parse_llm_config("[llm]\nbase_url = \n", "s.toml");
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::parse_error);
    EXPECT_NE(std::string(e.what()).find("s.toml:2:"), std::string::npos) << e.what();
  }
}

TEST(LlmConfig, ValidateRejectsBadValues) {
  auto rejects = [](auto mutate) {
    llm_config c;
    mutate(c);
    EXPECT_THROW(c.validate(), aopt::error);
  };
  rejects([](llm_config& c) { c.base_url = "api.deepseek.com"; });
  rejects([](llm_config& c) { c.temperature = 3; });
  rejects([](llm_config& c) { c.max_tokens = 0; });
  rejects([](llm_config& c) { c.request_timeout_ms = 0; });
  rejects([](llm_config& c) { c.backoff_max_ms = c.backoff_initial_ms - 1; });
  rejects([](llm_config& c) { c.max_concurrency = 0; });
  rejects([](llm_config& c) { c.jitter = -0.1; });
  EXPECT_NO_THROW(llm_config{}.validate());
}

TEST(LlmConfig, AKeyPutInPlaceOfTheVariableNameIsNotEchoed) {
  const std::string e = error_of("[llm]\napi_key_env = \"sk-live-abcdef123456\"\n");
  EXPECT_NE(e.find("api_key_env"), std::string::npos) << e;
  EXPECT_EQ(e.find("sk-live-abcdef123456"), std::string::npos) << e;
}

}  // namespace
}  // namespace aopt::llm

namespace aopt::llm {
namespace {

TEST(LlmConfig, CommandLineOverridesAreCheckedLikeTheFile) {
  llm_config c;
  c.model = "base";
  c = apply_overrides(c, {"temperature=0.7", "model=deepseek-chat", "models.refinement=\"cheap\"", "max_retries=1",
                          "base_url=http://127.0.0.1:9"});
  EXPECT_DOUBLE_EQ(c.temperature, 0.7);
  EXPECT_EQ(c.model, "deepseek-chat");  // unquoted text is a string
  EXPECT_EQ(c.model_for(role::refinement), "cheap");
  EXPECT_EQ(c.model_for(role::diagnosis), "deepseek-chat");
  EXPECT_EQ(c.max_retries, 1);
  EXPECT_EQ(c.base_url, "http://127.0.0.1:9");
  auto message = [&](const std::vector<std::string>& kv) {
    try {
      apply_overrides(c, kv);
    } catch (const aopt::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"temprature=0.5"}).find("unknown key 'temprature'"), std::string::npos) << message({"temprature=0.5"});
  EXPECT_NE(message({"max_tokens=lots"}).find("max_tokens"), std::string::npos);
  EXPECT_NE(message({"max_tokens"}).find("KEY=VALUE"), std::string::npos);
  EXPECT_NE(message({"models.painter=x"}).find("unknown role"), std::string::npos);
  EXPECT_NE(message({"max_concurrency=0"}).find("--llm-set max_concurrency=0"), std::string::npos) << message({"max_concurrency=0"});
}

}  // namespace
}  // namespace aopt::llm
