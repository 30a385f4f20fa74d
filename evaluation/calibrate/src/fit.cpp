// fit.h: Levenberg-Marquardt over the log of each constant, residuals log(simulated / measured)
// per (case, field), Jacobian by forward differences restricted to the cases a constant moves.
#include "aopt/calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "aopt/common/error.h"
#include "aopt_sim/timing.h"
#include "aopt_sim/timing_params.h"

namespace aopt::calibrate {

namespace {

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const auto dot = s.find('.', at);
    out.push_back(s.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos) return out;
    at = dot + 1;
  }
}

fit_param scalar_param(const std::string& field) { return {field, false, field, {}}; }
fit_param curve_param(const std::string& field) { return {field, true, field, {}}; }
fit_param cpr_param(const std::string& cls, const std::string& size) {
  return {"vector.cycles_per_repeat." + cls + "." + size, false, "vector.cycles_per_repeat", {cls, size}};
}

// The {"value", "source"} object of `field` under "timing".
nlohmann::json& field_of(nlohmann::json& raw, const std::string& field) {
  nlohmann::json* j = &raw.at("timing");
  for (const auto& k : split_dots(field)) j = &j->at(k);
  return *j;
}

const nlohmann::json& field_of(const nlohmann::json& raw, const std::string& field) {
  const nlohmann::json* j = &raw.at("timing");
  for (const auto& k : split_dots(field)) j = &j->at(k);
  return *j;
}

// Every (case, field) residual, in a fixed order; `at[c]` is where case c's residuals start.
struct layout {
  std::vector<std::size_t> at;
  std::size_t size = 0;
};

layout make_layout(const std::vector<fit_case>& cases) {
  layout l;
  for (const auto& c : cases) {
    if (c.measured.empty()) throw error(ec::invalid_argument, "calibration case " + c.name + " has no measured field to fit");
    l.at.push_back(l.size);
    l.size += c.measured.size();
  }
  return l;
}

class problem {
 public:
  problem(const nlohmann::json& base, const std::vector<fit_param>& params, const std::vector<fit_case>& cases)
      : base_(base), params_(params), cases_(cases), layout_(make_layout(cases)) {
    for (const auto& p : params_) base_values_.push_back(read_param(base_, p));
  }

  // The profile with each parameter at base * exp(x).
  nlohmann::json profile_at(const std::vector<double>& x) const {
    nlohmann::json raw = base_;
    for (std::size_t j = 0; j < params_.size(); ++j) write_param(raw, params_[j], base_values_[j] * std::exp(x[j]));
    return raw;
  }

  std::map<std::string, double> simulated(std::size_t c, const nlohmann::json& raw) const {
    return simulate_fields(cases_[c].traces, raw);
  }

  // Writes case c's residuals into r.
  void residuals_of(std::size_t c, const nlohmann::json& raw, std::vector<double>& r) const {
    const auto sim = simulated(c, raw);
    std::size_t i = layout_.at[c];
    for (const auto& [field, meas] : cases_[c].measured) {
      const auto it = sim.find(field);
      const double s = it == sim.end() ? 0.0 : it->second;
      r[i++] = std::log(std::max(s, 1e-9) / std::max(meas, 1e-9));
    }
  }

  std::vector<double> residuals(const std::vector<double>& x) const {
    std::vector<double> r(layout_.size);
    const auto raw = profile_at(x);
    for (std::size_t c = 0; c < cases_.size(); ++c) residuals_of(c, raw, r);
    return r;
  }

  // The cases whose simulated fields move when parameter j moves by 10%.
  std::vector<std::size_t> dependents(std::size_t j, const std::vector<double>& r0) const {
    std::vector<double> x(params_.size(), 0.0);
    x[j] = std::log(1.1);
    const auto raw = profile_at(x);
    std::vector<double> r = r0;
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < cases_.size(); ++c) {
      residuals_of(c, raw, r);
      for (std::size_t i = layout_.at[c]; i < layout_.at[c] + cases_[c].measured.size(); ++i) {
        if (std::fabs(r[i] - r0[i]) > 1e-7) {
          out.push_back(c);
          break;
        }
      }
    }
    return out;
  }

  const std::vector<double>& base_values() const { return base_values_; }
  const layout& lay() const { return layout_; }
  const std::vector<fit_case>& cases() const { return cases_; }

 private:
  const nlohmann::json& base_;
  const std::vector<fit_param>& params_;
  const std::vector<fit_case>& cases_;
  layout layout_;
  std::vector<double> base_values_;
};

