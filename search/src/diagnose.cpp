#include "aopt/search/diagnose.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "aopt/common/error.h"

namespace aopt::search {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string ratio_str(double v) { return fmt("%.2f", v); }
std::string pct(double v) { return fmt("%.0f", v * 100.0) + "%"; }
std::string us(double v) { return fmt("%.1f", v) + " us"; }

[[noreturn]] void bad_field(const std::string& name, const std::string& what) {
  throw aopt::error(ec::invalid_spec, "profile field '" + name + "': " + what);
}

std::optional<double> number_field(const nlohmann::json& j, const std::string& name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::nullopt;
  double v = 0;
  if (it->is_number()) {
    v = it->get<double>();
  } else if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    if (s.empty() || end == nullptr || *end != '\0')
      bad_field(name, "expected a number, found the string \"" + s + "\"");
  } else {
    bad_field(name, std::string("expected a number, found ") + it->type_name());
  }
  if (!std::isfinite(v) || v < 0) bad_field(name, "must be a finite number >= 0, found " + std::to_string(v));
  return v;
}

std::optional<std::uint64_t> count_field(const nlohmann::json& j, const std::string& name) {
  auto v = number_field(j, name);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v)) bad_field(name, "expected a whole number, found " + std::to_string(*v));
  return static_cast<std::uint64_t>(*v);
}

void check_ratio(const std::optional<double>& r, const char* name) {
  // msprof ratios are fractions of aiv_time; allow a little rounding above 1.
  if (r && *r > 1.5) bad_field(name, "a ratio must be in [0, 1], found " + std::to_string(*r));
}

void add(diagnosis& d, bottleneck_class kind, double score, std::string evidence) {
  d.findings.push_back({kind, std::clamp(score, 0.0, 1.0), std::move(evidence)});
}

}  // namespace

profile_metrics parse_profile(const nlohmann::json& profile) {
  if (!profile.is_object())
    throw aopt::error(ec::invalid_spec, std::string("profile: expected a JSON object, found ") +
                                            profile.type_name());
  const nlohmann::json* p = &profile;
  if (!profile.contains("Task Duration(us)") && profile.contains("timing") &&
      profile["timing"].is_object())
    p = &profile["timing"];
  const nlohmann::json& j = *p;
  profile_metrics m;
  auto task = number_field(j, "Task Duration(us)");
  if (!task)
    bad_field("Task Duration(us)",
              "missing: the Diagnoser needs at least the task duration (msprof OpBasicInfo)");
  m.task_us = *task;
  m.aiv_us = number_field(j, "aiv_time(us)");
  m.vec_ratio = number_field(j, "aiv_vec_ratio");
  m.scalar_ratio = number_field(j, "aiv_scalar_ratio");
  m.mte2_ratio = number_field(j, "aiv_mte2_ratio");
  m.mte3_ratio = number_field(j, "aiv_mte3_ratio");
  m.bank_conflict_ratio = number_field(j, "aiv_vec_bankgroup_cflt_ratio");
  check_ratio(m.vec_ratio, "aiv_vec_ratio");
  check_ratio(m.scalar_ratio, "aiv_scalar_ratio");
  check_ratio(m.mte2_ratio, "aiv_mte2_ratio");
  check_ratio(m.mte3_ratio, "aiv_mte3_ratio");
  check_ratio(m.bank_conflict_ratio, "aiv_vec_bankgroup_cflt_ratio");
  m.gm_to_ub_kb = number_field(j, "GM_to_UB_datas(KB)");
  m.ub_to_gm_kb = number_field(j, "UB_to_GM_datas(KB)");
  m.block_dim = count_field(j, "Block Dim");
  m.bound_us = number_field(j, "bound_us");
  m.core_count = count_field(j, "core_count");
  // Fields that may sit at the top level of a harness result.json.
  for (const nlohmann::json* src : {&j, &profile}) {
    if (!m.ub_bytes) m.ub_bytes = count_field(*src, "ub_bytes");
    if (!m.core_count) m.core_count = count_field(*src, "core_count");
    if (!m.bound_us) m.bound_us = number_field(*src, "bound_us");
    if (!m.bound_us && src->contains("bound") && (*src)["bound"].is_object())
      m.bound_us = number_field((*src)["bound"], "bound_us");
    if (!m.block_dim && src->contains("tiling") && (*src)["tiling"].is_object())
      m.block_dim = count_field((*src)["tiling"], "block_dim");
    if (m.core_times_us.empty() && src->contains("core_times_us")) {
      const auto& arr = (*src)["core_times_us"];
      if (!arr.is_array()) bad_field("core_times_us", std::string("expected an array of numbers, found ") + arr.type_name());
      for (std::size_t i = 0; i < arr.size(); ++i) {
        if (!arr[i].is_number() || !std::isfinite(arr[i].get<double>()) || arr[i].get<double>() < 0)
          bad_field("core_times_us[" + std::to_string(i) + "]", "expected a finite number >= 0");
        m.core_times_us.push_back(arr[i].get<double>());
      }
    }
  }
  return m;
}

