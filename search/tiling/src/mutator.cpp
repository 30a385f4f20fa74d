#include "aopt/stage1/mutator.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "aopt/common/error.h"

namespace aopt::stage1 {

// --- history ---------------------------------------------------------------------------------

namespace {
// A failure of capacity: out of UB, or out of time. A rewritten kernel may fit where this one did not.
bool capacity_failure(const eval_outcome& o) {
  if (o.ok) return false;
  if (o.status == "timeout") return true;
  std::string m;
  for (char c : o.message) m.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return m.find("ub_overflow") != std::string::npos || m.find("ub overflow") != std::string::npos;
}
}  // namespace

void stage1_history::record(const tiling_proposal& p, const eval_outcome& o) {
  entries_.push_back({p.values, o, p.op, p.description});
  by_hash_[hash_assignment(p.values)].push_back(entries_.size() - 1);
  if (!p.parent || p.changed.empty() || p.changed.size() > 2) return;
  const entry* parent = lookup(*p.parent);
  if (parent == nullptr || !parent->outcome.ok) return;
  for (std::size_t i : p.changed) {
    if (i >= p.values.size()) return;
  }
  // A (tunable, value) changed in two failures and in no passing variant is tabu as well (the
  // failures of joint moves point at it, e.g. a block count that never splits the tensor evenly).
  for (std::size_t i : p.changed) {
    auto& [failed, passed] = seen_[{i, p.values[i]}];
    (o.ok ? passed : failed) += 1;
    if (failed >= 2 && passed == 0) {
      tabu_.insert({i, p.values[i]});
      if (capacity_failure(o)) capacity_tabu_.insert({i, p.values[i]});
    }
  }
  const std::size_t a = p.changed.front();
  if (!o.ok && p.changed.size() == 1) {
    tabu_.insert({a, p.values[a]});
    if (capacity_failure(o)) capacity_tabu_.insert({a, p.values[a]});
    fragile_.insert(a);
    return;
  }
  if (p.changed.size() != 2) return;
  const std::size_t b = p.changed.back();
  if (!o.ok) {
    tabu_pairs_.insert({{a, p.values[a]}, {b, p.values[b]}});
  } else if (fragile(a) || fragile(b)) {
    partners_[a].insert(b);
    partners_[b].insert(a);
  }
}

std::optional<std::int64_t> stage1_history::tabu_above(std::size_t tunable, std::int64_t value) const {
  if (value == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  const auto it = tabu_.lower_bound({tunable, value + 1});
  if (it == tabu_.end() || it->first != tunable) return std::nullopt;
  return it->second;
}

bool stage1_history::passed_with(std::size_t tunable, std::int64_t value) const {
  for (const auto& e : entries_) {
    if (e.outcome.ok && tunable < e.values.size() && e.values[tunable] == value) return true;
  }
  return false;
}

bool stage1_history::tabu_pair(const assignment& values, const assignment& base) const {
  for (const auto& [x, y] : tabu_pairs_) {
    if (x.first >= values.size() || y.first >= values.size() || x.first >= base.size() || y.first >= base.size()) continue;
    if (values[x.first] != x.second || values[y.first] != y.second) continue;
    if (values[x.first] != base[x.first] || values[y.first] != base[y.first]) return true;
  }
  return false;
}

std::vector<std::size_t> stage1_history::partners(std::size_t tunable) const {
  const auto it = partners_.find(tunable);
  if (it == partners_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

const stage1_history::entry* stage1_history::lookup(const assignment& values) const {
  const auto it = by_hash_.find(hash_assignment(values));
  if (it == by_hash_.end()) return nullptr;
  for (std::size_t i : it->second) {
    if (entries_[i].values == values) return &entries_[i];
  }
  return nullptr;
}

std::vector<const stage1_history::entry*> stage1_history::best(std::size_t k) const {
  std::vector<const entry*> ok;
  for (const auto& e : entries_) {
    if (e.outcome.ok) ok.push_back(&e);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const entry* a, const entry* b) { return a->outcome.latency_us < b->outcome.latency_us; });
  if (ok.size() > k) ok.resize(k);
  return ok;
}

void stage1_history::record_probe(std::size_t tunable, std::int64_t base_value, std::int64_t value, bool passed,
                                  bool same_tiling) {
  auto& r = probes_[tunable];
  ++r.tried;
  if (passed && same_tiling) ++r.same_tiling;
  r.passed.insert(base_value);
  if (passed) {
    r.passed.insert(value);
  } else {
    ++r.failed;
    r.failed_values.insert(value);
    tabu_.insert({tunable, value});
  }
}

void stage1_history::inherit_tabu(const stage1_history& from, const std::vector<std::optional<std::size_t>>& index,
                                  const assignment& base, bool kernel_changed) {
  for (const auto& [i, v] : from.tabu_) {
    if (i >= index.size() || !index[i] || *index[i] >= base.size() || base[*index[i]] == v) continue;
    if (kernel_changed && from.capacity_tabu_.count({i, v})) continue;
    tabu_.insert({*index[i], v});
  }
}

bool stage1_history::frozen(std::size_t tunable) const {
  const auto it = probes_.find(tunable);
  return it != probes_.end() && it->second.tried > 0 && it->second.same_tiling == it->second.tried;
}

std::optional<std::vector<std::int64_t>> stage1_history::allowed(std::size_t tunable) const {
  const auto it = probes_.find(tunable);
  if (it == probes_.end() || it->second.failed == 0) return std::nullopt;
  return probe_passed(tunable);
}

std::vector<std::int64_t> stage1_history::probe_passed(std::size_t tunable) const {
  const auto it = probes_.find(tunable);
  if (it == probes_.end()) return {};
  return std::vector<std::int64_t>(it->second.passed.begin(), it->second.passed.end());
}

std::optional<std::pair<std::int64_t, std::int64_t>> stage1_history::passing_span(std::size_t tunable) const {
  const auto it = probes_.find(tunable);
  if (it == probes_.end() || it->second.passed.size() < 2) return std::nullopt;
  const std::int64_t lo = *it->second.passed.begin(), hi = *it->second.passed.rbegin();
  for (std::int64_t f : it->second.failed_values) {
    if (f > lo && f < hi) return std::nullopt;
  }
  return std::make_pair(lo, hi);
}

std::vector<const stage1_history::entry*> stage1_history::failures() const {
  std::vector<const entry*> out;
  for (const auto& e : entries_) {
    if (!e.outcome.ok) out.push_back(&e);
  }
  return out;
}

// --- randomness ------------------------------------------------------------------------------

std::mt19937_64 fork_rng(std::mt19937_64& parent, std::string_view tag) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : tag) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return std::mt19937_64(parent() ^ h);
}

std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n) { return n == 0 ? 0 : rng() % n; }

