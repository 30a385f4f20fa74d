// Stage I without a compile (docs/stage1.md, "Variants without a build"): a template's sources
// in their *search form*, where every host occurrence of a tunable that can take its value at
// run time is written `AOPT_TUNABLE(slot, written)` and reads the value the run's request gives
// that slot (the written text's value when it gives none). Every variant that changes only such
// tunables has the same sources as the base's search form, so its host program is built once
// (the artifact cache keys builds by content) and a variant costs a host run plus its kernel
// runs; the values travel in the candidate's `tunables_file`, which nothing compiles. A tunable
// whose occurrences cannot (a kernel constant, an identifier key, a value the written literal's
// type cannot hold, a constant expression) is written as a literal, as `instantiate` does, and
// its variants are built. The result package is never in this form: the optimizer reports the
// instantiated sources, built the normal way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {

// How many of a template's occurrences are read at run time.
enum class form_level : std::uint8_t {
  // Also the values of `constexpr` constants (the declaration is written `const`) and of
  // `#define`d ones: right for most tiling files; the optimizer falls back to `careful` when
  // the base's search form does not build or tile as the base does.
  bold,
  // Only occurrences outside constant declarations (`const`, `constexpr`, `#define`).
  careful,
};
const char* to_string(form_level l);

// Where a search-form candidate carries its run-time values: {"tunables": [[slot, value], ...]}.
// Relative to the package root; no build step reads it (docs/harness-protocol.md, "Tunables").
inline constexpr std::string_view tunables_file = ".aopt/tunables.json";

struct search_form {
  // Every template file in this form (the host file parameterized, kernel files instantiated),
  // plus tunables_file. Empty when no occurrence of the template can be read at run time.
  std::map<std::string, std::string> files;
  std::size_t slots = 0;  // host occurrences read at run time
  // Slots the tunables file gives a value: every number (at the base its written value) and
  // each expression that changed (a core count "as written" is evaluated as written).
  std::size_t given = 0;
  // Tunables whose value differs from the base but had to be written as a literal: the variant's
  // sources differ from the base's search form, so it is built.
  std::vector<std::string> literal;
  // Why each of `literal` (same order) could not be read at run time: "a kernel constant", "an
  // identifier key", "a constant expression", "a constant declaration (careful form)", "not an
  // integer literal", "the value does not fit the written literal's type".
  std::vector<std::string> literal_why;
  // Whether one of `literal` changed in the host file: the variant's host is built too. When
  // only kernel constants did, a host-only run (a tiling screen) still runs on the form's build.
  bool host_literal = false;
};

// The search form of `values` (checked as instantiate checks it). With the base values every
// slot reads its written value, so the program runs exactly as the instantiated base.
search_form make_search_form(const tiling_template& t, const assignment& values, form_level level);

// Whether `w`, written as `rendered`, is the same C++ literal type as the literal `original`
// and holds `w` ([lex.icon]: the first of int, long (long) or their unsigned forms that holds
// it, by suffix and base), so reading it at run time as that type changes nothing.
bool same_literal_type(std::string_view original, std::string_view rendered);

}  // namespace aopt::stage1