void diagnosis_config::validate() const {
  auto in01 = [](double v, const char* name) {
    if (!std::isfinite(v) || v < 0 || v > 1)
      throw aopt::error(ec::invalid_argument, std::string("diagnosis_config.") + name + " = " +
                                                  std::to_string(v) + " must be in [0, 1]");
  };
  in01(pipe_bound_ratio, "pipe_bound_ratio");
  in01(idle_core_fraction, "idle_core_fraction");
  in01(launch_share, "launch_share");
  in01(bank_conflict_ratio, "bank_conflict_ratio");
  in01(bank_conflict_min_vec, "bank_conflict_min_vec");
  in01(mte_for_ub, "mte_for_ub");
  in01(ub_used_fraction, "ub_used_fraction");
  if (!(serial_sum_min > 0) || !(serial_sum_max >= serial_sum_min) || !std::isfinite(serial_sum_max))
    throw aopt::error(ec::invalid_argument,
                      "diagnosis_config.serial_sum_min/serial_sum_max must satisfy 0 < min <= max");
  if (!std::isfinite(imbalance_ratio) || imbalance_ratio < 1)
    throw aopt::error(ec::invalid_argument, "diagnosis_config.imbalance_ratio must be >= 1");
  if (!std::isfinite(idle_cores_min_task_us) || idle_cores_min_task_us < 0)
    throw aopt::error(ec::invalid_argument, "diagnosis_config.idle_cores_min_task_us must be >= 0");
  if (ub_capacity_bytes == 0)
    throw aopt::error(ec::invalid_argument, "diagnosis_config.ub_capacity_bytes must be > 0");
}

bool diagnosis::has(bottleneck_class c) const {
  return std::any_of(findings.begin(), findings.end(), [c](const finding& f) { return f.kind == c; });
}