double uniform_unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// --- config ----------------------------------------------------------------------------------

void mutator_config::validate() const {
  auto bad = [](const std::string& what) { throw aopt::error(ec::invalid_argument, "mutator_config: " + what); };
  if (population == 0) bad("population must be at least 1");
  if (crossover_rate < 0 || restart_rate < 0 || crossover_rate + restart_rate > 1) {
    bad("crossover_rate and restart_rate must be >= 0 with a sum <= 1");
  }
  if (two_change_rate < 0 || two_change_rate > 1) bad("two_change_rate must be in [0, 1]");
  if (max_attempts == 0) bad("max_attempts must be at least 1");
  if (limits.core_count < 1) bad("limits.core_count must be at least 1");
}

// --- mutator ---------------------------------------------------------------------------------

namespace {

std::int64_t resolved_hi(const domain& d, const device_limits& dev) {
  return (d.kind == domain_kind::cores || (d.kind == domain_kind::range && d.hi == 0 && d.lo >= 1)) ? dev.core_count
                                                                                                      : d.hi;
}

std::int64_t floor_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p <= v / 2) p <<= 1;
  return p;
}

// The granule a size keeps: the largest power of two up to 32 dividing its written value.
std::int64_t granule_of(std::int64_t base) {
  if (base <= 0) return 32;
  std::int64_t g = 1;
  while (g < 32 && base % (g * 2) == 0) g *= 2;
  return g;
}

