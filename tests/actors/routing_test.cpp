// Message routing of the Evaluator, Mutator, Diagnoser, Retriever, Refiner and Distiller on the
// deterministic test coordinator, with a recording fake engine; and the network-ready messages
// (serialisation round trips, exact conversions).
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actor_test_util.hpp"
#include "aopt/actors/convert.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/search/retrieve.h"

namespace aopt::actors::test {
namespace {

using namespace protocols;

// Records what it was asked; answers are recognisable functions of the input.
class recording_engine final : public search::engine {
 public:
  std::string name() const override { return "recording"; }
  search::outcome<stage1::tiling_template> synthesize_template(
      const stage1::synthesis_input& in) override {
    calls.push_back("synthesize");
    if (in.host_files.empty()) return search::engine_failure{"no host file"};
    stage1::tiling_template t;
    t.function_name = "TilingFunc:" + in.host_files.front().path;
    return t;
  }
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history,
      std::size_t n) override {
    calls.push_back("propose");
    seen_templates.push_back(&tmpl);
    std::vector<stage1::tiling_proposal> out(n);
    for (auto& p : out) p.description = tmpl.function_name + "/" + std::to_string(history.size());
    return out;
  }
  search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<search::experience> distill(const search::deopt_step&) override {
    return search::engine_failure{"not here"};
  }
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile,
                                              const search::file_map& code) override {
    calls.push_back("diagnose");
    if (profile.contains("throw")) throw aopt::error(ec::internal, "diagnoser exploded");
    search::diagnosis d;
    search::finding f;
    f.kind = search::bottleneck_class::mte2_bound;
    f.score = profile.value("score", 0.0);
    f.evidence = std::to_string(code.size()) + " files";
    d.findings.push_back(f);
    return d;
  }
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(
      const search::file_map& files, const std::vector<search::experience>& tuples) override {
    calls.push_back("refine");
    search::kernel_rewrite r;
    r.files = files;
    r.title = std::to_string(tuples.size()) + " tuples";
    return std::vector<search::kernel_rewrite>{r};
  }

  std::vector<std::string> calls;
  std::vector<const stage1::tiling_template*> seen_templates;
};

search::experience tuple(const std::string& title, const std::string& bottleneck) {
  search::experience e;
  e.title = title;
  e.description = title + " in detail";
  e.bottleneck = bottleneck;
  e.code_diff = "-a\n+b\n";
  return search::finalize(e);
}

class routing_test : public deterministic_fixture {
 protected:
  // One blocking round trip through the test coordinator.
  template <class Result, class Handle, class... Ts>
  Result ask(const Handle& h, Ts&&... xs) {
    auto rh = self->request(h, caf::infinite, std::forward<Ts>(xs)...);
    dispatch_messages();
    std::optional<Result> out;
    rh.receive([&](Result& r) { out = std::move(r); },
               [&](caf::error& e) { ADD_FAILURE() << "request failed: " << sys.render(e); });
    if (!out) throw std::runtime_error("no answer");
    return std::move(*out);
  }

  recording_engine engine;
  std::shared_ptr<shared_engine> shared = std::make_shared<shared_engine>(engine);
};

TEST_F(routing_test, EvaluatorConvertsAndCatchesExceptions) {
  std::vector<optimize::eval_request> seen;
  optimize::evaluate_fn fn = [&](const optimize::eval_request& r) {
    seen.push_back(r);
    if (r.stage == "boom") throw std::runtime_error("device on fire");
    optimize::eval_report rep;
    rep.ok = true;
    rep.status = "ok";
    rep.latency_us = 12.5;
    rep.bound_us = 3.0;
    rep.profile = {{"aiv_mte2_ratio", 0.25}};
    return rep;
  };
  auto ev = track(spawn_evaluator(sys, fn, 3, spawn_mode::cooperative));
  auto m = request(2, "tile 64");
  m.has_input_seed = true;
  m.input_seed = 99;
  auto r = ask<eval_report_msg>(ev, evaluate_atom::value, m);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].files, m.files);
  EXPECT_EQ(seen[0].round, 2);
  EXPECT_EQ(seen[0].input_seed, std::optional<std::uint64_t>(99));
  const auto back = from_message(r);
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.latency_us, 12.5);
  EXPECT_EQ(back.bound_us, std::optional<double>(3.0));
  EXPECT_EQ(back.profile, (nlohmann::json{{"aiv_mte2_ratio", 0.25}}));

  m.stage = "boom";
  r = ask<eval_report_msg>(ev, evaluate_atom::value, m);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, "runtime_error");
  EXPECT_NE(r.diagnostic.find("evaluator slot 3"), std::string::npos) << r.diagnostic;
  EXPECT_NE(r.diagnostic.find("device on fire"), std::string::npos) << r.diagnostic;
}

