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
        EXPECT_EQ(std::count(bold.literal.begin(), bold.literal.end(), f.literal[k]), 0) << pkg << " " << f.literal[k];
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
