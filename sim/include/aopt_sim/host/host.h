// aopt's own host-side helpers (not CANN API): device profile -> PlatFormInfos, dtype names,
// the captured OpDef as the JSON of `host --signature` (docs/harness-protocol.md).
// Implementation: sim/host (aopt_sim_host).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "aopt_sim/profile.h"
#include "platform/platform_info.h"
#include "register/op_def_registry.h"

namespace aopt::sim::host {

fe::PlatFormInfos platform_from_profile(const device_profile& profile);
// Replaces the process platform that PlatformAscendC answers from by default.
void set_default_platform(const fe::PlatFormInfos& info);

// "float16" <-> ge::DT_FLOAT16 (the dtype names of aopt.json and the protocol).
std::string dtype_name(ge::DataType dt);
std::optional<ge::DataType> parse_dtype(const std::string& name);
// C++ type of the kernel's DTYPE_<NAME> macro: "half", "float", "bfloat16_t", "int32_t", ...
std::string dtype_ctype(ge::DataType dt);
// "ge::DT_FLOAT16": the ORIG_DTYPE_<NAME> macro value.
std::string dtype_enum_name(ge::DataType dt);
std::string format_name(ge::Format f);
// The layout a `data_format` attribute names ("NCHW", "NHWC", "NCDHW", "NDHWC", "NCL", ...) for a
// tensor of `rank`: the tensor format a framework graph gives such an operator's tensors when its
// OpDef declares ND. ND when the name is no plain format or the format has another rank.
ge::Format layout_of_data_format(const std::string& data_format, std::size_t rank);

nlohmann::json signature_json(const op_def_record& rec);

// The operator this host executable was built for: the only OpDef'd type, or the one whose
// op type or kernel name is `hint`. nullptr when none matches; `why` says what was found.
const op_def_record* main_op(const std::string& hint, std::string* why);

}  // namespace aopt::sim::host
