// Host-side helpers of the emulated CANN host API: platform from a device profile, dtype
// names, signature JSON. See aopt_sim/host/host.h.
#include "aopt_sim/host/host.h"

#include "aopt_sim/runtime.h"
#include "aopt_sim/timing_params.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace aopt::sim::host {
namespace {

std::mutex& platform_mutex() {
  static std::mutex m;
  return m;
}
std::unique_ptr<fe::PlatFormInfos>& platform_slot() {
  static std::unique_ptr<fe::PlatFormInfos> p;
  return p;
}

std::string attr_kind_name(gert::AoptAttrValue::kind k) {
  using K = gert::AoptAttrValue::kind;
  switch (k) {
    case K::boolean: return "bool";
    case K::int64: return "int";
    case K::float32: return "float";
    case K::string: return "string";
    case K::list_int: return "list_int";
    case K::list_float: return "list_float";
    case K::list_bool: return "list_bool";
    case K::data_type: return "data_type";
    case K::none: break;
  }
  return "unknown";
}

nlohmann::json attr_value_json(const gert::AoptAttrValue& v) {
  using K = gert::AoptAttrValue::kind;
  switch (v.k) {
    case K::boolean: return v.b;
    case K::int64: case K::data_type: return v.i;
    case K::float32: return static_cast<double>(v.f);
    case K::string: return v.s;
    case K::list_int: return v.li;
    case K::list_float: {
      nlohmann::json a = nlohmann::json::array();
      for (float f : v.lf) a.push_back(static_cast<double>(f));
      return a;
    }
    case K::list_bool: {
      nlohmann::json a = nlohmann::json::array();
      for (auto b : v.lb) a.push_back(b != 0);
      return a;
    }
    case K::none: break;
  }
  return nullptr;
}

nlohmann::json params_json(const std::vector<param_def>& params) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : params) {
    nlohmann::json d = nlohmann::json::array();
    for (auto dt : p.dtypes) d.push_back(dtype_name(dt));
    nlohmann::json f = nlohmann::json::array();
    for (auto fm : p.formats) f.push_back(format_name(fm));
    const char* type = p.type == param_type::dynamic    ? "dynamic"
                       : p.type == param_type::optional ? "optional"
                                                        : "required";
    nlohmann::json e = {{"name", p.name}, {"param_type", type}, {"dtypes", d}, {"formats", f}, {"value_depend", p.value_depend}};
    if (!p.init_values.empty()) e["init_value"] = p.init_values;  // OpParamDef::InitValue
    a.push_back(std::move(e));
  }
  return a;
}

}  // namespace

fe::PlatFormInfos platform_from_profile(const device_profile& profile) {
  fe::PlatFormInfos info;
  info.profile_name = profile.name;
  info.soc_version = profile.soc_version;
  info.short_soc_version = profile.soc_version.rfind("Ascend910B", 0) == 0 ? "Ascend910B" : profile.soc_version;
  info.aiv_cores = profile.aiv_cores;
  info.aic_cores = profile.aic_cores;
  // GetCoreMemSize(UB) answers the UB a kernel may use by default (the profile's
  // ub_usable_bytes when present), not the raw capacity the runtime enforces.
  info.ub_bytes = profile.ub_usable_bytes != 0 ? profile.ub_usable_bytes : profile.ub_bytes;
  info.l1_bytes = profile.l1_bytes;
  info.l2_bytes = profile.l2_bytes;
  info.hbm_bytes = profile.hbm_bytes;
  info.clock_ghz = profile.clock_ghz;
  // GetCoreMemBw: the chip bandwidths the timing model uses, per clock cycle.
  if (profile.raw.is_object() && profile.raw.contains("timing") && profile.clock_ghz > 0) {
    const timing_params t = parse_timing_params(profile.raw, "profile '" + profile.name + "'");
    info.hbm_bw_bytes_per_cycle = static_cast<uint64_t>(t.hbm_gbs / profile.clock_ghz);
    info.l2_bw_bytes_per_cycle = static_cast<uint64_t>(t.l2_gbs / profile.clock_ghz);
  }
  // The system workspace is the runtime's (aopt::sim::sys_workspace_bytes, 16 MiB on 910B);
  // a profile may override it with {"lib_api_workspace_bytes": {"value": N, ...}}.
  info.lib_api_workspace_bytes = static_cast<uint32_t>(sys_workspace_bytes);
  if (profile.raw.is_object() && profile.raw.contains("lib_api_workspace_bytes")) {
    const auto& v = profile.raw["lib_api_workspace_bytes"];
    info.lib_api_workspace_bytes = v.is_object() ? v.at("value").get<uint32_t>() : v.get<uint32_t>();
  }
  return info;
}

