// System faults (not candidate failures: those are result fields). `aopt::ec` is the project's
// error enum; `aopt::error` carries one with a message that says what, where and what to do.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

namespace aopt {

enum class ec : std::uint8_t {
  ok = 0,
  io_error,           // a file or directory could not be read, written or created
  parse_error,        // malformed input file (JSON syntax)
  invalid_spec,       // a well-formed file with a wrong value (aopt.json field, ...)
  invalid_argument,   // a bad command-line or API argument
  not_found,          // a required file, tool or entry is missing
  unsupported,        // recognised but not supported yet (layout 2, ...)
  subprocess_error,   // fork/exec/pipe failure in the evaluator itself
  toolchain_error,    // the prebuilt emulator or harness is missing or broken
  cache_error,        // the evaluation cache is unusable
  internal,           // a broken invariant
};

const char* to_string(ec code);
const std::error_category& aopt_category();
std::error_code make_error_code(ec code);

class error : public std::runtime_error {
 public:
  error(ec code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ec code() const { return code_; }

 private:
  ec code_;
};

}  // namespace aopt

template <>
struct std::is_error_code_enum<aopt::ec> : std::true_type {};
