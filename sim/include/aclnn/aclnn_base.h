// Emulated CANN aclnn/aclnn_base.h: the aclnn (op_api) layer's base names, as far as host code
// that is not the op_api library itself includes them (cann-ops' conv/aclnn/cube_util.h, which the
// conv operators' tiling and proto sources reach through their include path). The aclnn two-stage
// API is never called on sim: the tensors and the executor are opaque, only the names exist.
#pragma once

#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;  // 0 on success, as every aclnn entry returns

// Opaque handles of the aclnn API (declared, never defined on sim).
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;
typedef struct aclOpExecutor aclOpExecutor;

#ifdef __cplusplus
}
#endif

#ifndef ACLNN_SUCCESS
#define ACLNN_SUCCESS 0
#endif
