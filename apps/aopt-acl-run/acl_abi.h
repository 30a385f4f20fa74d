// The part of the CANN runtime's C interface that aopt-acl-run calls: the types, the enumerator
// values and the function types, each written once in the lists below, from the public ACL and
// aclnn documentation (acl/acl_base_rt.h, acl/acl_rt.h, aclnn/acl_meta.h).
//
// The runner never links against these functions: it loads the runtime with dlopen and casts
// each symbol to the function type declared here, so it builds on any machine.
//
// Built with AOPT_CANN_INCLUDE=DIR (CMake; DIR holds acl/acl.h and aclnn/acl_meta.h of an
// installed toolkit or of the public hicann/runtime and hicann/opbase sources) it takes the types
// from CANN's own headers instead, and every enumerator value and function type of the lists is
// checked against them at compile time: a value or signature that differs is a compile error
// naming it (docs/cann.md, "Against the real headers").
#pragma once

#include <cstddef>
#include <cstdint>

// X(enumerator, documented value)
#define AOPT_ACL_DATA_TYPES(X)                                                                                        \
  X(ACL_DT_UNDEFINED, -1) X(ACL_FLOAT, 0) X(ACL_FLOAT16, 1) X(ACL_INT8, 2) X(ACL_INT32, 3) X(ACL_UINT8, 4)           \
  X(ACL_INT16, 6) X(ACL_UINT16, 7) X(ACL_UINT32, 8) X(ACL_INT64, 9) X(ACL_UINT64, 10) X(ACL_DOUBLE, 11) X(ACL_BOOL, 12) \
  X(ACL_STRING, 13) X(ACL_COMPLEX64, 16) X(ACL_COMPLEX128, 17) X(ACL_BF16, 27)
#define AOPT_ACL_FORMATS(X) X(ACL_FORMAT_UNDEFINED, -1) X(ACL_FORMAT_NCHW, 0) X(ACL_FORMAT_NHWC, 1) X(ACL_FORMAT_ND, 2)
#define AOPT_ACL_MALLOC_POLICIES(X) X(ACL_MEM_MALLOC_HUGE_FIRST, 0) X(ACL_MEM_MALLOC_HUGE_ONLY, 1) X(ACL_MEM_MALLOC_NORMAL_ONLY, 2)
#define AOPT_ACL_MEMCPY_KINDS(X) \
  X(ACL_MEMCPY_HOST_TO_HOST, 0) X(ACL_MEMCPY_HOST_TO_DEVICE, 1) X(ACL_MEMCPY_DEVICE_TO_HOST, 2) X(ACL_MEMCPY_DEVICE_TO_DEVICE, 3)
#define AOPT_ACL_CODES(X) \
  X(ACL_SUCCESS, 0) X(ACL_ERROR_INVALID_PARAM, 100000) X(ACL_ERROR_UNINITIALIZE, 100001) X(ACL_ERROR_REPEAT_INITIALIZE, 100002)

// X(function, return type, (parameters)): the runtime library (libacl_rt.so, or libascendcl.so
// before CANN 8.5).
#define AOPT_ACL_RUNTIME_FUNCTIONS(X)                                                                          \
  X(aclInit, aclError, (const char* configPath))                                                               \
  X(aclFinalize, aclError, ())                                                                                 \
  X(aclrtSetDevice, aclError, (int32_t deviceId))                                                              \
  X(aclrtResetDevice, aclError, (int32_t deviceId))                                                            \
  X(aclrtCreateStream, aclError, (aclrtStream * stream))                                                       \
  X(aclrtDestroyStream, aclError, (aclrtStream stream))                                                        \
  X(aclrtSynchronizeStream, aclError, (aclrtStream stream))                                                    \
  X(aclrtMalloc, aclError, (void** devPtr, size_t size, aclrtMemMallocPolicy policy))                          \
  X(aclrtFree, aclError, (void* devPtr))                                                                       \
  X(aclrtMemcpy, aclError, (void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind))   \
  X(aclrtCreateEvent, aclError, (aclrtEvent * event))                                                          \
  X(aclrtDestroyEvent, aclError, (aclrtEvent event))                                                           \
  X(aclrtRecordEvent, aclError, (aclrtEvent event, aclrtStream stream))                                        \
  X(aclrtEventElapsedTime, aclError, (float* ms, aclrtEvent startEvent, aclrtEvent endEvent))                  \
  X(aclGetRecentErrMsg, const char*, ())

