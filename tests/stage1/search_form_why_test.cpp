// Why a Stage I variant is built (issue 35): make_search_form says, per tunable it writes as a
// literal, why it could not be read at run time, and whether the host file changed (a screen,
// which builds only the host, then still runs on the form's build).
#include <algorithm>

#include <gtest/gtest.h>

#include "aopt/stage1/search_form.h"
#include "stage1_test_util.h"

namespace aopt::stage1 {
namespace {

tiling_template add_custom() {
  auto r = synthesize(test::load_package("add_custom"));
  if (!r.tmpl) throw std::runtime_error("synthesis failed for add_custom");
  return *r.tmpl;
}

TEST(SearchFormWhy, AKernelConstantIsBuiltButItsHostStaysTheForms) {
  const auto t = add_custom();
  const auto b = t.find("BUFFER_NUM");  // a host constant the kernel shares
  ASSERT_TRUE(b.has_value());
  auto v = t.base();
  v[*b] = 1;
  const auto f = make_search_form(t, v, form_level::bold);
  ASSERT_EQ(f.literal.size(), 1u);
  ASSERT_EQ(f.literal_why.size(), 1u);
  EXPECT_EQ(f.literal.front(), "BUFFER_NUM");
  EXPECT_EQ(f.literal_why.front(), "a kernel constant");
  EXPECT_FALSE(f.host_literal);
}

// In the careful form a changed constant declaration of the host is a literal: the variant's
// host is built, and the reason says so (the first fixture whose careful form reads a value).
TEST(SearchFormWhy, ACarefulFormBuildsAChangedHostConstant) {
  std::size_t found = 0;
  for (const char* pkg : {"add_custom", "mul_v3", "reduce_sum", "mul", "literals"}) {
    auto r = synthesize(test::load_package(pkg));
    ASSERT_TRUE(r.tmpl.has_value()) << pkg;
    const auto& t = *r.tmpl;
    if (make_search_form(t, t.base(), form_level::careful).slots == 0) continue;
    for (std::size_t i = 0; i < t.tunables.size(); ++i) {
      if (!t.tunables[i].spellings.empty() || t.tunables[i].kernel_linked) continue;
      auto v = t.base();
      v[i] = v[i] * 2 + 2;
      const auto f = make_search_form(t, v, form_level::careful);
      for (std::size_t k = 0; k < f.literal.size(); ++k) {
        if (f.literal_why[k] != "a constant declaration (careful form)") continue;
        EXPECT_TRUE(f.host_literal) << pkg << " " << f.literal[k];
        // The bold form reads the same constant at run time.
        const auto bold = make_search_form(t, v, form_level::bold);
        EXPECT_EQ(std::count(bold.literal.begin(), bold.literal.end(), f.literal[k]), 0)
            << pkg << " " << f.literal[k] << " " << ::testing::PrintToString(bold.literal_why);
        ++found;
      }
    }
  }
  EXPECT_GT(found, 0u) << "no fixture has a host constant declaration its careful form writes as a literal";
}

TEST(SearchFormWhy, TheBaseHasNoLiteral) {
  const auto t = add_custom();
  for (const auto level : {form_level::bold, form_level::careful}) {
    const auto f = make_search_form(t, t.base(), level);
    EXPECT_TRUE(f.literal.empty());
    EXPECT_TRUE(f.literal_why.empty());
    EXPECT_FALSE(f.host_literal);
  }
}

}  // namespace
}  // namespace aopt::stage1

namespace aopt::stage1 {
namespace {

// A constant another constant expression is made of (`constexpr uint32_t LIT_STRIDE = 255 *
// LIT_ELEMS;`, cann-ops add_layer_norm's FLOAT_BLOCK_ELEM) stays literal in the bold form: read at
// run time it is no constant, the form did not compile, and the whole operator fell back to the
// careful form (every constant declaration built: add_layer_norm's 127 built screens). The other
// constants are still read at run time.
TEST(SearchFormWhy, AConstantOtherConstantExpressionsUseStaysLiteralInTheBoldForm) {
  auto in = test::load_package("literals");
  auto& host = in.host_files.front();
  ASSERT_EQ(host.path, "op_host/lit_custom.cpp");
  const std::string decl = "namespace optiling {\nstatic constexpr uint32_t LIT_ELEMS = 8;\n"
                           "static constexpr uint32_t LIT_STRIDE = 255 * LIT_ELEMS;\n}  // namespace optiling\n";
  host.content.insert(host.content.find("namespace optiling {"), decl);
  const std::string use = "tiling.set_padLength(pad);";
  ASSERT_NE(host.content.find(use), std::string::npos);
  host.content.replace(host.content.find(use), use.size(), "tiling.set_padLength(pad + LIT_STRIDE / LIT_ELEMS);");
  auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl.has_value()) << (r.error ? r.error->reason : "");
  const auto& t = *r.tmpl;
  const auto e = t.find("LIT_ELEMS");
  ASSERT_TRUE(e.has_value());
  const auto base = make_search_form(t, t.base(), form_level::bold);
  ASSERT_GT(base.slots, 0u);
  auto files = base.files;
  files.erase(std::string(tunables_file));
  const std::string flags =
      "-include '" + (test::source_dir() / "sim" / "include" / "aopt_sim" / "host" / "tunable.h").string() + "'";
  std::string log;
  EXPECT_EQ(test::syntax_check("literals", files, host.path, flags, log), 0) << log;
  auto v = t.base();
  v[*e] = 16;
  const auto f = make_search_form(t, v, form_level::bold);
  ASSERT_EQ(f.literal.size(), 1u);
  EXPECT_EQ(f.literal.front(), "LIT_ELEMS");
  EXPECT_EQ(f.literal_why.front(), "a constant that constant expressions use");
  EXPECT_TRUE(f.host_literal);
  // LIT_TILE_ELEMS, a #define no constant expression uses, is still read at run time.
  const auto tile = t.find("LIT_TILE_ELEMS");
  ASSERT_TRUE(tile.has_value());
  auto w = t.base();
  w[*tile] = 4096;
  EXPECT_TRUE(make_search_form(t, w, form_level::bold).literal.empty());
}

}  // namespace
}  // namespace aopt::stage1
