// The AOE tuning-tiling registry and bank keys (register/tuning_tiling_registry.h,
// register/tuning_bank_key_registry.h; issue 38): cann-ops' cube tilings (mat_mul_v3, gemm_v2,
// batch_mat_mul_v3, quant_batch_matmul_v3, the conv backprop operators) declare their tuning
// tiling and bank key with these macros and include the headers from their common tiling code.
// Each idiom is written here as those headers are used: a tiling class with uint32_t fields, one
// holding two tiling classes (cann-ops' FfnTunnerTiling), a packed bank-key struct of shapes and
// dtypes, a second operator type registered with the first one's parse/load functions looked up
// at static initialisation (cann-ops' conv2d_dx_tuning_tiling.cc). This file does not compile on
// main (no such headers).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/types.h"
#include "register/tuning_bank_key_registry.h"
#include "register/tuning_tiling_registry.h"

namespace tuningtiling {
#pragma pack(push, 1)
struct S24CubeInputArgs {
  int64_t m;
  int64_t k;
  int64_t n;
  ge::DataType a_dtype;
  bool trans_a_flag;
  float l1_fused_num;
};
#pragma pack(pop)

BEGIN_TUNING_TILING_DEF(S24CubeTunnerTiling)
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, baseM);
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, baseN);
  TUNING_TILING_DATA_FIELD_DEF(uint64_t, baseK);
  TUNING_TILING_DATA_FIELD_DEF(uint8_t, dbL0A);
END_TUNING_TILING_DEF

DECLARE_SCHEMA(S24CubeTunnerTiling, FIELD(S24CubeTunnerTiling, baseM), FIELD(S24CubeTunnerTiling, baseN),
               FIELD(S24CubeTunnerTiling, baseK), FIELD(S24CubeTunnerTiling, dbL0A));

BEGIN_TUNING_TILING_DEF(S24CubePairTiling)
  TUNING_TILING_DATA_FIELD_DEF(S24CubeTunnerTiling, mm1);
  TUNING_TILING_DATA_FIELD_DEF(S24CubeTunnerTiling, mm2);
END_TUNING_TILING_DEF

DECLARE_SCHEMA(S24CubePairTiling, FIELD(S24CubePairTiling, mm1), FIELD(S24CubePairTiling, mm2));

static bool S24CubeConvert(const gert::TilingContext* context, std::shared_ptr<void>& args, size_t& size) {
  if (context != nullptr) return false;  // this test's convert function is called with none
  auto a = std::make_shared<S24CubeInputArgs>();
  a->m = 7;
  args = a;
  size = sizeof(S24CubeInputArgs);
  return true;
}

DECLARE_STRUCT_RELATE_WITH_OP_V2(S24CubeMatmul, S24CubeInputArgs, m, k, n, a_dtype, trans_a_flag, l1_fused_num);
REGISTER_OP_BANK_KEY_CONVERT_FUN_V2(S24CubeMatmul, S24CubeConvert);
REGISTER_TUNING_TILING_CLASS(S24CubeMatmul, S24CubeTunnerTiling);

// A second type sharing the first one's key functions, looked up while statics initialise.
static auto& g_s24_funcs = OpBankKeyFuncRegistryV2::RegisteredOpFuncInfoV2();
static auto g_s24_iter = g_s24_funcs.find(ge::AscendString("S24CubeMatmul"));
static const auto& g_s24_parse = g_s24_iter->second.GetBankKeyParseFuncV2();
static const auto& g_s24_load = g_s24_iter->second.GetBankKeyLoadFuncV2();
REGISTER_OP_BANK_KEY_PARSE_FUN_V2(S24CubeBatchMatmul, g_s24_parse, g_s24_load);
REGISTER_TUNING_TILING_CLASS(S24CubeBatchMatmul, S24CubePairTiling);
}  // namespace tuningtiling

namespace {
using tuningtiling::TuningTilingClassFactory;
using tuningtiling::TuningTilingDefPtr;

TEST(TuningTilingRegistry, AClassListsItsFieldsAndNameAndRoundTripsThroughJson) {
  tuningtiling::S24CubeTunnerTiling t;
  EXPECT_EQ(std::string(t.GetClassName().GetString()), "S24CubeTunnerTiling");
  const auto items = t.GetItemInfo();
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(std::string(items[0].dtype_.GetString()), "uint32_t");
  EXPECT_EQ(std::string(items[0].name_.GetString()), "baseM");
  EXPECT_EQ(std::string(items[2].dtype_.GetString()), "uint64_t");
  EXPECT_EQ(std::string(items[3].name_.GetString()), "dbL0A");

  t.baseM = 128;
  t.baseN = 256;
  t.baseK = 1ull << 40;
  t.dbL0A = 2;
  nlohmann::json j;
  t.ToJson(j);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"baseM":128,"baseN":256,"baseK":1099511627776,"dbL0A":2})")) << j.dump();

  tuningtiling::S24CubeTunnerTiling u;
  u.baseN = 16;
  u.FromJson(nlohmann::json::parse(R"({"baseM":64,"baseK":32,"unknown":1})"));
  EXPECT_EQ(u.baseM, 64u);
  EXPECT_EQ(u.baseN, 16u);  // absent from the object: unchanged
  EXPECT_EQ(u.baseK, 32u);
  EXPECT_EQ(u.dbL0A, 0u);   // fields start at zero in sim

  // A copy lists its fields once.
  const tuningtiling::S24CubeTunnerTiling c = t;
  EXPECT_EQ(c.GetItemInfo().size(), 4u);
  EXPECT_EQ(c.baseN, 256u);
}

