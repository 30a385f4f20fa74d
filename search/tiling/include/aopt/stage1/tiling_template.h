// Stage I template synthesis: find the tiling function of an operator, its tunables (sizes,
// counts, block dim, buffer count, alignment, tiling-key choice, flags) with their current
// value, legal domain and exact source ranges, and turn any assignment of values back into
// compilable source. See docs/stage1.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace aopt::stage1 {

struct source_file {
  std::string path;     // relative to the package root, e.g. "op_host/add_custom.cpp"
  std::string content;
};

enum class tunable_kind : std::uint8_t { size, count, block_dim, buffer_num, alignment, key, flag };
const char* to_string(tunable_kind k);

// The device facts a domain may depend on (from the device profile).
struct device_limits {
  std::int64_t core_count = 40;      // vector cores (910B4: 40)
  std::int64_t ub_bytes = 196608;    // unified buffer per core
  // The Cube unit's buffers per AI core (910B-class; the device profile's l1/l0a/l0b/l0c_bytes):
  // what a Matmul tiling (TCubeTiling) must fit.
  std::int64_t l1_bytes = 524288;
  std::int64_t l0a_bytes = 65536;
  std::int64_t l0b_bytes = 65536;
  std::int64_t l0c_bytes = 131072;
  // The operator's own cap on its cores: the largest block dim the base's tiling uses when that is
  // below core_count (exp caps its cores at the input's 32-byte blocks); 0 when none is known.
  // Counts of cores are probed just below it (probe_ladder), where a change still tiles anew.
  std::int64_t core_cap = 0;
};

enum class domain_kind : std::uint8_t {
  choices,    // one of `choices` (an enum of values, or indexes into tunable::spellings)
  pow2,       // powers of two in [lo, hi]
  log_range,  // any integer in [lo, hi]; moved in log-scale steps
  range,      // any integer in [lo, hi]; moved by neighbourhood steps
  cores,      // 0 (= the platform's core count, as written) or 1 .. device core count
};
const char* to_string(domain_kind k);

struct domain {
  domain_kind kind = domain_kind::range;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool allow_zero = false;             // 0 is legal besides [lo, hi] (pow2, log_range)
  std::vector<std::int64_t> choices;   // kind == choices
  bool contains(std::int64_t v, const device_limits& dev) const;
  // Number of legal values (capped at 1e9); 1 means the tunable is fixed.
  std::int64_t size(const device_limits& dev) const;
  // "pow2 [32, 512]", "choices {1, 2}", "cores 0|1..40".
  std::string describe() const;
};

// One place in one file where a tunable's value is written. The text written there is
// value + delta (a round-up idiom `(x + 15) / 16 * 16` has the 15 as an occurrence of the
// tunable 16 with delta -1).
struct occurrence {
  std::size_t file = 0;      // index into tiling_template::files
  std::size_t offset = 0;    // byte range of the original text
  std::size_t length = 0;
  std::string original;      // the text there in the base source
  std::int64_t delta = 0;
};

struct tunable {
  std::string name;          // unique in the template: a constant's name or "<target>_<role>"
  tunable_kind kind = tunable_kind::size;
  std::int64_t value = 0;    // current value (index into spellings when spellings is not empty)
  domain dom;
  std::vector<std::string> spellings;  // identifier choices of an enumerated key
  std::vector<occurrence> occurrences; // at least one; all change together
  std::string origin;        // "constexpr BUFFER_NUM (op_host/add_custom.cpp:10)"
  std::string context;       // the source statement the tunable was found in
  bool kernel_linked = false;  // also a constant of a kernel file (changed together)
  bool fixed(const device_limits& dev) const { return dom.size(dev) <= 1; }
};

using assignment = std::vector<std::int64_t>;  // one value per tunable, in template order

struct tiling_template {
  std::vector<source_file> files;  // files[0]: the host file holding the tiling function
  std::string function_name;       // the tiling function ("TilingFunc", "MulV3TilingFunc")
  std::size_t function_begin = 0;  // byte range of its definition in files[0]
  std::size_t function_end = 0;
  std::vector<tunable> tunables;
  std::vector<std::string> notes;  // what synthesis skipped and why (for reports and LLMs)

  assignment base() const;         // the current values
  std::optional<std::size_t> find(std::string_view name) const;

  // Why `values` is not a legal assignment (wrong size, a value outside its domain), or
  // nullopt. Domains are checked against `dev`.
  std::optional<std::string> check(const assignment& values, const device_limits& dev) const;

  // The sources with `values` substituted: every file of the template, by path. With the base
  // values every file is byte-identical to the original. Throws aopt::error(invalid_argument)
  // when `values` has the wrong size or a spelling index is out of range.
  std::map<std::string, std::string> instantiate(const assignment& values) const;

  // The sources with OpenEvolve-style markers: `// EVOLVE-BLOCK-START` / `// EVOLVE-BLOCK-END`
  // lines around the evolvable region of each file (in the host file from the first tunable
  // constant or the function, whichever comes first, to the end of the function; in a kernel
  // file around its linked constants), and a comment listing each tunable, its kind, domain
  // and value right after the start marker of the host file.
  std::map<std::string, std::string> marked(const assignment& values) const;

  // Text for reports: "BUFFER_NUM=1, tileLength_cap=8192" (only tunables that differ from base).
  std::string describe_change(const assignment& values) const;
};

// The text `instantiate` writes at `oc` for the value `v` of `t` (the original text at its
// written value).
std::string render_occurrence(const tunable& t, const occurrence& oc, std::int64_t v);

// The template's identity: a SHA-256 (hex) of its function name and files, by content, never by
// the object's address. Equal templates anywhere (another copy, another message, another
// process or run) have one id; a template changed in place gets another. Engines key their
// per-template state by it.
std::string template_id(const tiling_template& t);

// Hash of an assignment (FNV-1a over the values), used for dedup and caches.
std::uint64_t hash_assignment(const assignment& values);

nlohmann::json to_json(const tiling_template& t);

struct synthesis_input {
  std::vector<source_file> host_files;    // op_host/*.cpp (and headers, which are ignored)
  std::vector<source_file> kernel_files;  // op_kernel/*: constants shared with the host
};

struct synthesis_error {
  std::string reason;  // what was not found, where, and what to do
};

// Finds the tiling function (the function passed to SetTiling(...) or
// IMPL_OP_OPTILING(...).Tiling(...), else one named TilingFunc) and its tunables. Returns the
// template, or a synthesis_error when no tiling function exists.
struct synthesis_result {
  std::optional<tiling_template> tmpl;
  std::optional<synthesis_error> error;
};
synthesis_result synthesize(const synthesis_input& input);

}  // namespace aopt::stage1
