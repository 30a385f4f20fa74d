// Feasible Stage I (stage1/feasibility.h): the invariants a variant's tiling must keep of the
// base's, on tilings computed by fixture tiling functions written in the idioms of real
// operators (BLOCK_DIM/TILE_NUM constants, ALIGN_NUM from the dtype size, a per-core length and
// a remainder, the tiling passed to the kernel's Init), each with a model of what its fixed
// kernel needs; the history's joint tabu and partners; the loop's screening.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "aopt/stage1/feasibility.h"
#include "aopt/stage1/loop.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {
namespace {

struct fixture_case {
  std::string name;
  std::int64_t elements;
  std::int64_t elem_bytes;
};

const std::vector<fixture_case> kCases = {{"perf", 64 * 32768, 2}, {"mid", 24 * 4096, 2}, {"small", 8 * 2048, 2}};

// Fixture A, an element-wise add: the host sets BLOCK_DIM cores and TILE_NUM tiles,
//   context->SetBlockDim(BLOCK_DIM); tiling.set_totalLength(total); tiling.set_tileNum(TILE_NUM);
// and the kernel's Init computes tileLength = totalLength / GetBlockNum() / tileNum / BUFFER_NUM
// (BUFFER_NUM = 2) and copies tileLength elements per DataCopy.
tiling_facts add_tiling(const fixture_case& c, std::int64_t block_dim, std::int64_t tile_num) {
  return {c.name, block_dim, 0, {c.elements, tile_num}, c.elements, c.elem_bytes};
}
bool add_kernel_runs(const fixture_case& c, std::int64_t block_dim, std::int64_t tile_num) {
  const std::int64_t pieces = block_dim * tile_num * 2;
  if (c.elements % pieces != 0) return false;  // elements past the last tile are never written
  return (c.elements / pieces) * c.elem_bytes % 32 == 0;  // DataCopy moves whole 32-byte blocks
}

screen_outcome screen_add(std::int64_t block_dim, std::int64_t tile_num) {
  screen_outcome s{true, "ok", "", {}};
  for (const auto& c : kCases) s.cases.push_back(add_tiling(c, block_dim, tile_num));
  return s;
}

feasibility_screen add_screen() {
  std::vector<tiling_facts> base;
  for (const auto& c : kCases) base.push_back(add_tiling(c, 8, 8));
  return feasibility_screen(base, device_limits{40, 196608});
}

TEST(Feasibility, AdmitsExactlyTheAddVariantsItsKernelRuns) {
  const auto screen = add_screen();
  EXPECT_GT(screen.invariant_count(), 0u);
  std::size_t admitted = 0, rejected = 0;
  for (std::int64_t bd = 1; bd <= 40; ++bd) {
    for (std::int64_t tn = 8; tn <= 32; ++tn) {
      bool runs = true;
      for (const auto& c : kCases) runs = runs && add_kernel_runs(c, bd, tn);
      const auto why = screen.check(screen_add(bd, tn));
      EXPECT_EQ(!why.has_value(), runs) << "BLOCK_DIM=" << bd << " TILE_NUM=" << tn << ": " << why.value_or("admitted");
      (why ? rejected : admitted) += 1;
    }
  }
  // Both verdicts occur: most of the grid breaks the kernel's alignment (as on unalign_add).
  EXPECT_GT(admitted, 5u);
  EXPECT_GT(rejected, admitted);
}

TEST(Feasibility, TilesThatOutgrowTheUbAreRejectedWhenTheBaseUseIsKnown) {
  // The add fixture's kernel holds three queues of two tiles of elements / (8 x 8 x 2) fp16
  // elements: 16384 elements a tile at the perf case, 196608 bytes of UB: all of it.
  std::vector<tiling_facts> base;
  for (const auto& c : kCases) {
    auto f = add_tiling(c, 8, 8);
    f.ub_bytes = c.elements / (8 * 8 * 2) * c.elem_bytes * 6;
    base.push_back(f);
  }
  const feasibility_screen screen(base, device_limits{40, 196608});
  // Fewer cores or fewer tiles: bigger tiles, past the UB at the perf case.
  const auto four = screen.check(screen_add(4, 8));
  ASSERT_TRUE(four);
  EXPECT_NE(four->find("bytes of UB"), std::string::npos) << *four;
  EXPECT_NE(four->find("case 'perf'"), std::string::npos) << *four;
  EXPECT_TRUE(screen.check(screen_add(8, 4)));
  // Smaller tiles always fit; the same tiles split differently fit too.
  EXPECT_FALSE(screen.check(screen_add(16, 8)));
  EXPECT_FALSE(screen.check(screen_add(16, 4)));
  // Without the base's UB use there is no such invariant: the same variant passes.
  EXPECT_FALSE(add_screen().check(screen_add(4, 8)));
  bool described = false;
  for (const auto& line : screen.describe()) described = described || line.find("fit the UB") != std::string::npos;
  EXPECT_TRUE(described);
}

TEST(Feasibility, ARewriteOverTheUbFitsOnlyWithTilesThatShrinkItsUse) {
  // Co-tuning: a kernel rewrite that needs 5% more UB than the core has at the base's tiling.
  // The same tiles, or tiles split differently but as large, still fail; smaller tiles fit.
  std::vector<tiling_facts> base;
  for (const auto& c : kCases) {
    auto f = add_tiling(c, 8, 8);
    f.ub_bytes = c.elements / (8 * 8 * 2) * c.elem_bytes * 6 * 105 / 100;
    base.push_back(f);
  }
  const feasibility_screen screen(base, device_limits{40, 196608});
  const auto same = screen.check(screen_add(8, 8));
  ASSERT_TRUE(same);
  EXPECT_NE(same->find("bytes of UB"), std::string::npos) << *same;
  EXPECT_TRUE(screen.check(screen_add(16, 4)));
  EXPECT_TRUE(screen.check(screen_add(4, 8)));
  EXPECT_FALSE(screen.check(screen_add(8, 16))) << screen.check(screen_add(8, 16)).value_or("");
  EXPECT_FALSE(screen.check(screen_add(16, 8)));
}

// A kernel that cuts each core's share into a few fixed tiles and a smaller tail (addcdiv: 5
// tiles a core at 96% of the UB): its largest tile may be 5/4 of the average, so fewer cores that
// raise the average by 11% still fit; half the cores do not. Its second count word is a remainder
// (the 32 cores that take one block more): pieces of 1638 elements, 3 KB against 184 KB of UB, are
// not what the UB holds, so it makes no UB invariant (12 at 20 cores would be pieces of 8738); and
// that 32 splits 2^21 elements into whole blocks is the element count's coincidence: the tail case
// (37037 elements, 35 such cores) runs without it.
TEST(Feasibility, TheUbInvariantAllowsForATailTileAndIgnoresRemainders) {
  const tiling_facts perf{"perf", 40, 0, {5, 32}, 2097152, 2, 188160};
  const tiling_facts tail{"tail", 40, 0, {1, 35}, 37037, 2, 188160};
  const feasibility_screen screen({perf, tail}, device_limits{40, 196608});
  auto variant = [](std::int64_t bd, std::int64_t tiles, std::int64_t big_cores) {
    return screen_outcome{true, "ok", "", {tiling_facts{"perf", bd, 0, {tiles, big_cores}, 2097152, 2},
                                           tiling_facts{"tail", bd, 0, {1, 15}, 37037, 2}}};
  };
  // With the perf case alone the coincidence is all the screen knows: 12 is rejected.
  EXPECT_TRUE(feasibility_screen({perf}, device_limits{40, 196608}).check(screen_outcome{true, "ok", "", {variant(20, 9, 12).cases[0]}}));
  EXPECT_FALSE(screen.check(variant(20, 9, 12))) << *screen.check(variant(20, 9, 12));
  const auto half = screen.check(variant(10, 10, 2));
  ASSERT_TRUE(half);
  EXPECT_NE(half->find("bytes of UB"), std::string::npos) << *half;
}

TEST(Feasibility, ReasonNamesTheCaseAndTheBrokenShare) {
  const auto why = add_screen().check(screen_add(6, 8));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("case 'perf'"), std::string::npos) << *why;
  EXPECT_NE(why->find("block dim"), std::string::npos) << *why;
  EXPECT_NE(why->find("32-byte"), std::string::npos) << *why;
}

