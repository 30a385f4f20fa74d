// Built artifacts (host executables, kernel libraries) stored by the content of what went into
// them (the key: sim_backend.cpp's compile step hashes toolchain, arguments and sources), and
// the link through which hosts share them: an aopt-node asks the daemon for an artifact it lacks
// before compiling, and sends the daemon what it compiled (docs/deploy.md, "Shared builds").
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace aopt::evaluation {

// Whether `key` is an artifact key (64 lowercase hex digits): what a remote side may name.
bool valid_artifact_key(const std::string& key);

class artifact_store {
 public:
  // `root` empty = disabled. Kept under `cap_bytes` (least recently used removed first).
  artifact_store(std::filesystem::path root, std::uintmax_t cap_bytes);

  // This process's own store: AOPT_ARTIFACT_CACHE (0 = off, else the directory; default
  // <result cache root>/artifacts), capped at AOPT_ARTIFACT_CACHE_MB (default 2048).
  static const artifact_store& local();

  bool enabled() const { return !root_.empty(); }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path(const std::string& key) const;
  // Places the stored artifact at `out` (a hard link, else a copy); false when there is none.
  bool fetch(const std::string& key, const std::filesystem::path& out) const;
  // Stores the file `file` (atomically: a concurrent reader sees the whole file or none).
  void store(const std::string& key, const std::filesystem::path& file) const;
  // The same by bytes, for artifacts that travel between hosts.
  std::optional<std::string> read(const std::string& key) const;
  void write(const std::string& key, const std::string& bytes) const;
  // Removes the least recently used artifacts down to three quarters of the cap.
  void prune() const;

 private:
  std::filesystem::path root_;
  std::uintmax_t cap_bytes_;
  mutable std::atomic<std::uint64_t> stores_{0};
};

// A store laid out as `dir/<2 hex>/<entry>` (an entry is a file or a directory), kept under
// `cap_bytes`: when it is over, the least recently used entries (by the entry's modification
// time; users touch an entry when they take it) are removed until three quarters of the cap are
// left. Entries used within `keep_recent` are never removed: an evaluation may hold their path.
// Returns the bytes removed.
std::uintmax_t prune_least_recently_used(const std::filesystem::path& dir, std::uintmax_t cap_bytes,
                                         std::chrono::seconds keep_recent);

// The generated inputs and reference outputs under a result cache root (`<root>/inputs`,
// `<root>/references`): each kept under AOPT_TENSOR_CACHE_MB (default 4096) MiB, pruned once every
// 16 tensors a process stores; entries used in the last hour stay. A long-running daemon's
// cache would otherwise grow with every operator it has seen.
void note_tensor_stored(const std::filesystem::path& store_dir);

// Another host's store, as a node sees the daemon's: `get` a key (nullopt: it has none or is not
// reachable), `put` what this host built (fire and forget). Both empty = no sharing.
struct artifact_remote {
  std::function<std::optional<std::string>(const std::string& key)> get;
  std::function<void(const std::string& key, const std::string& bytes)> put;
};
// Process-wide; set before evaluations start (aopt-node does, once joined).
void set_artifact_remote(artifact_remote remote);
const artifact_remote& shared_artifacts();

}  // namespace aopt::evaluation