// libnnopbase.so: aclnn's tensor and attribute objects, and the executor.
#define AOPT_ACL_NNOPBASE_FUNCTIONS(X)                                                                                   \
  X(aclCreateTensor, aclTensor*,                                                                                         \
    (const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride, int64_t offset,         \
     aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData))                           \
  X(aclDestroyTensor, aclnnStatus, (const aclTensor* tensor))                                                            \
  X(aclCreateTensorList, aclTensorList*, (const aclTensor* const* value, uint64_t size))                                 \
  X(aclCreateScalar, aclScalar*, (void* value, aclDataType dataType))                                                    \
  X(aclCreateIntArray, aclIntArray*, (const int64_t* value, uint64_t size))                                              \
  X(aclCreateFloatArray, aclFloatArray*, (const float* value, uint64_t size))                                            \
  X(aclCreateBoolArray, aclBoolArray*, (const bool* value, uint64_t size))
// Optional (the runner falls back to a new executor per launch without them).
#define AOPT_ACL_EXECUTOR_FUNCTIONS(X)                                            \
  X(aclSetAclOpExecutorRepeatable, aclnnStatus, (aclOpExecutor * executor))      \
  X(aclDestroyAclOpExecutor, aclnnStatus, (aclOpExecutor * executor))

#if defined(AOPT_CANN_HEADERS)

#include <acl/acl.h>
#include <aclnn/acl_meta.h>

#else  // the documented types

extern "C" {
typedef int aclError;
typedef int32_t aclnnStatus;
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclOpExecutor aclOpExecutor;
#define AOPT_ACL_ENUMERATOR(name, value) name = (value),
typedef enum { AOPT_ACL_DATA_TYPES(AOPT_ACL_ENUMERATOR) } aclDataType;
typedef enum { AOPT_ACL_FORMATS(AOPT_ACL_ENUMERATOR) } aclFormat;
typedef enum aclrtMemMallocPolicy { AOPT_ACL_MALLOC_POLICIES(AOPT_ACL_ENUMERATOR) } aclrtMemMallocPolicy;
typedef enum aclrtMemcpyKind { AOPT_ACL_MEMCPY_KINDS(AOPT_ACL_ENUMERATOR) } aclrtMemcpyKind;
#undef AOPT_ACL_ENUMERATOR
}  // extern "C"
#define AOPT_ACL_CODE(name, value) inline constexpr int name = (value);
AOPT_ACL_CODES(AOPT_ACL_CODE)
#undef AOPT_ACL_CODE

#endif

namespace aopt::acl_abi {

// The function types: aclInit_fn is `aclError(const char*)`, and so on.
#define AOPT_ACL_FN_TYPE(name, ret, params) using name##_fn = ret params;
AOPT_ACL_RUNTIME_FUNCTIONS(AOPT_ACL_FN_TYPE)
AOPT_ACL_NNOPBASE_FUNCTIONS(AOPT_ACL_FN_TYPE)
AOPT_ACL_EXECUTOR_FUNCTIONS(AOPT_ACL_FN_TYPE)
#undef AOPT_ACL_FN_TYPE

// Whether this build checked the lists against CANN's headers (aopt-acl-run --check says so).
#if defined(AOPT_CANN_HEADERS)
inline constexpr bool checked_against_cann_headers = true;
#else
inline constexpr bool checked_against_cann_headers = false;
#endif

#if defined(AOPT_CANN_HEADERS)
namespace checks {
// An enumerator whose value differs from the documented one, or a function whose type differs
// (a pointer of the documented type cannot be initialised from it), does not compile. Where CANN
// declares C++ overloads too (aclrtMalloc, aclrtCreateStream), the documented one is picked.
#define AOPT_ACL_SAME_VALUE(name, value) static_assert(static_cast<long>(::name) == (value), #name " differs from the value aopt-acl-run was written against");
AOPT_ACL_DATA_TYPES(AOPT_ACL_SAME_VALUE)
AOPT_ACL_FORMATS(AOPT_ACL_SAME_VALUE)
AOPT_ACL_MALLOC_POLICIES(AOPT_ACL_SAME_VALUE)
AOPT_ACL_MEMCPY_KINDS(AOPT_ACL_SAME_VALUE)
AOPT_ACL_CODES(AOPT_ACL_SAME_VALUE)
#undef AOPT_ACL_SAME_VALUE
#define AOPT_ACL_SAME_TYPE(name, ret, params) [[maybe_unused]] inline constexpr name##_fn* name = &::name;
AOPT_ACL_RUNTIME_FUNCTIONS(AOPT_ACL_SAME_TYPE)
AOPT_ACL_NNOPBASE_FUNCTIONS(AOPT_ACL_SAME_TYPE)
AOPT_ACL_EXECUTOR_FUNCTIONS(AOPT_ACL_SAME_TYPE)
#undef AOPT_ACL_SAME_TYPE
}  // namespace checks
#endif

}  // namespace aopt::acl_abi