std::int64_t round_to(std::int64_t v, std::int64_t g) {
  const std::int64_t r = (v + g / 2) / g * g;
  return std::max(g, r);
}

// The values a probe-restricted tunable may take: the passing probes, and when they span a
// range no failing probe falls in, every value of the domain's grid within it (integers for a
// range or a core count, multiples of the written value's granule for a log range, powers of
// two), up to max_widened of them; the passing probes alone past that.
constexpr std::size_t max_widened = 256;
std::vector<std::int64_t> widened(const tunable& t, std::vector<std::int64_t> passed,
                                  const std::optional<std::pair<std::int64_t, std::int64_t>>& span) {
  if (!span) return passed;
  const auto [lo, hi] = *span;
  std::vector<std::int64_t> grid;
  auto add = [&](std::int64_t x) {
    if (x >= lo && x <= hi && x >= t.dom.lo) grid.push_back(x);
  };
  switch (t.dom.kind) {
    case domain_kind::choices:
      return passed;
    case domain_kind::pow2:
      for (std::int64_t x = 1; x > 0 && x <= hi; x *= 2) add(x);
      break;
    case domain_kind::log_range: {
      const std::int64_t g = granule_of(t.value);
      if ((hi - lo) / g > static_cast<std::int64_t>(max_widened)) return passed;
      for (std::int64_t x = (lo + g - 1) / g * g; x <= hi; x += g) add(x);
      break;
    }
    case domain_kind::range:
    case domain_kind::cores:
      if (hi - lo > static_cast<std::int64_t>(max_widened)) return passed;
      for (std::int64_t x = lo; x <= hi; ++x) add(x);
      break;
  }
  std::set<std::int64_t> all(passed.begin(), passed.end());
  all.insert(grid.begin(), grid.end());
  return std::vector<std::int64_t>(all.begin(), all.end());
}

}  // namespace

mutator::mutator(const tiling_template& tmpl, mutator_config cfg, std::uint64_t seed)
    : mutator(tmpl, std::move(cfg), std::mt19937_64(seed)) {}

mutator::mutator(const tiling_template& tmpl, mutator_config cfg, std::mt19937_64 rng)
    : tmpl_(tmpl), cfg_(std::move(cfg)), rng_(rng) {
  cfg_.validate();
  for (std::size_t i = 0; i < tmpl_.tunables.size(); ++i) {
    const tunable& t = tmpl_.tunables[i];
    if (t.fixed(cfg_.limits)) continue;
    if (t.kind == tunable_kind::key && !cfg_.mutate_keys) continue;
    mutable_.push_back(i);
  }
}

