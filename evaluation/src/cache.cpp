#include "aopt/evaluation/cache.h"

#include <cstdlib>

#include "aopt/common/error.h"
#include "aopt/common/json.h"
#include "aopt/common/log.h"
#include "aopt/common/ownership.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

eval_cache::eval_cache(fs::path root) : root_(std::move(root)) {
  // Results quote compiler diagnostics (source lines), and the artifacts below are built from the
  // operators: this user's only (another user's cache is used as it is).
  try {
    common::make_private_dir(root_, 0700, "evaluation cache", false);
  } catch (const error& x) {
    throw error(ec::cache_error, std::string(x.what()) + "; pass --cache-dir DIR or --no-cache");
  }
  std::error_code e;
  fs::create_directories(root_ / "results", e);
  if (e) {
    throw error(ec::cache_error, root_.string() + ": cannot create the evaluation cache (" + e.message() +
                                     "); pass --cache-dir DIR or --no-cache");
  }
}

fs::path eval_cache::default_root() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "aopt";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "aopt";
  return fs::temp_directory_path() / "aopt-cache";
}

fs::path eval_cache::entry_path(const std::string& key) const {
  return root_ / "results" / key.substr(0, 2) / (key + ".json");
}

std::optional<eval_result> eval_cache::get(const std::string& key) const {
  const auto p = entry_path(key);
  std::error_code e;
  if (!fs::is_regular_file(p, e)) return std::nullopt;
  try {
    auto r = eval_result::from_json(common::read_json_file(p));
    if (r.key != key) return std::nullopt;
    return r;
  } catch (const std::exception& ex) {
    common::logger()->warn("ignoring corrupt cache entry {}: {}", p.string(), ex.what());
    return std::nullopt;
  }
}

void eval_cache::put(const std::string& key, const eval_result& r) const {
  const auto p = entry_path(key);
  try {
    fs::create_directories(p.parent_path());
    common::write_json_file(p, r.to_json());
  } catch (const std::exception& ex) {
    throw error(ec::cache_error, p.string() + ": cannot store the result (" + ex.what() + "); pass --no-cache to skip caching");
  }
}

}  // namespace aopt::evaluation
