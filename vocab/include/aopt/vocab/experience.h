// The experience tuple (DESIGN.md §4): the four fields of the bank the paper's authors
// published (title, description, bottleneck, code_diff) plus our evidence, motif, provenance,
// embedding, content id and creation time. JSON (de)serialisation, validation, and the readers
// of the two import formats (the paper's JSON, our JSONL). Pure: no storage here. It lives in
// vocab/ (below search/ and storage/) because both speak it: search retrieves and distils tuples,
// storage keeps them; search/experience.h brings these names into aopt::search.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace aopt::vocab {

// The fixed set of bottleneck classes the Diagnoser names and the bank indexes by.
enum class bottleneck_class : std::uint8_t {
  mte2_bound,        // GM->UB copy-in pipe dominates
  mte3_bound,        // UB->GM copy-out pipe dominates
  vector_bound,      // vector pipe dominates
  scalar_bound,      // scalar pipe (element loops, address arithmetic) dominates
  serialized_pipes,  // pipes take turns instead of overlapping (barriers, single buffer)
  load_imbalance,    // cores finish at different times, or cores left idle
  launch_bound,      // launch/head overhead is a large share of the task
  bank_conflict,     // UB bank-group conflicts slow the vector pipe
  ub_underused,      // MTE-bound with a small UB footprint: copies too small
};
inline constexpr std::size_t bottleneck_class_count = 9;

const char* to_string(bottleneck_class c);
// "mte2_bound", also liberal spellings ("MTE2-bound", "mte2 bound"); nullopt if unknown.
std::optional<bottleneck_class> parse_bottleneck_class(std::string_view s);
// All classes, in enum order.
const std::vector<bottleneck_class>& all_bottleneck_classes();
// Classes named or described by a free-text bottleneck field (the paper's bank uses prose such
// as "Memory bandwidth bound: GM->UB copies are small"). Keyword rules, documented in
// docs/experience-bank.md; sorted in enum order, no duplicates; empty when nothing matches.
std::vector<bottleneck_class> classify_bottleneck(std::string_view text);

enum class provenance : std::uint8_t { rewind, refinement, import };
const char* to_string(provenance p);
std::optional<provenance> parse_provenance(std::string_view s);

struct experience_evidence {
  std::string op;         // operator (kernel name or package id)
  double slow_us = 0;     // latency before (the de-optimized or current kernel)
  double fast_us = 0;     // latency after
  std::string backend;    // "sim" or "cann": simulated results stay labelled as such
  std::string profile;    // device profile name ("910b4")
};

struct experience_embedding {
  std::string model;
  std::vector<float> vector;
};

struct experience {
  std::string id;           // content_id() of the four fields; lower-case hex SHA-256
  std::string title;
  std::string description;
  std::string bottleneck;   // free text or a class name
  std::string code_diff;
  std::optional<experience_evidence> evidence;
  std::string motif;        // motif id when a rule made it, else empty
  provenance origin = provenance::import;
  std::optional<experience_embedding> embedding;
  std::int64_t created_ms = 0;  // Unix time in milliseconds
  nlohmann::json extra = nlohmann::json::object();  // unknown fields kept from an import
};

// SHA-256 over the four fields (length-prefixed, in the order title, description, bottleneck,
// code_diff), so the same tuple imported twice has the same id.
std::string content_id(std::string_view title, std::string_view description,
                       std::string_view bottleneck, std::string_view code_diff);
std::string content_id(const experience& e);
// Sets e.id from the content, and created_ms to now when it is 0. Returns e.
experience& finalize(experience& e);

// Problems of a tuple ("title is empty", "id does not match the content", ...); empty = valid.
std::vector<std::string> validate(const experience& e);

// Full JSON object: the four fields, id, evidence {operator, slow_us, fast_us, backend,
// profile}, motif, provenance, embedding {model, vector}, created (ISO-8601 UTC with
// milliseconds) and any extra fields (keys sorted, as nlohmann::json does).
nlohmann::json to_json(const experience& e);
// Reads one tuple. Strict about the four fields (present, strings, title and bottleneck not
// empty), liberal about the rest (optional, unknown fields kept in `extra`). A given id is
// ignored: the id is always recomputed from the content. `where` prefixes every error
// ("bank.json:12:3: entry 4"); throws aopt::error(invalid_spec) "<where>: field 'x': ...".
// `default_origin` applies when the object has no "provenance".
experience experience_from_json(const nlohmann::json& j, const std::string& where,
                                provenance default_origin = provenance::import);

std::string format_time_ms(std::int64_t unix_ms);            // "2025-01-31T12:00:00.123Z"
std::optional<std::int64_t> parse_time_ms(std::string_view iso);
std::int64_t now_ms();

enum class file_format : std::uint8_t { automatic, json, jsonl };
std::optional<file_format> parse_file_format(std::string_view s);  // "auto", "json", "jsonl"

// Reads tuples from a file: `json` = the paper's format, a JSON array of objects, or an object
// wrapping such an array (under any key; "experiences", "entries", "items", "data", "bank",
// "tuples" preferred when several arrays exist), or a single tuple object; `jsonl` = one tuple
// object per line (blank lines and lines starting with '#' skipped); `automatic` = json if the
// whole file parses as JSON, else jsonl. Errors name the file, the line (and column), the entry
// index (0-based) and the field; aopt::error(parse_error / invalid_spec / io_error).
std::vector<experience> read_experience_file(const std::filesystem::path& file,
                                             file_format format = file_format::automatic,
                                             provenance default_origin = provenance::import);
// Same, from text already in memory (`file` names it in messages).
std::vector<experience> parse_experience_text(const std::string& text,
                                              const std::filesystem::path& file,
                                              file_format format = file_format::automatic,
                                              provenance default_origin = provenance::import);

// One JSON object per line, '\n' terminated.
std::string to_jsonl(const std::vector<experience>& tuples);
// A pretty JSON array (the paper's format plus our fields; importable as is).
std::string to_json_array(const std::vector<experience>& tuples);

}  // namespace aopt::vocab