std::int64_t mutator::move(const tunable& t, std::int64_t v) {
  const domain& d = t.dom;
  const std::int64_t hi = resolved_hi(d, cfg_.limits);
  auto clamp = [&](std::int64_t x) { return std::clamp(x, d.lo, std::max(d.lo, hi)); };
  switch (d.kind) {
    case domain_kind::choices: {
      if (d.choices.size() < 2) return v;
      std::vector<std::int64_t> others;
      for (auto c : d.choices) {
        if (c != v) others.push_back(c);
      }
      return others[uniform_index(rng_, others.size())];
    }
    case domain_kind::pow2: {
      if (v == 0) return d.lo;
      static constexpr int shifts[] = {1, -1, 2, -2};
      const int s = shifts[uniform_index(rng_, 4)];
      std::int64_t nv = s > 0 ? v << s : v >> -s;
      nv = clamp(floor_pow2(std::max<std::int64_t>(1, nv)));
      if (nv == v) nv = (v < hi) ? clamp(v * 2) : clamp(v / 2);
      if (nv == v && d.allow_zero) nv = 0;
      return nv;
    }
    case domain_kind::log_range: {
      const std::int64_t g = granule_of(t.value);
      if (v == 0) return clamp(round_to(d.lo << uniform_index(rng_, 4), g));
      static constexpr int shifts[] = {1, -1, 2, -2};
      const int s = shifts[uniform_index(rng_, 4)];
      if (s < 0 && v == d.lo && d.allow_zero) return 0;
      std::int64_t nv = s > 0 ? v << s : v >> -s;
      nv = clamp(round_to(std::max<std::int64_t>(1, nv), g));
      if (nv == v) nv = (v < hi) ? clamp(round_to(v * 2, g)) : clamp(round_to(v / 2, g));
      return nv;
    }
    case domain_kind::range: {
      const bool cores_like = d.hi == 0 && d.lo >= 1;
      std::int64_t nv = v;
      const auto r = uniform_index(rng_, 4);
      if (cores_like) nv = r == 0 ? v - 1 : r == 1 ? v + 1 : r == 2 ? v * 2 : v / 2;
      else nv = v + (r == 0 ? -2 : r == 1 ? -1 : r == 2 ? 1 : 2);
      nv = clamp(nv);
      if (nv == v) nv = (v < hi) ? v + 1 : v - 1;
      return clamp(nv);
    }
    case domain_kind::cores: {
      const std::int64_t c = cfg_.limits.core_count;
      if (v == 0) return std::max<std::int64_t>(1, c >> (1 + uniform_index(rng_, 3)));
      const auto r = uniform_index(rng_, 5);
      std::int64_t nv = r == 0 ? v + 1 : r == 1 ? v - 1 : r == 2 ? v * 2 : r == 3 ? v / 2 : 0;
      if (nv != 0) nv = std::clamp<std::int64_t>(nv, 1, c);
      if (nv >= c || nv == v) nv = 0;  // "all cores" is written as the platform query
      return nv;
    }
  }
  return v;
}

