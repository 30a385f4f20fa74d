#include "aopt/actors/config.hpp"

#include <filesystem>
#include <string>
#include <utility>

#include "aopt/common/error.h"

namespace aopt::actors {

void actor_timeouts::validate() const {
  auto positive = [](std::chrono::milliseconds v, const char* field) {
    if (v.count() <= 0) {
      throw aopt::error(ec::invalid_argument, std::string("actor_timeouts.") + field +
                                                  " must be positive, found " +
                                                  std::to_string(v.count()) + " ms");
    }
  };
  positive(evaluation, "evaluation");
  positive(engine, "engine");
  positive(job, "job");
}

host_port parse_host_port(const std::string& text, const std::string& what, bool any_port) {
  const auto colon = text.rfind(':');
  const std::string digits = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  const bool numeric = !digits.empty() && digits.size() <= 5 &&
                       digits.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long port = numeric ? std::stoul(digits) : 0;
  if (colon == 0 || !numeric || port > 65535 || (port == 0 && !any_port)) {
    throw aopt::error(ec::invalid_argument, what + ": '" + text + "' is not HOST:PORT with a port in [" +
                                                (any_port ? "0" : "1") + ", 65535]");
  }
  return {text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

void tls_files::check(const std::string& where) const {
  const std::pair<const char*, const std::string*> files[] = {{"certificate", &certificate}, {"key", &key}, {"ca", &ca}};
  const bool any = !certificate.empty() || !key.empty() || !ca.empty();
  if (!any) return;
  for (const auto& [name, path] : files) {
    if (path->empty()) {
      throw aopt::error(ec::invalid_argument, where + ": mutual TLS needs a certificate, its key and the CA that signs "
                                                      "the peers' certificates; " + name + " is missing");
    }
  }
  for (const auto& [name, path] : files) {
    std::error_code e;
    if (!std::filesystem::is_regular_file(*path, e)) {
      throw aopt::error(ec::invalid_argument, where + ": TLS " + name + " " + *path + ": no such file");
    }
  }
}

}  // namespace aopt::actors
