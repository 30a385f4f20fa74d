// Why a Stage I variant is built (issue 35): make_search_form says, per tunable it writes as a
// literal, why it could not be read at run time, and whether the host file changed (a screen,
// which builds only the host, then still runs on the form's build).
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

TEST(SearchFormWhy, ACarefulFormBuildsAChangedHostConstant) {
  const auto t = add_custom();
  const auto q = t.find("QUEUE_NUM");  // a host-only constant declaration
  ASSERT_TRUE(q.has_value());
  auto v = t.base();
  v[*q] = 4;
  EXPECT_TRUE(make_search_form(t, v, form_level::bold).literal_why.empty());
  const auto f = make_search_form(t, v, form_level::careful);
  ASSERT_EQ(f.literal_why.size(), 1u);
  EXPECT_EQ(f.literal.front(), "QUEUE_NUM");
  EXPECT_EQ(f.literal_why.front(), "a constant declaration (careful form)");
  EXPECT_TRUE(f.host_literal);
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
