#include "aopt/jobs/daemon_paths.h"

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace aopt::jobs {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}
}  // namespace

fs::path default_socket_path(bool with_env) {
  if (with_env && !env("AOPT_SOCKET").empty()) return env("AOPT_SOCKET");
  const std::string runtime = env("XDG_RUNTIME_DIR");
  if (!runtime.empty()) return fs::path(runtime) / "aopt" / "aoptd.sock";
  return fs::path("/tmp") / ("aopt-" + std::to_string(::getuid())) / "aoptd.sock";
}

fs::path default_state_dir() {
  const std::string state = env("XDG_STATE_HOME"), home = env("HOME");
  if (!state.empty()) return fs::path(state) / "aopt";
  if (!home.empty()) return fs::path(home) / ".local" / "state" / "aopt";
  return "aopt-state";
}

}  // namespace aopt::jobs
