// The stand-in of msOpGen's aclnn generation: from an operator's signature (the JSON of
// aopt_sim's signature_json: op_type, inputs, outputs, attrs with types), the header CANN installs
// as op_api/include/aclnn_<snake_op>.h, and a C++ source implementing its two functions over the
// stand-in runtime (standin_acl.h), which project/build.sh compiles into libcust_opapi.so.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace aopt::standin {

// "AddCustom" -> "add_custom", "MulV3" -> "mul_v3", "RMSNorm" -> "rms_norm".
std::string snake_case(const std::string& op_type);

// aclnn_<snake_op>.h: extern "C" declarations of aclnn<Op>GetWorkspaceSize(inputs, attrs,
// outputs, workspaceSize, executor) and aclnn<Op>(workspace, workspaceSize, executor, stream).
std::string aclnn_header(const nlohmann::json& signature);

// The source of libcust_opapi.so; it includes the header (so both always agree).
std::string aclnn_source(const nlohmann::json& signature);

}  // namespace aopt::standin