std::vector<std::int64_t> mutator::neighbours(const tunable& t, std::int64_t v) const {
  const domain& d = t.dom;
  const std::int64_t hi = std::max(d.lo, resolved_hi(d, cfg_.limits));
  std::vector<std::int64_t> cand;
  switch (d.kind) {
    case domain_kind::choices: {
      const auto it = std::find(d.choices.begin(), d.choices.end(), v);
      if (it == d.choices.end()) break;
      if (it != d.choices.begin()) cand.push_back(*std::prev(it));
      if (std::next(it) != d.choices.end()) cand.push_back(*std::next(it));
      break;
    }
    case domain_kind::pow2:
      if (v == 0) {
        cand.push_back(d.lo);
      } else {
        if (v / 2 >= d.lo) cand.push_back(floor_pow2(v / 2));
        else if (d.allow_zero) cand.push_back(0);
        if (v * 2 <= hi) cand.push_back(floor_pow2(v * 2));
      }
      break;
    case domain_kind::log_range: {
      const std::int64_t g = granule_of(t.value);
      if (v == 0) {
        cand.push_back(std::clamp(round_to(d.lo, g), d.lo, hi));
      } else {
        const std::int64_t down = round_to(std::max<std::int64_t>(1, v / 2), g);
        if (down >= d.lo && down < v) cand.push_back(down);
        else if (d.allow_zero) cand.push_back(0);
        const std::int64_t up = round_to(v * 2, g);
        if (up <= hi && up > v) cand.push_back(up);
      }
      break;
    }
    case domain_kind::range:
      if (v - 1 >= d.lo) cand.push_back(v - 1);
      if (v + 1 <= hi) cand.push_back(v + 1);
      break;
    case domain_kind::cores: {
      const std::int64_t c = cfg_.limits.core_count;
      const std::int64_t cores = v == 0 ? c : v;  // 0: "all cores", the platform query
      if (cores - 1 >= 1) cand.push_back(cores - 1);
      if (v != 0) cand.push_back(cores + 1 >= c ? 0 : cores + 1);
      break;
    }
  }
  std::vector<std::int64_t> out;
  for (auto x : cand) {
    if (x != v && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  return out;
}

std::int64_t mutator::sample(const tunable& t) {
  const domain& d = t.dom;
  const std::int64_t hi = resolved_hi(d, cfg_.limits);
  switch (d.kind) {
    case domain_kind::choices: return d.choices.empty() ? t.value : d.choices[uniform_index(rng_, d.choices.size())];
    case domain_kind::pow2: {
      std::vector<std::int64_t> vals;
      if (d.allow_zero) vals.push_back(0);
      for (std::int64_t p = 1; p > 0 && p <= hi; p <<= 1) {
        if (p >= d.lo) vals.push_back(p);
      }
      return vals.empty() ? t.value : vals[uniform_index(rng_, vals.size())];
    }
    case domain_kind::log_range: {
      // Log-uniform: a power of two between lo and hi, then snapped to the granule.
      std::vector<std::int64_t> vals;
      if (d.allow_zero) vals.push_back(0);
      for (std::int64_t p = floor_pow2(std::max<std::int64_t>(1, d.lo)); p > 0 && p <= hi; p <<= 1) {
        vals.push_back(std::clamp(round_to(p, granule_of(t.value)), d.lo, hi));
      }
      return vals.empty() ? t.value : vals[uniform_index(rng_, vals.size())];
    }
    case domain_kind::range:
      return hi < d.lo ? d.lo : d.lo + static_cast<std::int64_t>(uniform_index(rng_, static_cast<std::uint64_t>(hi - d.lo + 1)));
    case domain_kind::cores:
      return static_cast<std::int64_t>(uniform_index(rng_, static_cast<std::uint64_t>(cfg_.limits.core_count)));
  }
  return t.value;
}

std::vector<std::int64_t> probe_ladder(const tunable& t, const device_limits& limits, std::size_t max) {
  const domain& d = t.dom;
  const std::int64_t v = t.value;
  std::vector<std::int64_t> cand;
  switch (d.kind) {
    case domain_kind::choices:
      cand = d.choices;
      break;
    case domain_kind::pow2:
    case domain_kind::log_range: {
      const std::int64_t g = d.kind == domain_kind::log_range ? granule_of(v) : 1;
      auto snap = [&](std::int64_t x) { return d.kind == domain_kind::pow2 ? floor_pow2(x) : round_to(x, g); };
      if (v == 0) {
        for (int k = 0; k < 4; ++k) cand.push_back(snap(std::max<std::int64_t>(1, d.lo) << k));
        break;
      }
      for (std::int64_t f : {2, 4, 8}) {
        cand.push_back(snap(v * f));
        if (v / f > 0) cand.push_back(snap(v / f));
      }
      if (d.allow_zero) cand.push_back(0);
      break;
    }
    case domain_kind::range:
    case domain_kind::cores: {
      const std::int64_t c = limits.core_count;
      const std::int64_t cur = (d.kind == domain_kind::cores && v == 0) ? c : v;
      const bool counts_cores = d.kind == domain_kind::cores || (d.hi == 0 && d.lo >= 1);
      cand = {cur - 1, cur + 1, cur * 2, cur / 2, cur * 4, cur / 4};
      if (counts_cores) {
        cand.push_back(d.kind == domain_kind::cores ? 0 : c);
        cand.push_back(c / 2);
        // Finer near a cap: below the operator's own (a count above it tiles as the cap does),
        // then below the device's and around its half (issue 39).
        const std::int64_t cap = limits.core_cap;
        if (cap > 1 && cap < c) cand.insert(cand.end(), {cap - 1, cap - 2, cap / 2 + 1, cap / 2});
        cand.insert(cand.end(), {c - 2, c / 2 + 1, c / 2 - 1});
      }
      break;
    }
  }
  const std::int64_t hi = std::max(d.lo, resolved_hi(d, limits));
  std::vector<std::int64_t> out;
  for (std::int64_t x : cand) {
    if (d.kind == domain_kind::cores && x >= limits.core_count) x = 0;  // "all cores" is the platform query
    const bool inside = (x == 0 && (d.allow_zero || d.kind == domain_kind::cores)) ||
                        d.kind == domain_kind::choices || (x >= d.lo && x <= hi && x >= 1);
    if (!inside || x == v || std::find(out.begin(), out.end(), x) != out.end()) continue;
    out.push_back(x);
    if (out.size() >= max) break;
  }
  return out;
}

std::vector<std::vector<std::size_t>> mutator::sibling_groups(const std::vector<std::size_t>& among) const {
  // The name without a trailing "_<digits>" (synthesis numbers the second and later tunables of
  // one target and role that way).
  auto stem = [](const std::string& name) {
    std::size_t e = name.size();
    while (e > 0 && std::isdigit(static_cast<unsigned char>(name[e - 1]))) --e;
    if (e < name.size() && e > 0 && name[e - 1] == '_') return name.substr(0, e - 1);
    return name;
  };
  std::map<std::pair<std::string, tunable_kind>, std::vector<std::size_t>> by_stem;
  for (std::size_t i : among) {
    const tunable& t = tmpl_.tunables[i];
    if (t.kind == tunable_kind::key || t.kind == tunable_kind::flag || t.dom.kind == domain_kind::choices) continue;
    by_stem[{stem(t.name), t.kind}].push_back(i);
  }
  std::vector<std::vector<std::size_t>> out;
  for (auto& [k, g] : by_stem) {
    if (g.size() >= 2) out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end());
  return out;
}

assignment mutator::step(const assignment& parent, std::size_t i) {
  assignment child = parent;
  if (const auto r = restricted_.find(i); r != restricted_.end()) {
    std::vector<std::int64_t> others;
    for (std::int64_t x : r->second) {
      if (x != parent.at(i)) others.push_back(x);
    }
    if (!others.empty()) child.at(i) = others[uniform_index(rng_, others.size())];
    return child;
  }
  child.at(i) = move(tmpl_.tunables.at(i), parent.at(i));
  return child;
}

assignment mutator::crossover(const assignment& a, const assignment& b) {
  assignment child = a;
  for (std::size_t i = 0; i < child.size() && i < b.size(); ++i) {
    if (uniform_index(rng_, 2) == 1) child[i] = b[i];
  }
  return child;
}

assignment mutator::restart() {
  assignment child = tmpl_.base();
  for (std::size_t i : mutable_) {
    const auto r = restricted_.find(i);
    child[i] = r == restricted_.end() ? sample(tmpl_.tunables[i]) : r->second[uniform_index(rng_, r->second.size())];
  }
  return child;
}

std::optional<std::string> mutator::infeasible(const assignment& values) const {
  if (auto why = tmpl_.check(values, cfg_.limits)) return why;
  for (const auto& rule : cfg_.rules) {
    if (auto why = rule(tmpl_, values)) return why;
  }
  return std::nullopt;
}

namespace {

// One propose call's batch: the proposals admitted so far and the phases that fill it (repair,
// scouting, random moves, sweep), in that order, each stopping once n are admitted.
struct proposal_batch {
  mutator& m;
  const tiling_template& tmpl;
  const mutator_config& cfg;
  std::mt19937_64& rng;
  const std::map<std::size_t, std::vector<std::int64_t>>& restricted;
  const stage1_history& history;
  std::size_t n;
  std::vector<std::size_t> active;  // mutable tunables without the frozen ones
  assignment base;
  std::vector<assignment> parents;
  std::vector<tiling_proposal> out;
  std::set<std::uint64_t> seen;

  bool full() const { return out.size() >= n; }

  // Admits a proposal: new, feasible, not tabu; fills its changes and description.
  void admit(tiling_proposal p) {
    if (history.evaluated(p.values) || seen.count(hash_assignment(p.values))) return;
    if (m.infeasible(p.values)) return;
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      if (p.values[i] != base[i] && history.tabu(i, p.values[i])) return;
      // An alignment that broke the operator above the written one (a copy rounded up past its
      // tensor: cann-ops' BLOCK_SIZE = 32 raised to 64 reads beyond the input) breaks it the more
      // the larger it is: values at or above the smallest such failure are skipped.
      if (tmpl.tunables[i].kind == tunable_kind::alignment && p.values[i] > base[i]) {
        const auto bad = history.tabu_above(i, base[i]);
        if (bad && p.values[i] >= *bad) return;
      }
    }
    if (history.tabu_pair(p.values, base)) return;
    // A key value no passing variant has runs another kernel path: it is tried alone first, so
    // that one failure makes it tabu instead of spoiling the tiling changes it came with.
    std::size_t from_base = 0;
    bool untried_key = false;
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      if (p.values[i] == base[i]) continue;
      ++from_base;
      untried_key = untried_key || (tmpl.tunables[i].kind == tunable_kind::key && !history.passed_with(i, p.values[i]));
    }
    if (untried_key && from_base > 1) return;
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      if (p.values[i] != (*p.parent)[i]) p.changed.push_back(i);
    }
    p.description = tmpl.describe_change(p.values);
    seen.insert(hash_assignment(p.values));
    out.push_back(std::move(p));
  }

  // Admits `parent` with tunable i moved to v.
  void admit_single(const assignment& parent, std::size_t i, std::int64_t v, const char* op) {
    tiling_proposal p;
    p.values = parent;
    p.values[i] = v;
    p.op = op;
    p.parent = parent;
    admit(std::move(p));
  }

  // Siblings first: tunables of one target that differ only by a numeric suffix are the same
  // quantity on different paths (sin's UB share `dataTypeLength == 4 ? 8 : 16`, one divisor
  // per dtype). A rewrite that ran out of UB usually runs out on every path, so one step of
  // each in the same direction is tried before single steps, which can fix one path only.
  void repair() {
    for (const auto& group : m.sibling_groups(active)) {
      for (const bool up : {true, false}) {
        if (full()) return;
        tiling_proposal p;
        p.values = base;
        bool all = true;
        for (std::size_t i : group) {
          std::optional<std::int64_t> to;
          for (std::int64_t v : m.neighbours(tmpl.tunables[i], base[i])) {
            if ((up && v > base[i]) || (!up && v < base[i] && v != 0)) to = v;
          }
          all = all && to.has_value();
          if (to) p.values[i] = *to;
        }
        if (!all) continue;
        p.op = "repair";
        p.parent = base;
        admit(std::move(p));
      }
    }
    for (std::size_t i : active) {
      for (std::int64_t v : m.neighbours(tmpl.tunables[i], base[i])) {
        if (full()) return;
        admit_single(base, i, v, "repair");
      }
    }
  }

  // Scouting: up to half the batch moves one tunable of the best parent to a value its probes
  // passed (not yet evaluated), round robin over the tunables, each one's values by distance
  // from the written value with the one-step neighbours last (a core count of 40 probed at 39,
  // 20 and 10 is scouted at 20 first). The random moves alone may spend a round without ever
  // trying the axis that matters (logical_or: 20 cores probed, never evaluated).
  void scout() {
    const assignment& best = parents.front();
    std::vector<std::vector<std::int64_t>> ladder(active.size());
    std::size_t longest = 0;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::size_t i = active[a];
      const tunable& t = tmpl.tunables[i];
      // A core count of 0 is "all cores".
      auto effective = [&](std::int64_t v) { return t.dom.kind == domain_kind::cores && v == 0 ? cfg.limits.core_count : v; };
      const std::int64_t from = effective(best[i]);
      auto distance = [&](std::int64_t v) {
        const std::int64_t x = effective(v);
        if (x <= 0 || from <= 0) return 1e9;
        const double d = std::abs(std::log(static_cast<double>(x) / static_cast<double>(from)));
        return d < 0.1 ? 1e6 + d : d;  // a one-step neighbour of a large value: last
      };
      for (std::int64_t v : history.probe_passed(i)) {
        if (v != best[i]) ladder[a].push_back(v);
      }
      std::stable_sort(ladder[a].begin(), ladder[a].end(), [&](std::int64_t x, std::int64_t y) { return distance(x) < distance(y); });
      longest = std::max(longest, ladder[a].size());
    }
    const std::size_t scouts = (n + 1) / 2;
    for (std::size_t rank = 0; rank < longest && out.size() < scouts; ++rank) {
      for (std::size_t a = 0; a < active.size() && out.size() < scouts; ++a) {
        if (rank >= ladder[a].size()) continue;
        admit_single(best, active[a], ladder[a][rank], "scout");
      }
    }
  }

  // One random mutation, crossover or restart.
  tiling_proposal random_move() {
    tiling_proposal p;
    const double r = uniform_unit(rng);
    if (parents.size() >= 2 && r < cfg.crossover_rate) {
      const auto i = uniform_index(rng, parents.size());
      auto j = uniform_index(rng, parents.size() - 1);
      if (j >= i) ++j;
      p.values = m.crossover(parents[i], parents[j]);
      p.op = "crossover";
      p.parent = parents[i];
    } else if (r >= 1.0 - cfg.restart_rate) {
      p.values = m.restart();
      p.op = "restart";
      p.parent = base;
    } else {
      const assignment& parent = parents[uniform_index(rng, parents.size())];
      const bool coin = active.size() >= 2 && uniform_unit(rng) < cfg.two_change_rate;
      const std::size_t first = active[uniform_index(rng, active.size())];
      // A fragile tunable (its single moves failed) moves jointly, with a partner when one is known.
      const bool joint = active.size() >= 2 && history.fragile(first);
      const std::size_t k = (joint || coin) ? 2 : 1;
      p.values = m.step(parent, first);
      if (k == 2) {
        std::vector<std::size_t> partners;
        for (std::size_t u : history.partners(first)) {
          if (u != first && std::find(active.begin(), active.end(), u) != active.end()) partners.push_back(u);
        }
        std::size_t second = first;
        if (joint && !partners.empty() && uniform_unit(rng) < 0.75) second = partners[uniform_index(rng, partners.size())];
        while (second == first) second = active[uniform_index(rng, active.size())];
        p.values = m.step(p.values, second);
      }
      p.op = joint ? "joint" : "mutate";
      p.parent = parent;
    }
    return p;
  }

  // The sweep: what the random moves did not reach, one change at a time from the best parents
  // (passing ones: a repair has stepped around its failing base already).
  void sweep() {
    for (const auto& parent : parents) {
      for (std::size_t i : active) {
        // A tunable its probes restricted keeps to its allowed values; the others also step to
        // their neighbours.
        std::vector<std::int64_t> values = history.probe_passed(i);
        if (const auto r = restricted.find(i); r != restricted.end()) {
          values = r->second;
        } else {
          for (std::int64_t v : m.neighbours(tmpl.tunables[i], parent[i])) values.push_back(v);
        }
        for (std::int64_t v : values) {
          if (full()) return;
          if (v != parent[i]) admit_single(parent, i, v, "sweep");
        }
      }
    }
  }
};

}  // namespace

