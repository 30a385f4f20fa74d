// Shared by the package-level motif tests (tiling_motifs_test.cpp, sync_motifs_test.cpp): load
// an operator package fixture from data/, compile one of its files with g++ against sim/include,
// and check one motif's forward -> inverse -> forward round trip on it.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "aopt/motifs/motif.h"

namespace aopt::motifs::testing_support {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file under data/<dir> (linked directories followed: a renamed copy shares its host),
// keyed by its path relative to that directory.
inline file_set load_op(const std::string& dir) {
  const fs::path root = fs::path(AOPT_MOTIFS_TEST_DATA) / dir;
  file_set out;
  for (const auto& e : fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink)) {
    if (e.is_regular_file()) out[e.path().lexically_relative(root).generic_string()] = slurp(e.path());
  }
  return out;
}

inline parser& tiling_parser() {
  static parser p(parse_options{AOPT_MOTIFS_TEST_SIM_INCLUDE, {}, true});
  return p;
}

inline std::vector<std::string> changed_paths(const file_set& a, const file_set& b) {
  std::vector<std::string> out;
  for (const auto& [p, text] : b) {
    auto it = a.find(p);
    if (it == a.end() || it->second != text) out.push_back(p);
  }
  return out;
}

// g++ -fsyntax-only of `path` from the set, written with the whole set to a temporary
// directory: host files as they are (they include their tiling header), kernel files with the
// tiling header force-included as the real build does.
inline bool compiles(const file_set& files, const std::string& path, std::string& log) {
  static int serial = 0;
  const fs::path dir = fs::temp_directory_path() / ("aopt-tiling-motifs-" + std::to_string(::getpid()) + "-" + std::to_string(++serial));
  for (const auto& [p, text] : files) {
    fs::create_directories((dir / p).parent_path());
    std::ofstream(dir / p) << text;
  }
  std::string cmd = "g++ -std=c++17 -fsyntax-only -mf16c -I" + std::string(AOPT_MOTIFS_TEST_SIM_INCLUDE);
  if (path.rfind("op_kernel/", 0) == 0) {
    cmd += " -D__CCE_AICORE__=220 -DDTYPE_X=half";
    static const std::regex reg(R"(REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,)");
    for (const auto& [p, text] : files) {
      std::smatch m;
      if (p.size() > 9 && p.compare(p.size() - 9, 9, "_tiling.h") == 0 && std::regex_search(text, m, reg)) {
        cmd += " -include " + (dir / p).string() + " -DAOPT_OP_TYPE=" + m[1].str();
      }
    }
  }
  const std::string out = (dir / "log.txt").string();
  cmd += " " + (dir / path).string() + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  log = slurp(out);
  fs::remove_all(dir);
  return rc == 0;
}

// `files` with the first occurrence of `from` in `path` replaced by `to` (a guard test's one-line
// edit of a fixture); throws when the fixture does not contain `from`.
inline file_set replaced(file_set files, const std::string& path, const std::string& from, const std::string& to) {
  auto& text = files.at(path);
  const auto pos = text.find(from);
  if (pos == std::string::npos) throw std::runtime_error("fixture text '" + from + "' not found in " + path);
  text.replace(pos, from.size(), to);
  return files;
}

// The registered motif `id` (throws when it is not registered).
inline const motif& registered(std::string_view id) {
  const motif* p = find_motif(id);
  if (!p) throw std::runtime_error("motif '" + std::string(id) + "' is not registered");
  return *p;
}

// The sites of motif `id` in `files` that admit `d`.
inline std::vector<site> sites_of(std::string_view id, const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  return sites_for(registered(id), src, d);
}

// Motif `id` applied in direction `d` at its only site (not ok when it has another number).
inline applied apply_at_only_site(std::string_view id, const file_set& files, direction d) {
  source_set src(files, tiling_parser());
  const auto s = sites_for(registered(id), src, d);
  if (s.size() != 1) return applied{false, std::to_string(s.size()) + " sites", files, {}, {}};
  return apply_site(registered(id), src, s[0], d);
}

// Motif `id` forward at its only site of `x`; its result must compile (`path`) and the inverse
// at its only site must give `x` back byte for byte (reported as test failures). Returns the
// forward's result.
inline applied forward_then_back(std::string_view id, const file_set& x, const std::string& path) {
  const applied y = apply_at_only_site(id, x, direction::forward);
  EXPECT_TRUE(y.ok) << y.reason;
  if (!y.ok) return y;
  std::string log;
  EXPECT_TRUE(compiles(y.files, path, log)) << y.files.at(path) << "\n" << log;
  const applied z = apply_at_only_site(id, y.files, direction::inverse);
  EXPECT_TRUE(z.ok) << z.reason;
  EXPECT_EQ(z.files, x) << z.diff;
  return y;
}

