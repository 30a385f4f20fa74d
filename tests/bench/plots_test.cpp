// The SVG plots: well-formed XML (checked by a minimal parser here), one series and one legend
// entry per method, escaping, ticks, the "simulated" label, and the files write_plots writes.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aopt/bench/plots.h"
#include "aopt/common/fs.h"

namespace aopt::bench {
namespace {

// A minimal XML well-formedness check: one root element, tags nest and match, attributes are
// quoted and unique per element, '&' only starts a known entity, no '<' in text or attribute
// values. Returns the error, or "" when well-formed; counts elements by name into `counts`.
std::string xml_error(const std::string& doc, std::map<std::string, int>& counts,
                      std::map<std::string, std::vector<std::map<std::string, std::string>>>* attrs = nullptr) {
  std::vector<std::string> stack;
  std::size_t i = 0, roots = 0;
  auto entity_ok = [&](std::size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      if (doc.compare(at, std::char_traits<char>::length(e), e) == 0) return true;
    }
    return false;
  };
  if (doc.rfind("<?xml", 0) == 0) {
    i = doc.find("?>");
    if (i == std::string::npos) return "unterminated XML declaration";
    i += 2;
  }
  while (i < doc.size()) {
    if (doc[i] != '<') {
      if (doc[i] == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(doc[i]))) return "text outside the root";
      ++i;
      continue;
    }
    if (doc.compare(i, 2, "</") == 0) {
      const auto end = doc.find('>', i);
      if (end == std::string::npos) return "unterminated end tag";
      const std::string name = doc.substr(i + 2, end - i - 2);
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
      i = end + 1;
      continue;
    }
    // Start tag: name, attributes, '>' or '/>'.
    std::size_t j = i + 1;
    std::string name;
    while (j < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[j])) || doc[j] == '-' || doc[j] == ':')) {
      name += doc[j++];
    }
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    std::map<std::string, std::string> seen;
    for (;;) {
      while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j]))) ++j;
      if (j >= doc.size()) return "unterminated tag <" + name;
      if (doc[j] == '>' || doc.compare(j, 2, "/>") == 0) break;
      std::string an;
      while (j < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[j])) || doc[j] == '-' || doc[j] == ':')) {
        an += doc[j++];
      }
      if (an.empty() || j >= doc.size() || doc[j] != '=') return "bad attribute in <" + name;
      ++j;
      if (doc[j] != '"') return "unquoted attribute " + an + " in <" + name;
      const auto close = doc.find('"', j + 1);
      if (close == std::string::npos) return "unterminated attribute " + an;
      const std::string value = doc.substr(j + 1, close - j - 1);
      if (value.find('<') != std::string::npos) return "'<' in attribute " + an;
      for (std::size_t k = value.find('&'); k != std::string::npos; k = value.find('&', k + 1)) {
        if (!entity_ok(j + 1 + k)) return "bad entity in attribute " + an;
      }
      if (!seen.emplace(an, value).second) return "duplicate attribute " + an + " in <" + name;
      j = close + 1;
    }
    ++counts[name];
    if (attrs) (*attrs)[name].push_back(seen);
    if (stack.empty()) ++roots;
    if (doc[j] == '>') {
      stack.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

TEST(XmlCheck, CatchesBrokenDocuments) {
  std::map<std::string, int> c;
  EXPECT_EQ(xml_error("<a><b x=\"1\"/></a>", c), "");
  EXPECT_NE(xml_error("<a><b></a>", c), "");
  EXPECT_NE(xml_error("<a x=1></a>", c), "");
  EXPECT_NE(xml_error("<a>x & y</a>", c), "");
  EXPECT_NE(xml_error("<a x=\"1\" x=\"2\"></a>", c), "");
  EXPECT_NE(xml_error("<a></a><b></b>", c), "");
}

std::vector<operator_record> sample_records() {
  std::vector<operator_record> out;
  const std::vector<std::pair<std::string, std::vector<double>>> methods{
      {"aopt", {1.0, 1.3, 2.4, 1.1}}, {"random", {1.0, 1.05, 1.2, 1.0}}, {"best_of_n", {1.0, 1.1, 1.5, 0.95}}};
  for (const auto& [m, speedups] : methods) {
    for (std::size_t i = 0; i < speedups.size(); ++i) {
      operator_record r;
      r.op = "op" + std::to_string(i);
      r.method = m;
      r.speedup = speedups[i];
      r.curve = {1.0, (1.0 + speedups[i]) / 2, speedups[i]};
      out.push_back(r);
    }
  }
  return out;
}

table_notes sim_notes() {
  table_notes n;
  n.budget = 3;
  n.backend = "sim";
  n.profile_name = "910b4";
  n.labels = {{"aopt", "AscendOptimizer"}, {"random", "Random <search> & co"}};
  return n;
}

void expect_one_series_per_method(const std::string& svg, const std::vector<std::string>& methods) {
  std::map<std::string, int> counts;
  std::map<std::string, std::vector<std::map<std::string, std::string>>> attrs;
  ASSERT_EQ(xml_error(svg, counts, &attrs), "") << svg;
  EXPECT_EQ(counts["svg"], 1);
  std::vector<std::string> seen;
  for (const auto& a : attrs["polyline"]) {
    if (a.count("class") && a.at("class") == "series") seen.push_back(a.at("data-method"));
  }
  EXPECT_EQ(seen, methods);
  int legend = 0;
  for (const auto& a : attrs["g"]) legend += a.count("class") && a.at("class") == "legend-entry";
  EXPECT_EQ(legend, static_cast<int>(methods.size()));
  EXPECT_NE(svg.find("SIMULATED"), std::string::npos) << "a sim run says its latencies are simulated";
  EXPECT_NE(svg.find("Random &lt;search&gt; &amp; co"), std::string::npos) << "labels are escaped";
}

TEST(Plots, SpeedupCdf) {
  const auto svg = speedup_cdf_svg(sample_records(), {}, sim_notes());
  expect_one_series_per_method(svg, {"aopt", "random", "best_of_n"});
  EXPECT_NE(svg.find("(log scale)"), std::string::npos);
  EXPECT_NE(svg.find(">1</text>"), std::string::npos) << "a tick at speedup 1";
}

TEST(Plots, Trajectories) {
  const auto recs = sample_records();
  const auto svg = trajectory_svg(recs, {"random", "aopt"}, sim_notes());
  expect_one_series_per_method(svg, {"random", "aopt"});
  EXPECT_NE(svg.find("evaluations spent"), std::string::npos);
  const auto c = mean_curve(recs, "aopt");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_NEAR(c[2], std::pow(1.0 * 1.3 * 2.4 * 1.1, 0.25), 1e-12);
}

TEST(Plots, EmptyAndDegenerateDataStayWellFormed) {
  std::map<std::string, int> counts;
  EXPECT_EQ(xml_error(speedup_cdf_svg({}, {}, sim_notes()), counts), "");
  operator_record one;
  one.op = "x";
  one.method = "aopt";
  one.curve = {1.0};
  EXPECT_EQ(xml_error(trajectory_svg({one}, {}, table_notes{}), counts), "");
  EXPECT_EQ(xml_error(speedup_cdf_svg({one}, {}, table_notes{}), counts), "");
}

TEST(Plots, Ticks) {
  const auto lin = linear_ticks(0.0, 1.0, 5);
  ASSERT_EQ(lin.size(), 6u);
  EXPECT_NEAR(lin[1], 0.2, 1e-12);
  EXPECT_NEAR(lin.back(), 1.0, 1e-12);
  const auto lg = log_ticks(0.9, 3.0);
  EXPECT_NE(std::find(lg.begin(), lg.end(), 1.0), lg.end());
  EXPECT_NE(std::find(lg.begin(), lg.end(), 2.0), lg.end());
  for (double t : lg) {
    EXPECT_GE(t, 0.9);
    EXPECT_LE(t, 3.0);
  }
  EXPECT_GE(log_ticks(1.0, 1.01).size(), 2u);
}

TEST(Plots, WritesBothChartsAndOnePerOperator) {
  const auto dir = common::make_unique_dir(std::filesystem::temp_directory_path(), "aopt_bench_plots_");
  const auto paths = write_plots(dir / "plots", sample_records(), {}, sim_notes());
  ASSERT_EQ(paths.size(), 3u);  // the CDF, the trajectory, the per-operator directory (no sweep: one budget)
  EXPECT_EQ(paths[2], dir / "plots" / "trajectories");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "plots")) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::map<std::string, int> counts;
    EXPECT_EQ(xml_error(common::read_text_file(e.path()), counts), "") << e.path();
  }
  std::set<std::string> ops;
  for (const auto& r : sample_records()) ops.insert(r.op);
  EXPECT_EQ(files, 2 + ops.size());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aopt::bench
