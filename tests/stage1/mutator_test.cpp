// The offline mutator: operators with exact outputs for a fixed seed, exact candidate counts,
// dedup against the history, negative history, feasibility, determinism.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <set>

#include "aopt/common/error.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {
namespace {

// A small tiling function with one tunable of each domain kind.
const char* kSource = R"(#include "t.h"
namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t QUEUE_NUM = 3;
constexpr uint32_t ALIGN_BYTES = 32;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t tile = TILE_LENGTH / (BUFFER_NUM * QUEUE_NUM) / ALIGN_BYTES * ALIGN_BYTES;
    tiling.set_tileLength(tile);
    tiling.set_mode(1);
    context->SetBlockDim(coreNum);
    context->SetTilingKey(1);
    return ge::GRAPH_SUCCESS;
}
}
)";

tiling_template make_template(const std::string& src = kSource) {
  synthesis_input in;
  in.host_files.push_back({"op_host/t.cpp", src});
  auto r = synthesize(in);
  if (!r.tmpl) throw std::runtime_error(r.error->reason);
  return *r.tmpl;
}

TEST(Stage1Mutator, TemplateOfTheTestSource) {
  const auto t = make_template();
  std::vector<std::string> names;
  for (const auto& tu : t.tunables) names.push_back(tu.name + ":" + tu.dom.describe());
  EXPECT_EQ(names, (std::vector<std::string>{"TILE_LENGTH:log_range [256, 65536]", "BUFFER_NUM:choices {1, 2}",
                                             "QUEUE_NUM:range [3, 12]", "ALIGN_BYTES:pow2 [32, 512]",
                                             "core_count:cores 0|1..cores", "mode_flag:choices {0, 1}",
                                             "tiling_key:choices {1}"}));
}

TEST(Stage1Mutator, DomainsContainAndSize) {
  const device_limits dev{40, 196608};
  domain p2{domain_kind::pow2, 32, 512, false, {}};
  EXPECT_TRUE(p2.contains(64, dev));
  EXPECT_FALSE(p2.contains(96, dev));
  EXPECT_FALSE(p2.contains(16, dev));
  EXPECT_EQ(p2.size(dev), 5);
  domain lr{domain_kind::log_range, 32, 16384, true, {}};
  EXPECT_TRUE(lr.contains(0, dev));
  EXPECT_TRUE(lr.contains(33, dev));
  EXPECT_FALSE(lr.contains(16, dev));
  domain cores{domain_kind::cores, 1, 0, false, {}};
  EXPECT_TRUE(cores.contains(0, dev));
  EXPECT_TRUE(cores.contains(40, dev));
  EXPECT_FALSE(cores.contains(41, dev));
  EXPECT_EQ(cores.size(dev), 41);
  domain bd{domain_kind::range, 1, 0, false, {}};
  EXPECT_FALSE(bd.contains(0, dev));
  EXPECT_EQ(bd.size(device_limits{8, 1}), 8);
}

TEST(Stage1Mutator, StepsFollowTheDomain) {
  const auto t = make_template();
  mutator m(t, mutator_config{}, 7);
  const auto base = t.base();
  for (int rep = 0; rep < 50; ++rep) {
    // TILE_LENGTH: x2, /2, x4, /4 of 4096, kept a multiple of 32.
    const auto a = m.step(base, 0);
    EXPECT_TRUE(a[0] == 8192 || a[0] == 2048 || a[0] == 16384 || a[0] == 1024) << a[0];
    // BUFFER_NUM: the other choice.
    EXPECT_EQ(m.step(base, 1)[1], 1);
    // QUEUE_NUM: neighbourhood within [3, 12].
    const auto q = m.step(base, 2)[2];
    EXPECT_TRUE(q == 4 || q == 5) << q;
    // ALIGN_BYTES: never below the written alignment.
    const auto al = m.step(base, 3)[3];
    EXPECT_TRUE(al == 64 || al == 128) << al;
    // core_count: from "all" to 20, 10 or 5 of 40 cores.
    const auto c = m.step(base, 4)[4];
    EXPECT_TRUE(c == 20 || c == 10 || c == 5) << c;
    // Only the chosen tunable changes.
    auto only = m.step(base, 3);
    only[3] = base[3];
    EXPECT_EQ(only, base);
  }
}

