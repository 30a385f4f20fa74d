// The stand-in CANN runtime's insides (tests/cann/standin/acl/): what the opaque handles hold, and the few entry points the stand-in libraries and the generated operator
// library (libcust_opapi.so, written by aopt-standin-device build) call on each other. The real
// runner sees none of this: it knows only its own acl_abi.h, exactly as on a CANN machine.
//
//   libascendcl.so  runtime: aclInit, devices, "device" memory (host memory, tracked), streams
//                   with a simulated clock, events, aclGetRecentErrMsg
//   libnnopbase.so  aclTensor & co., and the executor: a launch runs the operator on aopt's
//                   emulator (aopt-standin-device run) and advances the stream's clock
//
// The runtime's C interface is declared here on its own, from the public documentation (the ACL
// API reference: acl_base.h / acl_rt.h; the aclnn reference: aclnn/acl_meta.h), NOT from the
// runner's apps/aopt-acl-run/acl_abi.h: a mismatch between the runner and CANN must show as a
// failure against this runtime, not compare the runner's header with itself. (The runner's
// declarations are checked against CANN's own headers by AOPT_CANN_INCLUDE; docs/cann.md.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {

// acl_base.h
typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtEvent;
enum aclDataType : int {
  ACL_DT_UNDEFINED = -1, ACL_FLOAT = 0, ACL_FLOAT16 = 1, ACL_INT8 = 2, ACL_INT32 = 3, ACL_UINT8 = 4, ACL_INT16 = 6,
  ACL_UINT16 = 7, ACL_UINT32 = 8, ACL_INT64 = 9, ACL_UINT64 = 10, ACL_DOUBLE = 11, ACL_BOOL = 12, ACL_BF16 = 27,
};
enum aclFormat : int { ACL_FORMAT_UNDEFINED = -1, ACL_FORMAT_NCHW = 0, ACL_FORMAT_NHWC = 1, ACL_FORMAT_ND = 2 };
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;

// acl_rt.h
enum aclrtMemMallocPolicy : int { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_HUGE_ONLY = 1, ACL_MEM_MALLOC_NORMAL_ONLY = 2 };
enum aclrtMemcpyKind : int {
  ACL_MEMCPY_HOST_TO_HOST = 0, ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2, ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
};
aclError aclInit(const char* configPath);
aclError aclFinalize();
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtCreateStream(aclrtStream* stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void* devPtr);
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind);
aclError aclrtCreateEvent(aclrtEvent* event);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent);
const char* aclGetRecentErrMsg();

// aclnn/acl_meta.h
typedef int32_t aclnnStatus;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclOpExecutor aclOpExecutor;
aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData);
aclnnStatus aclDestroyTensor(const aclTensor* tensor);
aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size);
aclnnStatus aclDestroyTensorList(const aclTensorList* array);
aclScalar* aclCreateScalar(void* value, aclDataType dataType);
aclnnStatus aclDestroyScalar(const aclScalar* scalar);
aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
aclnnStatus aclDestroyIntArray(const aclIntArray* array);
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size);
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array);
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);
// An executor made repeatable after GetWorkspaceSize serves any number of launches until
// aclDestroyAclOpExecutor; any other is consumed by its launch.
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor);

}  // extern "C"

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
// A kernel launch on `stream` (nullptr = the default stream). The host's enqueue costs
// AOPT_STANDIN_LAUNCH_US on the process's host clock; the kernel starts at the later of the
// stream's clock and that enqueue and runs `us`; or it records `fail_code` (with its message) for
// aclrtSynchronizeStream to return, or makes the stream hang. Returns ACL_SUCCESS or the error of
// a bad stream or missing context.
aclError aopt_standin_stream_launch(aclrtStream stream, double us, int fail_code, const char* fail_text, bool hang);
// Host work outside a launch (aclnn<Op>GetWorkspaceSize's tiling): advances the host clock by us.
void aopt_standin_host_work(double us);
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
  aopt_standin_input_ref,   // aclTensor*              (an input the kernel writes in place: <name>Ref)
  aopt_standin_value_ints,  // const aclIntArray*      (a ValueDepend input: the kernel sees an int64 tensor)
  aopt_standin_value_floats,// const aclFloatArray*    (a ValueDepend input: a float32 tensor)
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