TEST_F(routing_test, MutatorRoutesAndKeepsTemplateIdentity) {
  auto mut = track(spawn_mutator(sys, shared, spawn_mode::cooperative));
  EXPECT_EQ(ask<std::string>(mut, name_atom::value), "recording");

  stage1::synthesis_input in;
  in.host_files.push_back({"op_host/a.cpp", "int x;"});
  auto t = ask<local<template_outcome>>(mut, synthesize_atom::value, make_local(in));
  ASSERT_TRUE(t.get().ok());
  EXPECT_EQ(t.get().value().function_name, "TilingFunc:op_host/a.cpp");
  auto bad = ask<local<template_outcome>>(mut, synthesize_atom::value,
                                          make_local(stage1::synthesis_input{}));
  ASSERT_FALSE(bad.get().ok());
  EXPECT_EQ(bad.get().reason(), "no host file");

  stage1::tiling_template tmpl = t.get().value();
  stage1::stage1_history h;
  auto propose = [&](std::uint64_t identity) {
    return ask<local<proposals_outcome>>(mut, propose_atom::value, identity, make_local(tmpl),
                                         make_local(h), std::uint64_t{2});
  };
  auto p1 = propose(1);
  ASSERT_TRUE(p1.get().ok());
  ASSERT_EQ(p1.get().value().size(), 2u);
  EXPECT_EQ(p1.get().value()[0].description, "TilingFunc:op_host/a.cpp/0");
  tmpl.function_name = "Changed";  // same caller object, new contents
  auto p2 = propose(1);
  EXPECT_EQ(p2.get().value()[0].description, "Changed/0");
  propose(2);  // another caller object
  ASSERT_EQ(engine.seen_templates.size(), 3u);
  EXPECT_EQ(engine.seen_templates[0], engine.seen_templates[1])
      << "same caller object, same engine object";
  EXPECT_NE(engine.seen_templates[1], engine.seen_templates[2])
      << "new caller object, new engine object";
}

TEST_F(routing_test, DiagnoserRoutesAndForwardsExceptions) {
  auto diag = track(spawn_diagnoser(sys, shared, spawn_mode::cooperative));
  search::file_map files{{"op_kernel/k.cpp", "x"}, {"op_host/h.cpp", "y"}};
  auto d = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, make_local(nlohmann::json{{"score", 0.5}}), make_local(files));
  ASSERT_TRUE(d.get().ok());
  ASSERT_EQ(d.get().value().findings.size(), 1u);
  EXPECT_EQ(d.get().value().findings[0].score, 0.5);
  EXPECT_EQ(d.get().value().findings[0].evidence, "2 files");

  auto boom = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, make_local(nlohmann::json{{"throw", 1}}), make_local(files));
  try {
    (void)boom.get();
    ADD_FAILURE() << "expected the engine's exception";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::internal);
    EXPECT_STREQ(e.what(), "diagnoser exploded");
  }
  // The actor survived the fault.
  auto again = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, make_local(nlohmann::json::object()), make_local(files));
  EXPECT_TRUE(again.get().ok());
}

