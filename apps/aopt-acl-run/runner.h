// The logic of aopt-acl-run that needs no device: reading the operator's generated aclnn header,
// binding the runner request (docs/cann.md, "The runner") to the header's parameters, and the
// dtype table. main.cpp does the ACL calls with what this file decides.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "acl_abi.h"

namespace aopt::acl_run {

// A request the runner cannot carry out as written (exit 2): the message says what and where.
struct request_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a parameter of aclnn<Op>GetWorkspaceSize takes, from its C type.
enum class param_kind {
  tensor,        // const aclTensor *
  tensor_list,   // const aclTensorList *
  scalar,        // const aclScalar *
  int_array,     // const aclIntArray *
  float_array,   // const aclFloatArray *
  bool_array,    // const aclBoolArray *
  f64,           // double (CANN's spelling of a float attribute)
  f32,           // float
  i64,           // int64_t
  i32,           // int32_t
  boolean,       // bool
  string,        // char * / const char *
  workspace_size,  // uint64_t *workspaceSize
  executor,        // aclOpExecutor **executor
};

struct aclnn_param {
  std::string type;  // as written, whitespace collapsed ("const aclTensor *")
  std::string name;
  param_kind kind = param_kind::tensor;
  // `aclTensor *<name>Ref` (not const): an input the kernel writes in place; the request's output
  // of the same name is read back from it.
  bool in_place = false;
};

// The declaration of `function` in a generated aclnn header (comments skipped). Throws
// request_error naming the header when the function is not declared there or a parameter's type
// is one the runner cannot pass.
std::vector<aclnn_param> parse_aclnn_header(const std::string& text, const std::string& function, const std::string& where);

// The header of the installed package that declares aclnn<op_type>GetWorkspaceSize: first
// aclnn_<snake_case op_type>.h, then any aclnn_*.h in `include_dir` that declares it.
std::filesystem::path find_aclnn_header(const std::filesystem::path& include_dir, const std::string& op_type);

// "AddCustom" -> "add_custom" (msOpGen's file names).
std::string snake_case(const std::string& op_type);

struct dtype_info {
  aclDataType acl = ACL_DT_UNDEFINED;
  std::size_t bytes = 0;
};
// aopt's dtype names (float16, float32, bfloat16, int8 ... bool; also "float", "double").
std::optional<dtype_info> acl_dtype(const std::string& name);

// One tensor of the request: its file (inputs) or where its result goes (outputs).
struct tensor_arg {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::string file;
  bool shape_assumed = false;  // an output without a shape in the request: the first input's
  // Outputs: the input (index into inputs) an in-place parameter (`<name>Ref`) writes it into;
  // nothing is allocated for it.
  std::optional<std::size_t> in_place_of;
};

// What goes into one parameter: a tensor (index into inputs then outputs), a list of input
// tensors, or an attribute value.
struct bound_param {
  aclnn_param param;
  std::vector<std::size_t> tensors;  // tensor: one index; tensor_list: several
  nlohmann::json attr;               // attribute kinds
  // A ValueDepend input (an aclIntArray / aclFloatArray parameter named like one of the request's
  // inputs): the values of that input's file (index into inputs) fill the array.
  std::optional<std::size_t> value_input;
};

struct bound_call {
  std::vector<tensor_arg> inputs, outputs;
  std::vector<bound_param> params;  // the header's parameters, workspace size and executor last
};

// Binds a request to the header's parameters: tensor parameters in order take the request's
// inputs (a "list" input takes a tensor-list parameter), then its outputs; an output named like an
// in-place parameter (`<name>Ref`) is that parameter's tensor; an aclIntArray / aclFloatArray
// parameter named like an input is a ValueDepend input (its values from the input's file); every
// other parameter is the attribute of the same name (case and underscores ignored). Throws
// request_error with what is missing or left over.
bound_call bind_request(const std::vector<aclnn_param>& params, const nlohmann::json& request);

// Contiguous row-major strides of `shape`.
// The values of a ValueDepend input's file: its raw little-endian elements of `dtype` (int64,
// int32, float32, float64 ...) as int64 (aclIntArray) or float (aclFloatArray). Throws
// request_error naming the input when the dtype does not fit the array.
std::vector<std::int64_t> int_values(const std::string& bytes, const tensor_arg& t);
std::vector<float> float_values(const std::string& bytes, const tensor_arg& t);

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape);
std::int64_t numel(const std::vector<std::int64_t>& shape);

}  // namespace aopt::acl_run
