#include "aopt/bench/plots.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"

namespace aopt::bench {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string tick_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", std::abs(v) < 1e-12 ? 0.0 : v);
  return buf;
}

// Distinguishable on white and in greyscale print (dash patterns differ too).
const char* const palette[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
const char* const dashes[] = {"", "6,3", "2,2", "8,3,2,3", "4,4", "1,3", "10,4", "3,6"};
constexpr std::size_t palette_size = sizeof(palette) / sizeof(palette[0]);

// Plot geometry: the legend sits right of the plot area.
constexpr double width = 860;
constexpr double height = 500;
constexpr double left = 80;
constexpr double right = 620;
constexpr double top = 70;
constexpr double bottom = 430;

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

svg_writer::svg_writer(double w, double h) : width_(w), height_(h) {}

void svg_writer::rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
           "\" fill=\"" + xml_escape(fill) + "\" stroke=\"" + xml_escape(stroke) + "\"/>\n";
}

void svg_writer::line(double x1, double y1, double x2, double y2, const std::string& stroke, double w,
                      const std::string& dash) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\" stroke=\"" + xml_escape(stroke) + "\" stroke-width=\"" + num(w) + "\"";
  if (!dash.empty()) body_ += " stroke-dasharray=\"" + xml_escape(dash) + "\"";
  body_ += "/>\n";
}

void svg_writer::polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double w,
                          const std::string& cls, const std::string& data_method, const std::string& dash) {
  body_ += "<polyline";
  if (!cls.empty()) body_ += " class=\"" + xml_escape(cls) + "\"";
  if (!data_method.empty()) body_ += " data-method=\"" + xml_escape(data_method) + "\"";
  body_ += " fill=\"none\" stroke=\"" + xml_escape(stroke) + "\" stroke-width=\"" + num(w) + "\"";
  if (!dash.empty()) body_ += " stroke-dasharray=\"" + xml_escape(dash) + "\"";
  body_ += " points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    body_ += (i ? " " : "") + num(points[i].first) + "," + num(points[i].second);
  }
  body_ += "\"/>\n";
}

void svg_writer::text(double x, double y, const std::string& content, double size, const std::string& anchor,
                      double rotate, const std::string& weight) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
           xml_escape(anchor) + "\" font-weight=\"" + xml_escape(weight) + "\"";
  if (rotate != 0) body_ += " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"";
  body_ += ">" + xml_escape(content) + "</text>\n";
}

void svg_writer::open_group(const std::string& cls) {
  body_ += "<g class=\"" + xml_escape(cls) + "\">\n";
  ++open_groups_;
}

void svg_writer::close_group() {
  if (open_groups_ == 0) throw aopt::error(ec::internal, "svg_writer: close_group without an open group");
  body_ += "</g>\n";
  --open_groups_;
}

std::string svg_writer::str() const {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " +
                    num(height_) + "\" font-family=\"sans-serif\">\n" + body_;
  for (int i = 0; i < open_groups_; ++i) out += "</g>\n";
  return out + "</svg>\n";
}

std::vector<double> linear_ticks(double lo, double hi, std::size_t target) {
  if (!(hi > lo)) return {lo, lo + 1};
  const double raw = (hi - lo) / static_cast<double>(std::max<std::size_t>(target, 1));
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  std::vector<double> out;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
  if (out.size() < 2) out = {lo, hi};
  return out;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > lo)) return {lo, hi};
  const double ratio = hi / lo;
  std::vector<double> mantissas;
  if (ratio > 20) {
    mantissas = {1, 2, 5};
  } else if (ratio > 4) {
    mantissas = {1, 1.5, 2, 3, 5, 7};
  } else {
    mantissas = {1, 1.1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 4, 5, 6, 8};
  }
  std::vector<double> out;
  for (int k = static_cast<int>(std::floor(std::log10(lo))) - 1; k <= static_cast<int>(std::ceil(std::log10(hi))); ++k) {
    for (double m : mantissas) {
      const double v = m * std::pow(10.0, k);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  }
  if (out.size() < 2) out = {lo, hi};
  return out;
}

