#include "aopt/evaluation/checker.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace aopt::evaluation {

nlohmann::json output_check::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"elements", elements},
                      {"mismatches", mismatches},
                      {"mismatch_ratio", mismatch_ratio},
                      {"max_abs_err", max_abs_err},
                      {"max_rel_err", max_rel_err},
                      {"passed", passed}};
  if (first_mismatch >= 0) {
    j["first_mismatch"] = {{"index", first_mismatch}, {"got", got_at_first}, {"want", want_at_first}};
  }
  if (!message.empty()) j["message"] = message;
  return j;
}

output_check compare_output(const std::string& name, dtype t, const std::vector<double>& got,
                            const std::vector<double>& want, const tolerance_spec& tol) {
  output_check r;
  r.name = name;
  r.elements = want.size();
  if (got.size() != want.size()) {
    r.passed = false;
    r.mismatches = std::max(got.size(), want.size());
    r.mismatch_ratio = 1.0;
    r.message = "output '" + name + "' has " + std::to_string(got.size()) + " elements, the reference " +
                std::to_string(want.size());
    return r;
  }
  const auto e = tol.for_dtype(t);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], b = want[i];
    bool bad;
    double abs_err = 0;
    if (std::isnan(a) || std::isnan(b)) {
      bad = std::isnan(a) != std::isnan(b);
      abs_err = bad ? INFINITY : 0;
    } else if (std::isinf(a) || std::isinf(b)) {
      bad = a != b;
      abs_err = bad ? INFINITY : 0;
    } else {
      abs_err = std::fabs(a - b);
      bad = abs_err > e.atol + e.rtol * std::fabs(b);
    }
    const double rel_err = abs_err == 0 ? 0 : abs_err / std::max(std::fabs(b), 1e-12);
    r.max_abs_err = std::max(r.max_abs_err, abs_err);
    r.max_rel_err = std::max(r.max_rel_err, rel_err);
    if (bad) {
      if (r.first_mismatch < 0) {
        r.first_mismatch = static_cast<std::int64_t>(i);
        r.got_at_first = a;
        r.want_at_first = b;
      }
      ++r.mismatches;
    }
  }
  r.mismatch_ratio = r.elements ? static_cast<double>(r.mismatches) / static_cast<double>(r.elements) : 0.0;
  r.passed = r.mismatch_ratio <= tol.max_mismatch_ratio;
  if (!r.passed) {
    std::ostringstream ss;
    ss << "output '" << name << "': " << r.mismatches << " of " << r.elements << " elements ("
       << r.mismatch_ratio * 100 << "%) differ from the reference beyond rtol " << e.rtol << ", atol " << e.atol
       << " (allowed " << tol.max_mismatch_ratio * 100 << "%); first at index " << r.first_mismatch << ": got "
       << r.got_at_first << ", want " << r.want_at_first << "; max abs err " << r.max_abs_err;
    r.message = ss.str();
  }
  return r;
}

}  // namespace aopt::evaluation