inline bool same_modulo_whitespace(const file_set& a, const file_set& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [p, text] : a) {
    auto it = b.find(p);
    if (it == b.end() || !equal_modulo_whitespace(text, it->second)) return false;
  }
  return true;
}

// What each motif must find in data/tiling_op (the de-optimized operator): the anchor text of
// its only forward site, the file it edits, and a piece of the forward result.
struct expectation {
  std::string id;
  std::string anchor;
  std::string path;
  std::string forward_text;
  std::string inverse_text;  // a piece of inverse(forward(x))
};
inline void PrintTo(const expectation& e, std::ostream* os) { *os << e.id; }

// forward -> inverse -> forward on one package; returns {x, y = fwd(x), z = inv(y)}.
struct trip {
  file_set x, y, z;
  std::vector<text_edit> forward_edits;
};

inline void check_round_trip(const motif& m, const file_set& x, trip& t, bool exact_sites, const expectation& want) {
  t.x = x;
  source_set sx(x, tiling_parser());
  const auto sites = m.match(sx);
  std::size_t fwd = 0, inv = 0;
  for (const auto& s : sites) {
    fwd += s.forward;
    inv += s.inverse;
    EXPECT_FALSE(s.summary.empty());
    EXPECT_EQ(s.motif, m.id());
  }
  ASSERT_EQ(fwd, 1u) << "the de-optimized package has one forward site";
  EXPECT_EQ(inv, 0u) << "the de-optimized package has no inverse site";
  const site& s = sites.front();
  if (exact_sites) {
    EXPECT_EQ(s.path, want.path);
    EXPECT_EQ(x.at(s.path).substr(s.anchor.begin, s.anchor.size()), want.anchor);
  }
  applied y = apply_site(m, sx, s, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  EXPECT_FALSE(y.diff.empty());
  EXPECT_EQ(changed_paths(x, y.files), std::vector<std::string>{s.path});
  // Minimal: bytes before the first edit and after the last are untouched.
  std::size_t first = std::string::npos, last_from_end = std::string::npos;
  for (const auto& e : y.edits) {
    first = std::min(first, e.r.begin);
    last_from_end = std::min(last_from_end, x.at(s.path).size() - e.r.end);
  }
  const std::string& before = x.at(s.path);
  const std::string& after = y.files.at(s.path);
  EXPECT_EQ(after.substr(0, first), before.substr(0, first));
  EXPECT_EQ(after.substr(after.size() - last_from_end), before.substr(before.size() - last_from_end));
  if (exact_sites) {
    EXPECT_NE(after.find(want.forward_text), std::string::npos) << y.diff;
  }
  t.y = y.files;
  t.forward_edits = y.edits;

  // The optimized package: one inverse site, no forward site.
  source_set sy(t.y, tiling_parser());
  const auto ys = m.match(sy);
  ASSERT_EQ(ys.size(), 1u) << y.diff;
  ASSERT_TRUE(ys[0].inverse && !ys[0].forward) << y.diff;
  applied z = apply_site(m, sy, ys[0], direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_EQ(changed_paths(t.y, z.files), std::vector<std::string>{s.path});
  if (exact_sites) {
    EXPECT_NE(z.files.at(s.path).find(want.inverse_text), std::string::npos) << z.diff;
  }
  t.z = z.files;
  if (std::getenv("AOPT_MOTIFS_PRINT_DIFFS")) std::cout << "---- forward\n" << y.diff << "---- inverse\n" << z.diff;

  // Forward again gives the optimized package back (modulo whitespace).
  source_set sz(t.z, tiling_parser());
  const auto zs = sites_for(m, sz, direction::forward);
  ASSERT_EQ(zs.size(), 1u) << z.diff;
  applied y2 = apply_site(m, sz, zs[0], direction::forward);
  ASSERT_TRUE(y2.ok) << y2.reason;
  EXPECT_TRUE(same_modulo_whitespace(y2.files, t.y)) << "inverse:\n" << z.diff << "\nforward again:\n" << y2.diff;
  // A stale site (already applied) is refused with a reason, not applied twice.
  applied again = apply_site(m, sy, ys[0], direction::forward);
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.reason.empty());
}

}  // namespace aopt::motifs::testing_support