TEST(Feasibility, BlockDimBeyondTheCoresAndFailedTilingsAreRejected) {
  const auto screen = add_screen();
  EXPECT_TRUE(screen.check(screen_add(64, 8)));  // divides everything, but 40 cores
  screen_outcome failed{false, "tiling_error", "the tiling function returned failure", {}};
  const auto why = screen.check(failed);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("tiling_error"), std::string::npos);
}

// Fixture B, in the style of a clip/gelu operator's host code:
//   ALIGN_NUM = BLOCK_SIZE / sizeOfDataType;  tiling_size = ub / BLOCK_SIZE / 2 / NUM (then / 8 * 8);
//   block_size = tiling_size * ALIGN_NUM;     aivNum = min(cores, total / block_size), at least 1;
//   core_size = total / aivNum / (ALIGN_NUM * CORE_ALIGN) * (ALIGN_NUM * CORE_ALIGN);
//   core_remain = total - aivNum * core_size  (uint32: wraps when core_size * aivNum > total)
// The kernel's Init takes ALIGN_NUM, block_size, core_size and core_remain; it divides by
// ALIGN_NUM and copies block_size-element tiles from core_size * GetBlockIdx().
struct clip_params {
  std::int64_t block_size = 32;  // BLOCK_SIZE
  std::int64_t num = 2;          // NUM
  std::int64_t core_align = 8;   // CORE_ALIGN
  std::int64_t cores = 40;       // aivNum before the cap
};

tiling_facts clip_tiling(const fixture_case& c, const clip_params& p) {
  const std::int64_t ub = 196608;
  const std::int64_t align_num = p.block_size / c.elem_bytes;
  std::int64_t tiling_size = ub / p.block_size / 2 / p.num;
  tiling_size = tiling_size <= 8 ? tiling_size : tiling_size / 8 * 8;
  const std::int64_t block_size = tiling_size * align_num;
  std::int64_t aiv = block_size == 0 ? p.cores : std::min(p.cores, c.elements / block_size);
  aiv = std::max<std::int64_t>(aiv, 1);
  const std::int64_t unit = align_num * p.core_align;
  const std::int64_t core_size = unit == 0 ? 0 : c.elements / aiv / unit * unit;
  const auto core_remain = static_cast<std::uint32_t>(c.elements - aiv * core_size);
  return {c.name, aiv, 0, {c.elements, 0, align_num, tiling_size, block_size, aiv, core_size, core_remain},
          c.elements, c.elem_bytes};
}

