#include "aopt/actors/config.hpp"

#include <string>

#include "aopt/common/error.h"

namespace aopt::actors {

void actor_timeouts::validate() const {
  auto positive = [](std::chrono::milliseconds v, const char* field) {
    if (v.count() <= 0) {
      throw aopt::error(ec::invalid_argument, std::string("actor_timeouts.") + field +
                                                  " must be positive, found " +
                                                  std::to_string(v.count()) + " ms");
    }
  };
  positive(evaluation, "evaluation");
  positive(engine, "engine");
  positive(job, "job");
}

}  // namespace aopt::actors
