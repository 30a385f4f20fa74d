// Emulated CANN graph status codes (ge::graphStatus and its constants).
#pragma once

#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
inline constexpr graphStatus GRAPH_SUCCESS = 0;
inline constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
inline constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304u;
inline constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;
inline constexpr graphStatus GRAPH_NODE_WITHOUT_CONST_INPUT = 50331648u;
inline constexpr graphStatus GRAPH_NODE_NEED_REPASS = 50331647u;
inline constexpr graphStatus GRAPH_INVALID_IR_DEF = 50331646u;
using Status = uint32_t;
inline constexpr Status SUCCESS = 0;
inline constexpr Status FAILED = 0xFFFFFFFFu;
}  // namespace ge