void set_default_platform(const fe::PlatFormInfos& info) {
  std::lock_guard<std::mutex> lock(platform_mutex());
  auto& slot = platform_slot();
  if (slot) {
    *slot = info;  // keep the address: PlatformAscendC objects may hold it
  } else {
    slot = std::make_unique<fe::PlatFormInfos>(info);
  }
}

fe::PlatFormInfos* default_platform() {
  std::lock_guard<std::mutex> lock(platform_mutex());
  auto& slot = platform_slot();
  if (!slot) {
    const char* env = std::getenv("AOPT_PROFILE");
    const std::string name = env != nullptr && *env != '\0' ? env : "910b4";
    try {
      slot = std::make_unique<fe::PlatFormInfos>(platform_from_profile(load_profile(name)));
    } catch (const std::exception& e) {
      throw std::runtime_error("PlatformAscendC: cannot load device profile '" + name + "': " + e.what() +
                               " (set AOPT_PROFILE_DIR or AOPT_PROFILE, or run through the harness with "
                               "\"profile\" in run.json)");
    }
  }
  return slot.get();
}

std::string dtype_name(ge::DataType dt) {
  switch (dt) {
    case ge::DT_FLOAT16: return "float16";
    case ge::DT_FLOAT: return "float32";
    case ge::DT_BF16: return "bfloat16";
    case ge::DT_INT8: return "int8";
    case ge::DT_UINT8: return "uint8";
    case ge::DT_INT16: return "int16";
    case ge::DT_UINT16: return "uint16";
    case ge::DT_INT32: return "int32";
    case ge::DT_UINT32: return "uint32";
    case ge::DT_INT64: return "int64";
    case ge::DT_UINT64: return "uint64";
    case ge::DT_BOOL: return "bool";
    case ge::DT_DOUBLE: return "float64";
    case ge::DT_COMPLEX64: return "complex64";
    default: return "unsupported";
  }
}

std::optional<ge::DataType> parse_dtype(const std::string& n) {
  static const std::pair<const char*, ge::DataType> table[] = {
      {"float16", ge::DT_FLOAT16}, {"float32", ge::DT_FLOAT},  {"bfloat16", ge::DT_BF16},
      {"int8", ge::DT_INT8},       {"uint8", ge::DT_UINT8},    {"int16", ge::DT_INT16},
      {"uint16", ge::DT_UINT16},   {"int32", ge::DT_INT32},    {"uint32", ge::DT_UINT32},
      {"int64", ge::DT_INT64},     {"uint64", ge::DT_UINT64},  {"bool", ge::DT_BOOL},
      {"float64", ge::DT_DOUBLE},  {"float", ge::DT_FLOAT},    {"half", ge::DT_FLOAT16},
      {"bf16", ge::DT_BF16},       {"fp16", ge::DT_FLOAT16},   {"fp32", ge::DT_FLOAT},
      {"complex64", ge::DT_COMPLEX64}};
  for (const auto& [name, dt] : table) {
    if (n == name) return dt;
  }
  return std::nullopt;
}

std::string dtype_ctype(ge::DataType dt) {
  switch (dt) {
    case ge::DT_FLOAT16: return "half";
    case ge::DT_FLOAT: return "float";
    case ge::DT_BF16: return "bfloat16_t";
    case ge::DT_INT8: return "int8_t";
    case ge::DT_UINT8: return "uint8_t";
    case ge::DT_INT16: return "int16_t";
    case ge::DT_UINT16: return "uint16_t";
    case ge::DT_INT32: return "int32_t";
    case ge::DT_UINT32: return "uint32_t";
    case ge::DT_INT64: return "int64_t";
    case ge::DT_UINT64: return "uint64_t";
    case ge::DT_BOOL: return "bool";
    case ge::DT_DOUBLE: return "double";
    default: return "void";
  }
}