TEST(Stage1Mutator, ExactOutputsForAFixedSeed) {
  const auto t = make_template();
  mutator m(t, mutator_config{}, 42);
  EXPECT_EQ(m.mutable_tunables(), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  stage1_history h;
  const auto props = m.propose(h, 6);
  ASSERT_EQ(props.size(), 6u);
  std::vector<std::string> got;
  for (const auto& p : props) got.push_back(p.op + " " + p.description);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "mutate TILE_LENGTH=2048",
                     "mutate core_count=10",
                     "mutate core_count=20",
                     "restart TILE_LENGTH=16384, BUFFER_NUM=1, QUEUE_NUM=12, ALIGN_BYTES=64, core_count=19, mode_flag=0",
                     "mutate QUEUE_NUM=4, core_count=20",
                     "mutate BUFFER_NUM=1",
                 }));
  mutator a(t, mutator_config{}, 42);
  mutator b(t, mutator_config{}, 42);
  const auto base = t.base();
  auto pa = t.base();
  pa[0] = 1024;
  pa[2] = 6;
  EXPECT_EQ(a.crossover(base, pa), b.crossover(base, pa));
  EXPECT_EQ(a.crossover(base, pa), (assignment{4096, 2, 6, 32, 0, 1, 1}));
  EXPECT_EQ(a.restart(), (assignment{16384, 1, 11, 32, 9, 1, 1}));
}

TEST(Stage1Mutator, DeterministicPerSeedAndForkedStreamsDiffer) {
  const auto t = make_template();
  stage1_history h;
  auto run = [&](std::uint64_t seed) {
    mutator m(t, mutator_config{}, seed);
    std::vector<assignment> out;
    for (const auto& p : m.propose(h, 10)) out.push_back(p.values);
    return out;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
  std::mt19937_64 r1(5), r2(5);
  auto f1 = fork_rng(r1, "a");
  auto f2 = fork_rng(r2, "a");
  EXPECT_EQ(f1(), f2());
  std::mt19937_64 r3(5);
  EXPECT_NE(fork_rng(r3, "b")(), fork_rng(r2, "a")());
}

TEST(Stage1Mutator, NeverProposesEvaluatedRepeatedOrInfeasible) {
  const auto t = make_template();
  mutator_config cfg;
  cfg.rules.push_back([](const tiling_template& tt, const assignment& v) -> std::optional<std::string> {
    // A derived UB check: TILE_LENGTH bytes must fit 196608 / 4.
    if (v[*tt.find("TILE_LENGTH")] > 49152) return "tile exceeds the UB share";
    return std::nullopt;
  });
  mutator m(t, cfg, 11);
  stage1_history h;
  tiling_proposal base;
  base.values = t.base();
  h.record(base, {true, 100, "ok", ""});
  std::set<assignment> seen = {t.base()};
  for (int round = 0; round < 10; ++round) {
    const auto props = m.propose(h, 5);
    ASSERT_EQ(props.size(), 5u);
    for (const auto& p : props) {
      EXPECT_TRUE(seen.insert(p.values).second) << p.description;
      EXPECT_LE(p.values[0], 49152);
      EXPECT_FALSE(m.infeasible(p.values));
      ASSERT_TRUE(p.parent);
      for (std::size_t i : p.changed) EXPECT_NE(p.values[i], (*p.parent)[i]);
      h.record(p, {true, 100.0 + static_cast<double>(h.size()), "ok", ""});
    }
  }
  EXPECT_EQ(h.size(), 51u);
}

TEST(Stage1Mutator, ExhaustsASmallSpaceWithExactCounts) {
  const char* src = R"(namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_fast(0);
    return ge::GRAPH_SUCCESS;
}
}
)";
  const auto t = make_template(src);
  ASSERT_EQ(t.tunables.size(), 2u);  // BUFFER_NUM {1,2} x fast {0,1}: 4 assignments
  mutator m(t, mutator_config{}, 3);
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  h.record(b, {true, 10, "ok", ""});
  std::size_t total = 0;
  for (int round = 0; round < 5; ++round) {
    const auto props = m.propose(h, 2);
    for (const auto& p : props) h.record(p, {true, 5, "ok", ""});
    total += props.size();
  }
  EXPECT_EQ(total, 3u);  // every other assignment exactly once, then nothing
  EXPECT_TRUE(m.propose(h, 4).empty());
}

