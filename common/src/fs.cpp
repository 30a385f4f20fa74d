#include "aopt/common/fs.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "aopt/common/error.h"

namespace aopt::common {

namespace fs = std::filesystem;

bool path_under(const std::string& path, const std::string& dir) {
  if (dir == "/") return !path.empty() && path[0] == '/';
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

std::optional<fs::path> resolve_under(const fs::path& dir, const fs::path& path) {
  std::error_code e;
  const fs::path root = fs::canonical(dir, e);
  if (e) return std::nullopt;
  const fs::path p = fs::weakly_canonical(path.is_absolute() ? path : root / path, e);
  if (e || !path_under(p.string(), root.string())) return std::nullopt;
  return p;
}

fs::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  for (std::string d; std::getline(ss, d, ':');) {
    if (d.empty()) continue;
    const fs::path p = fs::path(d) / name;
    std::error_code e;
    if (fs::is_regular_file(p, e) && ::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

std::string read_text_file(const fs::path& file) {
  std::error_code ec_;
  if (!fs::exists(file, ec_)) {
    throw error(ec::not_found, file.string() + ": no such file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw error(ec::io_error, file.string() + ": cannot open for reading (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_text_file(const fs::path& file, std::uintmax_t max_bytes) {
  std::error_code e;
  const auto st = fs::status(file, e);
  if (!e && !fs::exists(st)) throw error(ec::not_found, file.string() + ": no such file");
  if (e || !fs::is_regular_file(st)) {
    throw error(ec::invalid_spec, file.string() + ": not a regular file" + (e ? " (" + e.message() + ")" : "") +
                                      "; replace it with a regular file or remove it");
  }
  const std::uintmax_t size = fs::file_size(file, e);
  if (!e && size > max_bytes) {
    throw error(ec::invalid_spec, file.string() + ": " + std::to_string(size) + " bytes, more than the limit of " +
                                      std::to_string(max_bytes) + " bytes for this kind of file; remove it or make it smaller");
  }
  return read_text_file(file);
}

void write_text_file(const fs::path& file, const std::string& content) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw error(ec::io_error, file.string() + ": cannot open for writing (" + std::strerror(errno) + ")");
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw error(ec::io_error, file.string() + ": write failed (disk full?)");
}

namespace {
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(rng() % 1000000);
}
}  // namespace

void write_text_file_atomic(const fs::path& file, const std::string& content) {
  const fs::path tmp = file.string() + ".tmp-" + unique_suffix();
  write_text_file(tmp, content);
  std::error_code e;
  fs::rename(tmp, file, e);
  if (e) {
    fs::remove(tmp, e);
    throw error(ec::io_error, file.string() + ": cannot rename temporary file into place");
  }
}

fs::path make_unique_dir(const fs::path& parent, const std::string& prefix) {
  std::error_code e;
  fs::create_directories(parent, e);
  if (e) throw error(ec::io_error, parent.string() + ": cannot create directory (" + e.message() + ")");
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path dir = parent / (prefix + unique_suffix());
    if (fs::create_directory(dir, e)) return dir;
  }
  throw error(ec::io_error, parent.string() + ": cannot create a unique work directory");
}

}  // namespace aopt::common
