// Prompt templates: the shipped ones load and render; bad templates are errors naming file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "aopt/common/error.h"
#include "aopt/llm/prompts.h"

namespace aopt::llm {
namespace {

std::filesystem::path source_prompts() { return std::filesystem::path(AOPT_TEST_SOURCE_DIR) / "config" / "prompts"; }

TEST(Prompts, ShippedTemplatesLoadAndRender) {
  const auto lib = prompt_library::load(source_prompts());
  for (role r : prompted_roles()) {
    ASSERT_TRUE(lib.has(r)) << to_string(r);
    std::map<std::string, std::string> values;
    for (const auto& k : placeholders_of(r).known) values[k] = "<" + k + "-value>";
    const auto msgs = lib.render(r, values);
    ASSERT_EQ(msgs.size(), 2u) << to_string(r);
    EXPECT_EQ(msgs[0].role, "system");
    EXPECT_EQ(msgs[1].role, "user");
    for (const auto& k : placeholders_of(r).required) {
      EXPECT_NE(msgs[1].content.find("<" + k + "-value>"), std::string::npos) << to_string(r) << " " << k;
    }
    EXPECT_EQ(msgs[1].content.find("{{"), std::string::npos) << to_string(r);
    // The editors' preamble is not sent.
    EXPECT_EQ(msgs[0].content.find("Placeholders:"), std::string::npos) << to_string(r);
  }
}

TEST(Prompts, UnknownPlaceholderNamesFileAndLine) {
  try {
    (void)prompt_library::from_text({{role::diagnosis, "intro\n## user\nProfile:\n{{profile}} and {{profle_typo}}\n"}});
    FAIL() << "expected an error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::invalid_spec);
    const std::string m = e.what();
    EXPECT_NE(m.find("<diagnosis.md>:4:"), std::string::npos) << m;
    EXPECT_NE(m.find("profle_typo"), std::string::npos) << m;
  }
}

TEST(Prompts, RequiredPlaceholderMissing) {
  try {
    (void)prompt_library::from_text({{role::refinement, "## user\n{{code}} only\n"}});
    FAIL() << "expected an error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("{{tuples}}"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)prompt_library::from_text({{role::diagnosis, "{{profile}} but no user heading\n"}}), aopt::error);
}

TEST(Prompts, MissingValueAtRender) {
  const auto lib = prompt_library::from_text({{role::diagnosis, "## system\nsys\n## user\n{{profile}}\n\n{{code}}\n"}});
  try {
    (void)lib.render(role::diagnosis, {{"profile", "{}"}});
    FAIL() << "expected an error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("<diagnosis.md>:6: no value for {{code}}"), std::string::npos) << e.what();
  }
  // Values are inserted verbatim: braces in code stay as they are.
  const auto msgs = lib.render(role::diagnosis, {{"profile", "{{x}}"}, {"code", "int a{1};"}});
  EXPECT_EQ(msgs[1].content, "{{x}}\n\nint a{1};");
}

TEST(Prompts, MissingFileInDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("aopt_prompts_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "diagnosis.md") << "## user\n{{profile}}\n";
  try {
    (void)prompt_library::load(dir);
    FAIL() << "expected an error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::not_found);
    EXPECT_NE(std::string(e.what()).find("template_synthesis.md"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aopt::llm