std::vector<tiling_proposal> mutator::propose(const stage1_history& history, std::size_t n) {
  if (mutable_.empty() || n == 0) return {};
  restricted_.clear();
  proposal_batch b{*this, tmpl_, cfg_, rng_, restricted_, history, n, {}, tmpl_.base(), {}, {}, {}};
  for (std::size_t i : mutable_) {
    if (history.frozen(i)) {
      restricted_[i] = {tmpl_.tunables[i].value};  // frozen tunables keep the base's value
      continue;
    }
    b.active.push_back(i);
    if (auto a = history.allowed(i)) restricted_[i] = widened(tmpl_.tunables[i], std::move(*a), history.passing_span(i));
  }
  if (b.active.empty()) return {};
  for (const auto* e : history.best(cfg_.population)) {
    if (e->values.size() == b.base.size()) b.parents.push_back(e->values);
  }
  const bool repair = b.parents.empty() && history.size() > 0;
  if (b.parents.empty()) b.parents.push_back(b.base);
  if (repair) b.repair();
  else b.scout();
  std::size_t attempts = 0;
  while (!b.full() && attempts < n * cfg_.max_attempts) {
    ++attempts;
    b.admit(b.random_move());
  }
  if (!repair) b.sweep();
  return std::move(b.out);
}

}  // namespace aopt::stage1
