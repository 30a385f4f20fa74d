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

  // Registers a job on `engine` with `bank` as its retrieval corpus; returns its id.
  search_id add_job(search::engine& e, experiences bank = {}) {
    auto job = std::make_shared<search_context>();
    job->package = "test_op";
    job->engine = &e;
    job->index = std::make_shared<const search::retriever>(std::move(bank));
    return jobs->add(job);
  }

  recording_engine engine;
  std::shared_ptr<search_table> jobs = std::make_shared<search_table>();
  search_id id = add_job(engine);
};

TEST_F(routing_test, EvaluatorConvertsAndCatchesExceptions) {
  std::vector<optimize::eval_request> seen;
  optimize::evaluate_fn fn = [&](const optimize::eval_request& r) {
    seen.push_back(r);
    if (r.proposal == "boom") throw std::runtime_error("device on fire");
    optimize::eval_report rep;
    rep.ok = true;
    rep.status = aopt::vocab::eval_status::ok;
    rep.latency_us = 12.5;
    rep.bound_us = 3.0;
    rep.profile = {{"aiv_mte2_ratio", 0.25}};
    return rep;
  };
  auto ev = track(spawn_evaluator(sys, fn, 3, spawn_mode::cooperative));
  auto m = request_record(2, "tile 64");
  m.input_seed = 99;
  auto r = unpack(ask<eval_report_wire>(ev, evaluate_atom::value, pack(m)));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].files, m.files);
  EXPECT_EQ(seen[0].round, 2);
  EXPECT_EQ(seen[0].package, "test_op");
  EXPECT_EQ(seen[0].input_seed, std::optional<std::uint64_t>(99));
  const auto back = r;
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.latency_us, 12.5);
  EXPECT_EQ(back.bound_us, std::optional<double>(3.0));
  EXPECT_EQ(back.profile, (nlohmann::json{{"aiv_mte2_ratio", 0.25}}));

  m.proposal = "boom";
  r = unpack(ask<eval_report_wire>(ev, evaluate_atom::value, pack(m)));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, aopt::vocab::eval_status::runtime_error);
  EXPECT_NE(r.diagnostic.find("evaluator slot3"), std::string::npos) << r.diagnostic;
  EXPECT_NE(r.diagnostic.find("device on fire"), std::string::npos) << r.diagnostic;
}

TEST_F(routing_test, MutatorRoutesAndKeepsOneTemplatePerContent) {
  auto mut = track(spawn_mutator(sys, jobs, 2, spawn_mode::cooperative));
  EXPECT_EQ(ask<std::string>(mut, name_atom::value, id), "recording");

  stage1::synthesis_input in;
  in.host_files.push_back({"op_host/a.cpp", "int x;"});
  auto t = ask<local<template_outcome>>(mut, synthesize_atom::value, id, make_local(in));
  ASSERT_TRUE(t.get().ok());
  EXPECT_EQ(t.get().value().function_name, "TilingFunc:op_host/a.cpp");
  auto bad = ask<local<template_outcome>>(mut, synthesize_atom::value, id,
                                          make_local(stage1::synthesis_input{}));
  ASSERT_FALSE(bad.get().ok());
  EXPECT_EQ(bad.get().reason(), "no host file");

  stage1::tiling_template tmpl = t.get().value();
  stage1::stage1_history h;
  auto propose = [&](const stage1::tiling_template& from) {
    return ask<local<proposals_outcome>>(mut, propose_atom::value, id, make_local(from), make_local(h),
                                         std::uint64_t{2});
  };
  auto p1 = propose(tmpl);
  ASSERT_TRUE(p1.get().ok());
  ASSERT_EQ(p1.get().value().size(), 2u);
  EXPECT_EQ(p1.get().value()[0].description, "TilingFunc:op_host/a.cpp/0");
  const stage1::tiling_template copy = tmpl;  // another object, the same contents
  propose(copy);
  tmpl.function_name = "Changed";  // the same object, new contents
  auto p3 = propose(tmpl);
  EXPECT_EQ(p3.get().value()[0].description, "Changed/0");
  ASSERT_EQ(engine.seen_templates.size(), 3u);
  EXPECT_EQ(engine.seen_templates[0], engine.seen_templates[1]) << "the same contents, the same engine object";
  EXPECT_NE(engine.seen_templates[1], engine.seen_templates[2]) << "new contents, a new engine object";
}

