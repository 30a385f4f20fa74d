// The HCCL kernel API (AscendC "HCCL通信类" pages: "HCCL-Kernel侧接口", "HCCL Context") for a
// world of ONE rank: rank id 0, rank dim 1. Our own code, written from the documentation.
//
// The client runs on the AI Core and sends tasks to a server (AI CPU) that does the
// communication ("HCCL使用说明"): a Prepare call (AllReduce, ReduceScatter, AllGather, AlltoAll)
// describes a task and returns its handle; Commit lets the server run it once (one of its
// `repeat` rounds); Wait blocks until a round is done; Finalize says no task follows.
//
// On one rank every one of the four collectives is a copy of the rank's own block: AllReduce's
// reduction over one input is that input, ReduceScatter's and AllGather's block for rank 0 lies at
// offset 0 whatever strideCount says, AlltoAll sends block 0 to itself. So a round copies `count`
// elements from sendBuf[i] to recvBuf[i] (i the round; the pages' formula
// buf[i] = buf + count * sizeof(dataType) * i), and nothing when the two addresses are equal.
// The copy happens at Commit (the server runs a round when it is committed; commit=true commits
// at Prepare), so Wait returns at once: nothing is pending after a Commit.
//
// Which core's tasks are served: every core runs its own Hccl object (a kernel declares it on the
// stack), but the server serves ONE client ("若HCCL对象的模板参数未指定下发通信任务的核，则Prepare
// 接口仅能在AIC或AIV之一上运行"; "HCCL模板参数": config {type, blockId}, default {DEFAULT, 0}). sim
// serves the core with GetBlockIdx() == config.blockId, of config.type's kind (either kind for
// DEFAULT, which the kernel must restrict to one kind itself). The other cores' calls are checked
// as the served core's are (Init first, valid arguments) but copy nothing and never block, so
// cann-ops' habit of issuing the same collective from every AIC is safe; a kernel must still
// synchronise its cores before the served core commits (the pages' SyncAll / CrossCoreSetFlag
// advice), as on the chip.
//
// Errors fail the run as the chip would hang or misbehave (aopt::sim::fail), saying what to do:
// a call before Init, a Prepare without the matching Mc2CcTiling, repeat 0, more than 63 Prepare
// calls (the Atlas A2 limit per communication domain), a data type or reduce op the page does not
// support, buffers outside GM, Commit more often than `repeat`, Wait on a handle the served core
// never committed (the server would never answer), Finalize with rounds never committed, and any
// use after Finalize.
//
// Not emulated: communication between ranks (there is one), its time (the copy is not timed
// either: docs/sim.md "HCCL on one rank"), AlltoAllV, BatchWrite, Iterate (fine-grained steps),
// InterHcclGroupSync, QueueBarrier, the CCU server.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "aopt_sim/hccl_context.h"
#include "aopt_sim/hccl_types.h"
#include "aopt_sim/host/hccl_tiling_data.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/types.h"
#include "aopt_sim/runtime.h"

