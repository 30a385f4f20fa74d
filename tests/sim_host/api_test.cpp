// Unit tests of the emulated CANN host API: tiling-data macros, kernel-side tiling access,
// TilingContext / InferShapeContext answers, PlatformAscendC from both device profiles, OpDef
// capture and its signature JSON, tensor-list descriptors, tiling-key template arguments.
#define AOPT_OP_TYPE ApiTestOp

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "aopt_sim/host/host.h"
#include "aopt_sim/host/list_tensor_desc.h"
#include "ascendc/host_api/tiling/template_argument.h"
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ApiTestTiling)
TILING_DATA_FIELD_DEF(uint32_t, a);
TILING_DATA_FIELD_DEF(uint64_t, b);
TILING_DATA_FIELD_DEF_ARR(int16_t, 3, arr);
TILING_DATA_FIELD_DEF(float, f);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ApiTestOp, ApiTestTiling)

BEGIN_TILING_DATA_DEF(ApiOuterTiling)
TILING_DATA_FIELD_DEF(uint8_t, flag);
TILING_DATA_FIELD_DEF_STRUCT(ApiTestTiling, inner);
END_TILING_DATA_DEF;
}  // namespace optiling

// The kernel-side macros, compiled here in a host TU.
#include "kernel_tiling/kernel_tiling.h"

