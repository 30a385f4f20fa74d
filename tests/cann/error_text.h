// The message of what `f` throws, "(no error)" when it throws nothing: for the cann tests that
// check an error names the file, the field and what to do.
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace aopt::testing {

inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace aopt::testing