TEST(TuningTilingRegistry, NestedTilingClassesAreJsonObjects) {
  tuningtiling::S24CubePairTiling p;
  p.mm1.baseM = 32;
  p.mm2.baseN = 48;
  nlohmann::json j;
  p.ToJson(j);
  EXPECT_EQ(j["mm1"]["baseM"], 32) << j.dump();
  EXPECT_EQ(j["mm2"]["baseN"], 48) << j.dump();

  tuningtiling::S24CubePairTiling q;
  q.FromJson(j);
  EXPECT_EQ(q.mm1.baseM, 32u);
  EXPECT_EQ(q.mm2.baseN, 48u);
  EXPECT_THROW(q.FromJson(nlohmann::json::parse(R"({"mm1":{"baseM":"x"}})")), nlohmann::json::type_error);
}

TEST(TuningTilingRegistry, TheFactoryCreatesTheClassRegisteredForAnOperatorType) {
  const TuningTilingDefPtr t = TuningTilingClassFactory::CreateTilingDataInstance("S24CubeMatmul");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::string(t->GetClassName().GetString()), "S24CubeTunnerTiling");
  const auto typed = std::dynamic_pointer_cast<tuningtiling::S24CubeTunnerTiling>(t);
  ASSERT_NE(typed, nullptr);
  t->FromJson(nlohmann::json{{"baseM", 96}});
  EXPECT_EQ(typed->baseM, 96u);

  const auto pair = TuningTilingClassFactory::CreateTilingDataInstance("S24CubeBatchMatmul");
  ASSERT_NE(pair, nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<tuningtiling::S24CubePairTiling>(pair), nullptr);
  EXPECT_EQ(TuningTilingClassFactory::CreateTilingDataInstance("NoSuchOp"), nullptr);
  EXPECT_EQ(TuningTilingClassFactory::RegisterInfo().count("S24CubeMatmul"), 1u);
}

TEST(TuningBankKeyRegistry, AKeyStructIsWrittenAndReadAsJsonText) {
  auto& funcs = tuningtiling::OpBankKeyFuncRegistryV2::RegisteredOpFuncInfoV2();
  const auto it = funcs.find("S24CubeMatmul");
  ASSERT_NE(it, funcs.end());
  EXPECT_EQ(std::string(it->second.GetOpTypeV2().GetString()), "S24CubeMatmul");
  // Both registrations of the type kept their functions.
  ASSERT_TRUE(it->second.GetBankKeyConvertFuncV2());
  ASSERT_TRUE(it->second.GetBankKeyParseFuncV2());
  ASSERT_TRUE(it->second.GetBankKeyLoadFuncV2());

  std::shared_ptr<void> key;
  size_t size = 0;
  ASSERT_TRUE(it->second.GetBankKeyConvertFuncV2()(nullptr, key, size));
  EXPECT_EQ(size, sizeof(tuningtiling::S24CubeInputArgs));
  auto typed = std::static_pointer_cast<tuningtiling::S24CubeInputArgs>(key);
  typed->k = 64;
  typed->n = 32;
  typed->a_dtype = ge::DT_FLOAT16;
  typed->trans_a_flag = true;
  typed->l1_fused_num = 1.5f;

  ge::AscendString text;
  ASSERT_TRUE(it->second.GetBankKeyParseFuncV2()(key, size, text));
  const auto j = nlohmann::json::parse(std::string(text.GetString(), text.GetLength()));
  EXPECT_EQ(j["m"], 7) << j.dump();
  EXPECT_EQ(j["k"], 64) << j.dump();
  EXPECT_EQ(j["a_dtype"], static_cast<int>(ge::DT_FLOAT16)) << j.dump();
  EXPECT_EQ(j["trans_a_flag"], true) << j.dump();
  // A wrong length or no key is refused.
  EXPECT_FALSE(it->second.GetBankKeyParseFuncV2()(key, size - 1, text));
  EXPECT_FALSE(it->second.GetBankKeyParseFuncV2()(nullptr, size, text));

  std::shared_ptr<void> back;
  size_t back_size = 0;
  ASSERT_TRUE(it->second.GetBankKeyLoadFuncV2()(back, back_size, text));
  EXPECT_EQ(back_size, sizeof(tuningtiling::S24CubeInputArgs));
  const auto b = std::static_pointer_cast<tuningtiling::S24CubeInputArgs>(back);
  EXPECT_EQ(b->m, 7);
  EXPECT_EQ(b->n, 32);
  EXPECT_EQ(b->a_dtype, ge::DT_FLOAT16);
  EXPECT_TRUE(b->trans_a_flag);
  EXPECT_FLOAT_EQ(b->l1_fused_num, 1.5f);
  EXPECT_FALSE(it->second.GetBankKeyLoadFuncV2()(back, back_size, ge::AscendString("not json")));

  // The second type registered the same functions at static initialisation.
  const auto other = funcs.find("S24CubeBatchMatmul");
  ASSERT_NE(other, funcs.end());
  ASSERT_TRUE(other->second.GetBankKeyParseFuncV2());
  ge::AscendString text2;
  ASSERT_TRUE(other->second.GetBankKeyParseFuncV2()(key, size, text2));
  EXPECT_EQ(std::string(text2.GetString()), std::string(text.GetString()));
  EXPECT_FALSE(other->second.GetBankKeyConvertFuncV2());
}

}  // namespace