std::string render_chart(const chart& c) {
  // Data ranges.
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool any = false;
  for (const auto& s : c.lines) {
    for (const auto& [x, y] : s.points) {
      if (c.x_log && !(x > 0)) continue;
      if (!any) {
        x_lo = x_hi = x;
        y_lo = y_hi = y;
        any = true;
      }
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y);
      y_hi = std::max(y_hi, y);
    }
  }
  if (c.x_marker && (!c.x_log || *c.x_marker > 0)) {
    x_lo = any ? std::min(x_lo, *c.x_marker) : *c.x_marker;
    x_hi = any ? std::max(x_hi, *c.x_marker) : *c.x_marker;
    any = true;
  }
  if (!any) {
    x_lo = c.x_log ? 1 : 0;
    x_hi = c.x_log ? 10 : 1;
    y_lo = 0;
    y_hi = 1;
  }
  if (c.x_log) {
    if (!(x_hi > x_lo * 1.05)) {
      x_lo /= 1.1;
      x_hi *= 1.1;
    }
  } else if (!(x_hi > x_lo)) {
    x_lo -= 0.5;
    x_hi += 0.5;
  }
  if (c.y_range) {
    y_lo = c.y_range->first;
    y_hi = c.y_range->second;
  } else {
    const double pad = std::max(1e-3, (y_hi - y_lo) * 0.05);
    y_lo -= pad;
    y_hi += pad;
  }
  const std::vector<double> xt = c.x_log ? log_ticks(x_lo, x_hi) : linear_ticks(x_lo, x_hi);
  const std::vector<double> yt = linear_ticks(y_lo, y_hi, 5);
  auto px = [&](double x) {
    const double t = c.x_log ? (std::log(x) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo))
                             : (x - x_lo) / (x_hi - x_lo);
    return left + t * (right - left);
  };
  auto py = [&](double y) { return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top); };

  svg_writer w(width, height);
  w.rect(0, 0, width, height, "white");
  w.text(width / 2, 28, c.title, 17, "middle", 0, "bold");
  if (!c.subtitle.empty()) w.text(width / 2, 50, c.subtitle, 12, "middle");

  w.open_group("grid");
  for (double v : xt) w.line(px(v), top, px(v), bottom, "#e5e5e5");
  for (double v : yt) w.line(left, py(v), right, py(v), "#e5e5e5");
  w.close_group();

  w.open_group("axes");
  w.line(left, bottom, right, bottom, "black");
  w.line(left, top, left, bottom, "black");
  for (double v : xt) {
    w.line(px(v), bottom, px(v), bottom + 5, "black");
    w.text(px(v), bottom + 19, tick_label(v), 11, "middle");
  }
  for (double v : yt) {
    w.line(left - 5, py(v), left, py(v), "black");
    w.text(left - 8, py(v) + 4, tick_label(v), 11, "end");
  }
  w.text((left + right) / 2, bottom + 45, c.x_label + (c.x_log ? " (log scale)" : ""), 13, "middle");
  w.text(22, (top + bottom) / 2, c.y_label, 13, "middle", -90);
  w.close_group();

  if (c.x_marker && (!c.x_log || *c.x_marker > 0)) {
    w.line(px(*c.x_marker), top, px(*c.x_marker), bottom, "#444444", 1, "4,4");
  }

  w.open_group("series-group");
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const auto& s = c.lines[i];
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : s.points) {
      if (c.x_log && !(x > 0)) continue;
      pts.emplace_back(px(x), py(std::clamp(y, y_lo, y_hi)));
    }
    const std::string color = palette[i % palette_size];
    const std::string dash = dashes[i % palette_size];
    w.polyline(pts, color, 2, "series", s.name, dash);
  }
  w.close_group();

  w.open_group("legend");
  const double lx = right + 25;
  double ly = top + 10;
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    w.open_group("legend-entry");
    w.line(lx, ly, lx + 30, ly, palette[i % palette_size], 3, dashes[i % palette_size]);
    w.text(lx + 38, ly + 4, c.lines[i].label.empty() ? c.lines[i].name : c.lines[i].label, 12);
    w.close_group();
    ly += 22;
  }
  w.close_group();
  return w.str();
}

std::vector<double> mean_curve(const std::vector<operator_record>& records, const std::string& method) {
  std::size_t len = 0;
  for (const auto& r : records) {
    if (r.method == method) len = std::max(len, r.curve.size());
  }
  std::vector<double> out;
  for (std::size_t e = 0; e < len; ++e) {
    std::vector<double> xs;
    for (const auto& r : records) {
      if (r.method != method) continue;
      if (r.curve.empty()) {
        xs.push_back(1.0);
      } else {
        xs.push_back(r.curve[std::min(e, r.curve.size() - 1)]);
      }
    }
    out.push_back(geomean(xs).value_or(1.0));
  }
  return out;
}

