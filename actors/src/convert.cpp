#include "aopt/actors/convert.hpp"

namespace aopt::actors {

search::rewind_eval to_rewind_eval(const optimize::eval_report& r) {
  search::rewind_eval e;
  e.ok = r.ok;
  e.latency_us = r.latency_us;
  e.status = to_string(r.status);
  e.profile = r.profile;
  e.diagnostic = r.diagnostic;
  if (r.samples().size() > 1) e.samples_us = r.samples();
  return e;
}

}  // namespace aopt::actors
