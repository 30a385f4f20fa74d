// CANN-internal op_tiling header name (emulated; it is not part of the public cann-ops collection,
// whose host sources include it for their tiling helpers). The check and log macros it brings
// are aopt_sim/host/op_log.h's; GetCompileInfoPtr is the typed compile info of a TilingParse
// function (gert::TilingParseContext::GetCompiledInfo<T>()).
#pragma once
#include "aopt_sim/host/op_log.h"
#include "register/op_impl_registry.h"

namespace optiling {
template <typename T>
inline T* GetCompileInfoPtr(gert::TilingParseContext* context) {
  return context == nullptr ? nullptr : context->GetCompiledInfo<T>();
}
}  // namespace optiling