TEST_F(routing_test, RefinerRoutes) {
  auto ref = track(spawn_refiner(sys, shared, spawn_mode::cooperative));
  search::file_map files{{"op_kernel/k.cpp", "x"}};
  auto r = ask<local<rewrites_outcome>>(
      ref, refine_atom::value, make_local(files),
      make_local(experiences{tuple("a", "mte2_bound"), tuple("b", "vector_bound")}));
  ASSERT_TRUE(r.get().ok());
  ASSERT_EQ(r.get().value().size(), 1u);
  EXPECT_EQ(r.get().value()[0].title, "2 tuples");
  EXPECT_EQ(r.get().value()[0].files, files);
  EXPECT_EQ(engine.calls, (std::vector<std::string>{"refine"}));
}

TEST_F(routing_test, RetrieverMatchesTheLibraryTopK) {
  const experiences bank{tuple("Double buffer the copy-in", "mte2_bound"),
                         tuple("Larger copies", "MTE2 bound: GM->UB copies are small"),
                         tuple("Vectorise the loop", "vector_bound"),
                         tuple("Remove PIPE_ALL", "serialized_pipes")};
  auto ret = track(spawn_retriever(sys, bank, spawn_mode::cooperative));
  search::diagnosis d;
  search::finding f;
  f.kind = search::bottleneck_class::mte2_bound;
  f.score = 0.9;
  f.evidence = "aiv_mte2_ratio 0.9";
  d.findings.push_back(f);
  auto got = ask<local<experiences>>(ret, retrieve_atom::value, make_local(d), std::uint64_t{3});
  const search::retriever direct(bank);
  std::vector<std::string> want;
  for (const auto& h : search::top_k_for(direct, d, 3)) want.push_back(h.id);
  std::vector<std::string> ids;
  for (const auto& e : got.get()) ids.push_back(e.id);
  EXPECT_EQ(ids, want);
  EXPECT_GE(ids.size(), 2u);
}

TEST_F(routing_test, DistillerKeepsOrderAndSurvivesAFailingSink) {
  std::vector<std::string> stored;
  auto dist = track(spawn_distiller(
      sys,
      [&](const search::experience& e) {
        if (e.title == "bad") throw std::runtime_error("bank is read-only");
        stored.push_back(e.title);
      },
      spawn_mode::cooperative));
  for (const char* t : {"one", "bad", "two", "three"}) {
    caf::anon_send(dist, learn_atom::value, make_local(tuple(t, "mte2_bound")));
  }
  EXPECT_EQ(ask<ping_atom>(dist, ping_atom::value), ping_atom::value);
  EXPECT_EQ(stored, (std::vector<std::string>{"one", "two", "three"}));
}

// -- network-ready messages -------------------------------------------------------------------

template <class T>
T round_trip(caf::actor_system& sys, T x) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(x);
  EXPECT_FALSE(err) << sys.render(err);
  T y;
  caf::binary_deserializer source{sys, buf};
  err = source(y);
  EXPECT_FALSE(err) << sys.render(err);
  return y;
}