namespace {

using optiling::ApiTestTiling;

TEST(TilingMacros, FieldLayoutIsTheCxxLayoutInDeclarationOrder) {
  static_assert(std::is_standard_layout_v<ApiTestTiling>);
  static_assert(std::is_trivially_copyable_v<ApiTestTiling>);
  EXPECT_EQ(offsetof(ApiTestTiling, a), 0u);
  EXPECT_EQ(offsetof(ApiTestTiling, b), 8u);
  EXPECT_EQ(offsetof(ApiTestTiling, arr), 16u);
  EXPECT_EQ(offsetof(ApiTestTiling, f), 24u);
  ApiTestTiling t;
  EXPECT_EQ(t.GetDataSize(), 32u);
  EXPECT_EQ(t.GetDataSize(), sizeof(ApiTestTiling));
  EXPECT_EQ(t.a, 0u);
  EXPECT_EQ(t.arr[2], 0);
}

TEST(TilingMacros, SetGetAndSaveToBuffer) {
  ApiTestTiling t;
  t.set_a(7);
  t.set_b(0x1122334455667788ull);
  const int16_t arr[3] = {-1, 2, -3};
  t.set_arr(arr);
  t.set_f(1.5f);
  EXPECT_EQ(t.get_a(), 7u);
  EXPECT_EQ(t.b, 0x1122334455667788ull);
  EXPECT_EQ(t.get_arr()[2], -3);
  EXPECT_FLOAT_EQ(t.get_f(), 1.5f);

  std::vector<uint8_t> buf(64, 0xAB);
  t.SaveToBuffer(buf.data(), buf.size());
  uint32_t a = 0;
  uint64_t b = 0;
  int16_t a2 = 0;
  float f = 0;
  std::memcpy(&a, buf.data() + 0, 4);
  std::memcpy(&b, buf.data() + 8, 8);
  std::memcpy(&a2, buf.data() + 20, 2);
  std::memcpy(&f, buf.data() + 24, 4);
  EXPECT_EQ(a, 7u);
  EXPECT_EQ(b, 0x1122334455667788ull);
  EXPECT_EQ(a2, -3);
  EXPECT_FLOAT_EQ(f, 1.5f);
  EXPECT_EQ(buf[32], 0xAB) << "SaveToBuffer wrote past GetDataSize()";

  std::vector<uint8_t> small(6, 0xCD);
  t.SaveToBuffer(small.data(), 4);  // capacity smaller than the struct: truncated, no overflow
  EXPECT_EQ(small[4], 0xCD);
  std::memcpy(&a, small.data(), 4);
  EXPECT_EQ(a, 7u);
}

TEST(TilingMacros, NestedStructAndRegistration) {
  optiling::ApiOuterTiling o;
  o.set_flag(1);
  o.inner.set_a(9);
  o.get_inner().set_b(5);
  EXPECT_EQ(o.inner.b, 5u);
  EXPECT_EQ(offsetof(optiling::ApiOuterTiling, inner), 8u);
  const auto& reg = aopt::sim::host::tiling_classes();
  ASSERT_TRUE(reg.count("ApiTestOp"));
  EXPECT_EQ(reg.at("ApiTestOp").class_name, "ApiTestTiling");
  EXPECT_EQ(reg.at("ApiTestOp").size, sizeof(ApiTestTiling));
  static_assert(std::is_same_v<optiling::AoptTiling_ApiTestOp, ApiTestTiling>);
}

ApiTestTiling sample_tiling() {
  ApiTestTiling t;
  t.set_a(3);
  t.set_b(44);
  const int16_t arr[3] = {5, 6, 7};
  t.set_arr(arr);
  t.set_f(-2.25f);
  return t;
}

TEST(KernelTiling, GetTilingDataUsesTheClassRegisteredForAoptOpType) {
  std::vector<uint8_t> gm(64);
  sample_tiling().SaveToBuffer(gm.data(), gm.size());
  const uint8_t* tiling = gm.data();
  GET_TILING_DATA(td, tiling);
  static_assert(std::is_same_v<decltype(td), ApiTestTiling>);
  EXPECT_EQ(td.a, 3u);
  EXPECT_EQ(td.b, 44u);
  EXPECT_EQ(td.arr[1], 6);
  EXPECT_FLOAT_EQ(td.f, -2.25f);
}

struct PlainTiling {
  int64_t n;
  int32_t m;
};

TEST(KernelTiling, DefaultStructWithStructMemberAndPointerForms) {
  PlainTiling p{123456789012345, -7};
  std::vector<uint8_t> gm(sizeof p);
  std::memcpy(gm.data(), &p, sizeof p);
  const uint8_t* tiling = gm.data();
  {
    REGISTER_TILING_DEFAULT(PlainTiling);
    GET_TILING_DATA(td, tiling);
    static_assert(std::is_same_v<decltype(td), PlainTiling>);
    EXPECT_EQ(td.n, 123456789012345);
    EXPECT_EQ(td.m, -7);
  }
  GET_TILING_DATA_WITH_STRUCT(PlainTiling, td2, tiling);
  EXPECT_EQ(td2.m, -7);
  GET_TILING_DATA_MEMBER(PlainTiling, m, mv, tiling);
  EXPECT_EQ(mv, -7);
  GET_TILING_DATA_PTR_WITH_STRUCT(PlainTiling, ptr, tiling);
  EXPECT_EQ(ptr->n, 123456789012345);
}

// An instance with x [2, 3, 4] fp16, optional input absent, a two-element dynamic list.
aopt::sim::host::op_instance make_instance(fe::PlatFormInfos* plat) {
  aopt::sim::host::op_instance op;
  op.node_name = "node0";
  op.node_type = "ApiTestOp";
  op.platform = plat;
  auto add_in = [&](std::size_t ir, std::size_t rel, std::vector<int64_t> dims, ge::DataType dt) {
    aopt::sim::host::io_slot s;
    s.ir_index = ir;
    s.relative = rel;
    for (auto d : dims) {
      s.shape.MutableOriginShape().AppendDim(d);
      s.shape.MutableStorageShape().AppendDim(d);
    }
    s.desc.SetDataType(dt);
    s.tensor.MutableShape() = s.shape;
    s.tensor.SetDataType(dt);
    op.inputs.push_back(s);
  };
  add_in(0, 0, {2, 3, 4}, ge::DT_FLOAT16);
  add_in(2, 0, {5}, ge::DT_INT32);
  add_in(2, 1, {6, 7}, ge::DT_INT32);
  op.outputs.emplace_back();
  op.outputs.back().desc.SetDataType(ge::DT_FLOAT);
  using K = gert::AoptAttrValue::kind;
  auto attr = [&](K k) {
    auto v = std::make_unique<gert::AoptAttrValue>();
    v->k = k;
    return v;
  };
  auto i = attr(K::int64);
  i->i = -5;
  op.attrs.aopt_add(std::move(i));
  auto f = attr(K::float32);
  f->f = 0.5f;
  op.attrs.aopt_add(std::move(f));
  auto b = attr(K::boolean);
  b->b = true;
  op.attrs.aopt_add(std::move(b));
  auto s = attr(K::string);
  s->s = "mean";
  op.attrs.aopt_add(std::move(s));
  auto l = attr(K::list_int);
  l->li = {3, 1, 4};
  op.attrs.aopt_add(std::move(l));
  return op;
}

TEST(TilingContext, AnswersFromTheInstance) {
  fe::PlatFormInfos plat;
  auto op = make_instance(&plat);
  gert::TilingContext ctx(&op);
  ASSERT_NE(ctx.GetInputShape(0), nullptr);
  EXPECT_EQ(ctx.GetInputShape(0)->GetStorageShape().GetDimNum(), 3u);
  EXPECT_EQ(ctx.GetInputShape(0)->GetOriginShape().GetDim(2), 4);
  EXPECT_EQ(ctx.GetInputShape(0)->GetStorageShape().GetShapeSize(), 24);
  EXPECT_EQ(ctx.GetInputShape(0)->GetStorageShape().GetDim(7), gert::Shape::kInvalidDimValue);
  EXPECT_EQ(ctx.GetInputDesc(0)->GetDataType(), ge::DT_FLOAT16);
  EXPECT_EQ(ctx.GetInputTensor(0)->GetShapeSize(), 24);
  EXPECT_EQ(ctx.GetOptionalInputShape(1), nullptr);
  ASSERT_NE(ctx.GetDynamicInputShape(2, 1), nullptr);
  EXPECT_EQ(ctx.GetDynamicInputShape(2, 1)->GetStorageShape().GetShapeSize(), 42);
  EXPECT_EQ(ctx.GetDynamicInputShape(2, 2), nullptr);
  EXPECT_EQ(ctx.GetInputShape(9), nullptr);
  EXPECT_EQ(ctx.GetComputeNodeInputNum(), 3u);
  EXPECT_STREQ(ctx.GetNodeName(), "node0");
  EXPECT_STREQ(ctx.GetNodeType(), "ApiTestOp");
  EXPECT_EQ(ctx.GetOutputDesc(0)->GetDataType(), ge::DT_FLOAT);
  EXPECT_EQ(ctx.GetPlatformInfo(), &plat);

  const gert::RuntimeAttrs* attrs = ctx.GetAttrs();
  EXPECT_EQ(attrs->GetAttrNum(), 5u);
  EXPECT_EQ(*attrs->GetInt(0), -5);
  EXPECT_FLOAT_EQ(*attrs->GetFloat(1), 0.5f);
  EXPECT_TRUE(*attrs->GetBool(2));
  EXPECT_STREQ(attrs->GetStr(3), "mean");
  EXPECT_STREQ(attrs->GetAttrPointer<char>(3), "mean");
  ASSERT_NE(attrs->GetListInt(4), nullptr);
  EXPECT_EQ(attrs->GetListInt(4)->GetSize(), 3u);
  EXPECT_EQ(attrs->GetListInt(4)->GetData()[2], 4);
  EXPECT_EQ(attrs->GetFloat(0), nullptr) << "an int attribute read as float";
  // runtime_attrs.h reinterprets the storage: a Bool attribute read as int64_t (ctc-style tiling
  // code reading zero_infinity) is its 0 / 1, not a missing attribute.
  ASSERT_NE(attrs->GetAttrPointer<int64_t>(2), nullptr);
  EXPECT_EQ(*attrs->GetAttrPointer<int64_t>(2), 1);
  ASSERT_NE(attrs->GetAttrPointer<int32_t>(2), nullptr);
  EXPECT_EQ(*attrs->GetAttrPointer<int32_t>(2), 1);
  EXPECT_EQ(attrs->GetInt(9), nullptr);

  EXPECT_EQ(ctx.SetBlockDim(12), ge::GRAPH_SUCCESS);
  ctx.SetTilingKey(77);
  EXPECT_EQ(op.block_dim, 12u);
  EXPECT_EQ(op.tiling_key, 77u);
  size_t* ws = ctx.GetWorkspaceSizes(2);
  ws[0] = 1024;
  ws[1] = 8;
  EXPECT_EQ(op.workspaces[0], 1024u);
  EXPECT_EQ(ctx.GetWorkspaceNum(), 2u);
  gert::TilingData* raw = ctx.GetRawTilingData();
  EXPECT_GE(raw->GetCapacity(), 4096u);
  EXPECT_EQ(raw->GetDataSize(), 0u);
  EXPECT_EQ(raw->Append<uint32_t>(5), ge::GRAPH_SUCCESS);
  EXPECT_EQ(raw->GetDataSize(), 4u);
  raw->SetDataSize(0);
  auto* plain = ctx.GetTilingData<PlainTiling>();
  ASSERT_NE(plain, nullptr);
  plain->m = 3;
  EXPECT_EQ(raw->GetDataSize(), sizeof(PlainTiling));
  EXPECT_EQ(static_cast<PlainTiling*>(raw->GetData())->m, 3);
}

TEST(InferContexts, ShapeAndDataType) {
  fe::PlatFormInfos plat;
  auto op = make_instance(&plat);
  gert::InferShapeContext ictx(&op);
  ASSERT_NE(ictx.GetInputShape(0), nullptr);
  *ictx.GetOutputShape(0) = *ictx.GetInputShape(0);
  ictx.GetOutputShape(0)->AppendDim(9);
  EXPECT_EQ(op.outputs[0].shape.GetOriginShape().GetShapeSize(), 24 * 9);
  EXPECT_EQ(ictx.GetDynamicInputShape(2, 0)->GetDim(0), 5);
  gert::InferDataTypeContext dctx(&op);
  EXPECT_EQ(dctx.GetInputDataType(0), ge::DT_FLOAT16);
  EXPECT_EQ(dctx.SetOutputDataType(0, ge::DT_BF16), ge::GRAPH_SUCCESS);
  EXPECT_EQ(op.outputs[0].desc.GetDataType(), ge::DT_BF16);
  EXPECT_EQ(dctx.SetOutputDataType(3, ge::DT_BF16), ge::GRAPH_FAILED);
}

ge::graphStatus check_null(gert::TilingContext* context, const void* p) {
  OPS_CHECK_NULL_WITH_CONTEXT(context, p);
  return ge::GRAPH_SUCCESS;
}
ge::graphStatus check_tiling(int v) {
  OP_TILING_CHECK(v < 0, OP_LOGE("op", "negative value %d", v), return ge::GRAPH_FAILED);
  OP_CHECK_IF(v > 100, OP_LOGE("op", "too large"), return ge::GRAPH_PARAM_INVALID);
  return ge::GRAPH_SUCCESS;
}

TEST(LogMacros, FailingChecksReturnFailure) {
  fe::PlatFormInfos plat;
  auto op = make_instance(&plat);
  gert::TilingContext ctx(&op);
  int x = 0;
  EXPECT_EQ(check_null(&ctx, nullptr), ge::GRAPH_FAILED);
  EXPECT_EQ(check_null(&ctx, &x), ge::GRAPH_SUCCESS);
  EXPECT_EQ(check_tiling(-1), ge::GRAPH_FAILED);
  EXPECT_EQ(check_tiling(101), ge::GRAPH_PARAM_INVALID);
  EXPECT_EQ(check_tiling(5), ge::GRAPH_SUCCESS);
}

struct profile_case {
  const char* name;
  uint32_t aiv;
  uint32_t aic;
};

TEST(PlatformAscendC, AnswersFromBothProfiles) {
  for (const profile_case pc : {profile_case{"910b4", 40, 20}, profile_case{"a2", 48, 24}}) {
    SCOPED_TRACE(pc.name);
    const aopt::sim::device_profile prof = aopt::sim::load_profile(pc.name);
    ASSERT_EQ(prof.aiv_cores, pc.aiv) << "profile changed: update this test";
    fe::PlatFormInfos info = aopt::sim::host::platform_from_profile(prof);
    platform_ascendc::PlatformAscendC p(&info);
    EXPECT_EQ(p.GetCoreNumAiv(), prof.aiv_cores);
    EXPECT_EQ(p.GetCoreNum(), prof.aiv_cores);
    EXPECT_EQ(p.GetCoreNumAic(), prof.aic_cores);
    EXPECT_EQ(info.GetCoreNum(), prof.aic_cores) << "fe's answer: the AI Cores (ai_core_cnt)";
    EXPECT_EQ(info.GetCoreNumByType("VectorCore"), prof.aiv_cores);
    uint64_t ub = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    EXPECT_EQ(ub, prof.raw.at("ub_usable_bytes").at("value").get<uint64_t>());
    EXPECT_LE(ub, prof.ub_bytes);
    uint64_t l1 = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    EXPECT_EQ(l1, prof.l1_bytes);
    uint64_t l2 = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L2, l2);
    EXPECT_EQ(l2, prof.l2_bytes);
    EXPECT_EQ(p.GetSocVersion(), platform_ascendc::SocVersion::ASCEND910B);
    EXPECT_EQ(p.GetLibApiWorkSpaceSize(), 16u * 1024u * 1024u);
    EXPECT_EQ(p.CalcTschBlockDim(pc.aiv, 0, pc.aiv), pc.aiv);
    EXPECT_EQ(p.CalcTschBlockDim(pc.aiv, pc.aic, pc.aiv), pc.aic);

    aopt::sim::host::set_default_platform(info);
    platform_ascendc::PlatformAscendC dflt(nullptr);
    EXPECT_EQ(dflt.GetCoreNumAiv(), pc.aiv);
    EXPECT_EQ(platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNumAiv(), pc.aiv);
  }
}

}  // namespace