TEST(Stage1Mutator, SingleChangeFailuresBecomeTabu) {
  const auto t = make_template();
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  h.record(b, {true, 100, "ok", ""});
  tiling_proposal bad;
  bad.values = t.base();
  bad.values[1] = 1;  // BUFFER_NUM = 1 fails
  bad.parent = t.base();
  bad.changed = {1};
  h.record(bad, {false, 0, "resource_error", "UB overflow"});
  EXPECT_TRUE(h.tabu(1, 1));
  EXPECT_EQ(h.failures().size(), 1u);
  EXPECT_EQ(h.best(4).size(), 1u);
  mutator m(t, mutator_config{}, 99);
  const auto props = m.propose(h, 40);
  EXPECT_EQ(props.size(), 40u);
  for (const auto& p : props) EXPECT_EQ(p.values[1], 2) << p.description;
}

TEST(Stage1Mutator, AnAlignmentThatFailedAboveTheBaseBlocksLargerOnes) {
  // ALIGN_BYTES 64 failed alone (say, a copy rounded up past its tensor): 128, 256 and 512 round
  // up further and are never proposed; the other tunables still move.
  const auto t = make_template();
  const auto ai = t.find("ALIGN_BYTES");
  ASSERT_TRUE(ai);
  ASSERT_EQ(t.tunables[*ai].kind, tunable_kind::alignment);
  ASSERT_EQ(t.base()[*ai], 32);
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  h.record(b, {true, 100, "ok", ""});
  tiling_proposal bad;
  bad.values = t.base();
  bad.values[*ai] = 64;
  bad.parent = t.base();
  bad.changed = {*ai};
  h.record(bad, {false, 0, "runtime_error", "DataCopy: GM access of 512 bytes ... is outside it"});
  EXPECT_EQ(h.tabu_above(*ai, 32), 64);
  EXPECT_FALSE(h.tabu_above(*ai, 64));
  const std::uint64_t seed = 17;
  std::cout << "seed " << seed << "\n";
  mutator m(t, mutator_config{}, seed);
  const auto props = m.propose(h, 40);
  ASSERT_FALSE(props.empty());
  for (const auto& p : props) EXPECT_EQ(p.values[*ai], 32) << p.description;
}

TEST(Stage1Mutator, AFailingBaseIsRepairedFromItsNeighboursFirst) {
  // Co-tuning a kernel rewrite that ran out of UB: the history holds only the failing base.
  // The base's neighbours come first, in template order, one step down and one up each; random
  // moves of the base only after every neighbour was tried.
  const auto t = make_template();
  const std::uint64_t seed = 5;
  std::cout << "seed " << seed << "\n";
  mutator m(t, mutator_config{}, seed);
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  b.op = "base";
  h.record(b, {false, 0, "runtime_error", "hardware error ub_overflow"});
  auto with = [&](std::size_t i, std::int64_t v) {
    auto a = t.base();
    a[i] = v;
    return a;
  };
  const std::vector<assignment> expected = {with(0, 2048), with(0, 8192), with(1, 1), with(2, 4),
                                            with(3, 64),   with(4, 39),   with(5, 0)};
  auto first = m.propose(h, 3);
  ASSERT_EQ(first.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(first[k].values, expected[k]) << k;
    EXPECT_EQ(first[k].op, "repair");
    EXPECT_EQ(first[k].changed.size(), 1u);
  }
  for (const auto& p : first) h.record(p, {false, 0, "runtime_error", "hardware error ub_overflow"});
  // Failures next to a failing parent are not tabu (the parent never passed).
  EXPECT_FALSE(h.tabu(0, 2048));
  auto next = m.propose(h, 10);
  ASSERT_EQ(next.size(), 10u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(next[k].values, expected[3 + k]) << k;
    EXPECT_EQ(next[k].op, "repair");
  }
  for (std::size_t k = 4; k < next.size(); ++k) EXPECT_NE(next[k].op, "repair") << next[k].description;
  // With a passing entry there is a parent: no repair scan.
  stage1_history ok;
  ok.record(b, {true, 10, "ok", ""});
  for (const auto& p : mutator(t, mutator_config{}, seed).propose(ok, 8)) EXPECT_NE(p.op, "repair");
}

