// CANN header name (emulated): the HCCL Tiling API of the host side, written from the public
// AscendC documentation ("HCCL Tiling侧接口" and its pages; our own code).
//
//   AscendC::Mc2CcTilingConfig cfg(groupName, opType, algConfig, reduceType);   // HCCL Tiling构造函数
//   cfg.SetSkipLocalRankCopy(0); ...                                            // the Set* pages
//   cfg.GetTiling(tiling->mc2InitTiling);  cfg.GetTiling(tiling->mc2CcTiling);  // GetTiling
//
// Every Set* returns 0 on success and non-zero when the value is outside what its page allows
// (the setting is then left as it was); GetTiling returns non-zero, leaves the struct untouched
// and prints why on stderr when the configuration as a whole is unusable. The constructor cannot
// fail, so what it was given is checked again by GetTiling.
//
// sim runs one rank: the settings are recorded in the structs (aopt_sim/host/hccl_tiling_data.h)
// for the kernel side, which honours debugMode 1 and skipLocalRankCopy; algConfig, stepSize,
// commEngine and commBlockNum change nothing on one rank (docs/sim.md, "HCCL on one rank").
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "aopt_sim/hccl_types.h"
#include "aopt_sim/host/hccl_tiling_data.h"

namespace AscendC {

class Mc2CcTilingConfig {
 public:
  // "HCCL Tiling构造函数".
  Mc2CcTilingConfig(const std::string& groupName, std::uint32_t opType, const std::string& algConfig,
                    std::uint32_t reduceType = 0, std::uint8_t dstDataType = 0, std::uint8_t srcDataType = 0,
                    std::uint8_t commEngine = 0)
      : group_(groupName), alg_config_(algConfig), op_type_(opType), reduce_type_(reduceType),
        dst_data_type_(dstDataType), src_data_type_(srcDataType), comm_engine_(commEngine) {}

  // SetOpType: one of the task types the page lists for Atlas A2.
  std::uint32_t SetOpType(std::uint32_t opType) {
    if (!aopt::sim::hccl::a2_supported_op_type(opType)) return 1;
    op_type_ = opType;
    return 0;
  }
  // SetGroupName / SetAlgConfig: "支持的最大长度为128字节".
  std::uint32_t SetGroupName(const std::string& groupName) {
    if (groupName.size() > aopt::sim::hccl::name_bytes) return 1;
    group_ = groupName;
    return 0;
  }
  std::uint32_t SetAlgConfig(const std::string& algConfig) {
    if (algConfig.size() > aopt::sim::hccl::name_bytes) return 1;
    alg_config_ = algConfig;
    return 0;
  }
  // SetReduceType: HcclReduceOp's values (HCCL_REDUCE_RESERVED is "暂不支持使用").
  std::uint32_t SetReduceType(std::uint32_t reduceType, std::uint8_t dstDataType = 0, std::uint8_t srcDataType = 0) {
    if (reduceType >= HCCL_REDUCE_RESERVED) return 1;
    reduce_type_ = reduceType;
    dst_data_type_ = dstDataType;
    src_data_type_ = srcDataType;
    return 0;
  }
  // SetSkipLocalRankCopy: 0 or 1.
  std::uint32_t SetSkipLocalRankCopy(std::uint8_t skipLocalRankCopy) {
    if (skipLocalRankCopy > 1) return 1;
    skip_local_rank_copy_ = skipLocalRankCopy;
    return 0;
  }
  // SetSkipBufferWindowCopy: 0, 1 or 2 (2: the input lies in the windows).
  std::uint32_t SetSkipBufferWindowCopy(std::uint8_t skipBufferWindowCopy) {
    if (skipBufferWindowCopy > 2) return 1;
    skip_buffer_window_copy_ = skipBufferWindowCopy;
    return 0;
  }
  // SetStepSize: 0 means not fine-grained communication.
  std::uint32_t SetStepSize(std::uint8_t stepSize) {
    step_size_ = stepSize;
    return 0;
  }
  // SetDebugMode: 1 turns communication off, 2..4 print diagnostics.
  std::uint32_t SetDebugMode(std::uint8_t debugMode) {
    if (debugMode > 4) return 1;
    debug_mode_ = debugMode;
    return 0;
  }
  // SetCommEngine: the value range is HcclCommConfig's (another project's page); recorded as given.
  std::uint32_t SetCommEngine(std::uint8_t commEngine) {
    comm_engine_ = commEngine;
    return 0;
  }
  // SetCommBlockNum: the cores that take part in BatchWrite.
  std::uint32_t SetCommBlockNum(std::uint16_t num) {
    comm_block_num_ = num;
    return 0;
  }

