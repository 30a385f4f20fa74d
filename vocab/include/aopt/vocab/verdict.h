// One evaluation, typed (TVM MetaSchedule's RunnerResult): what the search asks of an evaluator
// (`eval_request`) and the verdict it gets back (`eval_report`: status and stage as enums, the
// facts of each case, the warnings as a typed list). One C++ type each from the search to the
// evaluator and back: in-process (optimize::local_services), over the actors, the daemon and
// aopt-node. The evaluator fills the report (evaluation/verdict.h), the search reads its fields;
// nobody reads a report by string key. Their JSON is spelled once (src/verdict.cpp): the actor
// messages, the daemon's journal, report.json and the result cache's old records all go through
// it. It lives in vocab/ because search/ and evaluation/ both speak it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/common/file_map.h"

namespace aopt::vocab {

// Why a candidate is evaluated; decides the evaluator's treatment (`remeasure`: never from the
// result cache; `screen`: only the host tiling of every case runs) and the search's bookkeeping.
enum class eval_stage : std::uint8_t {
  base,           // the operator as given, the job's reference
  tiling,         // Stage I: a tiling variant
  kernel,         // Stage II: a kernel rewrite
  tiling_kernel,  // a bench baseline's proposal that changes both ("tiling+kernel")
  random,         // the random-search baseline
  verify,         // the winner on fresh inputs (outside the budget)
  remeasure,      // measured again for a confirming comparison, never from the result cache
  screen,         // the host tiling of every case, no kernel (evaluation::evaluator::screen)
  rewind,         // a rewind step (search/rewind)
};
// "base", "tiling", "kernel", "tiling+kernel", "random", "verify", "remeasure", "screen", "rewind".
std::string_view to_string(eval_stage s);
std::optional<eval_stage> parse_eval_stage(std::string_view s);

// The evaluator's verdict, in the order a candidate can fail (evaluation/result.h), plus the
// screen's and the builders' own answers.
enum class eval_status : std::uint8_t {
  ok,
  compile_error,
  tiling_error,
  runtime_error,
  timeout,
  precision_error,
  resource_error,
  unsupported,  // a screen on a backend that does not screen tilings
  built,        // a builder's report: built, a device is still to run it (never a search's answer)
};
std::string_view to_string(eval_status s);
std::optional<eval_status> parse_eval_status(std::string_view s);

// One candidate to evaluate: the complete source set of the operator (every op_host/ and
// op_kernel/ source file, changed or not) plus its lineage. The evaluator replaces the files
// that differ from the operator's base package.
struct eval_request {
  file_map files;
  eval_stage stage = eval_stage::base;
  int round = 0;
  std::string proposal;  // one line: what this candidate changes
  // Input seed override: "verify" requests use a fresh seed so the winner is checked on inputs
  // it was not selected on. nullopt = the operator's seed (aopt.json "seed", else 1).
  std::optional<std::uint64_t> input_seed;
  // The operator the candidate belongs to (a job's package id): the evaluator's base package
  // when one evaluator serves several jobs. Empty for an evaluator of one package.
  std::string package;
  // Run on this device (its name as reports give it, "sim1" or "node/npu0"): a noisy backend's
  // confirming measurements of champion and challenger go to the device that measured the
  // challenger. Empty, or a device that is down or unknown: any device of the job's class.
  std::string device;
  // Evaluate these files on top of `files` instead (Stage I's search form, stage1/search_form.h:
  // the tiling source reading its tunables at run time, and the tunables file with this
  // variant's values), so that the variants of one template share one host build. The
  // candidate is still `files`: the job's memory, the journal and the report know only those.
  file_map search_form = {};
};

// What one case of the operator's cases told (an evaluation's run, or a screen's host tiling);
// a fact the evaluator did not learn is nullopt (or empty, or 0).
struct case_facts {
  std::string name;
  bool timed = false;                 // the case whose latency is the candidate's
  std::optional<eval_status> status;  // the case's own verdict (an evaluation's cases)
  std::uint64_t output_elements = 0;  // elements of its declared outputs the check compared (an in-place operator: of its written inputs)
  std::optional<double> latency_us;
  std::optional<std::uint32_t> block_dim;  // cores the tiling asked for
  std::optional<std::int64_t> tiling_key;
  std::vector<std::int64_t> words;  // the tiling data as little-endian 32-bit words (screen)
  std::optional<std::uint64_t> workspace_bytes;
  std::optional<std::uint64_t> ub_reserved;  // the UB its kernel reserved (InitBuffer calls)
  std::optional<std::uint64_t> ub_usable;    // the UB a kernel may use (GetCoreMemSize); sim only
  std::optional<std::uint64_t> ub_capacity;  // the core's whole UB (screen)
  std::optional<std::uint32_t> core_count;   // the device's cores (screen)
  // The elements of the case's largest input and their size (screen).
  std::uint64_t elements = 0, elem_bytes = 0;
  // The run-time tunables its request gave and its tiling read (screen).
  std::optional<std::uint32_t> tunables_given;
};

// What the chip does silently and the emulator noticed (harness protocol's `warnings`), or what
// the evaluator says beside its verdict (a spec warning, the sandbox's isolation).
enum class warning_kind : std::uint8_t {
  gm_over_read,    // a GM read past an allocation and its padding (sim's gm_out_of_bounds warning)
  truncated_copy,  // a contiguous DataCopy whose tail the chip drops
  other,
};
std::string_view to_string(warning_kind k);
struct eval_warning {
  warning_kind kind = warning_kind::other;
  std::string site;  // "FILE:LINE" in the candidate's sources; empty when it has none
  // The whole warning, as printed ("case 'perf': gm_out_of_bounds at k.cpp:17: ...").
  std::string text;
  bool operator==(const eval_warning&) const = default;
};
// The warning a harness reported for case `case_name` ({"kind", "file", "line", "message"}).
eval_warning harness_warning(const std::string& case_name, const std::string& kind,
                             const std::string& file, int line, const std::string& message);

// What came back. `ok` only for a candidate that passed every case (the timed one included),
// did not write to its inputs, and has a latency.
struct eval_report {
  bool ok = false;
  eval_status status = eval_status::runtime_error;
  std::string diagnostic;          // why it failed, one paragraph
  double latency_us = 0;           // timed case (simulated on `sim`; see `backend`)
  std::optional<double> bound_us;  // roofline lower bound of the timed case, when known
  // Faster than the bound: held as suspect, never accepted (the evaluator or the model is wrong).
  bool suspect = false;
  bool cached = false;       // the evaluator answered from its persistent result cache
  std::string backend;       // "sim", "cann"
  std::string profile_name;  // device profile ("910b4")
  // The timed case's profile, msprof field names (the Diagnoser's input; "bound_us" added).
  nlohmann::json profile = nlohmann::json::object();
  std::string kernel;              // the kernel's name (the experience tuple's operator)
  std::vector<case_facts> cases;   // every case, in the operator's order
  std::vector<double> samples_us;  // the timed case's repeated timings (cann, or sim with noise)
  std::vector<eval_warning> warnings;
  double build_seconds = 0;  // of which building the candidate
  // Whether the candidate's host executable / kernel libraries were taken from an artifact store
  // (this host's or, on a node, the daemon's) instead of compiled; false for a cached answer.
  bool host_reused = false;
  bool kernel_reused = false;
  double seconds = 0;        // wall time of this evaluation
  // The device that ran it ("sim0", or "node/sim0" on a remote evaluator node); empty when the
  // evaluator was not told its name.
  std::string device;