namespace AscendC {

// "HCCL模板参数".
enum HcclServerType : std::uint32_t { HCCL_SERVER_TYPE_AICPU = 0, HCCL_SERVER_TYPE_CCU, HCCL_SERVER_TYPE_END };
enum class CoreType : std::uint8_t { DEFAULT, ON_AIV, ON_AIC };
struct HcclServerConfig {
  CoreType type;
  std::int64_t blockId;
};
inline constexpr HcclServerConfig DEFAULT_CFG = {CoreType::DEFAULT, 0};

// Commit / Wait / Query: "using HcclHandle = int8_t"; a failed Prepare returns -1 (the pages'
// INVALID_HANDLE_ID).
using HcclHandle = std::int8_t;
inline constexpr HcclHandle INVALID_HANDLE_ID = -1;
// SetCcTiling's results. The pages name them without values; Wait documents 0 / -1 for the same
// outcomes, so these follow it.
inline constexpr std::int32_t HCCL_SUCCESS = 0;
inline constexpr std::int32_t HCCL_FAILED = -1;
// The communication domains' indices for GetHcclContext / SetHcclContext (index 0 or 1). The
// names are the ones operators use; the pages give only the numbers.
inline constexpr std::uint32_t HCCL_GROUP_ID_0 = 0;
inline constexpr std::uint32_t HCCL_GROUP_ID_1 = 1;
// "MC2_BUFFER_LOCATION: 预留参数。计算和通信中间结果的Buffer存放位置" ("HCCL使用说明" table 3): a
// reserved setting whose enumerators the pages do not list. These names are the ones operators
// compare against; the values are sim's.
enum class MC2_BUFFER_LOCATION : std::uint8_t {
  MC2_BUFFER_TYPE_DEFAULT = 0,
  MC2_BUFFER_TYPE_WINDOW_IN = 1,
  MC2_BUFFER_TYPE_WINDOW_OUT = 2,
};

// "GetHcclContext" / "SetHcclContext": the context (消息区) of domain `index` (0 or 1).
template <std::uint32_t index>
inline __gm__ std::uint8_t* GetHcclContext(void) {
  static_assert(index < aopt::sim::hccl::max_groups, "GetHcclContext: index must be 0 or 1 (two domains at most)");
  return aopt::sim::hccl::group_context(index);
}
template <std::uint32_t index>
inline void SetHcclContext(__gm__ std::uint8_t* context) {
  static_assert(index < aopt::sim::hccl::max_groups, "SetHcclContext: index must be 0 or 1 (two domains at most)");
  aopt::sim::hccl::set_group_context(index, context);
}

namespace hccl_detail {

using aopt::sim::hw_error_kind;
using aopt::sim::src_loc;

// The Prepare calls allowed per communication domain on Atlas A2 (every Prepare page).
inline constexpr std::uint32_t max_prepares = 63;
// The Mc2CcTiling structs an operator may hold ("TilingData结构体": "最多支持定义8个").
inline constexpr std::uint32_t max_cc_tilings = 8;

struct task {
  std::uint32_t op = 0;
  std::uint8_t* send = nullptr;
  std::uint8_t* recv = nullptr;
  std::uint64_t round_bytes = 0;  // count x element size: one round's block and its stride
  std::uint8_t repeat = 1;
  std::uint8_t commits = 0;
  std::uint8_t waits = 0;
  bool copies = true;  // false: debugMode 1 or skipLocalRankCopy for this task
};

// AllReduce and ReduceScatter: float, half, int8, int16, int32, bfloat16 ("目前支持 ...").
inline bool reducible_type(std::uint32_t t) {
  return t == HCCL_DATA_TYPE_FP32 || t == HCCL_DATA_TYPE_FP16 || t == HCCL_DATA_TYPE_INT8 ||
         t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_INT32 || t == HCCL_DATA_TYPE_BFP16;
}
// AllReduce and ReduceScatter: sum, max, min ("目前支持sum、max、min操作类型").
inline bool supported_reduce_op(std::uint32_t op) {
  return op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN;
}

[[noreturn]] inline void fail(hw_error_kind k, const std::string& api, const std::string& msg, const src_loc& loc) {
  aopt::sim::fail(k, msg, loc, api.c_str());  // the error names the API (hw_error::site.api)
}

// Round `round` of a task on the served core: its block copied from send to recv (both checked
// to lie in GM at Prepare).
inline void run_round(const task& t, std::uint32_t round) {
  if (!t.copies || t.round_bytes == 0 || t.send == t.recv) return;
  std::memmove(t.recv + t.round_bytes * round, t.send + t.round_bytes * round, t.round_bytes);
}

// Checks that [p, p + bytes) lies in one GM allocation (an input, output, workspace or window).
inline void check_gm(const std::uint8_t* p, std::uint64_t bytes, const char* what, const std::string& api,
                     const src_loc& loc) {
  if (bytes == 0) return;
  if (p != nullptr && aopt::sim::gm_find(p, bytes) != nullptr) return;
  fail(hw_error_kind::gm_out_of_bounds, api,
       std::string(what) + " and the " + std::to_string(bytes) +
           " bytes its rounds span are not inside one GM allocation: pass a GM address (a tensor, the "
           "workspace or GetWindowsInAddr/GetWindowsOutAddr) with room for count x repeat elements",
       loc);
}

}  // namespace hccl_detail

// "HCCL模板参数": the client. `config` names the core whose tasks the server serves.
template <HcclServerType serverType = HCCL_SERVER_TYPE_AICPU, const auto& config = DEFAULT_CFG>
class Hccl {
  static_assert(serverType == HCCL_SERVER_TYPE_AICPU,
                "Hccl: Atlas A2 supports only HCCL_SERVER_TYPE_AICPU (HCCL模板参数); the CCU server is Ascend 950's");

