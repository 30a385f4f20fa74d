// The HCCL vocabulary both sides of a communication-fused (MC2) operator name: the data types,
// the reduce operations and the communication task types, with the values the public AscendC
// documentation gives ("HCCL使用说明" tables 1 and 2: HcclDataType, HcclReduceOp;
// "HCCL Tiling构造函数" table 2: HcclCMDType). Our own code, written from those pages.
//
// Where they live: the documentation's examples spell them `AscendC::HCCL_DATA_TYPE_FP16`,
// `HcclDataType::HCCL_DATA_TYPE_FP32` and bare `HCCL_REDUCE_SUM` (host tiling code with no
// using-directive, `uint32_t opType = HCCL_CMD_REDUCE_SCATTER;`), so the enums are unscoped, at
// global scope, and AscendC names every enumerator too.
//
// One deviation: the page declares `enum class HcclCMDType`, yet its own examples assign
// HCCL_CMD_* to a uint32_t and pass them where the constructor takes a uint32_t; a scoped enum
// would reject both. Unscoped with a uint32_t base keeps the documented values and lets the
// documented examples compile.
#pragma once

#include <cstdint>

enum HcclDataType : std::uint32_t {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
  HCCL_DATA_TYPE_INT128 = 12,  // reserved by the documentation: not supported
  HCCL_DATA_TYPE_HIF8 = 14,
  HCCL_DATA_TYPE_FP8E4M3 = 15,
  HCCL_DATA_TYPE_FP8E5M2 = 16,
  HCCL_DATA_TYPE_FP8E8M0 = 17,
  HCCL_DATA_TYPE_RESERVED  // not to be used
};

enum HcclReduceOp : std::uint32_t {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
  HCCL_REDUCE_RESERVED  // not to be used
};

enum HcclCMDType : std::uint32_t {
  HCCL_CMD_INVALID = 0,
  HCCL_CMD_BROADCAST = 1,
  HCCL_CMD_ALLREDUCE,        // 2
  HCCL_CMD_REDUCE,
  HCCL_CMD_SEND,
  HCCL_CMD_RECEIVE,
  HCCL_CMD_ALLGATHER,        // 6
  HCCL_CMD_REDUCE_SCATTER,   // 7
  HCCL_CMD_ALLTOALLV,
  HCCL_CMD_ALLTOALLVC,
  HCCL_CMD_ALLTOALL,         // 10
  HCCL_CMD_GATHER,
  HCCL_CMD_SCATTER,
  HCCL_CMD_BATCH_SEND_RECV,
  HCCL_CMD_BATCH_PUT,
  HCCL_CMD_BATCH_GET,
  HCCL_CMD_ALLGATHER_V,
  HCCL_CMD_REDUCE_SCATTER_V,
  HCCL_CMD_BATCH_WRITE,      // 18
  HCCL_CMD_HALF_ALLTOALLV = 20,
  HCCL_CMD_ALL
};

namespace AscendC {
using ::HcclCMDType;
using ::HcclDataType;
using ::HcclReduceOp;
using ::HCCL_DATA_TYPE_INT8;
using ::HCCL_DATA_TYPE_INT16;
using ::HCCL_DATA_TYPE_INT32;
using ::HCCL_DATA_TYPE_FP16;
using ::HCCL_DATA_TYPE_FP32;
using ::HCCL_DATA_TYPE_INT64;
using ::HCCL_DATA_TYPE_UINT64;
using ::HCCL_DATA_TYPE_UINT8;
using ::HCCL_DATA_TYPE_UINT16;
using ::HCCL_DATA_TYPE_UINT32;
using ::HCCL_DATA_TYPE_FP64;
using ::HCCL_DATA_TYPE_BFP16;
using ::HCCL_DATA_TYPE_INT128;
using ::HCCL_DATA_TYPE_HIF8;
using ::HCCL_DATA_TYPE_FP8E4M3;
using ::HCCL_DATA_TYPE_FP8E5M2;
using ::HCCL_DATA_TYPE_FP8E8M0;
using ::HCCL_DATA_TYPE_RESERVED;
using ::HCCL_REDUCE_SUM;
using ::HCCL_REDUCE_PROD;
using ::HCCL_REDUCE_MAX;
using ::HCCL_REDUCE_MIN;
using ::HCCL_REDUCE_RESERVED;
using ::HCCL_CMD_INVALID;
using ::HCCL_CMD_BROADCAST;
using ::HCCL_CMD_ALLREDUCE;
using ::HCCL_CMD_REDUCE;
using ::HCCL_CMD_SEND;
using ::HCCL_CMD_RECEIVE;
using ::HCCL_CMD_ALLGATHER;
using ::HCCL_CMD_REDUCE_SCATTER;
using ::HCCL_CMD_ALLTOALLV;
using ::HCCL_CMD_ALLTOALLVC;
using ::HCCL_CMD_ALLTOALL;
using ::HCCL_CMD_GATHER;
using ::HCCL_CMD_SCATTER;
using ::HCCL_CMD_BATCH_SEND_RECV;
using ::HCCL_CMD_BATCH_PUT;
using ::HCCL_CMD_BATCH_GET;
using ::HCCL_CMD_ALLGATHER_V;
using ::HCCL_CMD_REDUCE_SCATTER_V;
using ::HCCL_CMD_BATCH_WRITE;
using ::HCCL_CMD_HALF_ALLTOALLV;
using ::HCCL_CMD_ALL;
}  // namespace AscendC

namespace aopt::sim::hccl {

// Bytes of one element of `t`; 0 for the types the documentation reserves (INT128, RESERVED) and
// values it does not list.
constexpr std::uint32_t data_type_bytes(std::uint32_t t) {
  switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
      return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
      return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
      return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
      return 8;
    default:
      return 0;
  }
}

// The task types "HCCL Tiling构造函数" lists for Atlas A2 (the chip sim's profiles model).
constexpr bool a2_supported_op_type(std::uint32_t op) {
  return op == HCCL_CMD_ALLREDUCE || op == HCCL_CMD_ALLGATHER || op == HCCL_CMD_REDUCE_SCATTER ||
         op == HCCL_CMD_ALLTOALL || op == HCCL_CMD_BATCH_WRITE;
}

constexpr const char* op_type_name(std::uint32_t op) {
  switch (op) {
    case HCCL_CMD_ALLREDUCE: return "HCCL_CMD_ALLREDUCE";
    case HCCL_CMD_ALLGATHER: return "HCCL_CMD_ALLGATHER";
    case HCCL_CMD_REDUCE_SCATTER: return "HCCL_CMD_REDUCE_SCATTER";
    case HCCL_CMD_ALLTOALL: return "HCCL_CMD_ALLTOALL";
    case HCCL_CMD_ALLTOALLV: return "HCCL_CMD_ALLTOALLV";
    case HCCL_CMD_BATCH_WRITE: return "HCCL_CMD_BATCH_WRITE";
    default: return "an HcclCMDType";
  }
}

}  // namespace aopt::sim::hccl