screen_outcome screen_clip(const clip_params& p, const std::vector<fixture_case>& cases) {
  screen_outcome s{true, "ok", "", {}};
  for (const auto& c : cases) s.cases.push_back(clip_tiling(c, p));
  return s;
}

const std::vector<fixture_case> kClipCases = {{"perf", 64 * 32768, 2}, {"tail", 37 * 1001, 4}, {"small", 15, 2}};

TEST(Feasibility, ClipVariantsThatKeepTheLayoutPass) {
  std::vector<tiling_facts> base;
  for (const auto& c : kClipCases) base.push_back(clip_tiling(c, {}));
  const feasibility_screen screen(base, device_limits{40, 196608});
  EXPECT_FALSE(screen.check(screen_clip({}, kClipCases))) << "the base itself";
  for (std::int64_t cores : {1, 8, 20, 24, 39}) {
    clip_params p;
    p.cores = cores;
    EXPECT_FALSE(screen.check(screen_clip(p, kClipCases))) << "cores " << cores << ": "
                                                           << screen.check(screen_clip(p, kClipCases)).value_or("");
  }
  clip_params bigger;
  bigger.block_size = 64;  // 32 elements per block in fp16: still whole blocks
  EXPECT_FALSE(screen.check(screen_clip(bigger, kClipCases))) << screen.check(screen_clip(bigger, kClipCases)).value_or("");
}

TEST(Feasibility, ClipVariantsTheKernelCannotRunAreRejected) {
  std::vector<tiling_facts> base;
  for (const auto& c : kClipCases) base.push_back(clip_tiling(c, {}));
  const feasibility_screen screen(base, device_limits{40, 196608});
  clip_params zero;
  zero.block_size = 1;  // ALIGN_NUM = 1 / 2 = 0: the kernel divides by it
  const auto z = screen.check(screen_clip(zero, kClipCases));
  ASSERT_TRUE(z);
  EXPECT_NE(z->find("is 0"), std::string::npos) << *z;
}

// What fixture B's kernel needs: ALIGN_NUM and the tile nonzero, two queues of two tiles in UB,
// tiles and tails (multiples of ALIGN_NUM) in whole 32-byte blocks, every core a nonzero share
// and the shares within the tensor (else the remainder wraps and the last core reads past it).
bool clip_kernel_runs(const fixture_case& c, const clip_params& p) {
  const auto f = clip_tiling(c, p);
  const std::int64_t align_num = f.words[2], block_size = f.words[4], aiv = f.words[5], core_size = f.words[6];
  if (align_num == 0 || block_size == 0) return false;
  if (2 * 2 * block_size * c.elem_bytes > 196608) return false;
  if (block_size * c.elem_bytes % 32 != 0 || align_num * c.elem_bytes % 32 != 0) return false;
  if (aiv > 1 && core_size == 0) return false;
  return core_size * aiv <= c.elements;
}

TEST(Feasibility, EveryClipVariantTheScreenAdmitsRuns) {
  std::vector<tiling_facts> base;
  for (const auto& c : kClipCases) base.push_back(clip_tiling(c, {}));
  const feasibility_screen screen(base, device_limits{40, 196608});
  std::size_t admitted = 0, rejected = 0, runs = 0;
  for (std::int64_t bs : {32, 64, 128, 256, 512}) {
    for (std::int64_t num = 2; num <= 13; ++num) {
      for (std::int64_t ca = 8; ca <= 40; ++ca) {
        for (std::int64_t cores : {1, 5, 20, 37, 40}) {
          const clip_params p{bs, num, ca, cores};
          bool ok = true;
          for (const auto& c : kClipCases) ok = ok && clip_kernel_runs(c, p);
          runs += ok;
          const auto why = screen.check(screen_clip(p, kClipCases));
          if (!why) {
            ++admitted;
            EXPECT_TRUE(ok) << "admitted but the kernel cannot run it: BLOCK_SIZE=" << bs << " NUM=" << num
                            << " CORE_ALIGN=" << ca << " cores=" << cores;
          } else {
            ++rejected;
          }
        }
      }
    }
  }
  EXPECT_GT(admitted, runs / 4) << "the screen rejects most of what runs";
  EXPECT_GT(rejected, 0u);
}

TEST(Feasibility, AWrappedRemainderIsOutOfBounds) {
  // A tiling whose per-core length times the block dim passes the tensor: the unsigned
  // remainder wraps around to ~4e9, which the base's never did.
  const fixture_case c{"perf", 4096, 2};
  const tiling_facts base{"perf", 4, 0, {4096, 1024, 0}, 4096, 2};
  const feasibility_screen screen({base}, device_limits{40, 196608});
  screen_outcome v{true, "ok", "", {tiling_facts{"perf", 4, 0, {4096, 1040, 4294967232}, 4096, 2}}};
  const auto why = screen.check(v);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("passes the 4096 elements"), std::string::npos) << *why;
  (void)c;
}

// --- the history learns joint moves --------------------------------------------------------

