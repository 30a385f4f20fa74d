// An operator's source set as the optimizer, the engines, the evaluators and the actor messages
// see it: relative path ("op_kernel/add_custom.cpp") -> file content. One definition for all.
#pragma once

#include <map>
#include <string>

namespace aopt {

using file_map = std::map<std::string, std::string>;

}  // namespace aopt
