// CANN header name (emulated): (external/)ge_common/ge_api_types.h (public: github.com/hicann/metadef,
// inc/external/ge_common/ge_api_types.h). The real header includes <cstdint>, <string>, <vector>,
// <set>, <functional> and <memory>; reached through exe_graph/runtime/tiling_context.h. Only those
// standard headers are emulated (issue 34): none of its ge:: options or types.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>
