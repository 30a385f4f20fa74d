// The host side of the HCCL API on sim (tiling/hccl/hccl_tiling.h): the documented constants,
// the tiling structs as fields of an operator's tiling data, and Mc2CcTilingConfig's setters and
// GetTiling ("HCCL Tiling侧接口" pages).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
#include "tiling/hccl/hccl_tiling.h"

namespace {

using aopt::sim::hccl::cc_record;
using aopt::sim::hccl::init_record;
using aopt::sim::hccl::read_record;

// An operator's tiling data as the documentation asks (Mc2InitTiling first), in the macro form.
BEGIN_TILING_DATA_DEF(HcclMacroTilingData)
TILING_DATA_FIELD_DEF_STRUCT(Mc2InitTiling, mc2InitTiling);
TILING_DATA_FIELD_DEF_STRUCT(Mc2CcTiling, mc2CcTiling);
TILING_DATA_FIELD_DEF(uint32_t, tileCnt);
END_TILING_DATA_DEF;

// ... and as a plain struct (cann-ops' MC2 operators).
struct HcclPlainTilingData {
  Mc2InitTiling mc2InitTiling;
  Mc2CcTiling mc2CcTiling;
  TCubeTiling matmulTiling;
};

}  // namespace

// The values "HCCL使用说明" (tables 1, 2) and "HCCL Tiling构造函数" (table 2) give.
TEST(HcclConstants, MatchTheDocumentation) {
  EXPECT_EQ(HCCL_CMD_INVALID, 0u);
  EXPECT_EQ(HCCL_CMD_BROADCAST, 1u);
  EXPECT_EQ(HCCL_CMD_ALLREDUCE, 2u);
  EXPECT_EQ(HCCL_CMD_ALLGATHER, 6u);
  EXPECT_EQ(HCCL_CMD_REDUCE_SCATTER, 7u);
  EXPECT_EQ(HCCL_CMD_ALLTOALL, 10u);
  EXPECT_EQ(HCCL_CMD_BATCH_WRITE, 18u);
  EXPECT_EQ(HCCL_CMD_HALF_ALLTOALLV, 20u);
  EXPECT_EQ(AscendC::HCCL_DATA_TYPE_FP16, 3u);
  EXPECT_EQ(HCCL_DATA_TYPE_FP32, 4u);
  EXPECT_EQ(HCCL_DATA_TYPE_BFP16, 11u);
  EXPECT_EQ(HCCL_DATA_TYPE_HIF8, 14u);
  EXPECT_EQ(HCCL_DATA_TYPE_FP8E8M0, 17u);
  EXPECT_EQ(HCCL_REDUCE_SUM, 0u);
  EXPECT_EQ(HcclReduceOp::HCCL_REDUCE_MIN, 3u);
  // The documented examples assign a task type to a uint32_t.
  const std::uint32_t opType = HCCL_CMD_REDUCE_SCATTER;
  const std::uint32_t reduceType = HCCL_REDUCE_SUM;
  EXPECT_EQ(opType + reduceType, 7u);
}

// "TilingData结构体": at most 64 and 280 bytes; usable as fields of either form of tiling data,
// and the macro form's SaveToBuffer carries their bytes.
TEST(HcclTilingStructs, AreFieldsOfTilingData) {
  EXPECT_EQ(sizeof(Mc2InitTiling), 64u);
  EXPECT_EQ(sizeof(Mc2CcTiling), 280u);
  EXPECT_EQ(offsetof(HcclPlainTilingData, mc2InitTiling), 0u);
  static_assert(std::is_same_v<AscendC::tiling::Mc2InitTiling, ::Mc2InitTiling>);

  HcclMacroTilingData td;
  AscendC::Mc2CcTilingConfig cfg("tp", HCCL_CMD_ALLREDUCE, "AllReduce=level0:fullmesh", HCCL_REDUCE_SUM);
  ASSERT_EQ(cfg.GetTiling(td.mc2InitTiling), 0u);
  ASSERT_EQ(cfg.GetTiling(td.mc2CcTiling), 0u);
  td.set_tileCnt(3);
  std::vector<std::uint8_t> buf(td.GetDataSize());
  td.SaveToBuffer(buf.data(), buf.size());
  EXPECT_EQ(std::memcmp(buf.data(), &td.mc2InitTiling, sizeof(Mc2InitTiling)), 0);
  const auto cc = read_record<cc_record>(buf.data() + offsetof(HcclMacroTilingData, mc2CcTiling));
  EXPECT_EQ(cc.magic, aopt::sim::hccl::cc_magic);
  EXPECT_EQ(cc.op_type, HCCL_CMD_ALLREDUCE);

  HcclPlainTilingData plain{};
  EXPECT_EQ(cfg.GetTiling(plain.mc2InitTiling), 0u);
  EXPECT_EQ(read_record<init_record>(&plain).magic, aopt::sim::hccl::init_magic);
}