 public:
  // "Init（废弃）": the deprecated initialisation; without initTiling the task tilings are not
  // required (the v1/v2 TilingData flow, which sim does not read).
  void Init(GM_ADDR context, __gm__ void* initTiling = nullptr, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    init(context, initTiling, "Init", loc);
    legacy_ = initTiling == nullptr;
  }
  // "InitV2": initTiling is the address of the tiling data whose first field is Mc2InitTiling.
  void InitV2(GM_ADDR context, const void* initTiling, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    if (initTiling == nullptr) {
      hccl_detail::fail(aopt::sim::hw_error_kind::invalid_use, "InitV2",
                        "initTiling is null: pass the tiling data's address (&tilingData, whose first field is Mc2InitTiling)",
                        loc);
    }
    init(context, initTiling, "InitV2", loc);
  }
  // "SetCcTiling（废弃）": the Mc2CcTiling of one task type (a later one of the same type replaces it).
  std::int32_t SetCcTiling(__gm__ void* ccOpTilingData, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    require_init("SetCcTiling", loc);
    return set_cc(ccOpTilingData);
  }
  // "SetCcTilingV2": offset from InitV2's initTiling to an Mc2CcTiling.
  std::int32_t SetCcTilingV2(std::uint64_t offset, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    require_init("SetCcTilingV2", loc);
    if (init_base_ == nullptr) {
      hccl_detail::fail(aopt::sim::hw_error_kind::invalid_use, "SetCcTilingV2",
                        "the offset is relative to InitV2's initTiling: initialise with InitV2, or use SetCcTiling", loc);
    }
    return set_cc(init_base_ + offset);
  }

  // "GetRankId" / "GetRankDim".
  std::uint32_t GetRankId(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return require_init("GetRankId", loc).rank_id;
  }
  std::uint32_t GetRankDim(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return require_init("GetRankDim", loc).rank_dim;
  }
  // "GetWindowsInAddr" / "GetWindowsOutAddr": nullptr for a rank id outside the domain.
  GM_ADDR GetWindowsInAddr(std::uint32_t rankId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    const auto& c = require_init("GetWindowsInAddr", loc);
    return rankId < c.rank_dim ? c.window_in : nullptr;
  }
  GM_ADDR GetWindowsOutAddr(std::uint32_t rankId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    const auto& c = require_init("GetWindowsOutAddr", loc);
    return rankId < c.rank_dim ? c.window_out : nullptr;
  }

  // "AllReduce".
  template <bool commit = false>
  HcclHandle AllReduce(GM_ADDR sendBuf, GM_ADDR recvBuf, std::uint64_t count, HcclDataType dataType, HcclReduceOp op,
                       std::uint8_t repeat = 1, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    check_reduction("AllReduce", dataType, op, loc);
    return prepare<commit>(HCCL_CMD_ALLREDUCE, "AllReduce", sendBuf, recvBuf, count, dataType, repeat, loc);
  }
  // "ReduceScatter": on one rank the rank's block sits at offset 0, so strideCount moves nothing.
  template <bool commit = false>
  HcclHandle ReduceScatter(GM_ADDR sendBuf, GM_ADDR recvBuf, std::uint64_t recvCount, HcclDataType dataType,
                           HcclReduceOp op, std::uint64_t strideCount, std::uint8_t repeat = 1,
                           aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    (void)strideCount;
    check_reduction("ReduceScatter", dataType, op, loc);
    return prepare<commit>(HCCL_CMD_REDUCE_SCATTER, "ReduceScatter", sendBuf, recvBuf, recvCount, dataType, repeat, loc);
  }
  // "AllGather".
  template <bool commit = false>
  HcclHandle AllGather(GM_ADDR sendBuf, GM_ADDR recvBuf, std::uint64_t sendCount, HcclDataType dataType,
                       std::uint64_t strideCount, std::uint8_t repeat = 1,
                       aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    (void)strideCount;
    return prepare<commit>(HCCL_CMD_ALLGATHER, "AllGather", sendBuf, recvBuf, sendCount, dataType, repeat, loc);
  }
  // "AlltoAll".
  template <bool commit = false>
  HcclHandle AlltoAll(GM_ADDR sendBuf, GM_ADDR recvBuf, std::uint64_t dataCount, HcclDataType dataType,
                      std::uint64_t strideCount = 0, std::uint8_t repeat = 1,
                      aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    (void)strideCount;
    return prepare<commit>(HCCL_CMD_ALLTOALL, "AlltoAll", sendBuf, recvBuf, dataCount, dataType, repeat, loc);
  }