tiling_proposal proposal(assignment values, assignment parent) {
  tiling_proposal p;
  p.values = std::move(values);
  p.parent = std::move(parent);
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    if (p.values[i] != (*p.parent)[i]) p.changed.push_back(i);
  }
  return p;
}

TEST(FeasibilityHistory, TwoChangeFailureIsTabuTogetherAndSingleFailureMakesFragile) {
  stage1_history h;
  const assignment base = {8, 8, 2};
  h.record(proposal(base, base), eval_outcome{true, 10, "ok", "", false});
  h.record(proposal({12, 8, 2}, base), eval_outcome{false, 0, "screened", "x", true});
  EXPECT_TRUE(h.tabu(0, 12));
  EXPECT_TRUE(h.fragile(0));
  EXPECT_FALSE(h.fragile(1));
  h.record(proposal({16, 12, 2}, base), eval_outcome{false, 0, "precision_error", "", false});
  EXPECT_FALSE(h.tabu(0, 16));
  EXPECT_FALSE(h.tabu(1, 12));
  EXPECT_TRUE(h.tabu_pair({16, 12, 4}, base));
  EXPECT_FALSE(h.tabu_pair({16, 8, 2}, base));
  EXPECT_FALSE(h.tabu_pair({8, 12, 2}, base));
  // A passing joint move of the fragile tunable with another makes them partners.
  h.record(proposal({16, 16, 2}, base), eval_outcome{true, 9, "ok", "", false});
  EXPECT_EQ(h.partners(0), (std::vector<std::size_t>{1}));
  EXPECT_EQ(h.partners(1), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(h.partners(2).empty());
}

TEST(FeasibilityHistory, ANewStartInheritsTheTabuValuesByName) {
  stage1_history old;
  const assignment base = {8, 8, 2};
  old.record(proposal(base, base), eval_outcome{true, 10, "ok", "", false});
  old.record(proposal({12, 8, 2}, base), eval_outcome{false, 0, "runtime_error", "x", false});  // tunable 0 = 12 tabu
  old.record(proposal({8, 8, 4}, base), eval_outcome{false, 0, "runtime_error", "x", false});   // tunable 2 = 4 tabu
  old.record(proposal({8, 16, 2}, base), eval_outcome{false, 0, "runtime_error", "x", false});  // tunable 1 = 16 tabu
  ASSERT_TRUE(old.tabu(0, 12) && old.tabu(2, 4) && old.tabu(1, 16));
  // The new template: old 0 is new 1, old 1 is gone, old 2 is new 0 and its base is already 4.
  stage1_history fresh;
  fresh.inherit_tabu(old, {std::size_t{1}, std::nullopt, std::size_t{0}}, {4, 16});
  EXPECT_TRUE(fresh.tabu(1, 12));
  EXPECT_FALSE(fresh.tabu(0, 4));   // the new base's own value
  EXPECT_FALSE(fresh.tabu(1, 16));  // old tunable 1 maps nowhere
  EXPECT_FALSE(fresh.tabu(0, 12));
  EXPECT_EQ(fresh.size(), 0u);      // no evaluations come along
}

TEST(FeasibilityHistory, AfterAKernelChangeOnlyCapacityFailuresAreForgotten) {
  // A rewritten kernel may fit a tile it had no UB for, or finish where it timed out; a value
  // that read past the inputs (an alignment the copies rely on) fails the new kernel as well.
  stage1_history old;
  const assignment base = {8, 8, 2};
  old.record(proposal(base, base), eval_outcome{true, 10, "ok", "", false});
  old.record(proposal({12, 8, 2}, base),
             eval_outcome{false, 0, "runtime_error", "case 'perf': DataCopy: GM access of 512 bytes ... is outside it", false});
  old.record(proposal({8, 16, 2}, base),
             eval_outcome{false, 0, "runtime_error", "hardware error ub_overflow: InitBuffer ... over the 196608", false});
  old.record(proposal({8, 8, 4}, base), eval_outcome{false, 0, "timeout", "wall-clock limit", false});
  ASSERT_TRUE(old.tabu(0, 12) && old.tabu(1, 16) && old.tabu(2, 4));
  const std::vector<std::optional<std::size_t>> same = {std::size_t{0}, std::size_t{1}, std::size_t{2}};
  stage1_history after_tiling;
  after_tiling.inherit_tabu(old, same, base);
  EXPECT_TRUE(after_tiling.tabu(0, 12) && after_tiling.tabu(1, 16) && after_tiling.tabu(2, 4));
  stage1_history after_kernel;
  after_kernel.inherit_tabu(old, same, base, true);
  EXPECT_TRUE(after_kernel.tabu(0, 12));
  EXPECT_FALSE(after_kernel.tabu(1, 16)) << "out of UB: the new kernel may fit it";
  EXPECT_FALSE(after_kernel.tabu(2, 4)) << "a timeout: the new kernel may be faster";
}

// --- the loop screens before it spends budget ------------------------------------------------

TEST(FeasibilityLoop, ScreenedProposalsSpendNoBudgetAndJoinTheHistory) {
  tiling_template t;  // values only: the loop never instantiates files when proposals carry them
  std::int64_t next = 1;
  auto propose = [&](const tiling_template&, const stage1_history&, std::size_t n)
      -> search::outcome<std::vector<tiling_proposal>> {
    std::vector<tiling_proposal> out;
    for (std::size_t i = 0; i < n; ++i) {
      tiling_proposal p;
      p.values = {next++};
      p.files = {{"op_host/x.cpp", "v" + std::to_string(p.values[0])}};
      p.op = "mutate";
      out.push_back(p);
    }
    return out;
  };
  std::size_t evaluated = 0;
  auto evaluate = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    for (const auto& p : ps) {
      ++evaluated;
      // What the screen predicts: odd values fail.
      out.push_back(p.values[0] % 2 == 0 ? eval_outcome{true, 100.0 / static_cast<double>(p.values[0]), "ok", "", false}
                                          : eval_outcome{false, 0, "precision_error", "", false});
    }
    return out;
  };
  auto screen = [](const std::vector<tiling_proposal>& ps) {
    std::vector<screen_verdict> why;
    for (const auto& p : ps) {
      why.push_back({p.values[0] % 2 == 0 ? std::nullopt : std::optional<std::string>("odd"), false, {}});
    }
    return why;
  };
  stage1_config cfg;
  cfg.steps = 3;
  cfg.proposals_per_step = 4;
  cfg.budget = 10;
  cfg.evaluate_base = false;
  stage1_history with;
  const auto r = run_stage1(t, propose, evaluate, cfg, with, screen);
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(r.evaluations, evaluated);
  EXPECT_EQ(r.evaluations, 10u);  // refills keep the steps full until the budget is spent
  EXPECT_GT(r.screened, 0u);
  std::size_t screened_entries = 0;
  for (const auto& e : with.entries()) screened_entries += e.outcome.status == "screened";
  EXPECT_EQ(screened_entries, r.screened);
  // Without the screen the same proposals fail on the budget.
  next = 1;
  evaluated = 0;
  stage1_history without;
  const auto r0 = run_stage1(t, propose, evaluate, cfg, without);
  EXPECT_EQ(r0.evaluations, 10u);
  EXPECT_EQ(r0.failures, 5u);
  EXPECT_EQ(r0.screened, 0u);
}

