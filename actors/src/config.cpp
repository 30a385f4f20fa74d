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