  // GetTiling (Mc2InitTiling): 0 on success.
  std::uint32_t GetTiling(::Mc2InitTiling& tiling) const {
    if (!usable()) return 1;
    aopt::sim::hccl::init_record r;
    r.debug_mode = debug_mode_;
    r.comm_engine = comm_engine_;
    r.comm_block_num = comm_block_num_;
    r.group_len = static_cast<std::uint8_t>(copy_name(r.group, sizeof(r.group), group_));
    std::memcpy(tiling.reserved, &r, sizeof(r));
    return 0;
  }
  // GetTiling (Mc2CcTiling): 0 on success.
  std::uint32_t GetTiling(::Mc2CcTiling& tiling) const {
    if (!usable()) return 1;
    aopt::sim::hccl::cc_record r;
    r.op_type = op_type_;
    r.reduce_type = reduce_type_;
    r.comm_block_num = comm_block_num_;
    r.skip_local_rank_copy = skip_local_rank_copy_;
    r.skip_buffer_window_copy = skip_buffer_window_copy_;
    r.step_size = step_size_;
    r.debug_mode = debug_mode_;
    r.comm_engine = comm_engine_;
    r.dst_data_type = dst_data_type_;
    r.src_data_type = src_data_type_;
    r.group_len = static_cast<std::uint8_t>(copy_name(r.group, sizeof(r.group), group_));
    r.alg_len = static_cast<std::uint8_t>(copy_name(r.alg_config, sizeof(r.alg_config), alg_config_));
    std::memcpy(tiling.reserved, &r, sizeof(r));
    return 0;
  }

 private:
  static std::size_t copy_name(char* dst, std::size_t cap, const std::string& s) {
    const std::size_t n = s.size() < cap ? s.size() : cap;
    std::memcpy(dst, s.data(), n);
    return n;
  }
  // What the constructor took unchecked, checked as the Set* pages check it.
  bool usable() const {
    const char* why = nullptr;
    if (group_.empty()) {
      why = "the group name is empty: give the communication domain's name (an MC2 operator's group attribute)";
    } else if (group_.size() > aopt::sim::hccl::name_bytes) {
      why = "the group name is longer than the documented 128 bytes";
    } else if (alg_config_.size() > aopt::sim::hccl::name_bytes) {
      why = "algConfig is longer than the documented 128 bytes";
    } else if (!aopt::sim::hccl::a2_supported_op_type(op_type_)) {
      why = "opType is not a task type Atlas A2 supports (HCCL_CMD_ALLREDUCE, HCCL_CMD_ALLGATHER, "
            "HCCL_CMD_REDUCE_SCATTER, HCCL_CMD_ALLTOALL, HCCL_CMD_BATCH_WRITE)";
    } else if (reduce_type_ >= HCCL_REDUCE_RESERVED) {
      why = "reduceType is not an HcclReduceOp (HCCL_REDUCE_SUM, _PROD, _MAX, _MIN)";
    }
    if (why != nullptr) std::fprintf(stderr, "[ERROR] Mc2CcTilingConfig::GetTiling: %s\n", why);
    return why == nullptr;
  }

  std::string group_;
  std::string alg_config_;
  std::uint32_t op_type_ = 0;
  std::uint32_t reduce_type_ = 0;
  std::uint8_t dst_data_type_ = 0;
  std::uint8_t src_data_type_ = 0;
  std::uint8_t comm_engine_ = 0;
  std::uint8_t skip_local_rank_copy_ = 0;
  std::uint8_t skip_buffer_window_copy_ = 0;
  std::uint8_t step_size_ = 0;
  std::uint8_t debug_mode_ = 0;
  std::uint16_t comm_block_num_ = 0;
};

}  // namespace AscendC
