#include "aopt/evaluation/artifacts.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <tuple>
#include <vector>

#include "aopt/evaluation/cache.h"

namespace fs = std::filesystem;

namespace aopt::evaluation {

bool valid_artifact_key(const std::string& key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

artifact_store::artifact_store(fs::path root, std::uintmax_t cap_bytes) : root_(std::move(root)), cap_bytes_(cap_bytes) {}

const artifact_store& artifact_store::local() {
  static const artifact_store s = [] {
    const char* v = std::getenv("AOPT_ARTIFACT_CACHE");
    fs::path root;
    if (!(v && std::string(v) == "0")) root = v && *v ? fs::path(v) : fs::path(eval_cache::default_root()) / "artifacts";
    std::uintmax_t cap = std::uintmax_t{2048} << 20;
    if (const char* mb = std::getenv("AOPT_ARTIFACT_CACHE_MB"); mb && std::atoll(mb) > 0) {
      cap = static_cast<std::uintmax_t>(std::atoll(mb)) << 20;
    }
    return artifact_store(root, cap);
  }();
  return s;
}

fs::path artifact_store::path(const std::string& key) const { return root_ / key.substr(0, 2) / key; }

bool artifact_store::fetch(const std::string& key, const fs::path& out) const {
  if (!enabled() || !valid_artifact_key(key)) return false;
  std::error_code e;
  const fs::path p = path(key);
  if (!fs::is_regular_file(p, e)) return false;
  fs::remove(out, e);
  fs::create_hard_link(p, out, e);
  if (e) fs::copy_file(p, out, fs::copy_options::overwrite_existing, e);
  if (e) return false;
  fs::last_write_time(p, fs::file_time_type::clock::now(), e);  // recently used: pruned last
  return true;
}

void artifact_store::store(const std::string& key, const fs::path& file) const {
  if (!enabled() || !valid_artifact_key(key)) return;
  std::error_code e;
  const fs::path p = path(key);
  fs::create_directories(p.parent_path(), e);
  const fs::path tmp = p.string() + ".tmp" + std::to_string(std::hash<std::string>{}(file.string()));
  fs::copy_file(file, tmp, fs::copy_options::overwrite_existing, e);
  if (!e) fs::rename(tmp, p, e);
  if (e) fs::remove(tmp, e);
  if (++stores_ % 32 == 0) prune();
}

std::optional<std::string> artifact_store::read(const std::string& key) const {
  if (!enabled() || !valid_artifact_key(key)) return std::nullopt;
  std::ifstream in(path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void artifact_store::write(const std::string& key, const std::string& bytes) const {
  if (!enabled() || !valid_artifact_key(key)) return;
  std::error_code e;
  const fs::path p = path(key);
  fs::create_directories(p.parent_path(), e);
  const fs::path tmp = p.string() + ".tmp" + std::to_string(std::hash<std::string>{}(bytes.substr(0, 64))) + "-" +
                       std::to_string(stores_.load());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      fs::remove(tmp, e);
      return;
    }
  }
  // An artifact runs: executable, by its owner only (it is built from an operator's sources).
  fs::permissions(tmp, fs::perms::owner_all, e);
  fs::rename(tmp, p, e);
  if (e) fs::remove(tmp, e);
  if (++stores_ % 32 == 0) prune();
}

// Host executables are some 10 MB each, so a long bench would otherwise fill the disk.
// Concurrent pruning is harmless: a fetch that loses the race is a miss, and a fetched artifact
// is a link of its own.
void artifact_store::prune() const { prune_least_recently_used(root_, cap_bytes_, std::chrono::seconds(0)); }

namespace {
std::uintmax_t bytes_under(const fs::path& p) {
  std::error_code e;
  if (fs::is_regular_file(p, e)) return fs::file_size(p, e);
  std::uintmax_t total = 0;
  for (auto it = fs::recursive_directory_iterator(p, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
    std::error_code fe;
    if (it->is_regular_file(fe)) total += it->file_size(fe);
  }
  return total;
}
}  // namespace

std::uintmax_t prune_least_recently_used(const fs::path& dir, std::uintmax_t cap_bytes, std::chrono::seconds keep_recent) {
  std::vector<std::tuple<fs::file_time_type, std::uintmax_t, fs::path>> entries;
  std::uintmax_t total = 0;
  std::error_code e;
  for (const auto& shard : fs::directory_iterator(dir, e)) {
    std::error_code se;
    if (!shard.is_directory(se)) continue;
    for (const auto& entry : fs::directory_iterator(shard.path(), se)) {
      std::error_code fe;
      const auto time = entry.last_write_time(fe);
      if (fe) continue;
      const auto size = bytes_under(entry.path());
      total += size;
      entries.emplace_back(time, size, entry.path());
    }
  }
  if (total <= cap_bytes) return 0;
  std::sort(entries.begin(), entries.end());
  const auto recent = fs::file_time_type::clock::now() - keep_recent;
  std::uintmax_t removed = 0;
  for (const auto& [time, size, path] : entries) {
    if (total <= cap_bytes / 4 * 3) break;
    std::error_code fe;
    if (time >= recent || fs::last_write_time(path, fe) >= recent) continue;  // (taken since the listing)
    if (fs::remove_all(path, fe) != static_cast<std::uintmax_t>(-1) && !fe) {
      total -= size;
      removed += size;
    }
  }
  return removed;
}

void note_tensor_stored(const fs::path& store_dir) {
  static std::atomic<std::uint64_t> stored{0};
  if (++stored % 16 != 0) return;
  static const std::uintmax_t cap = [] {
    const char* mb = std::getenv("AOPT_TENSOR_CACHE_MB");
    return static_cast<std::uintmax_t>(mb && std::atoll(mb) > 0 ? std::atoll(mb) : 4096) << 20;
  }();
  prune_least_recently_used(store_dir, cap, std::chrono::hours(1));
}

namespace {
std::mutex remote_mu;
artifact_remote remote_link;
}  // namespace

void set_artifact_remote(artifact_remote remote) {
  std::lock_guard<std::mutex> lock(remote_mu);
  remote_link = std::move(remote);
}

const artifact_remote& shared_artifacts() {
  std::lock_guard<std::mutex> lock(remote_mu);
  return remote_link;
}

}  // namespace aopt::evaluation
