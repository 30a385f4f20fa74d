// Stage I's run-time tunables (docs/harness-protocol.md, "Tunables"). Every host translation
// unit of the sim backend includes this header first (-include): a tiling source in Stage I's
// search form (search/tiling search_form.h) writes a tunable's value as `AOPT_TUNABLE(slot,
// written)`, which is the value the run gives that slot in the environment variable
// AOPT_TUNABLES ("slot=value,slot=value"), else the written one. The variable is read once, at
// the first read, so a namespace-scope constant initialised before main reads it too. Without
// the variable a search-form program runs exactly as the sources as written.
#pragma once

namespace aopt_sim {

// Whether the run gives `slot` a value, and that value (0 when it does not).
bool tunable_given(unsigned slot) noexcept;
long long tunable_value(unsigned slot) noexcept;
// Slots the run gives, and how many distinct ones the program has read so far.
unsigned tunables_given() noexcept;
unsigned tunables_read() noexcept;

template <class T>
inline T tunable(unsigned slot, T written) noexcept {
  return tunable_given(slot) ? static_cast<T>(tunable_value(slot)) : written;
}

}  // namespace aopt_sim

// A number keeps the written literal's type (the search form gives only values it holds).
#define AOPT_TUNABLE(slot, written) (::aopt_sim::tunable((slot), (written)))
// An expression (a core count "as written") is evaluated only when the run gives no value.
#define AOPT_TUNABLE_OR(slot, written) \
  (::aopt_sim::tunable_given(slot) ? static_cast<int>(::aopt_sim::tunable_value(slot)) : (written))