// --- probes: each tunable alone, screened before the first step ------------------------------

TEST(FeasibilityProbe, LaddersStayInTheirDomainsAndSkipTheWrittenValue) {
  const device_limits dev{40, 196608};
  tunable count;  // a block count written as a constant: a range that counts cores
  count.name = "BLOCK_DIM";
  count.value = 8;
  count.dom = domain{domain_kind::range, 1, 0, false, {}};
  EXPECT_EQ(probe_ladder(count, dev, 16), (std::vector<std::int64_t>{7, 9, 16, 4, 32, 2, 40, 20, 38, 21, 19}));
  EXPECT_EQ(probe_ladder(count, dev, 3), (std::vector<std::int64_t>{7, 9, 16}));
  tunable align;
  align.value = 64;
  align.dom = domain{domain_kind::pow2, 32, 512, false, {}};
  EXPECT_EQ(probe_ladder(align, dev, 16), (std::vector<std::int64_t>{128, 32, 256, 512}));
  tunable cores;  // "all cores" (0, the platform query) probes counts below the device's
  cores.value = 0;
  cores.dom = domain{domain_kind::cores, 1, 0, false, {}};
  EXPECT_EQ(probe_ladder(cores, dev, 16), (std::vector<std::int64_t>{39, 20, 10, 38, 21, 19}));
  cores.value = 10;  // a written count probes "all cores" too
  EXPECT_EQ(probe_ladder(cores, dev, 16), (std::vector<std::int64_t>{9, 11, 20, 5, 0, 2, 38, 21, 19}));
  tunable flag;
  flag.value = 1;
  flag.dom = domain{domain_kind::choices, 0, 0, false, {0, 1, 2}};
  EXPECT_EQ(probe_ladder(flag, dev, 16), (std::vector<std::int64_t>{0, 2}));
}

TEST(FeasibilityProbe, HistoryKeepsThePassingValuesOnlyWhenOneFailed) {
  stage1_history h;
  h.record_probe(0, 8, 16, true);
  h.record_probe(0, 8, 32, true);
  EXPECT_FALSE(h.allowed(0));  // every probe passed: the domain stands
  EXPECT_TRUE(h.probed());
  h.record_probe(0, 8, 9, false);
  h.record_probe(0, 8, 4, true);
  ASSERT_TRUE(h.allowed(0));
  EXPECT_EQ(*h.allowed(0), (std::vector<std::int64_t>{4, 8, 16, 32}));
  EXPECT_TRUE(h.tabu(0, 9));
  EXPECT_FALSE(h.tabu(0, 16));
  EXPECT_FALSE(h.fragile(0));  // a probe is not an evaluation: the tunable still moves alone
  EXPECT_FALSE(h.evaluated({9}));
  EXPECT_FALSE(h.allowed(1));
}

// Fixture: a tiling function in the idiom of element-wise operators whose kernel needs aligned
// copies (constants for the cores and the tiles, the total length in the tiling data).
const char* kAlignedAdd = R"(#include "aligned_add_tiling.h"
namespace optiling {
const uint32_t BLOCK_DIM = 8;
const uint32_t TILE_NUM = 8;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingData tiling;
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    context->SetBlockDim(BLOCK_DIM);
    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(TILE_NUM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}
)";