double sum_sq(const std::vector<double>& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return s;
}

// J (rows: residuals, columns: active parameters) by forward differences of step h.
std::vector<std::vector<double>> jacobian(const problem& pb, const std::vector<double>& x, const std::vector<double>& r,
                                          const std::vector<std::size_t>& active,
                                          const std::vector<std::vector<std::size_t>>& deps) {
  constexpr double h = 0.01;
  std::vector<std::vector<double>> jac(r.size(), std::vector<double>(active.size(), 0.0));
  for (std::size_t k = 0; k < active.size(); ++k) {
    auto xs = x;
    xs[active[k]] += h;
    const auto raw = pb.profile_at(xs);
    auto rs = r;
    for (std::size_t c : deps[active[k]]) pb.residuals_of(c, raw, rs);
    for (std::size_t i = 0; i < r.size(); ++i) jac[i][k] = (rs[i] - r[i]) / h;
  }
  return jac;
}

// One damped Gauss-Newton step: (JᵀJ + λ diag(JᵀJ)) δ = -Jᵀr.
std::vector<double> lm_step(const std::vector<std::vector<double>>& jac, const std::vector<double>& r, double lambda) {
  const std::size_t n = jac.empty() ? 0 : jac[0].size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  std::vector<double> g(n, 0.0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    for (std::size_t p = 0; p < n; ++p) {
      g[p] -= jac[i][p] * r[i];
      for (std::size_t q = 0; q < n; ++q) a[p][q] += jac[i][p] * jac[i][q];
    }
  }
  for (std::size_t p = 0; p < n; ++p) a[p][p] += lambda * std::max(a[p][p], 1e-12);
  std::vector<double> d;
  if (!solve_linear(a, g, d)) d.assign(n, 0.0);
  return d;
}

double rms_relative(const std::map<std::string, double>& sim, const std::map<std::string, double>& meas) {
  double s = 0;
  for (const auto& [k, m] : meas) {
    const auto it = sim.find(k);
    const double e = (it == sim.end() ? 0.0 : it->second) / m - 1.0;
    s += e * e;
  }
  return meas.empty() ? 0.0 : std::sqrt(s / static_cast<double>(meas.size()));
}

}  // namespace

std::vector<fit_param> default_params() {
  return {scalar_param("chip.hbm_bandwidth_gbs"),   curve_param("dma.gm_to_ub_gibs"),
          curve_param("dma.ub_to_gm_gibs"),         scalar_param("dma.fixed_latency_ns"),
          scalar_param("vector.head_cycles"),
          cpr_param("unary", "b32"),                cpr_param("binary", "b16"),
          cpr_param("binary", "b32"),               cpr_param("exp_ln", "b32"),
          scalar_param("scalar.elem_access_cycles"), scalar_param("scalar.api_issue_cycles"),
          scalar_param("launch.base_us"),           scalar_param("launch.head_per_core_us")};
}

fit_param param_named(const std::string& name) {
  for (auto& p : default_params()) {
    if (p.name == name) return p;
  }
  throw error(ec::invalid_argument, "no fitted constant named '" + name + "' (see docs/cann.md, \"Calibrating sim\")");
}

double read_param(const nlohmann::json& raw, const fit_param& p) {
  if (p.curve) return 1.0;
  const nlohmann::json* v = &field_of(raw, p.field).at("value");
  for (const auto& k : p.entry) v = &v->at(k);
  return v->get<double>();
}

void write_param(nlohmann::json& raw, const fit_param& p, double value) {
  nlohmann::json& v = field_of(raw, p.field)["value"];
  if (p.curve) {
    for (auto& point : v) point[1] = point[1].get<double>() * value;
    return;
  }
  nlohmann::json* t = &v;
  for (const auto& k : p.entry) t = &t->at(k);
  *t = value;
}

