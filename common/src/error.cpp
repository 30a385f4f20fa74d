#include "aopt/common/error.h"

namespace aopt {

const char* to_string(ec code) {
  switch (code) {
    case ec::ok: return "ok";
    case ec::io_error: return "io_error";
    case ec::parse_error: return "parse_error";
    case ec::invalid_spec: return "invalid_spec";
    case ec::invalid_argument: return "invalid_argument";
    case ec::not_found: return "not_found";
    case ec::unsupported: return "unsupported";
    case ec::subprocess_error: return "subprocess_error";
    case ec::toolchain_error: return "toolchain_error";
    case ec::cache_error: return "cache_error";
    case ec::internal: return "internal";
  }
  return "unknown";
}

namespace {
class category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "aopt"; }
  std::string message(int v) const override { return to_string(static_cast<ec>(v)); }
};
}  // namespace

const std::error_category& aopt_category() {
  static const category cat;
  return cat;
}

std::error_code make_error_code(ec code) { return {static_cast<int>(code), aopt_category()}; }

}  // namespace aopt
