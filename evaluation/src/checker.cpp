#include "aopt/evaluation/checker.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "aopt/common/json.h"

namespace aopt::evaluation {

nlohmann::json output_check::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"elements", elements},
                      {"mismatches", mismatches},
                      {"mismatch_ratio", mismatch_ratio},
                      {"max_abs_err", common::number_to_json(max_abs_err)},
                      {"max_rel_err", common::number_to_json(max_rel_err)},
                      {"passed", passed}};
  if (first_mismatch >= 0) {
    j["first_mismatch"] = {{"index", first_mismatch},
                           {"got", common::number_to_json(got_at_first)},
                           {"want", common::number_to_json(want_at_first)}};
  }
  if (reference_unwritten > 0) j["reference_unwritten"] = reference_unwritten;
  if (input) j["input"] = true;
  if (!message.empty()) j["message"] = message;
  return j;
}

namespace {

output_check size_mismatch(const std::string& name, std::size_t got, std::size_t want) {
  output_check r;
  r.name = name;
  r.elements = want;
  r.passed = false;
  r.mismatches = std::max(got, want);
  r.mismatch_ratio = 1.0;
  r.message = "output '" + name + "' has " + std::to_string(got) + " elements, the reference " + std::to_string(want);
  return r;
}

// One element pair; `offset` is the flat index of a[0].
void accumulate(output_check& r, const tolerance_spec::entry& e, const double* got, const double* want, std::size_t n,
                std::size_t offset) {
  for (std::size_t i = 0; i < n; ++i) {
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
        r.first_mismatch = static_cast<std::int64_t>(offset + i);
        r.got_at_first = a;
        r.want_at_first = b;
      }
      ++r.mismatches;
    }
  }
}

void finish(output_check& r, const std::string& name, const tolerance_spec::entry& e, const tolerance_spec& tol) {
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
}

}  // namespace

output_check compare_output(const std::string& name, dtype t, const std::vector<double>& got,
                            const std::vector<double>& want, const tolerance_spec& tol) {
  if (got.size() != want.size()) return size_mismatch(name, got.size(), want.size());
  output_check r;
  r.name = name;
  r.elements = want.size();
  const auto e = tol.for_dtype(t);
  accumulate(r, e, got.data(), want.data(), got.size(), 0);
  finish(r, name, e, tol);
  return r;
}

output_check compare_output_raw(const std::string& name, dtype t, const std::uint8_t* got, std::size_t got_bytes,
                                const std::uint8_t* want, std::size_t want_bytes, const tolerance_spec& tol,
                                std::optional<std::uint8_t> reference_fill) {
  if (is_complex(t)) {  // compared component by component (real, imaginary)
    tolerance_spec per_component = tol;
    per_component.per_dtype[component_type(t)] = tol.for_dtype(t);
    return compare_output_raw(name, component_type(t), got, got_bytes, want, want_bytes, per_component, reference_fill);
  }
  const std::size_t sz = dtype_size(t);
  if (got_bytes % sz != 0 || want_bytes % sz != 0) {
    throw std::runtime_error("output '" + name + "': tensor data is not a multiple of the " + dtype_name(t) +
                             " element size " + std::to_string(sz));
  }
  const std::size_t n = want_bytes / sz;
  if (got_bytes / sz != n) return size_mismatch(name, got_bytes / sz, n);
  output_check r;
  r.name = name;
  r.elements = n;
  const auto e = tol.for_dtype(t);
  constexpr std::size_t block = 4096;
  std::vector<double> a(block), b(block);
  const bool skip_fill = reference_fill && is_float(t);
  auto unwritten = [&](std::size_t k) {
    for (std::size_t byte = 0; byte < sz; ++byte) {
      if (want[k * sz + byte] != *reference_fill) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < n; i += block) {
    const std::size_t m = std::min(block, n - i);
    std::size_t skipped = 0;
    if (skip_fill) {
      for (std::size_t j = 0; j < m; ++j) skipped += unwritten(i + j);
      r.reference_unwritten += skipped;
    }
    // Equal bytes are equal values (NaN matches NaN, inf matches inf): no error, no mismatch.
    if (std::memcmp(got + i * sz, want + i * sz, m * sz) == 0) continue;
    decode_into(t, got + i * sz, m, a.data());
    decode_into(t, want + i * sz, m, b.data());
    if (skipped > 0) {
      for (std::size_t j = 0; j < m; ++j) {
        if (unwritten(i + j)) a[j] = b[j];  // nothing to compare against
      }
    }
    accumulate(r, e, a.data(), b.data(), m, i);
  }
  r.elements = n - r.reference_unwritten;
  finish(r, name, e, tol);
  // A constant output (all zeros, or one value everywhere) where the reference varies is a kernel
  // that wrote nothing or a fixed value: rejected whatever the tolerance lets through.
  auto constant = [&](const std::uint8_t* p) {
    for (std::size_t i = 1; i < n; ++i) {
      if (std::memcmp(p, p + i * sz, sz) != 0) return false;
    }
    return true;
  };
  if (r.passed && n > 1 && got != want && constant(got) && !constant(want)) {
    r.passed = false;
    r.message = "output '" + name + "' holds one value everywhere while the reference varies: the kernel wrote "
                "nothing or a constant";
  }
  return r;
}

}  // namespace aopt::evaluation
