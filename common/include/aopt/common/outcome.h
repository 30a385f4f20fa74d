// The shared vocabulary of proposals: a value or the reason there is none. Engines (offline and
// LLM), the LLM client and the actors all speak it; it lives here so that none of them has to
// link the search code to say "no answer, because ...". A failure is a result, not an exception
// (exceptions are for system faults).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace aopt {

// Why something produced nothing: "not provided by the offline engine", "no tiling function
// found in op_host/x.cpp: ...", "model returned no code block", ...
struct engine_failure {
  std::string reason;
};

// A value or the reason there is none.
template <class T>
class outcome {
 public:
  outcome(T value) : v_(std::move(value)) {}                // NOLINT: implicit on purpose
  outcome(engine_failure failure) : v_(std::move(failure)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const std::string& reason() const { return std::get<engine_failure>(v_).reason; }

 private:
  std::variant<T, engine_failure> v_;
};

}  // namespace aopt