TEST_F(routing_test, DiagnoserRoutesAndForwardsExceptions) {
  auto diag = track(spawn_diagnoser(sys, jobs, 2, spawn_mode::cooperative));
  search::file_map files{{"op_kernel/k.cpp", "x"}, {"op_host/h.cpp", "y"}};
  auto d = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, id, make_local(nlohmann::json{{"score", 0.5}}), make_local(files));
  ASSERT_TRUE(d.get().ok());
  ASSERT_EQ(d.get().value().findings.size(), 1u);
  EXPECT_EQ(d.get().value().findings[0].score, 0.5);
  EXPECT_EQ(d.get().value().findings[0].evidence, "2 files");

  auto boom = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, id, make_local(nlohmann::json{{"throw", 1}}), make_local(files));
  try {
    (void)boom.get();
    ADD_FAILURE() << "expected the engine's exception";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::internal);
    EXPECT_STREQ(e.what(), "diagnoser exploded");
  }
  // The actor survived the fault.
  auto again = ask<local<diagnosis_outcome>>(
      diag, diagnose_atom::value, id, make_local(nlohmann::json::object()), make_local(files));
  EXPECT_TRUE(again.get().ok());
}

TEST_F(routing_test, RefinerRoutes) {
  auto ref = track(spawn_refiner(sys, jobs, 2, spawn_mode::cooperative));
  search::file_map files{{"op_kernel/k.cpp", "x"}};
  auto r = ask<local<rewrites_outcome>>(
      ref, refine_atom::value, id, make_local(files),
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
  auto ret = track(spawn_retriever(sys, jobs, 2, spawn_mode::cooperative));
  const auto with_bank = add_job(engine, bank);
  search::diagnosis d;
  search::finding f;
  f.kind = search::bottleneck_class::mte2_bound;
  f.score = 0.9;
  f.evidence = "aiv_mte2_ratio 0.9";
  d.findings.push_back(f);
  auto got = ask<local<experiences>>(ret, retrieve_atom::value, with_bank, make_local(d), std::uint64_t{3});
  const search::retriever direct(bank);
  std::vector<std::string> want;
  for (const auto& h : search::top_k_for(direct, d, 3)) want.push_back(h.id);
  std::vector<std::string> ids;
  for (const auto& e : got.get()) ids.push_back(e.id);
  EXPECT_EQ(ids, want);
  EXPECT_GE(ids.size(), 2u);
  // Each job retrieves from its own bank: the first job's is empty.
  EXPECT_TRUE(ask<local<experiences>>(ret, retrieve_atom::value, id, make_local(d), std::uint64_t{3}).get().empty());
}

TEST_F(routing_test, RoleActorsServeEachJobWithItsOwnEngine) {
  recording_engine other;
  const auto second = add_job(other);
  auto ref = track(spawn_refiner(sys, jobs, 2, spawn_mode::cooperative));
  search::file_map files{{"op_kernel/k.cpp", "x"}};
  (void)ask<local<rewrites_outcome>>(ref, refine_atom::value, second, make_local(files), make_local(experiences{}));
  (void)ask<local<rewrites_outcome>>(ref, refine_atom::value, second, make_local(files), make_local(experiences{}));
  (void)ask<local<rewrites_outcome>>(ref, refine_atom::value, id, make_local(files), make_local(experiences{}));
  EXPECT_EQ(other.calls, (std::vector<std::string>{"refine", "refine"}));
  EXPECT_EQ(engine.calls, (std::vector<std::string>{"refine"}));
  // A job that is not (or no longer) registered is a system fault in the reply, and the actor
  // goes on serving the others.
  jobs->remove(second);
  auto gone = ask<local<rewrites_outcome>>(ref, refine_atom::value, second, make_local(files), make_local(experiences{}));
  try {
    (void)gone.get();
    ADD_FAILURE() << "expected an error for an unregistered job";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::internal);
    EXPECT_NE(std::string(e.what()).find("not registered"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(ask<local<rewrites_outcome>>(ref, refine_atom::value, id, make_local(files), make_local(experiences{})).get().ok());
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
    caf::anon_send(dist, learn_atom::value, search_id{0}, make_local(tuple(t, "mte2_bound")));
  }
  EXPECT_EQ(ask<ping_atom>(dist, ping_atom::value), ping_atom::value);
  EXPECT_EQ(stored, (std::vector<std::string>{"one", "two", "three"}));
}

TEST_F(routing_test, DistillerHandsEachJobsTuplesToThatJobsSink) {
  std::vector<std::string> a, b;
  auto job_a = std::make_shared<search_context>();
  job_a->learned = [&](const search::experience& e) { a.push_back(e.title); };
  auto job_b = std::make_shared<search_context>();
  job_b->learned = [&](const search::experience& e) { b.push_back(e.title); };
  const auto ida = jobs->add(job_a), idb = jobs->add(job_b);
  auto dist = track(spawn_distiller(sys, std::shared_ptr<const search_table>(jobs), spawn_mode::cooperative));
  caf::anon_send(dist, learn_atom::value, ida, make_local(tuple("a1", "mte2_bound")));
  caf::anon_send(dist, learn_atom::value, idb, make_local(tuple("b1", "mte2_bound")));
  caf::anon_send(dist, learn_atom::value, search_id{999}, make_local(tuple("lost", "mte2_bound")));
  caf::anon_send(dist, learn_atom::value, ida, make_local(tuple("a2", "mte2_bound")));
  EXPECT_EQ(ask<ping_atom>(dist, ping_atom::value), ping_atom::value);
  EXPECT_EQ(a, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(b, (std::vector<std::string>{"b1"}));
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
  // A file that is not UTF-8 (a candidate may be any bytes) travels byte-exact.
  req.files = {{"op_host/h.cpp", "int a;\n"}, {"op_kernel/k.cpp", std::string("\0\x01\xff", 3)}};
  req.stage = aopt::vocab::eval_stage::verify;
  req.round = -1;
  req.proposal = "fresh inputs";
  req.input_seed = 0x5eed;
  req.package = "add_custom";
  const auto req2 = unpack(round_trip(sys, pack(req)));
  EXPECT_EQ(req2.files, req.files);
  EXPECT_EQ(req2.stage, req.stage);
  EXPECT_EQ(req2.round, req.round);
  EXPECT_EQ(req2.proposal, req.proposal);
  EXPECT_EQ(req2.input_seed, req.input_seed);
  EXPECT_EQ(req2.package, "add_custom");
  optimize::eval_request no_seed;
  EXPECT_FALSE(unpack(round_trip(sys, pack(no_seed))).input_seed.has_value());

  optimize::eval_report rep;
  rep.ok = true;
  rep.status = aopt::vocab::eval_status::ok;
  rep.diagnostic = "fine";
  rep.latency_us = 0.1 + 0.2;  // not representable exactly in decimal: must survive bit-equal
  rep.bound_us = 1.0 / 3.0;
  rep.suspect = true;
  rep.cached = true;
  rep.backend = "sim";
  rep.profile_name = "910b4";
  rep.profile = {{"aiv_vec_ratio", 2.0 / 3.0}, {"Block Dim", 40}};
  rep.kernel = "add_custom";
  rep.cases.emplace_back();
  rep.cases.back().name = "perf";
  rep.cases.back().ub_reserved = 98304;
  rep.samples_us = {0.25, 0.5};
  rep.warnings = {aopt::vocab::harness_warning("perf", "truncated_copy", "k.cpp", 9, "tail dropped")};
  rep.seconds = 1e-7;
  const auto rep2 = unpack(round_trip(sys, pack(rep)));
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
  EXPECT_EQ(to_json(rep2), to_json(rep));
  EXPECT_EQ(rep2.seconds, rep.seconds);
  optimize::eval_report no_bound;
  EXPECT_FALSE(unpack(round_trip(sys, pack(no_bound))).bound_us.has_value());
  // A failed candidate that was timed keeps its latency.
  optimize::eval_report timed_failure = optimize::failure_report(aopt::vocab::eval_status::precision_error, "off by one");
  timed_failure.latency_us = 4.25;
  EXPECT_EQ(unpack(round_trip(sys, pack(timed_failure))).latency_us, 4.25);
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
  const auto job = round_trip(sys, optimize_job_msg{"op", {{"a", "b"}}, pack(c)});
  const auto c2 = unpack(job.config);
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
  // Every field of the configuration is in its one JSON form (report.json uses it too).
  EXPECT_EQ(optimize::to_json(c2), optimize::to_json(c));

  optimize::trajectory_point p;
  p.index = 5;
  p.evaluations = 4;
  p.stage = "kernel";
  p.latency_us = 9.5;
  p.best_us = 9.5;
  p.accepted = true;
  optimize::progress_event e{"point", "accepted", p};
  const auto e2 = unpack(round_trip(sys, pack(e)));
  EXPECT_EQ(e2.kind, "point");
  ASSERT_TRUE(e2.point.has_value());
  EXPECT_EQ(e2.point->index, 5u);
  EXPECT_EQ(e2.point->latency_us, std::optional<double>(9.5));
  EXPECT_TRUE(e2.point->accepted);
  EXPECT_FALSE(unpack(round_trip(sys, pack(optimize::progress_event{"stage", "round 1", std::nullopt}))).point);

  optimize_reply_msg reply{"{\"x\":1}", {{"op_kernel/k.cpp", "k"}}};
  const auto reply2 = round_trip(sys, reply);
  EXPECT_EQ(reply2.result_json, reply.result_json);
  EXPECT_EQ(reply2.best_files, reply.best_files);
}

TEST_F(routing_test, BrokenJsonFromAPeerIsAParseError) {
  for (const char* text : {"{not json", "{\"ok\": true}"}) {
    try {
      (void)unpack(eval_report_wire{text});
      ADD_FAILURE() << "expected a parse error for " << text;
    } catch (const aopt::error& e) {
      EXPECT_EQ(e.code(), ec::parse_error);
      EXPECT_NE(std::string(e.what()).find("does not read back"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace aopt::actors::test