// "HCCL Tiling构造函数" and "GetTiling": what the constructor and the setters were given lands in
// the structs the kernel reads.
TEST(Mc2CcTilingConfig, GetTilingRecordsTheConfiguration) {
  AscendC::Mc2CcTilingConfig cfg("group0", HCCL_CMD_REDUCE_SCATTER, "ReduceScatter=level0:doublering",
                                 HCCL_REDUCE_MAX);
  EXPECT_EQ(cfg.SetSkipLocalRankCopy(1), 0u);
  EXPECT_EQ(cfg.SetSkipBufferWindowCopy(2), 0u);
  EXPECT_EQ(cfg.SetStepSize(1), 0u);
  EXPECT_EQ(cfg.SetDebugMode(2), 0u);
  EXPECT_EQ(cfg.SetCommEngine(3), 0u);
  EXPECT_EQ(cfg.SetCommBlockNum(24), 0u);
  Mc2InitTiling init;
  Mc2CcTiling cc;
  ASSERT_EQ(cfg.GetTiling(init), 0u);
  ASSERT_EQ(cfg.GetTiling(cc), 0u);
  const auto i = read_record<init_record>(&init);
  EXPECT_EQ(i.debug_mode, 2);
  EXPECT_EQ(i.comm_block_num, 24);
  const auto c = read_record<cc_record>(&cc);
  EXPECT_EQ(c.op_type, HCCL_CMD_REDUCE_SCATTER);
  EXPECT_EQ(c.reduce_type, HCCL_REDUCE_MAX);
  EXPECT_EQ(c.skip_local_rank_copy, 1);
  EXPECT_EQ(c.skip_buffer_window_copy, 2);
  EXPECT_EQ(c.step_size, 1);
  EXPECT_EQ(c.comm_engine, 3);
  EXPECT_EQ(aopt::sim::hccl::record_name(c.group, c.group_len), "group0");
  EXPECT_EQ(aopt::sim::hccl::record_name(c.alg_config, c.alg_len), "ReduceScatter=level0:doublering");

  // The setters replace what the constructor took.
  EXPECT_EQ(cfg.SetOpType(HCCL_CMD_ALLGATHER), 0u);
  EXPECT_EQ(cfg.SetGroupName("other"), 0u);
  EXPECT_EQ(cfg.SetAlgConfig("AllGather=level0:doublering"), 0u);
  EXPECT_EQ(cfg.SetReduceType(HCCL_REDUCE_SUM), 0u);
  ASSERT_EQ(cfg.GetTiling(cc), 0u);
  const auto c2 = read_record<cc_record>(&cc);
  EXPECT_EQ(c2.op_type, HCCL_CMD_ALLGATHER);
  EXPECT_EQ(c2.reduce_type, HCCL_REDUCE_SUM);
  EXPECT_EQ(aopt::sim::hccl::record_name(c2.group, c2.group_len), "other");
}

// Values outside a setter's page are refused (non-zero) and leave the setting as it was.
TEST(Mc2CcTilingConfig, SettersRefuseUndocumentedValues) {
  AscendC::Mc2CcTilingConfig cfg("g", HCCL_CMD_ALLREDUCE, "", HCCL_REDUCE_SUM);
  EXPECT_NE(cfg.SetOpType(HCCL_CMD_BROADCAST), 0u);  // not an Atlas A2 task type
  EXPECT_NE(cfg.SetGroupName(std::string(129, 'g')), 0u);
  EXPECT_NE(cfg.SetAlgConfig(std::string(129, 'a')), 0u);
  EXPECT_NE(cfg.SetReduceType(HCCL_REDUCE_RESERVED), 0u);
  EXPECT_NE(cfg.SetSkipLocalRankCopy(2), 0u);
  EXPECT_NE(cfg.SetSkipBufferWindowCopy(3), 0u);
  EXPECT_NE(cfg.SetDebugMode(5), 0u);
  EXPECT_EQ(cfg.SetGroupName(std::string(128, 'g')), 0u);  // 128 bytes is the documented maximum
  Mc2CcTiling cc;
  ASSERT_EQ(cfg.GetTiling(cc), 0u);
  const auto c = read_record<cc_record>(&cc);
  EXPECT_EQ(c.op_type, HCCL_CMD_ALLREDUCE);
  EXPECT_EQ(c.group_len, 128);
}

// What the constructor took unchecked is checked by GetTiling, which then writes nothing.
TEST(Mc2CcTilingConfig, GetTilingFailsOnAnUnusableConfiguration) {
  Mc2InitTiling init;
  Mc2CcTiling cc;
  EXPECT_NE(AscendC::Mc2CcTilingConfig("", HCCL_CMD_ALLREDUCE, "", 0).GetTiling(init), 0u);
  EXPECT_NE(AscendC::Mc2CcTilingConfig("g", HCCL_CMD_SEND, "", 0).GetTiling(cc), 0u);
  EXPECT_NE(AscendC::Mc2CcTilingConfig("g", HCCL_CMD_ALLREDUCE, "", 9).GetTiling(cc), 0u);
  EXPECT_NE(AscendC::Mc2CcTilingConfig(std::string(200, 'g'), HCCL_CMD_ALLREDUCE, "", 0).GetTiling(cc), 0u);
  EXPECT_EQ(read_record<init_record>(&init).magic, 0u);
  EXPECT_EQ(read_record<cc_record>(&cc).magic, 0u);
}