TEST_F(routing_test, EvalMessagesSurviveSerialisationExactly) {
  optimize::eval_request req;
  req.files = {{"op_host/h.cpp", "int a;\n"}, {"op_kernel/k.cpp", std::string("\0\x01\xff", 3)}};
  req.stage = "verify";
  req.round = -1;
  req.proposal = "fresh inputs";
  req.input_seed = 0x5eed;
  const auto req2 = from_message(round_trip(sys, to_message(req, "add_custom")));
  EXPECT_EQ(req2.files, req.files);
  EXPECT_EQ(req2.stage, req.stage);
  EXPECT_EQ(req2.round, req.round);
  EXPECT_EQ(req2.proposal, req.proposal);
  EXPECT_EQ(req2.input_seed, req.input_seed);
  EXPECT_EQ(round_trip(sys, to_message(req, "add_custom")).package, "add_custom");

  optimize::eval_report rep;
  rep.ok = true;
  rep.status = "ok";
  rep.diagnostic = "fine";
  rep.latency_us = 0.1 + 0.2;  // not representable exactly in decimal: must survive bit-equal
  rep.bound_us = 1.0 / 3.0;
  rep.suspect = true;
  rep.cached = true;
  rep.backend = "sim";
  rep.profile_name = "910b4";
  rep.profile = {{"aiv_vec_ratio", 2.0 / 3.0}, {"Block Dim", 40}};
  rep.result = {{"cases", nlohmann::json::array({{{"name", "perf"}}})}};
  rep.seconds = 1e-7;
  const auto rep2 = from_message(round_trip(sys, to_message(rep)));
  EXPECT_EQ(rep2.ok, rep.ok);
  EXPECT_EQ(rep2.status, rep.status);
  EXPECT_EQ(rep2.diagnostic, rep.diagnostic);
  EXPECT_EQ(rep2.latency_us, rep.latency_us);
  EXPECT_EQ(rep2.bound_us, rep.bound_us);
  EXPECT_EQ(rep2.suspect, rep.suspect);
  EXPECT_EQ(rep2.cached, rep.cached);
  EXPECT_EQ(rep2.backend, rep.backend);
  EXPECT_EQ(rep2.profile_name, rep.profile_name);
  EXPECT_EQ(rep2.profile, rep.profile);
  EXPECT_EQ(rep2.result, rep.result);
  EXPECT_EQ(rep2.seconds, rep.seconds);
  optimize::eval_report no_bound;
  EXPECT_FALSE(from_message(round_trip(sys, to_message(no_bound))).bound_us.has_value());
}

TEST_F(routing_test, JobAndProgressMessagesSurviveSerialisation) {
  optimize::optimizer_config c;
  c.budget = 17;
  c.rounds = 2;
  c.stage1 = false;
  c.min_gain = 0.0125;
  c.verify_seed = 123456789012345ull;
  c.unguided_fallback = false;
  c.cotune = false;
  const auto job = round_trip(sys, to_message("op", {{"a", "b"}}, c));
  const auto c2 = config_of(job);
  EXPECT_EQ(job.package, "op");
  EXPECT_EQ(job.base_files, (file_map{{"a", "b"}}));
  EXPECT_EQ(c2.budget, 17u);
  EXPECT_EQ(c2.rounds, 2u);
  EXPECT_FALSE(c2.stage1);
  EXPECT_TRUE(c2.stage2);
  EXPECT_EQ(c2.min_gain, 0.0125);
  EXPECT_EQ(c2.verify_seed, 123456789012345ull);
  EXPECT_FALSE(c2.unguided_fallback);
  EXPECT_FALSE(c2.cotune);

  optimize::trajectory_point p;
  p.index = 5;
  p.evaluations = 4;
  p.stage = "kernel";
  p.latency_us = 9.5;
  p.best_us = 9.5;
  p.accepted = true;
  optimize::progress_event e{"point", "accepted", &p};
  const auto m = round_trip(sys, to_message(e));
  EXPECT_EQ(m.kind, "point");
  ASSERT_TRUE(m.has_point);
  const auto p2 = point_of(m);
  EXPECT_EQ(p2.index, 5u);
  EXPECT_EQ(p2.latency_us, std::optional<double>(9.5));
  EXPECT_TRUE(p2.accepted);
  EXPECT_FALSE(
      round_trip(sys, to_message(optimize::progress_event{"stage", "round 1", nullptr})).has_point);

  optimize_reply_msg reply{"{\"x\":1}", {{"op_kernel/k.cpp", "k"}}};
  const auto reply2 = round_trip(sys, reply);
  EXPECT_EQ(reply2.result_json, reply.result_json);
  EXPECT_EQ(reply2.best_files, reply.best_files);
}

TEST_F(routing_test, BrokenJsonFromAPeerIsAParseError) {
  eval_report_msg m;
  m.profile_json = "{not json";
  try {
    (void)from_message(m);
    ADD_FAILURE() << "expected a parse error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::parse_error);
    EXPECT_NE(std::string(e.what()).find("profile_json"), std::string::npos);
  }
}

}  // namespace
}  // namespace aopt::actors::test
