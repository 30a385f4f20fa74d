// msprof_csv.h: strict reading of msprof op CSVs for calibration.
#include "aopt/calibrate/msprof_csv.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/evaluation/cann.h"

namespace aopt::calibrate {

namespace fs = std::filesystem;

namespace {

constexpr const char* redo = "profile the case again (aopt calibrate without --from) or replace the file with msprof op's own";

std::string trimmed(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

[[noreturn]] void garbled(const std::string& file, int line, const std::string& what) {
  throw error(ec::parse_error, file + ":" + std::to_string(line) + ": " + what + "; " + redo);
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0';
}

}  // namespace

csv_table parse_csv(const std::string& text, const std::string& file) {
  csv_table t;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (trimmed(line).empty()) continue;
    auto fields = evaluation::csv_fields(line);
    if (t.header.empty()) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size()) {
      garbled(file, n, "this row has " + std::to_string(fields.size()) + " columns, the header " +
                           std::to_string(t.header.size()) + " (a cut-off or hand-edited file)");
    }
    t.rows.push_back(std::move(fields));
    t.lines.push_back(n);
  }
  if (t.header.empty()) garbled(file, 1, "the file is empty (msprof op was interrupted?)");
  if (t.rows.empty()) garbled(file, n, "the file has a header but no data row (msprof op saw no launch of the kernel?)");
  return t;
}

std::map<std::string, double> column_means(const csv_table& t, const std::vector<std::string>& columns, const std::string& file) {
  std::map<std::string, double> out;
  for (const auto& c : columns) {
    const auto it = std::find(t.header.begin(), t.header.end(), c);
    if (it == t.header.end()) {
      garbled(file, 1, "no column '" + c + "' in the header (a CANN version that names it differently: rename the column, " +
                           "or the file is not msprof op's)");
    }
    const auto col = static_cast<std::size_t>(it - t.header.begin());
    double sum = 0;
    int n = 0;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      if (evaluation::msprof_absent(t.rows[r][col])) continue;  // N/A: no value on this core, not an error
      double v = 0;
      if (!parse_number(t.rows[r][col], v)) {
        garbled(file, t.lines[r], "column '" + c + "' is '" + t.rows[r][col] + "', not a number");
      }
      sum += v;
      ++n;
    }
    if (n > 0) out[c] = sum / n;
  }
  return out;
}

std::string csv_of_field(const std::string& field) {
  return field.rfind("aiv_", 0) == 0 || field.rfind("aic_", 0) == 0 ? "PipeUtilization.csv" : "OpBasicInfo.csv";
}

std::map<std::string, double> read_opprof_dir(const fs::path& dir, const std::vector<std::string>& fields) {
  std::map<std::string, std::vector<std::string>> per_csv;
  for (const auto& f : fields) per_csv[csv_of_field(f)].push_back(f);
  std::map<std::string, double> out;
  for (const auto& [csv, cols] : per_csv) {
    const fs::path file = dir / csv;
    std::error_code e;
    if (!fs::is_regular_file(file, e)) {
      throw error(ec::not_found, file.string() + ": missing: msprof op wrote no " + csv +
                                     " here (a failed or interrupted profile run); " + redo);
    }
    const auto m = column_means(parse_csv(common::read_text_file(file), file.string()), cols, file.string());
    out.insert(m.begin(), m.end());
  }
  return out;
}

case_measurement read_case_dir(const fs::path& case_dir, const std::vector<std::string>& fields) {
  std::vector<fs::path> runs;
  std::error_code e;
  if (fs::is_directory(case_dir, e)) {
    for (const auto& d : fs::directory_iterator(case_dir, e)) {
      if (d.is_directory() && d.path().filename().string().rfind("OPPROF_", 0) == 0) runs.push_back(d.path());
    }
  }
  if (runs.empty()) {
    throw error(ec::not_found, case_dir.string() + ": no OPPROF_* directory (msprof op output) for calibration case " +
                                   case_dir.filename().string() + "; run `aopt calibrate` without --from to profile it, or " +
                                   "copy msprof op's output of this case there (docs/cann.md, \"Calibrating sim\")");
  }
  std::sort(runs.begin(), runs.end());
  std::map<std::string, std::vector<double>> values;
  for (const auto& r : runs) {
    for (const auto& [k, v] : read_opprof_dir(r, fields)) values[k].push_back(v);
  }
  case_measurement m;
  m.launches = static_cast<int>(runs.size());
  for (auto& [k, v] : values) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    m.fields[k] = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  return m;
}

}  // namespace aopt::calibrate