  // "Commit": the server may run the task's next round; on the served core it runs now.
  void Commit(HcclHandle handleId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    hccl_detail::task& t = task_of(handleId, "Commit", loc);
    if (t.commits >= t.repeat) {
      hccl_detail::fail(aopt::sim::hw_error_kind::invalid_use, "Commit",
                        "handle " + std::to_string(handleId) + " is committed more often than its repeat (" +
                            std::to_string(t.repeat) + "): Commit once per round (Commit's page)",
                        loc);
    }
    if (served()) hccl_detail::run_round(t, t.commits);
    ++t.commits;
  }
  // "Wait": 0 when the round is done. The served core's Wait on a handle it never committed is a
  // hang on the chip (the server never runs the task). A Wait beyond the committed rounds returns
  // at once: the pages' own examples wait `repeat` times after one Commit.
  std::int32_t Wait(HcclHandle handleId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    hccl_detail::task& t = task_of(handleId, "Wait", loc);
    if (served() && t.commits == 0) {
      hccl_detail::fail(aopt::sim::hw_error_kind::deadlock, "Wait",
                        "handle " + std::to_string(handleId) +
                            " was never committed, so the server never runs it and Wait never returns: call "
                            "Commit(handle) first, or Prepare with commit = true",
                        loc);
    }
    if (t.waits < t.commits) ++t.waits;
    return 0;
  }
  // "Query": rounds done, at most repeat (every committed round is done on one rank).
  std::int32_t Query(HcclHandle handleId, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return task_of(handleId, "Query", loc).commits;
  }
  // "Finalize": no task follows. The client waits for the last task, so a round never committed
  // would hang it; the object cannot be used afterwards.
  template <bool sync = true>
  void Finalize(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    require_init("Finalize", loc);
    for (std::uint32_t h = 0; served() && h < prepared_; ++h) {
      const hccl_detail::task& t = tasks_[h];
      if (t.commits == t.repeat) continue;
      hccl_detail::fail(aopt::sim::hw_error_kind::deadlock, "Finalize",
                        "handle " + std::to_string(h) + " was committed " + std::to_string(t.commits) + " of its " +
                            std::to_string(t.repeat) +
                            " rounds; Finalize waits for the last task, which never comes: Commit every round "
                            "before Finalize",
                        loc);
    }
    finalized_ = true;
  }

 private:
  void init(GM_ADDR context, const void* initTiling, const char* api, const aopt::sim::src_loc& loc);
  const aopt::sim::hccl::context_block& require_init(const char* api, const aopt::sim::src_loc& loc);
  std::int32_t set_cc(const void* cc);
  bool served() const;
  void check_reduction(const char* api, HcclDataType dataType, HcclReduceOp op, const aopt::sim::src_loc& loc);
  template <bool commit>
  HcclHandle prepare(std::uint32_t op, const char* api, GM_ADDR send, GM_ADDR recv, std::uint64_t count,
                     HcclDataType dataType, std::uint8_t repeat, const aopt::sim::src_loc& loc);
  const aopt::sim::hccl::cc_record* cc_for(std::uint32_t op) const;
  hccl_detail::task& task_of(HcclHandle h, const char* api, const aopt::sim::src_loc& loc);

  const aopt::sim::hccl::context_block* ctx_ = nullptr;
  const std::uint8_t* init_base_ = nullptr;  // InitV2's initTiling (SetCcTilingV2's offsets)
  bool legacy_ = false;
  bool finalized_ = false;
  std::uint8_t debug_mode_ = 0;
  std::string cc_error_;  // why the last SetCcTiling failed, for the Prepare that then misses it
  std::array<aopt::sim::hccl::cc_record, hccl_detail::max_cc_tilings> cc_{};
  std::uint32_t cc_count_ = 0;
  std::array<hccl_detail::task, hccl_detail::max_prepares> tasks_{};
  std::uint32_t prepared_ = 0;
};

}  // namespace AscendC

#include "aopt_sim/kernel/hccl_impl.h"
