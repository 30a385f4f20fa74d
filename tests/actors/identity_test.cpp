// A template's identity is its content, never its address (issue 37): through actor_services,
// two templates with equal contents at different addresses are one template to the engine, and
// a template whose contents changed at the same address is another; stage1::template_id is the
// same in another process (the id is not persisted: it is recomputed from the contents).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <caf/all.hpp>

#include "aopt/actors/actor_services.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/protocols/message_types.hpp"
#include "aopt/stage1/tiling_template.h"

namespace aopt::actors::test {
namespace {

using namespace protocols;
using namespace std::chrono_literals;

// An engine that keeps its per-template state by the address of the template it is handed (as
// an engine may): it records that address for every proposal call.
class address_keyed_engine final : public search::engine {
 public:
  std::string name() const override { return "address-keyed"; }
  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(const stage1::tiling_template& t,
                                                                                const stage1::stage1_history&,
                                                                                std::size_t n) override {
    seen.push_back(&t);
    std::vector<stage1::tiling_proposal> out(n);
    for (auto& p : out) p.description = t.function_name;
    return out;
  }
  search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<search::experience> distill(const search::deopt_step&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json&, const search::file_map&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(const search::file_map&,
                                                                      const std::vector<search::experience>&) override {
    return search::engine_failure{"not here"};
  }
  std::vector<const stage1::tiling_template*> seen;
};

stage1::tiling_template sample_template(const std::string& function) {
  stage1::tiling_template t;
  t.function_name = function;
  t.files.push_back({"op_host/add_custom.cpp", "static int TilingFunc() { constexpr int TILE = 64; return TILE; }\n"});
  return t;
}

TEST(template_identity, EqualContentsAreOneTemplateWhereverTheyLive) {
  caf::actor_system_config sc;
  add_message_types(sc);
  caf::actor_system sys{sc};
  address_keyed_engine engine;
  auto jobs = std::make_shared<search_table>();
  auto ctx = std::make_shared<search_context>();
  ctx->package = "add_custom";
  ctx->engine = &engine;
  ctx->index = std::make_shared<const search::retriever>(std::vector<search::experience>{});
  const auto id = jobs->add(ctx);
  auto ev = spawn_evaluator(sys, [](const optimize::eval_request&) { return optimize::eval_report{}; }, 0);
  service_actors a;
  a.pool = spawn_evaluator_pool(sys, std::vector<evaluator_actor>{ev}, 60s);
  a.mutator = spawn_mutator(sys, jobs, 1);
  {
    actor_services svc(sys, a, id, "add_custom");
    const stage1::stage1_history h;
    auto first = std::make_unique<stage1::tiling_template>(sample_template("TilingFunc"));
    auto second = std::make_unique<stage1::tiling_template>(*first);  // equal, elsewhere
    ASSERT_NE(first.get(), second.get());
    ASSERT_TRUE(svc.propose_tiling_variants(*first, h, 1).ok());
    ASSERT_TRUE(svc.propose_tiling_variants(*second, h, 1).ok());
    *first = sample_template("OtherTilingFunc");  // the same address, other contents
    const auto third = svc.propose_tiling_variants(*first, h, 1);
    ASSERT_TRUE(third.ok());
    EXPECT_EQ(third.value().at(0).description, "OtherTilingFunc");
    ASSERT_EQ(engine.seen.size(), 3u);
    EXPECT_EQ(engine.seen[0], engine.seen[1]) << "equal contents at two addresses are one template";
    EXPECT_NE(engine.seen[1], engine.seen[2]) << "other contents at the same address are another template";
  }
  caf::scoped_actor self{sys};
  for (const caf::actor& h : {caf::actor_cast<caf::actor>(a.mutator), caf::actor_cast<caf::actor>(a.pool),
                             caf::actor_cast<caf::actor>(ev)})
    self->send_exit(h, caf::exit_reason::user_shutdown);
}

TEST(template_identity, TheIdIsTheContentsInAnyProcess) {
  const auto base = sample_template("TilingFunc");
  const std::string id = stage1::template_id(base);
  EXPECT_EQ(id.size(), 64u);
  EXPECT_EQ(stage1::template_id(*std::make_unique<stage1::tiling_template>(base)), id);
  auto other = base;
  other.files[0].content += "// changed\n";
  EXPECT_NE(stage1::template_id(other), id);
  other = base;
  other.function_name = "Other";
  EXPECT_NE(stage1::template_id(other), id);

  // Another process (a restart) computes the same id from the same contents.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::vector<std::unique_ptr<std::string>> shift(7);  // other heap addresses than the parent's
    for (auto& s : shift) s = std::make_unique<std::string>(1000, 'x');
    const auto child = std::make_unique<stage1::tiling_template>(sample_template("TilingFunc"));
    const std::string mine = stage1::template_id(*child);
    const auto n = ::write(fds[1], mine.data(), mine.size());
    ::_exit(n == static_cast<ssize_t>(mine.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string got(64, '\0');
  std::size_t off = 0;
  while (off < got.size()) {
    const auto n = ::read(fds[0], got.data() + off, got.size() - off);
    if (n <= 0) break;
    off += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_EQ(got.substr(0, off), id);
}

}  // namespace
}  // namespace aopt::actors::test
