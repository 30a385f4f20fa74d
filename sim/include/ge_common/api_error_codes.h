// CANN header name (emulated): (external/)ge_common/api_error_codes.h. The real
// exe_graph/runtime/tiling_context.h includes it (public: github.com/hicann/metadef,
// inc/external/exe_graph/runtime/tiling_context.h -> inc/external/ge_common/api_error_codes.h,
// which includes <map>, <string> and ge_common/ge_api_types.h). Only the standard headers it brings
// are emulated -- host sources (activation/dequant_swiglu_quant) use std::set without <set> --
// and nothing more (issue 34): no ge error-code declarations.
#pragma once

#include <map>
#include <string>

#include "ge_common/ge_api_types.h"
