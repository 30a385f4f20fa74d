#include "aopt/evaluation/candidate.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/sha256.h"
#include "aopt/evaluation/package_build.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

candidate::candidate(std::shared_ptr<const op_package> base) : base_(std::move(base)) {
  if (!base_) throw error(ec::invalid_argument, "candidate: null base package");
}

void candidate::replace(const std::string& rel_path, std::string content) {
  const fs::path p(rel_path);
  const auto norm = p.lexically_normal().generic_string();
  const bool inside = norm.rfind("op_host/", 0) == 0 || norm.rfind("op_kernel/", 0) == 0;
  // A shared file the package's build reads (aopt_shared/<path under the tree root>): the
  // candidate's own copy of it is built instead of the tree's (the tree is never written).
  const std::string shared = shared_prefix;
  const bool shared_read = norm.rfind(shared, 0) == 0 &&
                           std::find(base_->shared_files.begin(), base_->shared_files.end(), norm.substr(shared.size())) !=
                               base_->shared_files.end();
  if (p.is_absolute() || norm.find("..") != std::string::npos || !(inside || shared_read)) {
    throw error(ec::invalid_argument, "candidate: cannot replace '" + rel_path +
                                          "': only files under op_host/ or op_kernel/ of the package, or a shared file its "
                                          "build reads (aopt_shared/<path>), as relative paths");
  }
  replaced_[norm] = std::move(content);
}

std::string candidate::content(const std::string& rel_path) const {
  auto it = replaced_.find(rel_path);
  if (it != replaced_.end()) return it->second;
  const std::string shared = shared_prefix;
  if (rel_path.rfind(shared, 0) == 0) return common::read_text_file(base_->tree_root / rel_path.substr(shared.size()));
  return common::read_text_file(base_->dir / rel_path);
}

std::map<std::string, std::string> candidate::file_hashes() const {
  std::map<std::string, std::string> out;
  for (const auto& f : base_->source_files()) {
    if (!replaced_.count(f)) out[f] = common::sha256_file_hex(base_->dir / f);
  }
  for (const auto& [f, c] : replaced_) out[f] = common::sha256_hex(c);
  return out;
}

std::string candidate::hash_of(const std::vector<std::string>& rel_paths) const {
  common::sha256 h;
  h.field("files-v1");
  for (const auto& f : rel_paths) {
    h.field(f);
    h.field(common::sha256_hex(content(f)));
  }
  return h.finish_hex();
}

std::string candidate::key(const std::string& backend, const std::string& profile_id, std::uint64_t seed,
                           const std::string& toolchain_id) const {
  common::sha256 h;
  h.field("aopt-candidate-v1");
  for (const auto& [f, d] : file_hashes()) {
    h.field(f);
    h.field(d);
  }
  // What the package's build compiles and where it looks (package_build.h): another selection of
  // the same files is another build.
  h.field("build-v1");
  for (const auto* list : {&base_->host_sources, &base_->host_include_dirs, &base_->kernel_include_dirs, &base_->host_definitions}) {
    for (const auto& f : *list) h.field(f);
    h.field("|");
  }
  h.field(base_->tiling_header);
  if (base_->host_libraries_apart) h.field("host-libraries-apart");
  // The shared files outside the package its build reads (read-only, never replaced).
  for (const auto& f : base_->shared_files) {
    h.field(shared_prefix + f);
    h.field(common::sha256_file_hex(base_->tree_root / f));
  }
  h.field(base_->spec.to_json().dump());
  if (!base_->spec.reference_is_baseline()) {
    h.field(common::sha256_file_hex(base_->spec.reference));
  } else {
    // Checked against the base package's own outputs: the same files under another base are
    // another check (a package evaluated alone is its own reference and always matches).
    h.field("baseline");
    h.field(candidate(base_).hash_of(base_->source_files()));
  }
  h.field(backend);
  h.field(profile_id);
  h.field(std::to_string(seed));
  h.field(toolchain_id);
  if (!tunables_.empty()) h.field("tunables").field(tunables_);  // keys of other candidates unchanged
  return h.finish_hex();
}

std::string candidate::tunables_env() const {
  if (tunables_.empty()) return {};
  std::string out;
  try {
    const auto j = nlohmann::json::parse(tunables_);
    for (const auto& sv : j.at("tunables")) {
      const auto slot = sv.at(0).get<std::uint32_t>();
      const auto value = sv.at(1).get<std::int64_t>();
      out += (out.empty() ? "" : ",") + std::to_string(slot) + "=" + std::to_string(value);
    }
  } catch (const std::exception& e) {
    throw error(ec::invalid_argument, std::string("candidate tunables: not {\"tunables\": [[slot, value], ...]}: ") + e.what());
  }
  return out;
}

void candidate::materialize(const fs::path& dir) const {
  std::set<std::string> written;
  for (const auto& [f, c] : replaced_) {
    common::write_text_file(dir / f, c);
    written.insert(f);
  }
  for (const auto& f : base_->source_files()) {
    if (written.count(f)) continue;
    fs::create_directories((dir / f).parent_path());
    fs::copy_file(base_->dir / f, dir / f, fs::copy_options::overwrite_existing);
  }
  // The package's own place in the mirrored tree, an include directory where a relative include
  // into a sibling operator ("../../sibling/op_host/x.h") resolves (package_build.h): the compiler
  // walks `..` only through a directory that exists.
  for (const auto& d : base_->host_include_dirs) {
    if (d.rfind(shared_prefix, 0) == 0) fs::create_directories(dir / d);
  }
  for (const auto& f : base_->shared_files) {
    if (written.count(shared_prefix + f)) continue;  // the candidate's own copy
    const fs::path to = dir / (shared_prefix + f);
    fs::create_directories(to.parent_path());
    fs::copy_file(base_->tree_root / f, to, fs::copy_options::overwrite_existing);
  }
}

}  // namespace aopt::evaluation
