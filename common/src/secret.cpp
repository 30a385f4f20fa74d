#include "aopt/common/secret.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/text.h"

namespace aopt::common {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t min_secret_chars = 32;
constexpr std::uintmax_t max_secret_bytes = 4096;

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  std::ifstream in("/dev/urandom", std::ios::binary);
  in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  if (!in) throw error(ec::internal, "cannot read /dev/urandom for a random secret");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : raw) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

bool equal_constant_time(std::string_view given, std::string_view expected) {
  // Every byte of `expected` is looked at whatever `given` holds; volatile keeps the compiler
  // from stopping at the first difference.
  volatile unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = static_cast<unsigned char>(diff | (g ^ static_cast<unsigned char>(expected[i])));
  }
  return diff == 0;
}

std::string read_secret_file(const fs::path& file, const std::string& what) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) throw error(ec::not_found, what + " " + file.string() + ": no such file");
    throw error(ec::io_error, what + " " + file.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw error(ec::invalid_argument, what + " " + file.string() + ": not a regular file");
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    throw error(ec::invalid_argument, what + " " + file.string() + ": owned by uid " + std::to_string(st.st_uid) +
                                          ", not by this user (uid " + std::to_string(::geteuid()) +
                                          "); a secret must be the user's own: copy it and chmod 600 the copy");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw error(ec::invalid_argument, what + " " + file.string() + ": mode " + mode +
                                          " lets other users read or change it; chmod 600 " + file.string());
  }
  const std::string s = trimmed(read_text_file(file, max_secret_bytes));
  if (s.size() < min_secret_chars || !is_valid_utf8(s) || s.find_first_of(" \t\r\n") != std::string::npos) {
    throw error(ec::invalid_argument, what + " " + file.string() + ": expected one word of at least " +
                                          std::to_string(min_secret_chars) +
                                          " characters (e.g. made by `openssl rand -hex 32`), found " +
                                          std::to_string(s.size()) + " characters");
  }
  return s;
}

std::string read_or_create_secret_file(const fs::path& file, const std::string& what) {
  std::error_code e;
  if (!fs::exists(fs::symlink_status(file, e))) {
    if (file.has_parent_path()) fs::create_directories(file.parent_path(), e);
    const std::string secret = random_hex(32);
    // O_EXCL: never through a symlink or over a file someone put there meanwhile.
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
      const std::string line = secret + "\n";
      const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
      const bool synced = ::fsync(fd) == 0;
      ::close(fd);
      if (!written || !synced) {
        ::unlink(file.c_str());
        throw error(ec::io_error, what + " " + file.string() + ": cannot write it (disk full?)");
      }
      return secret;
    }
    if (errno != EEXIST) throw error(ec::io_error, what + " " + file.string() + ": cannot create it: " + std::strerror(errno));
  }
  return read_secret_file(file, what);
}

}  // namespace aopt::common