TEST(Stage1Mutator, NeighboursAreOneStepEachWay) {
  const auto t = make_template();
  mutator m(t, mutator_config{}, 1);
  using v = std::vector<std::int64_t>;
  EXPECT_EQ(m.neighbours(t.tunables[0], 4096), (v{2048, 8192}));
  EXPECT_EQ(m.neighbours(t.tunables[0], 256), (v{512}));      // at the floor
  EXPECT_EQ(m.neighbours(t.tunables[1], 2), (v{1}));
  EXPECT_EQ(m.neighbours(t.tunables[2], 3), (v{4}));          // QUEUE_NUM's floor is 3
  EXPECT_EQ(m.neighbours(t.tunables[2], 12), (v{11}));
  EXPECT_EQ(m.neighbours(t.tunables[3], 64), (v{32, 128}));
  EXPECT_EQ(m.neighbours(t.tunables[4], 0), (v{39}));         // all 40 cores -> 39
  EXPECT_EQ(m.neighbours(t.tunables[4], 39), (v{38, 0}));     // 40 is written as "all"
  EXPECT_EQ(m.neighbours(t.tunables[4], 1), (v{2}));
}

TEST(Stage1Mutator, OutlivesTheTemplateItWasMadeFrom) {
  // The offline engine keeps a mutator across Stage I rounds while each round synthesizes its
  // template anew (co-tuning crashed on a dangling reference before the mutator kept a copy).
  const auto live = make_template();
  auto gone = std::make_unique<tiling_template>(make_template());
  mutator m(*gone, mutator_config{}, 3);
  gone.reset();
  std::vector<std::string> junk(64, std::string(512, 'x'));  // reuse the freed memory
  mutator ref(live, mutator_config{}, 3);
  stage1_history h;
  const auto a = m.propose(h, 6);
  const auto b = ref.propose(h, 6);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].values, b[i].values);
    EXPECT_EQ(a[i].description, b[i].description);
  }
  EXPECT_EQ(junk.size(), 64u);
}

TEST(Stage1Mutator, ConfigValidation) {
  const auto t = make_template();
  mutator_config cfg;
  cfg.crossover_rate = 0.8;
  cfg.restart_rate = 0.5;
  EXPECT_THROW(mutator(t, cfg, 1), aopt::error);
  cfg = {};
  cfg.population = 0;
  EXPECT_THROW(mutator(t, cfg, 1), aopt::error);
}

// A key value no passing variant has is proposed alone (one failure then makes it tabu); once it
// has passed, it combines with other changes.
TEST(Stage1Mutator, AnUntriedKeyValueIsProposedAlone) {
  auto t = make_template();
  const auto key = t.find("tiling_key");
  ASSERT_TRUE(key);
  t.tunables[*key].dom = domain{domain_kind::choices, 0, 0, false, {1, 2}};
  mutator_config cfg;
  cfg.mutate_keys = true;
  mutator m(t, cfg, 3);
  std::cout << "seed 3" << std::endl;
  const assignment base = t.base();
  stage1_history h;
  h.record(tiling_proposal{base, {}, "base", "base", std::nullopt, {}}, eval_outcome{true, 10, "ok", "", false});
  auto changes = [&](const assignment& v) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i) n += v[i] != base[i];
    return n;
  };
  std::size_t alone = 0;
  for (int round = 0; round < 20; ++round) {
    for (const auto& p : m.propose(h, 6)) {
      if (p.values[*key] == 2) {
        EXPECT_EQ(changes(p.values), 1u) << p.description;
        ++alone;
      }
      h.record(p, eval_outcome{true, 9, "ok", "", false});  // keep proposing new variants
      if (p.values[*key] == 2) break;
    }
    if (alone > 0) break;
  }
  ASSERT_GT(alone, 0u) << "seed 3 proposes the key's other value";
  // It passed (recorded above): now it may come with other changes.
  bool combined = false;
  for (int round = 0; round < 40 && !combined; ++round) {
    for (const auto& p : m.propose(h, 6)) {
      combined = combined || (p.values[*key] == 2 && changes(p.values) > 1);
      h.record(p, eval_outcome{true, 9, "ok", "", false});
    }
  }
  EXPECT_TRUE(combined);
}

}  // namespace
}  // namespace aopt::stage1

