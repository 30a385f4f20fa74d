// The part of the CANN runtime's C interface that aopt-acl-run calls, declared from the public
// ACL and aclnn documentation (acl/acl_base.h, acl/acl_rt.h, aclnn/acl_meta.h: names, argument
// lists and enumerator values as documented; no CANN header is needed to build the runner).
// The runner never links against these functions: it loads libascendcl.so and libnnopbase.so
// with dlopen and takes each symbol's type from the declaration here (decltype), so it builds on
// any machine and fails with a clear message where no CANN runtime is installed. The stand-in
// runtime of tests/cann/standin/acl/ defines the same functions, so a mismatch between the two
// is a compile error there.
#pragma once

#include <cstddef>
#include <cstdint>

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

// acl/acl_base.h
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
} aclFormat;

// acl/acl_rt.h
typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

enum : int {
  ACL_SUCCESS = 0,
  ACL_ERROR_INVALID_PARAM = 100000,
  ACL_ERROR_UNINITIALIZE = 100001,
  ACL_ERROR_REPEAT_INITIALIZE = 100002,
};

// libascendcl.so: the runtime.
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

// libnnopbase.so: aclnn's tensor and attribute objects.
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

}  // extern "C"