namespace {

std::vector<std::string> methods_of(const std::vector<operator_record>& records, const std::vector<std::string>& methods) {
  if (!methods.empty()) return methods;
  std::vector<std::string> out;
  for (const auto& r : records) {
    if (std::find(out.begin(), out.end(), r.method) == out.end()) out.push_back(r.method);
  }
  return out;
}

std::string label_of(const std::string& method, const table_notes& notes) {
  for (const auto& [m, l] : notes.labels) {
    if (m == method) return l;
  }
  return method;
}

std::string subtitle_of(const table_notes& notes, std::size_t operators) {
  std::string s = std::to_string(operators) + " operators";
  if (notes.budget > 0) s += ", budget " + std::to_string(notes.budget) + " evaluations";
  if (notes.backend == "sim") {
    s += "; latencies SIMULATED (sim backend" + (notes.profile_name.empty() ? "" : ", profile " + notes.profile_name) +
         "), not hardware measurements";
  } else if (!notes.backend.empty()) {
    s += "; measured on " + notes.backend + (notes.profile_name.empty() ? "" : " (" + notes.profile_name + ")");
  }
  return s;
}

std::size_t operator_count(const std::vector<operator_record>& records) {
  std::vector<std::string> ops;
  for (const auto& r : records) {
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  return ops.size();
}

}  // namespace

std::string speedup_cdf_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                            const table_notes& notes) {
  chart c;
  c.title = notes.title + ": speedup CDF";
  c.subtitle = subtitle_of(notes, operator_count(records));
  c.x_label = "speedup over the reference";
  c.y_label = "share of operators with speedup <= x";
  c.x_log = true;
  c.x_marker = 1.0;
  c.y_range = std::make_pair(0.0, 1.0);
  const auto ms = methods_of(records, methods);
  double lo = 1.0, hi = 1.0;
  for (const auto& r : records) {
    if (r.speedup > 0) {
      lo = std::min(lo, r.speedup);
      hi = std::max(hi, r.speedup);
    }
  }
  lo /= 1.1;
  hi *= 1.1;
  for (const auto& m : ms) {
    std::vector<double> s;
    for (const auto& r : records) {
      if (r.method == m && r.speedup > 0) s.push_back(r.speedup);
    }
    std::sort(s.begin(), s.end());
    series line{m, label_of(m, notes), {}};
    // A step function: flat at i/n until the next operator's speedup, then up.
    line.points.emplace_back(lo, 0.0);
    const double n = static_cast<double>(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      line.points.emplace_back(s[i], static_cast<double>(i) / n);
      line.points.emplace_back(s[i], static_cast<double>(i + 1) / n);
    }
    line.points.emplace_back(hi, s.empty() ? 0.0 : 1.0);
    c.lines.push_back(std::move(line));
  }
  return render_chart(c);
}

std::string trajectory_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                           const table_notes& notes) {
  chart c;
  c.title = notes.title + ": best speedup vs evaluations";
  c.subtitle = subtitle_of(notes, operator_count(records));
  c.x_label = "evaluations spent";
  c.y_label = "geometric-mean best speedup";
  for (const auto& m : methods_of(records, methods)) {
    series line{m, label_of(m, notes), {}};
    const auto curve = mean_curve(records, m);
    for (std::size_t e = 0; e < curve.size(); ++e) line.points.emplace_back(static_cast<double>(e + 1), curve[e]);
    c.lines.push_back(std::move(line));
  }
  return render_chart(c);
}

std::string budget_sweep_svg(const std::vector<operator_record>& records, const std::vector<std::string>& methods,
                             const table_notes& notes) {
  chart c;
  c.title = notes.title + ": budget sweep";
  c.subtitle = subtitle_of(notes, operator_count(records));
  c.x_label = "budget (evaluations per operator)";
  c.y_label = "geometric-mean speedup (mean over seeds)";
  c.x_log = true;
  for (const auto& m : methods_of(records, methods)) {
    const auto sweep = budget_sweep(records, m);
    if (sweep.size() < 2) continue;
    series line{m, label_of(m, notes), {}};
    for (const auto& [b, g] : sweep) line.points.emplace_back(static_cast<double>(b), g);
    c.lines.push_back(std::move(line));
  }
  return c.lines.empty() ? std::string() : render_chart(c);
}

std::string operator_trajectory_svg(const std::vector<operator_record>& records, const std::string& op,
                                    const std::vector<std::string>& methods, const table_notes& notes) {
  std::vector<operator_record> mine;
  for (const auto& r : records) {
    if (r.op == op) mine.push_back(r);
  }
  table_notes n = notes;
  n.title = notes.title + ": " + op;
  return trajectory_svg(mine, methods, n);
}

std::vector<std::filesystem::path> write_plots(const std::filesystem::path& dir,
                                               const std::vector<operator_record>& records,
                                               const std::vector<std::string>& methods, const table_notes& notes) {
  std::error_code err;
  std::filesystem::create_directories(dir, err);
  if (err) {
    throw aopt::error(ec::io_error, "bench plots: cannot create directory " + dir.string() + ": " + err.message() +
                                        " (choose another --out directory)");
  }
  std::vector<std::filesystem::path> paths{dir / "speedup_cdf.svg", dir / "trajectory.svg"};
  common::write_text_file(paths[0], speedup_cdf_svg(records, methods, notes));
  common::write_text_file(paths[1], trajectory_svg(records, methods, notes));
  const std::string sweep = budget_sweep_svg(records, methods, notes);
  if (!sweep.empty()) {
    paths.push_back(dir / "budget_sweep.svg");
    common::write_text_file(paths.back(), sweep);
  }
  // One chart per operator: each method's best speedup after e evaluations (the first seed's
  // run and the others' alike: the curves of several seeds are averaged geometrically).
  std::vector<std::string> ops;
  for (const auto& r : records) {
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  if (!ops.empty()) std::filesystem::create_directories(dir / "trajectories", err);
  for (const auto& op : ops) {
    std::string file;
    for (char ch : op) file += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ? ch : '_';
    common::write_text_file(dir / "trajectories" / (file + ".svg"), operator_trajectory_svg(records, op, methods, notes));
  }
  if (!ops.empty()) paths.push_back(dir / "trajectories");
  return paths;
}

}  // namespace aopt::bench