diagnosis diagnose(const profile_metrics& m, const diagnosis_config& cfg) {
  cfg.validate();
  diagnosis d;
  std::string roofline;
  if (m.bound_us && *m.bound_us > 0) {
    d.roofline_headroom = m.task_us / *m.bound_us;
    roofline = "; Task Duration " + us(m.task_us) + " is " + fmt("%.2f", *d.roofline_headroom) +
               "x the roofline bound " + us(*m.bound_us);
  }

  // Pipe-bound classes.
  if (m.mte2_ratio && *m.mte2_ratio >= cfg.pipe_bound_ratio) {
    std::string ev = "aiv_mte2_ratio " + ratio_str(*m.mte2_ratio) +
                     ": the copy-in pipe (GM->UB) is busy " + pct(*m.mte2_ratio) + " of the kernel";
    if (m.gm_to_ub_kb) ev += "; GM_to_UB_datas " + fmt("%.1f", *m.gm_to_ub_kb) + " KB";
    add(d, bottleneck_class::mte2_bound, *m.mte2_ratio, ev + roofline);
  }
  if (m.mte3_ratio && *m.mte3_ratio >= cfg.pipe_bound_ratio) {
    std::string ev = "aiv_mte3_ratio " + ratio_str(*m.mte3_ratio) +
                     ": the copy-out pipe (UB->GM) is busy " + pct(*m.mte3_ratio) + " of the kernel";
    if (m.ub_to_gm_kb) ev += "; UB_to_GM_datas " + fmt("%.1f", *m.ub_to_gm_kb) + " KB";
    add(d, bottleneck_class::mte3_bound, *m.mte3_ratio, ev + roofline);
  }
  if (m.vec_ratio && *m.vec_ratio >= cfg.pipe_bound_ratio) {
    add(d, bottleneck_class::vector_bound, *m.vec_ratio,
        "aiv_vec_ratio " + ratio_str(*m.vec_ratio) + ": the vector pipe is busy " +
            pct(*m.vec_ratio) + " of the kernel" + roofline);
  }
  if (m.scalar_ratio && *m.scalar_ratio >= cfg.pipe_bound_ratio) {
    add(d, bottleneck_class::scalar_bound, *m.scalar_ratio,
        "aiv_scalar_ratio " + ratio_str(*m.scalar_ratio) + ": the scalar pipe is busy " +
            pct(*m.scalar_ratio) +
            " of the kernel (element loops, GetValue/SetValue, address arithmetic, waits "
            "issued one by one)");
  }

  // Serialized pipes: data pipes that add up to about the whole kernel, none dominant.
  if (m.vec_ratio || m.mte2_ratio || m.mte3_ratio) {
    const double v = m.vec_ratio.value_or(0), a = m.mte2_ratio.value_or(0),
                 b = m.mte3_ratio.value_or(0);
    const double sum = v + a + b;
    const double mx = std::max({v, a, b});
    if (sum >= cfg.serial_sum_min && sum <= cfg.serial_sum_max && mx < cfg.pipe_bound_ratio) {
      add(d, bottleneck_class::serialized_pipes, std::min(1.0, sum) * (1.0 - mx / sum),
          "aiv_vec_ratio " + ratio_str(v) + " + aiv_mte2_ratio " + ratio_str(a) +
              " + aiv_mte3_ratio " + ratio_str(b) + " = " + ratio_str(sum) + " with none above " +
              ratio_str(cfg.pipe_bound_ratio) +
              ": the pipes take turns instead of overlapping (barriers such as "
              "PipeBarrier<PIPE_ALL>, or single buffering)");
    }
  }

  // Load imbalance: uneven core times, or most cores left idle.
  {
    double score = 0;
    std::string ev;
    if (m.core_times_us.size() >= 2) {
      const double mx = *std::max_element(m.core_times_us.begin(), m.core_times_us.end());
      const double mean = std::accumulate(m.core_times_us.begin(), m.core_times_us.end(), 0.0) /
                          static_cast<double>(m.core_times_us.size());
      if (mean > 0 && mx / mean >= cfg.imbalance_ratio) {
        score = 1.0 - mean / mx;
        ev = "core times max " + us(mx) + " vs mean " + us(mean) + " (max/mean " +
             fmt("%.2f", mx / mean) + " over " + std::to_string(m.core_times_us.size()) +
             " cores): the cores wait " + pct(1.0 - mean / mx) + " of the slowest core's time";
      }
    }
    if (m.block_dim && m.core_count && *m.core_count > 0 &&
        static_cast<double>(*m.block_dim) < cfg.idle_core_fraction * static_cast<double>(*m.core_count) &&
        m.task_us >= cfg.idle_cores_min_task_us) {
      const double idle = 1.0 - static_cast<double>(*m.block_dim) / static_cast<double>(*m.core_count);
      if (!ev.empty()) ev += "; ";
      ev += "Block Dim " + std::to_string(*m.block_dim) + " of " + std::to_string(*m.core_count) +
            " cores: " + std::to_string(*m.core_count - *m.block_dim) + " cores idle for a " +
            us(m.task_us) + " task";
      score = std::max(score, idle);
    }
    if (!ev.empty()) add(d, bottleneck_class::load_imbalance, score, ev);
  }

  // Launch / head bound.
  if (m.aiv_us && m.task_us > 0 && m.task_us > *m.aiv_us) {
    const double share = (m.task_us - *m.aiv_us) / m.task_us;
    if (share >= cfg.launch_share) {
      std::string ev = "Task Duration " + us(m.task_us) + " vs aiv_time " + us(*m.aiv_us) +
                       ": launch and head overhead take " + pct(share) + " of the task";
      if (m.block_dim) ev += " (Block Dim " + std::to_string(*m.block_dim) + ")";
      add(d, bottleneck_class::launch_bound, share, ev);
    }
  }

  // Bank-group conflicts.
  if (m.bank_conflict_ratio && *m.bank_conflict_ratio >= cfg.bank_conflict_ratio &&
      m.vec_ratio.value_or(0) >= cfg.bank_conflict_min_vec) {
    add(d, bottleneck_class::bank_conflict, *m.bank_conflict_ratio,
        "aiv_vec_bankgroup_cflt_ratio " + ratio_str(*m.bank_conflict_ratio) + " with aiv_vec_ratio " +
            ratio_str(m.vec_ratio.value_or(0)) + ": UB bank-group conflicts stall " +
            pct(*m.bank_conflict_ratio) +
            " of vector time (operands in the same bank group; offset one buffer)");
  }

  // UB under-used while MTE-bound.
  if (m.ub_bytes) {
    const double mte = std::max(m.mte2_ratio.value_or(0), m.mte3_ratio.value_or(0));
    const double used = static_cast<double>(*m.ub_bytes) / static_cast<double>(cfg.ub_capacity_bytes);
    if (mte >= cfg.mte_for_ub && used < cfg.ub_used_fraction) {
      const bool in = m.mte2_ratio.value_or(0) >= m.mte3_ratio.value_or(0);
      add(d, bottleneck_class::ub_underused, (1.0 - used) * mte,
          "ub_bytes " + std::to_string(*m.ub_bytes) + " of " + std::to_string(cfg.ub_capacity_bytes) +
              " (" + pct(used) + ") while " + (in ? "aiv_mte2_ratio " : "aiv_mte3_ratio ") +
              ratio_str(mte) +
              ": copies are small; larger tiles would use more of UB and reach better DMA "
              "bandwidth");
    }
  }

  std::stable_sort(d.findings.begin(), d.findings.end(), [](const finding& x, const finding& y) {
    if (x.score != y.score) return x.score > y.score;
    return static_cast<int>(x.kind) < static_cast<int>(y.kind);
  });

  if (d.findings.empty()) {
    d.summary = "no bottleneck above the configured thresholds (Task Duration " + us(m.task_us) + ")" +
                roofline;
  } else {
    for (std::size_t i = 0; i < d.findings.size(); ++i) {
      const auto& f = d.findings[i];
      if (i) d.summary += "\n";
      d.summary += std::string(to_string(f.kind)) + " (score " + fmt("%.2f", f.score) + "): " + f.evidence;
    }
  }
  return d;
}

diagnosis diagnose(const nlohmann::json& profile, const diagnosis_config& cfg) {
  return diagnose(parse_profile(profile), cfg);
}

std::string retrieval_query_text(const diagnosis& d) {
  std::string q;
  for (const auto& f : d.findings) {
    if (!q.empty()) q += "\n";
    q += std::string(to_string(f.kind)) + ": " + f.evidence;
  }
  return q;
}

nlohmann::json to_json(const diagnosis& d) {
  nlohmann::json j;
  j["findings"] = nlohmann::json::array();
  for (const auto& f : d.findings)
    j["findings"].push_back({{"bottleneck", to_string(f.kind)}, {"score", f.score}, {"evidence", f.evidence}});
  j["summary"] = d.summary;
  if (d.roofline_headroom) j["roofline_headroom"] = *d.roofline_headroom;
  else j["roofline_headroom"] = nullptr;
  return j;
}

}  // namespace aopt::search