// The template of kAlignedAdd, with the indexes of its BLOCK_DIM and TILE_NUM tunables.
struct aligned_add_template {
  tiling_template t;
  std::size_t bd = 0, tn = 0;
};
aligned_add_template aligned_add() {
  synthesis_input in;
  in.host_files.push_back({"op_host/aligned_add.cpp", kAlignedAdd});
  auto syn = synthesize(in);
  if (!syn.tmpl) throw std::runtime_error("kAlignedAdd: " + syn.error->reason);
  const auto bd = syn.tmpl->find("BLOCK_DIM");
  const auto tn = syn.tmpl->find("TILE_NUM");
  if (!bd || !tn) throw std::runtime_error("kAlignedAdd: no BLOCK_DIM or TILE_NUM tunable");
  return {*syn.tmpl, *bd, *tn};
}

TEST(FeasibilityProbe, LoopProbesOnceAndTheMutatorKeepsToTheKeptValues) {
  const auto aa = aligned_add();
  const tiling_template& t = aa.t;
  const std::optional<std::size_t> bd = aa.bd, tn = aa.tn;
  EXPECT_EQ(t.tunables[*bd].kind, tunable_kind::block_dim);  // SetBlockDim's constant counts cores
  const assignment base = t.base();
  // The fixture kernel's rule (add_kernel_runs over the three cases), by the screen's model.
  auto runs = [&](const assignment& v) {
    bool ok = true;
    for (const auto& c : kCases) ok = ok && add_kernel_runs(c, v[*bd], v[*tn]);
    return ok;
  };
  std::size_t screens = 0;
  std::vector<std::string> notes;
  auto screen = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<screen_verdict> why;
    for (const auto& p : ps) {
      ++screens;
      EXPECT_FALSE(p.files.empty());
      why.push_back({runs(p.values) ? std::nullopt : std::optional<std::string>("misaligned"), false, {}});
    }
    return why;
  };
  mutator m(t, mutator_config{}, 7);
  std::cout << "seed 7" << std::endl;
  auto propose = [&](const tiling_template&, const stage1_history& h, std::size_t n)
      -> search::outcome<std::vector<tiling_proposal>> { return m.propose(h, n); };
  std::size_t failed = 0;
  auto evaluate = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    for (const auto& p : ps) {
      const bool ok = runs(p.values);
      failed += !ok;
      out.push_back(ok ? eval_outcome{true, 100.0 / static_cast<double>(p.values[*bd] + p.values[*tn]), "ok", "", false}
                       : eval_outcome{false, 0, "precision_error", "", false});
    }
    return out;
  };
  stage1_history h;
  h.record(tiling_proposal{base, {}, "base", "base", std::nullopt, {}}, eval_outcome{true, 10, "ok", "", false});
  stage1_config cfg;
  cfg.steps = 6;
  cfg.proposals_per_step = 4;
  // Under the 11 variants the kept values give that the kernel runs and the history does not
  // rule out (a screened two-change variant makes its value tabu).
  cfg.budget = 10;
  cfg.evaluate_base = false;
  cfg.note = [&](const std::string& line) { notes.push_back(line); };
  const auto r = run_stage1(t, propose, evaluate, cfg, h, screen);
  EXPECT_GT(r.probed, 0u);
  EXPECT_GE(screens, r.probed);
  ASSERT_TRUE(h.allowed(*bd));  // 7 and 9 break the alignment
  const std::vector<std::int64_t> kept = *h.allowed(*bd);
  for (auto v : kept) {
    assignment a = base;
    a[*bd] = v;
    EXPECT_TRUE(runs(a)) << v;
  }
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_NE(notes.front().find("BLOCK_DIM: "), std::string::npos) << notes.front();
  // Every proposal the mutator made moved BLOCK_DIM only among the kept values, so no evaluation
  // failed, and the budget was spent, not given up.
  for (const auto& e : h.entries()) {
    if (e.values[*bd] != base[*bd]) {
      EXPECT_NE(std::find(kept.begin(), kept.end(), e.values[*bd]), kept.end()) << e.description;
    }
  }
  EXPECT_EQ(failed, 0u);
  EXPECT_EQ(r.evaluations, 10u) << r.stop_reason << "; " << notes.front() << "; " << notes.back() << "; screened " << r.screened;
  // A second run on the same history does not probe again.
  const std::size_t before = screens;
  cfg.budget = 1;
  const auto r2 = run_stage1(t, propose, evaluate, cfg, h, screen);
  EXPECT_EQ(r2.probed, 0u);
  EXPECT_LE(screens - before, 4u * (cfg.screen_refills + 1));
}

