#include "aopt/common/ownership.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "aopt/common/error.h"
#include "aopt/common/log.h"

namespace aopt::common {

namespace fs = std::filesystem;

namespace {

std::string octal(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::string expected_owners(const std::vector<uid_t>& owners) {
  std::string out;
  for (std::size_t i = 0; i < owners.size(); ++i) {
    if (std::find(owners.begin(), owners.begin() + static_cast<std::ptrdiff_t>(i), owners[i]) !=
        owners.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;  // listed twice (root running as root)
    }
    if (!out.empty()) out += " or ";
    out += describe_uid(owners[i]);
  }
  return out;
}

}  // namespace

std::string describe_uid(uid_t uid) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    return std::string(found->pw_name) + " (uid " + std::to_string(uid) + ")";
  }
  return "uid " + std::to_string(uid);
}

uid_t uid_of_user(const std::string& user, const std::string& what) {
  if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos && user.size() < 10) {
    return static_cast<uid_t>(std::stoul(user));
  }
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (user.empty() || ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    throw error(ec::invalid_argument, what + " '" + user + "': no such user; give a user name or a uid");
  }
  return found->pw_uid;
}

std::string untrusted_dir(const fs::path& dir, const std::vector<uid_t>& owners) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return dir.string() + ": " + std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return dir.string() + " is a symbolic link (owned by " + describe_uid(st.st_uid) + "); expected a directory of " + expected_owners(owners);
  if (!S_ISDIR(st.st_mode)) return dir.string() + " is not a directory";
  if (std::find(owners.begin(), owners.end(), st.st_uid) == owners.end()) {
    return dir.string() + " is owned by " + describe_uid(st.st_uid) + " (mode " + octal(st.st_mode) + "); expected " +
           expected_owners(owners);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return dir.string() + " (owned by " + describe_uid(st.st_uid) + ") has mode " + octal(st.st_mode) +
           ": its group or others may write to it; expected no write permission but the owner's";
  }
  const fs::path parent = fs::absolute(dir).lexically_normal().parent_path();
  struct stat up {};
  if (::stat(parent.c_str(), &up) == 0 && (up.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (up.st_mode & S_ISVTX) == 0) {
    return dir.string() + " is in " + parent.string() + " (owned by " + describe_uid(up.st_uid) + ", mode " +
           octal(up.st_mode) + "), which others may write to without the sticky bit: they could replace the directory";
  }
  return {};
}

bool make_private_dir(const fs::path& dir, mode_t mode, const std::string& what, bool refuse_foreign) {
  if (!dir.parent_path().empty()) {
    std::error_code e;
    fs::create_directories(dir.parent_path(), e);
    if (e) throw error(ec::io_error, dir.parent_path().string() + ": cannot create the " + what + "'s parent: " + e.message());
  }
  if (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    throw error(ec::io_error, dir.string() + ": cannot create the " + what + ": " + std::strerror(errno));
  }
  // What was created, or was there: a directory (a symbolic link to one is followed: the state
  // directory may be moved to another disk), whose owner and mode are checked.
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw error(ec::io_error, dir.string() + ": the " + what + " is not a directory; remove it or choose another path");
  }
  if (st.st_uid != ::geteuid()) {
    if (!refuse_foreign) return false;
    throw error(ec::io_error, "the " + what + " " + dir.string() + " is owned by " + describe_uid(st.st_uid) + " (mode " +
                                  octal(st.st_mode) + "), not by " + describe_uid(::geteuid()) +
                                  " who runs this: another user could read or change what is kept there; chown it to " +
                                  describe_uid(::geteuid()) + " or choose a directory of your own");
  }
  const mode_t wider = st.st_mode & 0777 & ~mode;
  if (wider != 0) {
    if (::chmod(dir.c_str(), st.st_mode & 07777 & ~wider) != 0) {
      throw error(ec::io_error, dir.string() + ": cannot restrict the " + what + " to mode " + octal(st.st_mode & ~wider) +
                                    ": " + std::strerror(errno));
    }
    logger()->warn("{} {} had mode {}: now {} (only its owner{} may read it)", what, dir.string(), octal(st.st_mode),
                   octal(st.st_mode & ~wider), (mode & 0070) != 0 ? " and group" : "");
  }
  return true;
}

}  // namespace aopt::common
