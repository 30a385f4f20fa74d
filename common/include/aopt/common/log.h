// Logging through spdlog: one named logger "aopt" writing to stderr.
#pragma once

#include <memory>
#include <string_view>

#include <spdlog/spdlog.h>

namespace aopt::common {

// Creates (once) and returns the "aopt" logger. Level from `level` ("trace".."off"), else from
// env AOPT_LOG_LEVEL, else "warn".
std::shared_ptr<spdlog::logger> logger();
void set_log_level(std::string_view level);

}  // namespace aopt::common