// A tunable that changes nothing the cases run (here TILE_NUM, as if it sat in another dtype's
// branch: the screen reports the base's tiling for every value) is frozen by its probes; without
// probes, a proposal that changes only such values is not measured.
TEST(FeasibilityProbe, TunablesThatNeverChangeTheTilingAreFrozen) {
  const auto aa = aligned_add();
  const tiling_template& t = aa.t;
  const std::optional<std::size_t> bd = aa.bd, tn = aa.tn;
  const assignment base = t.base();
  auto screen = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<screen_verdict> out;
    for (const auto& p : ps) out.push_back({std::nullopt, p.values[*bd] == base[*bd], {}});
    return out;
  };
  std::size_t evaluated_tile_only = 0;
  auto evaluate = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<eval_outcome> out;
    for (const auto& p : ps) {
      evaluated_tile_only += p.values[*bd] == base[*bd];
      out.push_back(eval_outcome{true, 100.0 / static_cast<double>(p.values[*bd]), "ok", "", false});
    }
    return out;
  };
  auto run = [&](const tiling_template& tt, std::size_t probes, stage1_history& h, std::vector<std::string>& notes) {
    mutator m(tt, mutator_config{}, 11);
    std::cout << "seed 11" << std::endl;
    auto propose = [&](const tiling_template&, const stage1_history& hh, std::size_t n)
        -> search::outcome<std::vector<tiling_proposal>> { return m.propose(hh, n); };
    h.record(tiling_proposal{base, {}, "base", "base", std::nullopt, {}}, eval_outcome{true, 100.0 / static_cast<double>(base[*bd]), "ok", "", false});
    stage1_config cfg;
    cfg.steps = 4;
    cfg.proposals_per_step = 4;
    cfg.budget = 10;
    cfg.evaluate_base = false;
    cfg.probes_per_tunable = probes;
    cfg.note = [&](const std::string& line) { notes.push_back(line); };
    return run_stage1(tt, propose, evaluate, cfg, h, screen);
  };
  {
    stage1_history h;
    std::vector<std::string> notes;
    const auto r = run(t, 8, h, notes);
    EXPECT_TRUE(h.frozen(*tn));
    EXPECT_FALSE(h.frozen(*bd));
    EXPECT_EQ(evaluated_tile_only, 0u);
    for (const auto& e : h.entries()) EXPECT_EQ(e.values[*tn], base[*tn]) << e.description;
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes.front().find("frozen"), std::string::npos) << notes.front();
    EXPECT_NE(notes.front().find("TILE_NUM"), std::string::npos) << notes.front();
    EXPECT_GT(r.evaluations, 0u);
  }
  {  // no probes: proposals that move TILE_NUM alone are answered by the screen, not measured
    stage1_history h;
    std::vector<std::string> notes;
    evaluated_tile_only = 0;
    const auto r = run(t, 0, h, notes);
    std::size_t same = 0;
    for (const auto& e : h.entries()) same += e.outcome.status == "same_tiling";
    EXPECT_EQ(evaluated_tile_only, 0u);
    EXPECT_GT(same, 0u) << "seed 11 proposes TILE_NUM-only moves";
    EXPECT_FALSE(h.frozen(*tn));
    EXPECT_EQ(r.failures, 0u) << "a proposal not measured is not a failed evaluation";
  }
  {  // a tunable the kernel reads is never frozen: the same tiling is not the same program
    tiling_template linked = t;
    linked.tunables[*tn].kernel_linked = true;
    stage1_history h;
    std::vector<std::string> notes;
    evaluated_tile_only = 0;
    run(linked, 8, h, notes);
    EXPECT_FALSE(h.frozen(*tn));
  }
}

// The probe budget spreads breadth first: with as many probes as tunables, every tunable gets
// one (depth first, the first tunable's ladder would take them all and the last would never be
// probed, nor frozen).
TEST(FeasibilityProbe, TheProbeBudgetReachesEveryTunable) {
  const auto aa = aligned_add();
  const tiling_template& t = aa.t;
  const assignment base = t.base();
  ASSERT_GE(t.tunables.size(), 2u);
  std::map<std::size_t, std::size_t> probed;  // tunable -> probes
  auto screen = [&](const std::vector<tiling_proposal>& ps) {
    std::vector<screen_verdict> out;
    for (const auto& p : ps) {
      for (std::size_t i = 0; i < base.size(); ++i) probed[i] += p.values[i] != base[i];
      out.push_back({std::nullopt, false, {}});
    }
    return out;
  };
  auto evaluate = [&](const std::vector<tiling_proposal>& ps) {
    return std::vector<eval_outcome>(ps.size(), eval_outcome{true, 1.0, "ok", "", false});
  };
  mutator m(t, mutator_config{}, 3);
  auto propose = [&](const tiling_template&, const stage1_history& hh, std::size_t n)
      -> search::outcome<std::vector<tiling_proposal>> { return m.propose(hh, n); };
  stage1_history h;
  h.record(tiling_proposal{base, {}, "base", "base", std::nullopt, {}}, eval_outcome{true, 1.0, "ok", "", false});
  stage1_config cfg;
  cfg.steps = 0;
  cfg.evaluate_base = false;
  cfg.probes_per_tunable = 8;
  cfg.max_probes = t.tunables.size();
  run_stage1(t, propose, evaluate, cfg, h, screen);
  for (std::size_t i = 0; i < t.tunables.size(); ++i) {
    if (probe_ladder(t.tunables[i], cfg.limits, cfg.probes_per_tunable).empty()) continue;
    EXPECT_EQ(probed[i], 1u) << t.tunables[i].name;
  }
}

TEST(FeasibilityProbe, FrozenNeedsEveryProbeToTileAsTheBase) {
  stage1_history h;
  EXPECT_FALSE(h.frozen(0));
  h.record_probe(0, 8, 16, true, true);
  h.record_probe(0, 8, 4, true, true);
  EXPECT_TRUE(h.frozen(0));
  h.record_probe(0, 8, 2, true, false);
  EXPECT_FALSE(h.frozen(0));
  h.record_probe(1, 8, 16, false, true);  // a failing probe is no evidence of inertness
  EXPECT_FALSE(h.frozen(1));
}

}  // namespace
}  // namespace aopt::stage1