namespace aopt::stage1 {
namespace {

// One quantity written per dtype (a UB share: eight parts for 4-byte types, sixteen otherwise):
// a kernel rewrite that ran out of UB needs both shares smaller, and one step of one of them
// fixes one dtype only. The repair tries the siblings together, up and down, before single steps.
TEST(Stage1Mutator, ARepairMovesSiblingTunablesTogetherFirst) {
  const auto t = make_template(R"(#include "t.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint64_t ubLength = 196608;
    uint32_t dataTypeLength = 2;
    uint32_t ubPartNum = (dataTypeLength == 4) ? 8 : 16;
    uint32_t ubPartDataNum = ubLength / ubPartNum / dataTypeLength;
    tiling.set_ubPartDataNum(ubPartDataNum);
    context->SetBlockDim(40);
    return ge::GRAPH_SUCCESS;
}
}
)");
  const auto a = t.find("ubPartNum_count");
  const auto b = t.find("ubPartNum_count_2");
  ASSERT_TRUE(a && b) << to_json(t).dump(1);
  mutator m(t, mutator_config{}, 3);
  EXPECT_EQ(m.sibling_groups(m.mutable_tunables()), (std::vector<std::vector<std::size_t>>{{*a, *b}}));
  stage1_history h;
  tiling_proposal base;
  base.values = t.base();
  base.op = "base";
  h.record(base, {false, 0, "runtime_error", "hardware error ub_overflow"});
  // Their domains start at the written values (a share count only grows in synthesis' eyes):
  // one joint step up, no joint step down.
  EXPECT_EQ(t.tunables[*a].dom.lo, 8) << t.tunables[*a].dom.describe();
  const auto first = m.propose(h, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].op, "repair");
  EXPECT_EQ(first[0].values[*a], 9);
  EXPECT_EQ(first[0].values[*b], 17);
  EXPECT_EQ(first[0].changed, (std::vector<std::size_t>{*a, *b}));
  h.record(first[0], {false, 0, "runtime_error", "hardware error ub_overflow"});
  // Then the single steps.
  const auto next = m.propose(h, 4);
  ASSERT_FALSE(next.empty());
  for (const auto& p : next) {
    EXPECT_EQ(p.op, "repair");
    EXPECT_EQ(p.changed.size(), 1u) << p.description;
  }
}

// Probes passed for the core count at 39, 20 and 10 cores (written: all 40) and for the tile at
// half and twice its length: up to half a batch scouts them, one tunable after another, the
// farthest-reaching first (20 cores before 10; 39 is a one-step neighbour, last).
TEST(Stage1Mutator, ScoutsTheProbedValuesRoundRobinNearNeighboursLast) {
  const auto t = make_template();
  const auto tile = t.find("TILE_LENGTH");
  const auto cores = t.find("core_count");
  ASSERT_TRUE(tile && cores);
  mutator m(t, mutator_config{}, 5);
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  b.op = "base";
  h.record(b, {true, 10, "ok", ""});
  for (std::int64_t v : {39, 20, 10}) h.record_probe(*cores, 0, v, true, false);
  for (std::int64_t v : {2048, 8192}) h.record_probe(*tile, 4096, v, true, false);
  const auto first = m.propose(h, 4);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].op, "scout");
  EXPECT_EQ(first[0].changed, (std::vector<std::size_t>{*tile}));
  EXPECT_EQ(first[0].values[*tile], 2048);
  EXPECT_EQ(first[1].op, "scout");
  EXPECT_EQ(first[1].changed, (std::vector<std::size_t>{*cores}));
  EXPECT_EQ(first[1].values[*cores], 20);
  EXPECT_NE(first[2].op, "scout");  // the other half: random moves
  for (const auto& p : first) h.record(p, {true, 20, "ok", ""});
  std::vector<std::int64_t> scouted_cores;
  for (int round = 0; round < 3; ++round) {
    for (const auto& p : m.propose(h, 2)) {
      if (p.op == "scout" && p.changed == std::vector<std::size_t>{*cores}) scouted_cores.push_back(p.values[*cores]);
      h.record(p, {true, 20, "ok", ""});
    }
  }
  // 20 was scouted first; 10 and then 39 follow, unless a random move took them already.
  for (std::size_t k = 1; k < scouted_cores.size(); ++k) {
    EXPECT_TRUE(scouted_cores[k - 1] == 10 || scouted_cores[k] == 39) << scouted_cores[k - 1] << " then " << scouted_cores[k];
  }
}