// An OpDef captured at static-init time.
namespace optiling {
static ge::graphStatus ApiTestTilingFunc(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace optiling
namespace ops {
class ApiTestOp : public OpDef {
 public:
  explicit ApiTestOp(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_INT32, ge::DT_INT32, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Attr("alpha").AttrType(OPTIONAL).Float(1.5f);
    this->Attr("axis").AttrType(REQUIRED).Int();
    this->Attr("keep").AttrType(OPTIONAL).Bool(true);
    this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2});
    this->AICore().SetTiling(optiling::ApiTestTilingFunc).AddConfig("ascend910b").AddConfig("ascend310p");
  }
};
OP_ADD(ApiTestOp);
}  // namespace ops

namespace {

TEST(OpDef, CapturedAtStaticInitWithItsSignature) {
  std::string why;
  const auto* rec = aopt::sim::host::main_op("ApiTestOp", &why);
  ASSERT_NE(rec, nullptr) << why;
  const nlohmann::json j = aopt::sim::host::signature_json(*rec);
  EXPECT_EQ(j["op_type"], "ApiTestOp");
  EXPECT_EQ(j["kernel"], "api_test_op");
  ASSERT_EQ(j["inputs"].size(), 3u);
  EXPECT_EQ(j["inputs"][0]["name"], "x");
  EXPECT_EQ(j["inputs"][0]["param_type"], "required");
  EXPECT_EQ(j["inputs"][0]["dtypes"], nlohmann::json({"float16", "float32", "bfloat16"}));
  EXPECT_EQ(j["inputs"][0]["formats"], nlohmann::json({"ND", "ND", "ND"}));
  EXPECT_EQ(j["inputs"][1]["param_type"], "optional");
  EXPECT_EQ(j["inputs"][1]["formats"], nlohmann::json({"ND", "ND", "ND"}));
  EXPECT_EQ(j["inputs"][2]["param_type"], "dynamic");
  EXPECT_EQ(j["outputs"][0]["name"], "y");
  ASSERT_EQ(j["attrs"].size(), 4u);
  EXPECT_EQ(j["attrs"][0]["name"], "alpha");
  EXPECT_EQ(j["attrs"][0]["type"], "float");
  EXPECT_FALSE(j["attrs"][0]["required"].get<bool>());
  EXPECT_DOUBLE_EQ(j["attrs"][0]["default"].get<double>(), 1.5);
  EXPECT_EQ(j["attrs"][1]["type"], "int");
  EXPECT_TRUE(j["attrs"][1]["required"].get<bool>());
  EXPECT_TRUE(j["attrs"][1]["default"].is_null());
  EXPECT_EQ(j["attrs"][2]["default"], true);
  EXPECT_EQ(j["attrs"][3]["default"], nlohmann::json({1, 2}));
  EXPECT_TRUE(j["has_tiling"].get<bool>());
  EXPECT_FALSE(j["has_infer_shape"].get<bool>());
  EXPECT_EQ(j["socs"], nlohmann::json({"ascend910b", "ascend310p"}));
}

TEST(OpDef, KernelNamesAreSnakeCase) {
  using aopt::sim::host::snake_case;
  EXPECT_EQ(snake_case("AddCustom"), "add_custom");
  EXPECT_EQ(snake_case("MulV3"), "mul_v3");
  EXPECT_EQ(snake_case("LayerNormV4"), "layer_norm_v4");
  EXPECT_EQ(snake_case("GELU"), "gelu");
  EXPECT_EQ(snake_case("Relu6"), "relu6");
}

TEST(DtypeNames, RoundTrip) {
  for (auto dt : {ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT8, ge::DT_UINT8, ge::DT_INT16, ge::DT_UINT16,
                  ge::DT_INT32, ge::DT_UINT32, ge::DT_INT64, ge::DT_UINT64, ge::DT_BOOL}) {
    const auto name = aopt::sim::host::dtype_name(dt);
    ASSERT_TRUE(aopt::sim::host::parse_dtype(name).has_value()) << name;
    EXPECT_EQ(*aopt::sim::host::parse_dtype(name), dt) << name;
  }
  EXPECT_EQ(aopt::sim::host::dtype_ctype(ge::DT_FLOAT16), "half");
  EXPECT_EQ(aopt::sim::host::dtype_ctype(ge::DT_BF16), "bfloat16_t");
  EXPECT_EQ(aopt::sim::host::dtype_enum_name(ge::DT_FLOAT16), "ge::DT_FLOAT16");
  uint32_t len = 0;
  EXPECT_TRUE(ge::TypeUtils::GetDataTypeLength(ge::DT_BF16, len));
  EXPECT_EQ(len, 2u);
  EXPECT_FALSE(ge::TypeUtils::GetDataTypeLength(ge::DT_STRING, len));
}

TEST(ListTensorDesc, ParsesTheDocumentedLayout) {
  std::vector<int32_t> a(6), b(60);
  const auto words = aopt::sim::host::build_list_desc({{1, 2, 3}, {3, 4, 5}}, {a.data(), b.data()});
  // [offset] [3|0<<32] 1 2 3 [3|1<<32] 3 4 5 ptr0 ptr1: offset 72 as in the CANN example
  ASSERT_EQ(words.size(), 11u);
  EXPECT_EQ(words[0], 72u);
  EXPECT_EQ(words[5], 3u | (1ull << 32));
  AscendC::ListTensorDesc list(const_cast<uint64_t*>(words.data()));
  EXPECT_EQ(list.GetSize(), 2u);
  EXPECT_EQ(list.GetDataPtr<int32_t>(0), a.data());
  EXPECT_EQ(list.GetDataPtr<int32_t>(1), b.data());
  EXPECT_EQ(list.GetDataPtr<int32_t>(2), nullptr);
  uint64_t buf[8] = {0};
  AscendC::TensorDesc<int32_t> desc;
  desc.SetShapeAddr(buf);
  list.GetDesc(desc, 1);
  EXPECT_EQ(desc.GetDim(), 3u);
  EXPECT_EQ(desc.GetIndex(), 1u);
  EXPECT_EQ(desc.GetShape(0), 3u);
  EXPECT_EQ(desc.GetShape(2), 5u);
  EXPECT_EQ(desc.GetDataPtr(), b.data());
}

namespace tpl_test {
ASCENDC_TPL_ARGS_DECL(ApiTestOp, ASCENDC_TPL_UINT_DECL(mode, 2, ASCENDC_TPL_UI_LIST, 0, 1, 3),
                      ASCENDC_TPL_BOOL_DECL(flag, 0, 1), );
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, 0, 1, 3)));
uint64_t key(uint32_t mode, bool flag) { return GET_TPL_TILING_KEY(mode, flag); }
}  // namespace tpl_test

TEST(TemplateArgs, KeyPacksDeclaredArgumentsInOrder) {
  static_assert(tpl_test::aopt_tpl_decl_[0].count == 3);
  static_assert(tpl_test::aopt_tpl_decl_[0].values[2] == 3);
  EXPECT_EQ(tpl_test::key(0, false), 0u);
  EXPECT_EQ(tpl_test::key(3, false), 3u);
  EXPECT_EQ(tpl_test::key(1, true), 1u | (1u << 2));
  EXPECT_EQ(aopt::sim::tpl_decode(tpl_test::aopt_tpl_decl_, tpl_test::key(3, true), 0), 3u);
  EXPECT_EQ(aopt::sim::tpl_decode(tpl_test::aopt_tpl_decl_, tpl_test::key(3, true), 1), 1u);
}

}  // namespace
