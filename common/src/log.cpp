#include "aopt/common/log.h"

#include <cstdlib>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace aopt::common {

std::shared_ptr<spdlog::logger> logger() {
  static std::once_flag once;
  static std::shared_ptr<spdlog::logger> log;
  std::call_once(once, [] {
    log = spdlog::get("aopt");
    if (!log) log = spdlog::stderr_color_mt("aopt");
    log->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    const char* env = std::getenv("AOPT_LOG_LEVEL");
    log->set_level(env ? spdlog::level::from_str(env) : spdlog::level::warn);
  });
  return log;
}

void set_log_level(std::string_view level) {
  logger()->set_level(spdlog::level::from_str(std::string(level)));
}

}  // namespace aopt::common
