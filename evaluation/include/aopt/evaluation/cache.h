// Content-addressed evaluation cache: a directory store <root>/results/<key[0:2]>/<key>.json.
// Default root: $XDG_CACHE_HOME/aopt, else ~/.cache/aopt. Writes are atomic (rename), so
// concurrent evaluators sharing a cache never read a partial record.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "aopt/evaluation/result.h"

namespace aopt::evaluation {

class eval_cache {
 public:
  explicit eval_cache(std::filesystem::path root);
  static std::filesystem::path default_root();

  std::optional<eval_result> get(const std::string& key) const;  // corrupt entries are misses
  void put(const std::string& key, const eval_result& r) const;
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path entry_path(const std::string& key) const;

 private:
  std::filesystem::path root_;
};

}  // namespace aopt::evaluation