namespace aopt::stage1 {
namespace {

// Fixture D, in the style of a compare operator's host code: every core but the last takes
// blockLengthMean elements (a multiple of the tile), the last takes the rest,
//   blockLengthEnd = totalLength - blockLengthMean * (coreNum - 1);
// (fewer cores when there are fewer tiles than cores) and the kernel's Init picks its length by
// GetBlockIdx(). Words: {total, mean, end, tile}.
tiling_facts partition_tiling(const fixture_case& c, std::int64_t cores, std::int64_t tile) {
  cores = std::max<std::int64_t>(1, std::min(cores, c.elements / tile));  // no core without a tile
  const std::int64_t per_core = c.elements / cores;
  const std::int64_t mean = std::max<std::int64_t>(tile, per_core / tile * tile);
  const std::int64_t end = c.elements - mean * (cores - 1);  // wraps below 0 when mean is too large
  return {c.name, cores, 0, {c.elements, mean, end, tile}, c.elements, c.elem_bytes};
}

TEST(Feasibility, ALastCoreTakingTheRestMayTakeMoreThanTheOthers) {
  std::vector<tiling_facts> base;
  for (const auto& c : kCases) base.push_back(partition_tiling(c, 40, 512));
  const feasibility_screen screen(base, device_limits{40, 196608});
  bool has_partition = false;
  for (const auto& d : screen.describe()) has_partition = has_partition || d.find("x (block dim - 1) +") != std::string::npos;
  EXPECT_TRUE(has_partition);
  auto variant = [](std::int64_t cores, std::int64_t tile, std::int64_t end_delta = 0) {
    screen_outcome s{true, "ok", "", {}};
    for (const auto& c : kCases) {
      s.cases.push_back(partition_tiling(c, cores, tile));
      s.cases.back().words[2] += end_delta;
    }
    return s;
  };
  // Larger tiles leave the last core more than the others (perf: 39 x 51200 + 100352): the
  // kernel runs it, and the span of the last core's word times the cores passes the tensor.
  const auto larger = variant(40, 2048);
  ASSERT_GT(larger.cases[0].words[2] * 40, kCases[0].elements);
  EXPECT_FALSE(screen.check(larger)) << *screen.check(larger);
  EXPECT_FALSE(screen.check(variant(20, 512))) << *screen.check(variant(20, 512));
  // A last core's length that no longer completes the tensor is rejected, naming the sum.
  const auto broken = screen.check(variant(40, 512, 32));
  ASSERT_TRUE(broken);
  EXPECT_NE(broken->find("partitioned"), std::string::npos) << *broken;
}

// cast's tiling in the screen's terms: a per-core block count, a tile count and the count of
// cores that take one block more (a remainder: 0 when the blocks share evenly), over a perf case
// of 2^21 fp16 elements, a tail case of 37037 (no whole number of 32-byte blocks: the kernel
// copies a partial block) and a small case on one core.
tiling_facts cast_tiling(const std::string& name, std::int64_t elements, std::int64_t cores) {
  const std::int64_t blocks = (elements * 2 + 31) / 32;
  const std::int64_t bd = elements <= 1024 ? 1 : cores;
  const std::int64_t per_core = blocks / bd, tail_cores = blocks % bd;
  const std::int64_t tiles = (per_core + 979) / 980;
  return {name, bd, 0, {per_core, tiles, tail_cores}, elements, 2};
}

TEST(Feasibility, ARemainderOrATileCountTheBaseRunsWithoutIsNoDivisor) {
  auto cases = [](std::int64_t cores) {
    screen_outcome s{true, "ok", "", {}};
    s.cases = {cast_tiling("perf", 2097152, cores), cast_tiling("tail", 37037, cores), cast_tiling("small", 100, cores)};
    return s;
  };
  const auto base = cases(24).cases;
  ASSERT_EQ(base[0].words[2], 8);   // 131072 blocks over 24 cores: 8 take one more
  ASSERT_EQ(base[2].words[2], 0);   // the small case: one core, no remainder
  ASSERT_EQ(base[0].words[1], 6);   // perf: 5462 blocks a core in tiles of 980 blocks
  const feasibility_screen screen(base, device_limits{40, 196608});
  for (const auto& d : screen.describe()) {
    // Word 2 is 0 in a case the base ran: no kernel divides by it.
    EXPECT_EQ(d.find("tiling word 2 != 0"), std::string::npos) << d;
    // No split into whole blocks: the tail case runs with pieces that are none.
    EXPECT_EQ(d.find("into whole 32-byte blocks"), std::string::npos) << d;
  }
  // 16 and 32 cores share 131072 blocks evenly (remainder 0), 20 leaves a tile count of 7 that
  // does not divide 2^21 into whole blocks: the kernel runs all three.
  for (std::int64_t cores : {16, 20, 32}) EXPECT_FALSE(screen.check(cases(cores))) << cores << ": " << *screen.check(cases(cores));
  // What the kernel does need still holds: the cores.
  EXPECT_TRUE(screen.check(cases(48)));
}

}  // namespace
}  // namespace aopt::stage1
