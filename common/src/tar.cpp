#include "aopt/common/tar.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/text.h"

namespace aopt::common {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t block = 512;

[[noreturn]] void bad(const std::string& member, const std::string& what) {
  throw error(ec::invalid_spec, "tar archive: " + (member.empty() ? std::string("header") : "member '" + member + "'") +
                                    ": " + what);
}

std::string field(const char* p, std::size_t n) {
  const auto* end = static_cast<const char*>(std::memchr(p, '\0', n));
  return std::string(p, end ? static_cast<std::size_t>(end - p) : n);
}

// An octal number field (leading spaces, digits, then NUL or space).
std::uint64_t octal(const char* p, std::size_t n, const std::string& member, const char* what) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < n && p[i] == ' ') ++i;
  bool any = false;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) {
    if (v > (std::uint64_t{1} << 60)) bad(member, std::string(what) + " is too large");
    v = v * 8 + static_cast<std::uint64_t>(p[i] - '0');
    any = true;
  }
  if (i < n && p[i] != '\0' && p[i] != ' ') bad(member, std::string(what) + " is not an octal number");
  if (!any) return 0;
  return v;
}

bool all_zero(const char* p) {
  return std::all_of(p, p + block, [](char c) { return c == '\0'; });
}

std::uint64_t checksum(const char* h) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < block; ++i) {
    const bool in_field = i >= 148 && i < 156;
    sum += in_field ? static_cast<unsigned char>(' ') : static_cast<unsigned char>(h[i]);
  }
  return sum;
}

// The "path" record of a pax extended header, if any ("<len> path=<value>\n" records).
std::string pax_path(const std::string& data, const std::string& member) {
  std::size_t pos = 0;
  std::string path;
  while (pos < data.size()) {
    const auto sp = data.find(' ', pos);
    if (sp == std::string::npos) bad(member, "malformed pax header record");
    std::size_t len = 0;
    try {
      len = std::stoul(data.substr(pos, sp - pos));
    } catch (const std::exception&) {
      bad(member, "malformed pax header record length");
    }
    if (len == 0 || pos + len > data.size()) bad(member, "pax header record runs past its header");
    const std::string rec = data.substr(sp + 1, pos + len - sp - 2);  // without the '\n'
    if (rec.starts_with("path=")) path = rec.substr(5);
    pos += len;
  }
  return path;
}

void put_octal(char* p, std::size_t n, std::uint64_t v) {
  // n-1 digits, zero padded, then NUL.
  std::string digits(n - 1, '0');
  for (std::size_t i = n - 1; i-- > 0 && v > 0; v /= 8) digits[i] = static_cast<char>('0' + (v % 8));
  std::memcpy(p, digits.data(), n - 1);
  p[n - 1] = '\0';
}

}  // namespace