// Probes of QUEUE_NUM (range [3, 12], written 3) passed at 4 and 6 and failed at 12: the failure
// is past the passing span, so the values between the probes are allowed too (5 was never
// probed); a failure inside the span keeps the tunable to its probed values.
TEST(Stage1Mutator, AProbeFailurePastTheSpanWidensTheAllowedValuesToIt) {
  const auto t = make_template();
  const auto q = t.find("QUEUE_NUM");
  ASSERT_TRUE(q);
  stage1_history h;
  tiling_proposal b;
  b.values = t.base();
  b.op = "base";
  h.record(b, {true, 10, "ok", ""});
  for (std::int64_t v : {4, 6}) h.record_probe(*q, 3, v, true, false);
  h.record_probe(*q, 3, 12, false, false);
  ASSERT_TRUE(h.passing_span(*q));
  EXPECT_EQ(*h.passing_span(*q), (std::pair<std::int64_t, std::int64_t>{3, 6}));
  mutator m(t, mutator_config{}, 11);
  std::cout << "seed 11" << std::endl;
  std::set<std::int64_t> seen;
  for (int round = 0; round < 12; ++round) {
    for (const auto& p : m.propose(h, 4)) {
      seen.insert(p.values[*q]);
      h.record(p, {true, 20, "ok", ""});
    }
  }
  EXPECT_TRUE(seen.count(5)) << "the unprobed value inside the span";
  for (std::int64_t v : seen) EXPECT_LE(v, 6) << "past the span";
  stage1_history inside;
  for (std::int64_t v : {4, 8}) inside.record_probe(*q, 3, v, true, false);
  inside.record_probe(*q, 3, 6, false, false);
  EXPECT_FALSE(inside.passing_span(*q));
}

// When the random moves run dry (one attempt per proposal), the sweep still spends the batch on
// single changes of the best parents: the small space is exhausted in as few calls as it holds
// proposals, and some of them were the sweep's.
TEST(Stage1Mutator, TheSweepFillsABatchTheRandomMovesLeaveShort) {
  const char* src = R"(namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_fast(0);
    tiling.set_wide(0);
    return ge::GRAPH_SUCCESS;
}
}
)";
  const auto t = make_template(src);
  ASSERT_EQ(t.tunables.size(), 3u);  // 8 assignments
  std::size_t sweeps = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    mutator_config c;
    c.max_attempts = 1;
    mutator m(t, c, seed);
    stage1_history h;
    tiling_proposal b;
    b.values = t.base();
    h.record(b, {true, 10, "ok", ""});
    // Each evaluated variant is faster than the last: the newest is the best parent.
    double lat = 9;
    std::size_t total = 0;
    for (int call = 0; call < 7 && total < 7; ++call) {
      const auto props = m.propose(h, 1);
      ASSERT_EQ(props.size(), 1u) << "seed " << seed << ", call " << call << ": a single change of the best is left";
      for (const auto& p : props) {
        sweeps += p.op == "sweep";
        h.record(p, {true, lat, "ok", ""});
        lat -= 1;
      }
      total += props.size();
    }
    EXPECT_EQ(total, 7u) << "seed " << seed;
  }
  EXPECT_GT(sweeps, 0u);
}

}  // namespace
}  // namespace aopt::stage1