std::string dtype_enum_name(ge::DataType dt) {
  switch (dt) {
    case ge::DT_BF16: return "ge::DT_BF16";
    default: break;
  }
  return "ge::" + ge::TypeUtils::DataTypeToSerialString(dt);
}

std::string format_name(ge::Format f) { return ge::TypeUtils::FormatToSerialString(f); }

ge::Format layout_of_data_format(const std::string& data_format, std::size_t rank) {
  struct layout {
    const char* name;
    ge::Format format;
    std::size_t rank;
  };
  static const layout layouts[] = {
      {"NCL", ge::FORMAT_NCL, 3},     {"NCHW", ge::FORMAT_NCHW, 4},   {"NHWC", ge::FORMAT_NHWC, 4},
      {"HWCN", ge::FORMAT_HWCN, 4},   {"NCDHW", ge::FORMAT_NCDHW, 5}, {"NDHWC", ge::FORMAT_NDHWC, 5},
      {"DHWCN", ge::FORMAT_DHWCN, 5},
  };
  for (const auto& l : layouts) {
    if (data_format == l.name) return l.rank == rank ? l.format : ge::FORMAT_ND;
  }
  return ge::FORMAT_ND;
}

nlohmann::json signature_json(const op_def_record& rec) {
  nlohmann::json attrs = nlohmann::json::array();
  for (const auto& a : rec.attrs) {
    attrs.push_back({{"name", a.name},
                     {"type", attr_kind_name(a.kind)},
                     {"required", a.required},
                     {"default", a.required && !a.has_value ? nlohmann::json(nullptr) : attr_value_json(a.default_value)}});
  }
  return {{"op_type", rec.op_type},
          {"kernel", rec.kernel},
          {"inputs", params_json(rec.inputs)},
          {"outputs", params_json(rec.outputs)},
          {"attrs", attrs},
          {"has_tiling", rec.tiling != nullptr},
          {"has_infer_shape", rec.infer_shape != nullptr},
          {"has_infer_dtype", rec.infer_dtype != nullptr},
          {"socs", rec.socs}};
}

const op_def_record* main_op(const std::string& hint, std::string* why) {
  const auto& defs = op_defs();
  std::vector<const op_def_record*> defined;
  for (const auto& [type, rec] : defs) {
    if (!hint.empty() && (type == hint || rec.kernel == hint)) return &rec;
    if (rec.defined) defined.push_back(&rec);
  }
  if (defined.size() == 1) return defined.front();
  if (defined.empty() && defs.size() == 1) return &defs.begin()->second;
  if (why != nullptr) {
    std::string names;
    for (const auto& [type, rec] : defs) names += (names.empty() ? "" : ", ") + type;
    *why = defs.empty() ? "no operator is registered in this host executable (no OP_ADD(...) or "
                          "IMPL_OP_OPTILING(...) in op_host/*.cpp)"
                        : "several operators are registered (" + names + ") and none is named '" + hint + "'";
  }
  return nullptr;
}

}  // namespace aopt::sim::host

namespace ops {
// The shape as CANN's operator utilities print it ("[2, 3]"): operators of the tree declare it
// (`std::string ToString(const gert::Shape&)` in namespace ops, or of a `const gert::Shape*`) for
// their log lines and link it
// from CANN's libraries; sim's host library defines it.
std::string ToString(const gert::Shape& shape);
std::string ToString(const gert::Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.GetDimNum(); ++i) out += (i ? ", " : "") + std::to_string(shape.GetDim(i));
  return out + "]";
}
// The pointer form (matmul/mat_mul_v3's InferShape declares it): a null shape prints as "nullptr"
// [ASSUMED: the library's text for it is not documented].
std::string ToString(const gert::Shape* shape);
std::string ToString(const gert::Shape* shape) { return shape == nullptr ? std::string("nullptr") : ToString(*shape); }
}  // namespace ops
