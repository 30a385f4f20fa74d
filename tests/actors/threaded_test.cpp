// The actors on CAF's real (threaded) scheduler: run_optimizer over actor_services gives the
// same result as over local_services; N evaluator slots really run at the same time; a slow
// evaluator times out without hanging the job or the shutdown; run_search's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "aopt/actors/actor_services.hpp"
#include "aopt/actors/convert.hpp"
#include "aopt/actors/job.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors::test {
namespace {

using namespace protocols;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

std::filesystem::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? std::filesystem::path(s) : std::filesystem::path(AOPT_ACTORS_SOURCE_DIR);
}

optimize::file_map load_files(const std::filesystem::path& root) {
  optimize::file_map files;
  for (const char* sub : {"op_host", "op_kernel"}) {
    for (const auto& e : std::filesystem::directory_iterator(root / sub)) {
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream s;
      s << f.rdbuf();
      files[std::string(sub) + "/" + e.path().filename().string()] = s.str();
    }
  }
  return files;
}

// A deterministic device: the latency is a function of the sources' hash; about one candidate
// in seven "fails to compile"; the base always passes.
optimize::eval_report fake_device(const optimize::eval_request& r) {
  const auto key = optimize::files_key(r.files);
  const auto v = std::stoull(key.substr(0, 8), nullptr, 16);
  optimize::eval_report rep;
  rep.backend = "fake";
  rep.profile_name = "fake";
  if (r.stage != aopt::vocab::eval_stage::base && v % 7 == 0) {
    rep.status = aopt::vocab::eval_status::compile_error;
    rep.diagnostic = "fake compile error";
    return rep;
  }
  rep.ok = true;
  rep.status = aopt::vocab::eval_status::ok;
  rep.latency_us = 50.0 + static_cast<double>(v % 1000) / 100.0;
  // Double buffering really helps on this device, so Stage II's rewrite is accepted and learned.
  const auto k = r.files.find("op_kernel/add_custom.cpp");
  if (k != r.files.end() && k->second.find("int32_t BUFFER_NUM = 2;") != std::string::npos)
    rep.latency_us -= 40;
  rep.profile = {{"Task Duration(us)", rep.latency_us},
                 {"aiv_time(us)", rep.latency_us * 0.95},
                 {"aiv_mte2_ratio", 0.85},
                 {"aiv_vec_ratio", 0.2},
                 {"aiv_mte3_ratio", 0.3},
                 {"Block Dim", 8}};
  rep.kernel = "add_custom";
  return rep;
}

search::experience tuple(const std::string& title, const std::string& bottleneck,
                         const std::string& diff) {
  search::experience e;
  e.title = title;
  e.description = title + ", measured on a seed kernel";
  e.bottleneck = bottleneck;
  e.code_diff = diff;
  return search::finalize(e);
}

std::vector<search::experience> small_bank() {
  auto db = tuple("Double buffer the queues", "mte2_bound serialized_pipes",
                  "-constexpr int32_t BUFFER_NUM = 1;\n+constexpr int32_t BUFFER_NUM = 2;\n");
  db.motif = "double_buffer";
  return {db,
          tuple("Drop whole-pipe barriers", "serialized_pipes",
                "-    AscendC::PipeBarrier<PIPE_ALL>();\n"),
          tuple("Use every core", "load_imbalance",
                "-    context->SetBlockDim(1);\n+    context->SetBlockDim(coreNum);\n")};
}

optimize::optimizer_config small_config() {
  optimize::optimizer_config c;
  c.budget = 14;
  c.rounds = 2;
  c.stage1_steps = 2;
  c.stage2_steps = 1;
  return c;
}

struct run_record {
  optimize::optimize_result result;
  std::vector<std::string> learned;
  std::vector<std::string> progress;
};

optimize::offline_engine_config engine_config(std::uint64_t seed) {
  optimize::offline_engine_config c;
  c.seed = seed;
  return c;
}

// add_custom made single-buffered (kernel and host), so Stage II has a forward motif to apply.
optimize::file_map single_buffered_add_custom() {
  auto files = load_files(source_dir() / "examples" / "ops" / "add_custom");
  for (auto& [path, text] : files) {
    for (const std::string from : {"int32_t BUFFER_NUM = 2;", "uint32_t BUFFER_NUM = 2;"}) {
      const auto at = text.find(from);
      if (at != std::string::npos) text.replace(at + from.size() - 2, 1, "1");
    }
  }
  return files;
}

