// The run-time tunables of a search-form host program (aopt_sim/host/tunable.h).
#include "aopt_sim/host/tunable.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

namespace aopt_sim {

namespace {

struct slot_value {
  long long value = 0;
  std::atomic<bool> read{false};
};

// AOPT_TUNABLES parsed at the first read: "slot=value" items separated by ','. A malformed item
// ends the parse (the evaluator writes the variable; a hand-written one that is wrong gives
// fewer slots, which the result's tunables_given shows).
struct table {
  std::map<unsigned, std::unique_ptr<slot_value>> slots;
  std::atomic<unsigned> read{0};

  table() {
    const char* s = std::getenv("AOPT_TUNABLES");
    while (s != nullptr && *s != '\0') {
      char* end = nullptr;
      const unsigned long slot = std::strtoul(s, &end, 10);
      if (end == s || *end != '=') return;
      s = end + 1;
      const long long v = std::strtoll(s, &end, 10);
      if (end == s || (*end != ',' && *end != '\0')) return;
      auto& p = slots[static_cast<unsigned>(slot)];
      p = std::make_unique<slot_value>();
      p->value = v;
      s = *end == ',' ? end + 1 : end;
    }
  }
};

table& the_table() {
  static table t;  // initialised at the first read, from any thread, before or after main
  return t;
}

}  // namespace

bool tunable_given(unsigned slot) noexcept { return the_table().slots.count(slot) != 0; }

long long tunable_value(unsigned slot) noexcept {
  auto& t = the_table();
  auto it = t.slots.find(slot);
  if (it == t.slots.end()) return 0;
  if (!it->second->read.exchange(true)) t.read.fetch_add(1);
  return it->second->value;
}

unsigned tunables_given() noexcept { return static_cast<unsigned>(the_table().slots.size()); }
unsigned tunables_read() noexcept { return the_table().read.load(); }

}  // namespace aopt_sim
