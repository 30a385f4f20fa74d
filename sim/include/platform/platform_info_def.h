// CANN header name (emulated): platform/platform_info_def.h, included by platform/platform_info.h.
// The real header (public: github.com/hicann/runtime, pkg_inc/platform/platform_info_def.h)
// includes <map>, <string>, <vector> and <cstdint> and declares, at global scope,
// `using std::map; using std::string; using std::vector;` -- so cann-ops host sources that include
// platform/platform_info.h use unqualified `string` (rnn/dynamic_rnn) and `map`
// (activation/ge_glu_grad_v2). Emulated here with exactly those names, in the same place, and
// nothing more (issue 34). Its fe:: structs are not emulated: no operator source needs them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

using std::map;
using std::string;
using std::vector;
