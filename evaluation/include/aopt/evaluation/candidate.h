// A candidate: the base package plus replaced files. Its key (hash of sources, cases, backend,
// device profile, seed, toolchain) names its evaluation in the cache.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "aopt/evaluation/package.h"

namespace aopt::evaluation {

struct lineage {
  std::string parent;     // parent candidate key, empty for a baseline
  std::string stage;      // "baseline", "tiling", "kernel", ...
  int round = 0;
  std::string proposal;   // proposal text
};

class candidate {
 public:
  explicit candidate(std::shared_ptr<const op_package> base);

  // Replaces (or adds) `rel_path` (relative to the package dir, inside op_host/ or op_kernel/), or
  // replaces a shared file the package's build reads (aopt_shared/<path>, one of shared_files).
  // Throws aopt::error(invalid_argument) for absolute paths, "..", or other directories.
  void replace(const std::string& rel_path, std::string content);

  const op_package& package() const { return *base_; }
  std::shared_ptr<const op_package> package_ptr() const { return base_; }
  const std::map<std::string, std::string>& replacements() const { return replaced_; }
  bool is_baseline() const { return replaced_.empty(); }
  lineage& info() { return lineage_; }
  const lineage& info() const { return lineage_; }

  // Stage I's run-time tunables (search/tiling search_form.h: the tunables file's JSON text):
  // given to every host run of the candidate, part of its key, compiled into nothing. Empty:
  // none (the sources as written).
  void set_tunables(std::string json_text) { tunables_ = std::move(json_text); }
  const std::string& tunables() const { return tunables_; }
  // The tunables as the harness reads them (AOPT_TUNABLES, aopt_sim/host/tunable.h):
  // "slot=value,..."; empty when there are none. Throws aopt::error(invalid_argument) when the
  // JSON is not {"tunables": [[slot, value], ...]}.
  std::string tunables_env() const;

  // Content of a source file (replacement or the base file). Throws if absent.
  std::string content(const std::string& rel_path) const;
  // relative path -> sha256 of content, for every source file (base files plus additions).
  std::map<std::string, std::string> file_hashes() const;
  // Hash of the given files only (e.g. host sources) in this candidate.
  std::string hash_of(const std::vector<std::string>& rel_paths) const;
  // The evaluation key.
  std::string key(const std::string& backend, const std::string& profile_id, std::uint64_t seed,
                  const std::string& toolchain_id) const;
  // Writes every source file (op_host/, op_kernel/) into `dir`.
  void materialize(const std::filesystem::path& dir) const;

 private:
  std::shared_ptr<const op_package> base_;
  std::map<std::string, std::string> replaced_;
  std::string tunables_;
  lineage lineage_;
};

}  // namespace aopt::evaluation
