// Reading the msprof op outputs of calibration runs: OPPROF_*/OpBasicInfo.csv and
// PipeUtilization.csv, strictly (every error names the file, the line and what to do).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aopt::calibrate {

// The columns of one CSV file; rows keep their line number (1 = header).
struct csv_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
};

// Parses CSV text (comma-separated, double quotes, CR tolerated). `file` names it in errors.
// Throws aopt::error(parse_error) "<file>:<line>: <what>; <what to do>" on an empty file, a
// row whose column count differs from the header's.
csv_table parse_csv(const std::string& text, const std::string& file);

// Each of `columns` averaged over the data rows that have a value (PipeUtilization has one row
// per core; msprof's kernel-level fields are per-core averages, as sim reports them). An N/A cell
// (evaluation::msprof_absent) is no value; a column with none is left out of the result. Throws
// parse_error naming the file and line of a missing column or a value that is neither a number
// nor N/A.
std::map<std::string, double> column_means(const csv_table& t, const std::vector<std::string>& columns,
                                           const std::string& file);

// The fields of one profiled launch: the two CSVs of one OPPROF_* directory.
std::map<std::string, double> read_opprof_dir(const std::filesystem::path& dir, const std::vector<std::string>& fields);

// One calibration case's measurement: every OPPROF_* directory under `case_dir` (one per
// profiled launch), each field the median over them. Throws not_found when there is none.
struct case_measurement {
  std::map<std::string, double> fields;
  int launches = 0;
};
case_measurement read_case_dir(const std::filesystem::path& case_dir, const std::vector<std::string>& fields);

// Which CSV a field lives in ("Task Duration(us)", "Block Dim": OpBasicInfo.csv; the aiv_* and
// aic_* fields: PipeUtilization.csv).
std::string csv_of_field(const std::string& field);

}  // namespace aopt::calibrate