std::map<std::string, double> simulate_fields(const std::vector<aopt::sim::core_trace>& traces, const nlohmann::json& raw) {
  const auto params = aopt::sim::parse_timing_params(raw, "calibration profile");
  const auto rep = aopt::sim::simulate(traces, params);
  if (rep.error) throw error(ec::internal, "the timing model refused a calibration trace: " + rep.error->message);
  return {{"Task Duration(us)", rep.task_duration_us}, {"aiv_time(us)", rep.aiv_time_us},
          {"aiv_vec_time(us)", rep.vec_us},            {"aiv_scalar_time(us)", rep.scalar_us},
          {"aiv_mte2_time(us)", rep.mte2_us},          {"aiv_mte3_time(us)", rep.mte3_us},
          {"Block Dim", static_cast<double>(rep.block_dim)}};
}

bool solve_linear(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t piv = col;
    for (std::size_t r = col + 1; r < n; ++r) {
      if (std::fabs(a[r][col]) > std::fabs(a[piv][col])) piv = r;
    }
    if (std::fabs(a[piv][col]) < 1e-300) return false;
    std::swap(a[piv], a[col]);
    std::swap(b[piv], b[col]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) a[r][k] -= f * a[col][k];
      b[r] -= f * b[col];
    }
  }
  x.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return true;
}

fit_result fit_profile(const nlohmann::json& base_raw, const std::vector<fit_param>& params, const std::vector<fit_case>& cases,
                       const fit_options& opts) {
  const problem pb(base_raw, params, cases);
  std::vector<double> x(params.size(), 0.0);
  auto r = pb.residuals(x);
  fit_result res;
  res.base_values = pb.base_values();
  std::vector<std::vector<std::size_t>> deps(params.size());
  std::vector<std::size_t> active;
  res.kernels.resize(params.size());
  for (std::size_t j = 0; j < params.size(); ++j) {
    deps[j] = pb.dependents(j, r);
    for (std::size_t c : deps[j]) res.kernels[j].push_back(cases[c].name);
    if (!deps[j].empty()) active.push_back(j);
  }
  const double lo = std::log(opts.lower), hi = std::log(opts.upper);
  double cost = sum_sq(r), lambda = 1e-3;
  for (int it = 0; it < opts.max_iterations && !active.empty(); ++it) {
    res.iterations = it + 1;
    const auto jac = jacobian(pb, x, r, active, deps);
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      const auto d = lm_step(jac, r, lambda);
      auto xn = x;
      for (std::size_t k = 0; k < active.size(); ++k) xn[active[k]] = std::clamp(x[active[k]] + d[k], lo, hi);
      const auto rn = pb.residuals(xn);
      const double cn = sum_sq(rn);
      if (cn < cost) {
        improved = true;
        const double gain = cost - cn;
        x = xn, r = rn, cost = cn;
        lambda = std::max(lambda / 3, 1e-9);
        if (gain < 1e-12 * std::max(cost, 1e-30)) it = opts.max_iterations;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) break;
  }
  for (std::size_t j = 0; j < params.size(); ++j) res.values.push_back(res.base_values[j] * std::exp(x[j]));
  const auto fitted_raw = pb.profile_at(x);
  double sb = 0, sf = 0;
  std::size_t n = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    case_fit cf;
    cf.name = cases[c].name;
    cf.measured = cases[c].measured;
    const auto b = pb.simulated(c, base_raw), f = pb.simulated(c, fitted_raw);
    for (const auto& [k, v] : cf.measured) {
      cf.base[k] = b.count(k) ? b.at(k) : 0.0;
      cf.fitted[k] = f.count(k) ? f.at(k) : 0.0;
      sb += std::pow(cf.base[k] / v - 1, 2);
      sf += std::pow(cf.fitted[k] / v - 1, 2);
      ++n;
    }
    cf.error_base = rms_relative(cf.base, cf.measured);
    cf.error_fitted = rms_relative(cf.fitted, cf.measured);
    res.cases.push_back(std::move(cf));
  }
  res.rms_base = n ? std::sqrt(sb / static_cast<double>(n)) : 0;
  res.rms_fitted = n ? std::sqrt(sf / static_cast<double>(n)) : 0;
  for (std::size_t j = 0; j < params.size(); ++j) {
    double s = 0;
    std::size_t m = 0;
    for (std::size_t c : deps[j]) {
      for (const auto& [k, v] : res.cases[c].measured) s += std::pow(res.cases[c].fitted.at(k) / v - 1, 2), ++m;
    }
    res.param_error.push_back(m ? std::sqrt(s / static_cast<double>(m)) : 0.0);
  }
  return res;
}

}  // namespace aopt::calibrate
