// Plots of a bench run as SVG, drawn by our own small writer (no plotting dependency): the
// speedup CDF per method and the trajectories (geometric-mean best speedup over operators vs
// evaluations spent). Each method is one `<polyline class="series" data-method="...">` and one
// legend entry; the subtitle says when latencies are simulated.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aopt/bench/metrics.h"

namespace aopt::bench {

// &, <, >, " and ' as entities (text and attribute values alike).
std::string xml_escape(std::string_view s);

// Appends SVG elements to a document of a fixed size. Coordinates are in pixels.
class svg_writer {
 public:
  svg_writer(double width, double height);
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& dash = "");
  // `cls` and `data_method` become the class and data-method attributes when not empty.
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double width,
                const std::string& cls = "", const std::string& data_method = "", const std::string& dash = "");
  // anchor: "start", "middle", "end"; rotate: degrees around (x, y).
  void text(double x, double y, const std::string& content, double size = 12, const std::string& anchor = "start",
            double rotate = 0, const std::string& weight = "normal");
  void open_group(const std::string& cls);
  void close_group();
  std::string str() const;  // the whole document, XML declaration included

 private:
  double width_;
  double height_;
  std::string body_;
  int open_groups_ = 0;
};

struct series {
  std::string name;   // method name (data-method)
  std::string label;  // legend text
  std::vector<std::pair<double, double>> points;
};

struct chart {
  std::string title;
  std::string subtitle;
  std::string x_label;
  std::string y_label;
  bool x_log = false;
  std::optional<double> x_marker;  // a dashed vertical reference line (speedup 1.0)
  std::optional<std::pair<double, double>> y_range;  // fixed y axis; default: from the data
  std::vector<series> lines;
};

// One line chart: axes with ticks and labels, grid, one polyline per series, legend, title.
std::string render_chart(const chart& c);

// Tick positions for [lo, hi]: "nice" steps (1, 2, 5 x 10^k) on a linear axis; on a log axis
// 1-2-5 values (and finer ones for a narrow range). Always at least two ticks.
std::vector<double> linear_ticks(double lo, double hi, std::size_t target = 6);
std::vector<double> log_ticks(double lo, double hi);

// Share of operators (y) whose speedup is <= x, one step line per method (x log scale).
std::string speedup_cdf_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                            const table_notes& notes);
// Geometric-mean best speedup over operators (y) after e evaluations (x), one line per method.
std::string trajectory_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                           const table_notes& notes);
// The geometric-mean curve of one method (records of the other methods are ignored).
std::vector<double> mean_curve(const std::vector<operator_record>& records, const std::string& method);

// Geometric-mean speedup (y) at each budget of the sweep (x, log), one line per method that has
// two or more budgets (records labelled `method` and `method@B`); empty when none has.
std::string budget_sweep_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                             const table_notes& notes);
// One operator's trajectory chart (the records of other operators are ignored).
std::string operator_trajectory_svg(const std::vector<operator_record>& records, const std::string& op,
                                    const std::vector<std::string>& methods, const table_notes& notes);

// Writes speedup_cdf.svg, trajectory.svg, budget_sweep.svg (when there is a sweep) and
// trajectories/<operator>.svg into `dir` (created if needed); returns their paths (the
// trajectories as their directory).
// `methods` empty: every method in the records, first-seen order.
std::vector<std::filesystem::path> write_plots(const std::filesystem::path& dir,
                                               const std::vector<operator_record>& records,
                                               const std::vector<std::string>& methods, const table_notes& notes);

}  // namespace aopt::bench
