// The stand-in CANN runtime's insides (tests/cann/standin/acl/): what the opaque handles of
// acl_abi.h hold, and the few entry points the stand-in libraries and the generated operator
// library (libcust_opapi.so, written by aopt-standin-device build) call on each other. The real
// runner sees none of this: it knows only acl_abi.h, exactly as on a CANN machine.
//
//   libascendcl.so  runtime: aclInit, devices, "device" memory (host memory, tracked), streams
//                   with a simulated clock, events, aclGetRecentErrMsg
//   libnnopbase.so  aclTensor & co., and the executor: a launch runs the operator on aopt's
//                   emulator (aopt-standin-device run) and advances the stream's clock
#pragma once

#include <cstdint>
#include <vector>

#include "../../../../apps/aopt-acl-run/acl_abi.h"

// The handles' contents. aclnn keeps what aclCreate* was given (the caller may free its arrays
// right after), so each object owns copies.
struct aclTensor {
  std::vector<int64_t> view_dims;
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> storage_dims;
  void* data = nullptr;
};
struct aclTensorList {
  std::vector<const aclTensor*> tensors;  // not owned, as in aclnn
};
struct aclScalar {
  aclDataType dtype = ACL_DT_UNDEFINED;
  unsigned char bytes[16] = {};
};
struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

extern "C" {

// ---- libascendcl.so, for libnnopbase.so ----
// Appends a line to this thread's recent error message (what aclGetRecentErrMsg returns).
void aopt_standin_error(const char* text);
// A kernel launch on `stream` (nullptr = the default stream): advances its clock by `us`, or
// records `fail_code` (with its message) for aclrtSynchronizeStream to return, or makes the
// stream hang. Returns ACL_SUCCESS or the error of a bad stream or missing context.
aclError aopt_standin_stream_launch(aclrtStream stream, double us, int fail_code, const char* fail_text, bool hang);
// Whether [p, p + bytes) lies inside one aclrtMalloc allocation.
bool aopt_standin_is_device_memory(const void* p, uint64_t bytes);
// The current thread's device (-1 before aclrtSetDevice).
int32_t aopt_standin_current_device();

// ---- libnnopbase.so, for the generated libcust_opapi.so ----
// One parameter of aclnn<Op>GetWorkspaceSize, named as in the operator's signature.
enum aopt_standin_kind : int32_t {
  aopt_standin_input,       // const aclTensor*        (nullptr: an absent optional input)
  aopt_standin_input_list,  // const aclTensorList*
  aopt_standin_output,      // const aclTensor*
  aopt_standin_output_list, // const aclTensorList*
  aopt_standin_float,       // const double*           (attrs: a pointer to the argument)
  aopt_standin_int,         // const int64_t*
  aopt_standin_bool,        // const bool*
  aopt_standin_string,      // const char*
  aopt_standin_list_int,    // const aclIntArray*
  aopt_standin_list_float,  // const aclFloatArray*
  aopt_standin_list_bool,   // const aclBoolArray*
};
struct aopt_standin_param {
  const char* name;
  aopt_standin_kind kind;
  const void* value;
};
// The two phases of every generated operator. `op_type` must be a static of the calling
// library: its address tells which installed package (and standin.json) the operator is.
aclnnStatus aopt_standin_get_workspace(const char* op_type, const aopt_standin_param* params, uint64_t count,
                                       uint64_t* workspace_size, aclOpExecutor** executor);
aclnnStatus aopt_standin_launch(void* workspace, uint64_t workspace_size, aclOpExecutor* executor, aclrtStream stream);

}  // extern "C"