bool safe_relative_path(std::string_view rel) {
  if (rel.empty() || rel.size() > 255 || rel.front() == '/' || rel.find('\0') != std::string_view::npos) return false;
  if (valid_utf8(rel) != rel) return false;
  std::size_t start = 0;
  while (start <= rel.size()) {
    auto end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    const auto part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::map<std::string, std::string> tar_read(std::string_view archive, const tar_limits& limits) {
  std::map<std::string, std::string> files;
  std::uint64_t members = 0, total = 0;
  std::size_t pos = 0;
  std::string long_name;  // from a GNU 'L' or pax 'x' header, for the next member
  while (true) {
    if (pos == archive.size()) break;  // no end-of-archive blocks: accepted
    if (archive.size() - pos < block) bad("", "truncated header at byte " + std::to_string(pos));
    const char* h = archive.data() + pos;
    if (all_zero(h)) break;  // end of archive
    std::string name = field(h, 100);
    const std::string magic = field(h + 257, 6);
    if (magic == "ustar") {
      const std::string prefix = field(h + 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    } else if (magic != "ustar ") {
      bad(name, "not a ustar/GNU tar header (magic '" + magic + "'); create the archive with tar -cf");
    }
    if (!long_name.empty()) {
      name = long_name;
      long_name.clear();
    }
    if (octal(h + 148, 8, name, "checksum") != checksum(h)) bad(name, "header checksum mismatch (corrupt or truncated)");
    const std::uint64_t size = octal(h + 124, 12, name, "size");
    const char type = h[156];
    pos += block;
    const std::uint64_t padded = (size + block - 1) / block * block;
    if (size > limits.max_total_bytes || padded > archive.size() - pos) {
      bad(name, "content of " + std::to_string(size) + " bytes runs past the end of the archive (truncated?)");
    }
    const std::string_view content = archive.substr(pos, size);
    pos += padded;
    if (++members > limits.max_members) bad(name, "more than " + std::to_string(limits.max_members) + " members");
    if (type == 'L') {
      long_name = field(content.data(), content.size());
      continue;
    }
    if (type == 'x') {
      long_name = pax_path(std::string(content), name);
      continue;
    }
    if (type == 'g') continue;  // global pax header: nothing we use
    while (name.starts_with("./")) name.erase(0, 2);
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    if (name.empty() || name == ".") continue;  // the archive's root directory
    if (!safe_relative_path(name)) {
      bad(name, "unsafe path (absolute, '..', empty component or not UTF-8): archives may only hold relative paths");
    }
    if (type == '5') continue;  // directories are implied by their files
    if (type != '0' && type != '\0') {
      bad(name, std::string("type '") + (type >= 32 && type < 127 ? std::string(1, type) : std::to_string(int(type))) +
                    "' is not supported: only regular files and directories (no links, devices or FIFOs)");
    }
    total += size;
    if (total > limits.max_total_bytes) {
      bad(name, "the archive's files exceed " + std::to_string(limits.max_total_bytes) + " bytes");
    }
    if (!files.emplace(name, std::string(content)).second) bad(name, "appears twice");
  }
  return files;
}

std::string tar_write(const std::map<std::string, std::string>& files) {
  std::string out;
  for (const auto& [path, content] : files) {
    if (!safe_relative_path(path)) {
      throw error(ec::invalid_argument, "tar: '" + path + "' is not a safe relative path");
    }
    char h[block] = {};
    std::string name = path, prefix;
    if (name.size() > 100) {
      // Split at a '/' so that the prefix fits 155 bytes and the rest 100.
      auto cut = name.rfind('/', 155);
      while (cut != std::string::npos && name.size() - cut - 1 > 100) cut = std::string::npos;
      if (cut == std::string::npos) throw error(ec::invalid_argument, "tar: path too long for ustar: " + path);
      prefix = name.substr(0, cut);
      name = name.substr(cut + 1);
    }
    std::memcpy(h, name.data(), name.size());
    put_octal(h + 100, 8, 0644);
    put_octal(h + 108, 8, 0);
    put_octal(h + 116, 8, 0);
    put_octal(h + 124, 12, content.size());
    put_octal(h + 136, 12, 0);
    h[156] = '0';
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    std::memcpy(h + 345, prefix.data(), prefix.size());
    std::memset(h + 148, ' ', 8);
    put_octal(h + 148, 7, checksum(h));
    h[155] = ' ';
    out.append(h, block);
    out.append(content);
    out.append((block - content.size() % block) % block, '\0');
  }
  out.append(2 * block, '\0');
  return out;
}

std::map<std::string, std::string> read_tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::is_directory(dir)) throw error(ec::not_found, dir.string() + ": not a directory");
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), dir);
    const std::string first = rel.begin()->string();
    if (first == "build" || first == "build_out" || first.starts_with(".")) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files[rel.generic_string()] = read_text_file(it->path());
  }
  return files;
}

void write_tree(const fs::path& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [rel, content] : files) {
    if (!safe_relative_path(rel)) throw error(ec::invalid_argument, "refusing to write unsafe path '" + rel + "'");
    const fs::path p = dir / rel;
    std::error_code e;
    fs::create_directories(p.parent_path(), e);
    if (e) throw error(ec::io_error, p.parent_path().string() + ": cannot create the directory: " + e.message());
    write_text_file(p, content);
  }
}

}  // namespace aopt::common