  // A failure for lack of on-chip buffer (the kernel asked for more UB than the core has, e.g.
  // a second queue slot on a tiling sized for one): the candidate may pass with smaller tiles.
  bool out_of_ub() const;
  // The UB the candidate reserved in case `name`, or with an empty name the most of any case;
  // 0 when the evaluator did not say.
  std::uint64_t ub_reserved(const std::string& name = {}) const;
  // The timed case's repeated timings; without any, the one deterministic latency.
  std::vector<double> samples() const;
  // The sites ("FILE:LINE") where the kernel read GM past an allocation and its padding.
  std::set<std::string> over_read_sites() const;
};

// A report for a candidate the system could not evaluate (timeout, dead evaluator).
eval_report failure_report(eval_status status, const std::string& diagnostic);

// The one JSON form of each (src/verdict.cpp): to_json writes every field, from_json (nlohmann's
// ADL hook: `j.get<eval_report>()`) reads it back exactly (doubles bit-equal) and throws
// nlohmann::json::exception on a missing or mistyped field or an unknown status or stage.
// A report's JSON carries "version": 2; a record without one is today's journals' and
// report.json's earlier form (the evaluator's whole result record under "result"), whose facts
// are read from that record.
inline constexpr int eval_report_version = 2;
nlohmann::json to_json(const eval_request& r);
void from_json(const nlohmann::json& j, eval_request& r);
nlohmann::json to_json(const eval_report& r);
void from_json(const nlohmann::json& j, eval_report& r);
nlohmann::json to_json(const eval_warning& w);
void from_json(const nlohmann::json& j, eval_warning& w);
// A warning of a record written before warnings were typed: its text, "case 'C': KIND at
// FILE:LINE: MESSAGE" (the evaluator's wording), or any other line (kind other, no site).
eval_warning warning_from_text(const std::string& text);

}  // namespace aopt::vocab
