// Hccl's private members (aopt_sim/kernel/hccl.h); each names the documentation page it follows.
#pragma once

#include "aopt_sim/kernel/hccl.h"

namespace AscendC {

// "InitV2" / "Init（废弃）": the context must be an HCCL context (GetHcclContext), and an
// initTiling must hold what Mc2CcTilingConfig::GetTiling wrote.
template <HcclServerType serverType, const auto& config>
void Hccl<serverType, config>::init(GM_ADDR context, const void* initTiling, const char* api,
                                    const aopt::sim::src_loc& loc) {
  using aopt::sim::hw_error_kind;
  const auto* c = reinterpret_cast<const aopt::sim::hccl::context_block*>(context);
  if (c == nullptr || c->magic != aopt::sim::hccl::context_magic) {
    hccl_detail::fail(hw_error_kind::invalid_use, api,
                      "the context is not an HCCL context: pass GetHcclContext<HCCL_GROUP_ID_0>() (and name the "
                      "group on the host with this->MC2().HcclGroup(...))",
                      loc);
  }
  *this = Hccl();  // initialising again starts afresh
  ctx_ = c;
  if (initTiling == nullptr) return;
  const auto r = aopt::sim::hccl::read_record<aopt::sim::hccl::init_record>(initTiling);
  if (r.magic != aopt::sim::hccl::init_magic) {
    hccl_detail::fail(hw_error_kind::invalid_use, api,
                      "initTiling holds no Mc2InitTiling filled by Mc2CcTilingConfig::GetTiling (did GetTiling fail "
                      "on the host? it returns non-zero and prints why); Mc2InitTiling must be the tiling data's "
                      "first field",
                      loc);
  }
  debug_mode_ = r.debug_mode;
  init_base_ = static_cast<const std::uint8_t*>(initTiling);
}

// Every call but Init needs an initialised, not finalized client (each page: "调用本接口前确保已
// 调用过InitV2和SetCcTilingV2接口"; "Finalize": "当前Hccl对象不可再次用于通信").
template <HcclServerType serverType, const auto& config>
const aopt::sim::hccl::context_block& Hccl<serverType, config>::require_init(const char* api,
                                                                            const aopt::sim::src_loc& loc) {
  using aopt::sim::hw_error_kind;
  if (ctx_ == nullptr) {
    hccl_detail::fail(hw_error_kind::invalid_use, api,
                      "called before Init: call hccl.Init(GetHcclContext<HCCL_GROUP_ID_0>(), &tiling->mc2InitTiling) "
                      "(or InitV2) first",
                      loc);
  }
  if (finalized_) {
    hccl_detail::fail(hw_error_kind::invalid_use, api,
                      "called after Finalize, which ends this client: create a new Hccl object and Init it to "
                      "communicate again",
                      loc);
  }
  return *ctx_;
}

// "SetCcTiling（废弃）" / "SetCcTilingV2": HCCL_FAILED for bytes GetTiling did not write.
template <HcclServerType serverType, const auto& config>
std::int32_t Hccl<serverType, config>::set_cc(const void* cc) {
  if (cc == nullptr) {
    cc_error_ = "SetCcTiling was given a null address";
    return HCCL_FAILED;
  }
  const auto r = aopt::sim::hccl::read_record<aopt::sim::hccl::cc_record>(cc);
  if (r.magic != aopt::sim::hccl::cc_magic) {
    cc_error_ = "SetCcTiling's Mc2CcTiling was not filled by Mc2CcTilingConfig::GetTiling (it returns non-zero "
                "and prints why when it fails)";
    return HCCL_FAILED;
  }
  for (std::uint32_t i = 0; i < cc_count_; ++i) {
    if (cc_[i].op_type == r.op_type) {  // "重复调用本接口会覆盖该通信算法的ccOpTilingData地址"
      cc_[i] = r;
      return HCCL_SUCCESS;
    }
  }
  if (cc_count_ == cc_.size()) {
    cc_error_ = "more than 8 task types' Mc2CcTiling were set (TilingData结构体: at most 8)";
    return HCCL_FAILED;
  }
  cc_[cc_count_++] = r;
  return HCCL_SUCCESS;
}

template <HcclServerType serverType, const auto& config>
const aopt::sim::hccl::cc_record* Hccl<serverType, config>::cc_for(std::uint32_t op) const {
  for (std::uint32_t i = 0; i < cc_count_; ++i) {
    if (cc_[i].op_type == op) return &cc_[i];
  }
  return nullptr;
}

// The served core ("HCCL模板参数": config.type and config.blockId; see hccl.h).
template <HcclServerType serverType, const auto& config>
bool Hccl<serverType, config>::served() const {
  const bool aic = aopt::sim::current_core_kind() == aopt::sim::core_kind::aic;
  if (config.type == CoreType::ON_AIC && !aic) return false;
  if (config.type == CoreType::ON_AIV && aic) return false;
  return static_cast<std::int64_t>(aopt::sim::block_idx()) == config.blockId;
}

// "AllReduce" / "ReduceScatter": the data types and reduce ops they support.
template <HcclServerType serverType, const auto& config>
void Hccl<serverType, config>::check_reduction(const char* api, HcclDataType dataType, HcclReduceOp op,
                                               const aopt::sim::src_loc& loc) {
  using aopt::sim::hw_error_kind;
  if (!hccl_detail::reducible_type(dataType)) {
    hccl_detail::fail(hw_error_kind::param_out_of_range, api,
                      "dataType " + std::to_string(dataType) +
                          " is not supported: use HCCL_DATA_TYPE_FP32, _FP16, _BFP16, _INT8, _INT16 or _INT32",
                      loc);
  }
  if (!hccl_detail::supported_reduce_op(op)) {
    hccl_detail::fail(hw_error_kind::param_out_of_range, api,
                      "reduce op " + std::to_string(op) +
                          " is not supported: use HCCL_REDUCE_SUM, HCCL_REDUCE_MAX or HCCL_REDUCE_MIN",
                      loc);
  }
}

// The Prepare calls' common part: checks, the task, and Commit when `commit` is true.
template <HcclServerType serverType, const auto& config>
template <bool commit>
HcclHandle Hccl<serverType, config>::prepare(std::uint32_t op, const char* api, GM_ADDR send, GM_ADDR recv,
                                             std::uint64_t count, HcclDataType dataType, std::uint8_t repeat,
                                             const aopt::sim::src_loc& loc) {
  using aopt::sim::hw_error_kind;
  require_init(api, loc);
  const aopt::sim::hccl::cc_record* cc = cc_for(op);
  if (cc == nullptr && !legacy_) {
    hccl_detail::fail(hw_error_kind::invalid_use, api,
                      std::string("no Mc2CcTiling of type ") + aopt::sim::hccl::op_type_name(op) +
                          " was set: fill one on the host with Mc2CcTilingConfig(group, " +
                          aopt::sim::hccl::op_type_name(op) + ", ...).GetTiling and pass it to SetCcTiling first" +
                          (cc_error_.empty() ? std::string() : " (the last SetCcTiling failed: " + cc_error_ + ")"),
                      loc);
  }
  if (repeat == 0) {
    hccl_detail::fail(hw_error_kind::param_out_of_range, api,
                      "repeat is 0: a Prepare describes repeat >= 1 rounds (its page: \"repeat取值≥1\")", loc);
  }
  const std::uint32_t elem = aopt::sim::hccl::data_type_bytes(dataType);
  if (elem == 0) {
    hccl_detail::fail(hw_error_kind::param_out_of_range, api,
                      "dataType " + std::to_string(dataType) + " is not an HcclDataType sim can move: use one of "
                      "HcclDataType's documented values (INT128 and RESERVED are not supported)",
                      loc);
  }
  if (prepared_ == hccl_detail::max_prepares) {
    hccl_detail::fail(hw_error_kind::param_out_of_range, api,
                      "more than 63 Prepare calls in one communication domain (the Atlas A2 limit of every Prepare "
                      "page): use repeat to describe rounds of one task instead of one Prepare per round",
                      loc);
  }
  hccl_detail::task t;
  t.op = op;
  t.send = send;
  t.recv = recv;
  t.round_bytes = count * elem;
  t.repeat = repeat;
  const bool skip_local = cc != nullptr && cc->skip_local_rank_copy == 1 &&
                          (op == HCCL_CMD_ALLGATHER || op == HCCL_CMD_ALLTOALL);  // "仅AllGather算法与AlltoAll算法支持"
  t.copies = debug_mode_ != 1 && (cc == nullptr || cc->debug_mode != 1) && !skip_local;  // debugMode 1: "关闭...通信功能"
  hccl_detail::check_gm(send, t.round_bytes * repeat, "sendBuf", api, loc);
  hccl_detail::check_gm(recv, t.round_bytes * repeat, "recvBuf", api, loc);
  tasks_[prepared_] = t;
  const auto handle = static_cast<HcclHandle>(prepared_++);
  if constexpr (commit) Commit(handle, loc);
  return handle;
}

// A handle Prepare returned on this client ("只能使用Prepare原语接口的返回值").
template <HcclServerType serverType, const auto& config>
hccl_detail::task& Hccl<serverType, config>::task_of(HcclHandle h, const char* api, const aopt::sim::src_loc& loc) {
  require_init(api, loc);
  if (h < 0 || static_cast<std::uint32_t>(h) >= prepared_) {
    hccl_detail::fail(aopt::sim::hw_error_kind::invalid_use, api,
                      "handle " + std::to_string(h) +
                          " was not returned by a Prepare call (AllReduce, ReduceScatter, AllGather, AlltoAll) of "
                          "this Hccl object: pass the handle Prepare returned",
                      loc);
  }
  return tasks_[static_cast<std::uint32_t>(h)];
}

}  // namespace AscendC

// As in CANN's headers, kernels name these unqualified after `using namespace AscendC` and some
// before it (a helper template declared ahead of the directive).
using AscendC::HcclHandle;
using AscendC::HCCL_GROUP_ID_0;
using AscendC::HCCL_GROUP_ID_1;
