// Emulated CANN opdev/common_types.h (the aclnn op_api layer's type names): op::DataType and
// op::Format are ge's, as in CANN. Only what host code outside the op_api library needs.
#pragma once

#include "aclnn/aclnn_base.h"
#include "graph/types.h"

namespace op {
using DataType = ge::DataType;
using Format = ge::Format;
}  // namespace op