std::vector<optimize::evaluate_fn> slots(std::size_t n) {
  return std::vector<optimize::evaluate_fn>(n, fake_device);
}

TEST(actors_threaded, OptimizerOverActorsMatchesLocalServices) {
  const std::uint64_t seed = 7;
  std::cout << "engine seed " << seed << "\n";
  const auto base = single_buffered_add_custom();
  ASSERT_NE(base.at("op_kernel/add_custom.cpp").find("BUFFER_NUM = 1;"), std::string::npos);
  const auto cfg = small_config();

  run_record local;
  {
    optimize::offline_engine engine(engine_config(seed));
    optimize::local_services svc(engine, small_bank(), slots(2), [&](const search::experience& e) {
      local.learned.push_back(e.id);
    });
    local.result = optimize::run_optimizer(base, svc, cfg, [&](const optimize::progress_event& e) {
      local.progress.push_back(e.kind + ":" + e.message);
    });
  }
  run_record actor;
  {
    optimize::offline_engine engine(engine_config(seed));
    search_spec spec;
    spec.package = "add_custom";
    spec.base_files = base;
    spec.config = cfg;
    spec.engine = &engine;
    spec.bank = small_bank();
    spec.slots = slots(2);
    spec.learned = [&](const search::experience& e) { actor.learned.push_back(e.id); };
    spec.progress = [&](const optimize::progress_event& e) {
      actor.progress.push_back(e.kind + ":" + e.message);
    };
    actor.result = run_search(spec);
  }
  // The job went through both stages (so every actor was asked), with failures among them.
  std::set<std::string> stages;
  for (const auto& p : local.result.trajectory) stages.insert(p.stage);
  std::cout << "stop: " << local.result.stop_reason << "; evaluations " << local.result.evaluations
            << "; changes " << local.result.changes.size() << "; failures " << local.result.failures
            << "; learned " << local.learned.size() << "\n";
  for (const auto& r : local.result.rounds)
    std::cout << "round " << r.round << ": " << r.stage1_stop << " | " << r.stage2_stop << "\n";
  EXPECT_TRUE(stages.count("tiling")) << "Stage I ran";
  EXPECT_TRUE(stages.count("kernel")) << "Stage II ran";
  EXPECT_FALSE(local.learned.empty()) << "an accepted kernel change reached the Distiller";
  // Without wall time, and without the device names reports over actors carry ("slot0").
  auto comparable = [](nlohmann::json j) {
    j.erase("time");
    for (const char* k : {"base", "best", "verification"})
      if (j.contains(k) && j[k].is_object()) j[k].erase("device");
    return j.dump(1);
  };
  auto without_time = [&](const optimize::optimize_result& r) { return comparable(optimize::to_json(r)); };
  EXPECT_EQ(without_time(actor.result), without_time(local.result));
  EXPECT_EQ(actor.result.best_files, local.result.best_files);
  EXPECT_EQ(actor.learned, local.learned);
  EXPECT_EQ(actor.progress, local.progress);

  // The network-ready Scheduler handler answers the same result as JSON.
  {
    optimize::offline_engine engine(engine_config(seed));
    caf::actor_system_config sc;
    add_message_types(sc);
    caf::actor_system sys{sc};
    std::vector<evaluator_actor> evs{spawn_evaluator(sys, fake_device, 0),
                                     spawn_evaluator(sys, fake_device, 1)};
    auto jobs = std::make_shared<search_table>();
    auto ctx = std::make_shared<search_context>();
    ctx->package = "add_custom";
    ctx->engine = &engine;
    ctx->index = std::make_shared<const search::retriever>(small_bank());
    const auto id = jobs->add(ctx);
    service_actors a;
    a.pool = spawn_evaluator_pool(sys, evs, 60s);
    a.mutator = spawn_mutator(sys, jobs, 1);
    a.diagnoser = spawn_diagnoser(sys, jobs, 1);
    a.retriever = spawn_retriever(sys, jobs, 1);
    a.refiner = spawn_refiner(sys, jobs, 1);
    auto sched = spawn_scheduler(sys, a, jobs);
    caf::scoped_actor self{sys};
    std::string json;
    self->request(sched, 120s, optimize_atom::value, id, optimize_job_msg{"add_custom", base, pack(cfg)})
        .receive([&](optimize_reply_msg& r) { json = r.result_json; },
                 [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    EXPECT_EQ(comparable(nlohmann::json::parse(json)), without_time(local.result));
    for (const auto& h : evs) self->send_exit(h, caf::exit_reason::user_shutdown);
    self->send_exit(sched, caf::exit_reason::user_shutdown);
    self->send_exit(a.pool, caf::exit_reason::user_shutdown);
    self->send_exit(a.mutator, caf::exit_reason::user_shutdown);
    self->send_exit(a.diagnoser, caf::exit_reason::user_shutdown);
    self->send_exit(a.retriever, caf::exit_reason::user_shutdown);
    self->send_exit(a.refiner, caf::exit_reason::user_shutdown);
  }
}

// The role actors serve several jobs at once: with two workers, job B's engine call completes
// while job A's engine is blocked inside its call (with one worker it would have to wait).
TEST(actors_threaded, RoleActorsServeJobsAtOnce) {
  struct gated_engine final : search::engine {
    std::function<void()> on_call;
    std::string name() const override { return "gated"; }
    search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input&) override {
      return search::engine_failure{"no"};
    }
    search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(const stage1::tiling_template&,
                                                                                  const stage1::stage1_history&,
                                                                                  std::size_t) override {
      return search::engine_failure{"no"};
    }
    search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map&) override {
      return search::engine_failure{"no"};
    }
    search::outcome<search::experience> distill(const search::deopt_step&) override {
      return search::engine_failure{"no"};
    }
    search::outcome<search::diagnosis> diagnose(const nlohmann::json&, const search::file_map&) override {
      if (on_call) on_call();
      return search::diagnosis{};
    }
    search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(const search::file_map&,
                                                                        const std::vector<search::experience>&) override {
      return search::engine_failure{"no"};
    }
  };
  std::mutex m;
  std::condition_variable cv;
  bool b_done = false;
  gated_engine a_engine, b_engine;
  a_engine.on_call = [&] {  // blocks until job B's call is done, at most 10 s
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, 10s, [&] { return b_done; });
  };
  b_engine.on_call = [&] {
    std::lock_guard<std::mutex> lock(m);
    b_done = true;
    cv.notify_all();
  };
  caf::actor_system_config sc;
  add_message_types(sc);
  caf::actor_system sys{sc};
  auto jobs = std::make_shared<search_table>();
  auto job_of = [&](search::engine& e) {
    auto ctx = std::make_shared<search_context>();
    ctx->engine = &e;
    return jobs->add(ctx);
  };
  const auto a = job_of(a_engine), b = job_of(b_engine);
  auto diag = spawn_diagnoser(sys, jobs, 2);
  caf::scoped_actor self{sys};
  const auto t0 = clock_type::now();
  auto ask = [&](search_id id) {
    return self->request(diag, 20s, diagnose_atom::value, id, make_local(nlohmann::json::object()),
                         make_local(search::file_map{}));
  };
  auto ha = ask(a);
  auto hb = ask(b);
  bool a_ok = false, b_ok = false;
  hb.receive([&](local<diagnosis_outcome>& r) { b_ok = r.get().ok(); }, [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ha.receive([&](local<diagnosis_outcome>& r) { a_ok = r.get().ok(); }, [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_TRUE(a_ok);
  EXPECT_TRUE(b_ok);
  EXPECT_LT(clock_type::now() - t0, 5s) << "job A's blocked call held job B's call back";
  self->send_exit(diag, caf::exit_reason::user_shutdown);
}

struct span {
  std::size_t slot;
  clock_type::time_point begin, end;
};

// The largest number of spans open at one instant.
std::size_t max_overlap(const std::vector<span>& spans) {
  std::vector<std::pair<clock_type::time_point, int>> events;
  for (const auto& s : spans) {
    events.emplace_back(s.begin, +1);
    events.emplace_back(s.end, -1);
  }
  std::sort(events.begin(), events.end());  // an end sorts before a begin at the same instant
  int open = 0;
  int most = 0;
  for (const auto& [t, d] : events) most = std::max(most, open += d);
  return static_cast<std::size_t>(most);
}

TEST(actors_threaded, SlotsEvaluateInParallelOneRequestEachAtATime) {
  constexpr std::size_t n_slots = 3;
  constexpr auto work = 120ms;
  std::mutex mu;
  std::vector<span> spans;
  std::vector<optimize::evaluate_fn> fns;
  for (std::size_t i = 0; i < n_slots; ++i) {
    fns.push_back([&, i](const optimize::eval_request& r) {
      const auto b = clock_type::now();
      std::this_thread::sleep_for(work);
      {
        std::lock_guard<std::mutex> lock(mu);
        spans.push_back({i, b, clock_type::now()});
      }
      optimize::eval_report rep;
      rep.ok = true;
      rep.status = aopt::vocab::eval_status::ok;
      rep.latency_us = static_cast<double>(r.round);
      return rep;
    });
  }
  caf::actor_system_config sc;
  add_message_types(sc);
  caf::actor_system sys{sc};
  std::vector<evaluator_actor> evs;
  for (std::size_t i = 0; i < n_slots; ++i) evs.push_back(spawn_evaluator(sys, fns[i], i));
  auto pool = spawn_evaluator_pool(sys, evs, 30s);
  std::vector<eval_envelope> batch;
  for (int i = 0; i < 6; ++i) {
    optimize::eval_request m;
    m.round = i;
    batch.push_back(pack_routed(m));
  }
  caf::scoped_actor self{sys};
  const auto t0 = clock_type::now();
  std::vector<optimize::eval_report> reports;
  self->request(pool, 30s, evaluate_atom::value, std::string("op"), std::string(), batch)
      .receive(
          [&](eval_reports& r) { for (const auto& x : r.get()) reports.push_back(x); },
               [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  const auto wall = clock_type::now() - t0;
  ASSERT_EQ(reports.size(), 6u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(reports[static_cast<std::size_t>(i)].latency_us, i) << "request order";
  ASSERT_EQ(spans.size(), 6u);
  EXPECT_EQ(max_overlap(spans), n_slots) << "all slots busy at once";
  for (std::size_t s = 0; s < n_slots; ++s) {
    std::vector<span> mine;
    for (const auto& x : spans) {
      if (x.slot == s) mine.push_back(x);
    }
    EXPECT_LE(max_overlap(mine), 1u) << "slot " << s << " ran two requests at once";
  }
  EXPECT_LT(wall, 6 * work * 3 / 4)
      << "6 requests of 120 ms over 3 slots must not run one after another";
  self->send_exit(pool, caf::exit_reason::user_shutdown);
  for (const auto& e : evs) self->send_exit(e, caf::exit_reason::user_shutdown);
}

TEST(actors_threaded, SlowEvaluatorTimesOutWithoutHangingTheShutdown) {
  const auto t0 = clock_type::now();
  {
    caf::actor_system_config sc;
    caf::actor_system sys{sc};
    auto slow = [](const optimize::eval_request& r) {
      if (r.proposal == "slow") std::this_thread::sleep_for(400ms);
      optimize::eval_report rep;
      rep.ok = true;
      rep.status = aopt::vocab::eval_status::ok;
      return rep;
    };
    std::vector<evaluator_actor> evs{spawn_evaluator(sys, slow, 0), spawn_evaluator(sys, slow, 1)};
    auto pool = spawn_evaluator_pool(sys, evs, 100ms);
    std::vector<optimize::eval_request> requests(4);
    requests[0].proposal = "slow";
    std::vector<eval_envelope> batch;
    for (const auto& r : requests) batch.push_back(pack_routed(r));
    caf::scoped_actor self{sys};
    std::vector<optimize::eval_report> reports;
    self->request(pool, 10s, evaluate_atom::value, std::string("op"), std::string(), batch)
        .receive(
            [&](eval_reports& r) { for (const auto& x : r.get()) reports.push_back(x); },
                 [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    ASSERT_EQ(reports.size(), 4u);
    EXPECT_EQ(reports[0].status, aopt::vocab::eval_status::timeout);
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(reports[i].status, aopt::vocab::eval_status::ok) << i;
    self->send_exit(pool, caf::exit_reason::user_shutdown);
    for (const auto& e : evs) self->send_exit(e, caf::exit_reason::user_shutdown);
  }
  EXPECT_LT(clock_type::now() - t0, 5s);
}

TEST(actors_threaded, RunOptimizeJobReportsAFailingBaseAndBadSpecs) {
  const auto base = load_files(source_dir() / "examples" / "ops" / "add_custom");
  optimize::offline_engine engine(engine_config(1));
  search_spec spec;
  spec.package = "add_custom";
  spec.base_files = base;
  spec.config = small_config();
  spec.engine = &engine;
  spec.slots = {[](const optimize::eval_request&) -> optimize::eval_report {
    throw std::runtime_error("no device");
  }};
  const auto r = run_search(spec);
  EXPECT_EQ(r.stop_reason.rfind("base failed: runtime_error", 0), 0u) << r.stop_reason;
  EXPECT_EQ(r.evaluations, 1u);

  spec.slots.clear();
  EXPECT_THROW(run_search(spec), aopt::error);
  spec.slots = slots(1);
  spec.engine = nullptr;
  EXPECT_THROW(run_search(spec), aopt::error);
  spec.engine = &engine;
  spec.timeouts.evaluation = 0ms;
  try {
    run_search(spec);
    ADD_FAILURE() << "expected invalid_argument";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("actor_timeouts.evaluation"), std::string::npos);
  }
}

// fake_device as the rewind loop's evaluator.
search::rewind_eval fake_rewind_eval(const motifs::file_set& f) {
  optimize::eval_request r;
  r.files = f;
  r.stage = aopt::vocab::eval_stage::rewind;
  return to_rewind_eval(fake_device(r));
}

// A chain run on the actors equals the direct one, and every kept tuple reached the Distiller
// (whose sink stored the titles), in order.
void expect_same_chain(const search::rewind_result& via_actors, const search::rewind_result& direct,
                       const std::vector<std::string>& stored) {
  EXPECT_EQ(via_actors.stop_reason, direct.stop_reason);
  ASSERT_EQ(via_actors.attempts.size(), direct.attempts.size());
  for (std::size_t i = 0; i < direct.attempts.size(); ++i) {
    EXPECT_EQ(via_actors.attempts[i].motif, direct.attempts[i].motif) << i;
    EXPECT_EQ(via_actors.attempts[i].summary, direct.attempts[i].summary) << i;
    EXPECT_EQ(via_actors.attempts[i].latency_us, direct.attempts[i].latency_us) << i;
  }
  ASSERT_EQ(via_actors.tuples.size(), direct.tuples.size());
  std::vector<std::string> titles;
  for (const auto& t : direct.tuples) titles.push_back(t.title);
  EXPECT_EQ(stored, titles) << "every kept tuple reached the Distiller, in order";
  EXPECT_FALSE(titles.empty()) << "the chain kept at least one step";
}

TEST(actors_threaded, RewinderOverThePoolMatchesADirectRewind) {
  // The original add_custom is double-buffered: the rewind's inverse motifs have sites.
  const auto seed_files = load_files(source_dir() / "examples" / "ops" / "add_custom");
  search::rewind_config rc;
  rc.max_steps = 2;
  rc.max_attempts = 6;
  rc.seed = 11;
  rc.op = "add_custom";
  rc.min_slowdown = 1.0;  // the fake device's noise may make a step look faster
  std::cout << "rewind seed " << rc.seed << "\n";
  const motifs::parse_options parse{AOPT_ACTORS_SIM_INCLUDE, {}, true};

  search::rewind_result direct;
  {
    motifs::parser parser(parse);
    direct = search::run_rewind(seed_files, parser, fake_rewind_eval, rc);
  }
  rewind_spec spec;
  spec.package = "add_custom";
  spec.seed_files = seed_files;
  spec.config = rc;
  spec.parse = parse;
  spec.slots = slots(2);
  std::vector<std::string> stored;
  spec.learned = [&](const search::experience& e) { stored.push_back(e.title); };
  expect_same_chain(run_rewind_job(spec), direct, stored);
}

TEST(actors_threaded, RewinderWithAnEngineMatchesADirectEngineRewind) {
  // rewind_spec.engine set: the Rewinder asks the engine (here the offline one) for the steps.
  const auto seed_files = load_files(source_dir() / "examples" / "ops" / "add_custom");
  search::rewind_config rc;
  rc.max_steps = 2;
  rc.max_attempts = 6;
  rc.op = "add_custom";
  rc.min_slowdown = 1.0;
  optimize::offline_engine direct_engine(engine_config(5));
  const auto direct = search::run_engine_rewind(seed_files, direct_engine, fake_rewind_eval, rc);

  optimize::offline_engine engine(engine_config(5));
  rewind_spec spec;
  spec.package = "add_custom";
  spec.seed_files = seed_files;
  spec.config = rc;
  spec.slots = slots(1);
  spec.engine = &engine;
  std::vector<std::string> stored;
  spec.learned = [&](const search::experience& e) { stored.push_back(e.title); };
  expect_same_chain(run_rewind_job(spec), direct, stored);
}

}  // namespace
}  // namespace aopt::actors::test
