// Tiling written as a class (issue 39, "tiling in class methods"): the tiling function only builds
// an object and calls its methods; the values that reach SetBlockDim and the tiling fields are
// computed in the methods and carried in members. Synthesis follows the calls into the methods the
// file defines, so those values are tunables, and the evolvable region spans the methods.
#include <gtest/gtest.h>

#include <string>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {
namespace {

// Our own fixture of the idiom (not any operator's code).
const char* kClassHost = R"(#include "scale_tiling.h"
namespace optiling {
constexpr uint32_t RESERVED_UB = 8192;
constexpr uint32_t BYTES_PER_ELEM = 12;

class ScaleTiling {
public:
    explicit ScaleTiling(gert::TilingContext* ctx) : context(ctx) {}
    ge::graphStatus Prepare();
    ge::graphStatus Write();
private:
    uint32_t CapCores(uint32_t cores) const;
    void SplitWork();
    gert::TilingContext* context = nullptr;
    ScaleTilingData data;
    uint32_t total = 0;
    uint32_t cores = 0;
    uint32_t perCore = 0;
    uint32_t tile = 0;
    uint64_t ub = 0;
};

uint32_t ScaleTiling::CapCores(uint32_t avail) const
{
    uint32_t need = (total + 255) / 256;
    return need < avail ? need : avail;
}

void ScaleTiling::SplitWork()
{
    perCore = (total + cores - 1) / cores;
    tile = (ub - RESERVED_UB) / BYTES_PER_ELEM / 64 * 64;
}

ge::graphStatus ScaleTiling::Prepare()
{
    total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    cores = plat.GetCoreNumAiv();
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    cores = CapCores(cores);
    SplitWork();
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus ScaleTiling::Write()
{
    context->SetBlockDim(cores);
    data.set_total(total);
    data.set_perCore(perCore);
    data.set_tile(tile);
    data.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(data.GetDataSize());
    return ge::GRAPH_SUCCESS;
}

static ge::graphStatus TilingScale(gert::TilingContext* context)
{
    ScaleTiling t(context);
    if (t.Prepare() != ge::GRAPH_SUCCESS) {
        return ge::GRAPH_FAILED;
    }
    return t.Write();
}
}  // namespace optiling

namespace ops {
class Scale : public OpDef {
public:
    explicit Scale(const char* name) : OpDef(name)
    {
        this->AICore().SetTiling(optiling::TilingScale);
    }
};
OP_ADD(Scale);
}  // namespace ops
)";

TEST(Stage1ClassTiling, ValuesComputedInTheTilingClassMethodsAreTunables) {
  synthesis_input in;
  in.host_files.push_back({"op_host/scale.cpp", kClassHost});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  const tiling_template& t = *r.tmpl;
  std::string names;
  for (const auto& tu : t.tunables) names += tu.name + "(" + std::string(to_string(tu.kind)) + ") ";
  // The core count read in Prepare and given to SetBlockDim in Write.
  bool block_dim = false, reserved = false, align = false;
  for (const auto& tu : t.tunables) {
    block_dim |= tu.kind == tunable_kind::block_dim;
    reserved |= tu.name == "RESERVED_UB";
    align |= tu.kind == tunable_kind::alignment && tu.value == 64;
  }
  EXPECT_TRUE(block_dim) << names;
  EXPECT_TRUE(reserved) << names;
  EXPECT_TRUE(align) << names;
  // Round trip, and the region marked for an LLM spans the methods and the tiling function.
  const auto same = t.instantiate(t.base());
  EXPECT_EQ(same.at("op_host/scale.cpp"), kClassHost);
  const std::string host(kClassHost);
  EXPECT_LE(t.function_begin, host.find("uint32_t ScaleTiling::CapCores"));
  EXPECT_GE(t.function_end, host.find("return t.Write();"));
  bool noted = false;
  for (const auto& n : t.notes) noted |= n.find("Prepare") != std::string::npos && n.find("SplitWork") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A change to the core count rewrites the method that reads it, nothing else.
TEST(Stage1ClassTiling, InstantiatingACoreCountRewritesTheMethod) {
  synthesis_input in;
  in.host_files.push_back({"op_host/scale.cpp", kClassHost});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  auto v = r.tmpl->base();
  std::size_t bd = v.size();
  for (std::size_t i = 0; i < r.tmpl->tunables.size(); ++i) {
    if (r.tmpl->tunables[i].kind == tunable_kind::block_dim) bd = i;
  }
  ASSERT_LT(bd, v.size());
  v[bd] = 7;
  const std::string out = r.tmpl->instantiate(v).at("op_host/scale.cpp");
  EXPECT_EQ(out.find("cores = plat.GetCoreNumAiv();"), std::string::npos) << out;
  EXPECT_NE(out.find("context->SetBlockDim(cores);"), std::string::npos);
  EXPECT_NE(out.find("7"), std::string::npos);
}

// Control keywords are never taken for functions, and a self-recursive helper is followed once.
TEST(Stage1ClassTiling, KeywordsAndRecursionDoNotConfuseTheCallGraph) {
  const std::string host = R"(namespace optiling {
static uint32_t Halve(uint32_t n) { if (n > 64) { return Halve(n / 2); } return n; }
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t tile = 4096;
    tile = Halve(tile);
    while (tile > 1024) { tile = tile / 2; }
    TilingData d;
    d.set_tile(tile);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}
)";
  synthesis_input in;
  in.host_files.push_back({"op_host/h.cpp", host});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  EXPECT_EQ(r.tmpl->instantiate(r.tmpl->base()).at("op_host/h.cpp"), host);
  bool noted = false;
  for (const auto& n : r.tmpl->notes) noted |= n.find("1 function(s)") != std::string::npos && n.find("Halve") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A constant local to a method (the same name in two methods, each its own value) is one literal
// of the slice per method, never also a file constant (that made two tunables share one byte range).
TEST(Stage1ClassTiling, ConstantsLocalToMethodsAreOneTunableEach) {
  const std::string host = R"(namespace optiling {
struct Param { int64_t buf = 0; };
static void Small(Param& p) {
    static const int64_t BUF_BYTES = 6144;
    p.buf = BUF_BYTES;
}
static void Big(Param& p) {
    static const int64_t BUF_BYTES = 8192;
    p.buf = BUF_BYTES;
}
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    Param p;
    if (context->GetInputShape(0)->GetStorageShape().GetShapeSize() > 4096) {
        Big(p);
    } else {
        Small(p);
    }
    TilingData d;
    d.set_buf(p.buf);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}
)";
  synthesis_input in;
  in.host_files.push_back({"op_host/p.cpp", host});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  std::size_t bufs = 0;
  for (const auto& tu : r.tmpl->tunables) bufs += tu.name.find("BUF_BYTES") != std::string::npos;
  EXPECT_EQ(bufs, 2u);
  auto v = r.tmpl->base();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (r.tmpl->tunables[i].name.find("BUF_BYTES") != std::string::npos) v[i] = r.tmpl->tunables[i].value * 2;
  }
  const std::string out = r.tmpl->instantiate(v).at("op_host/p.cpp");
  EXPECT_NE(out.find("BUF_BYTES = 12288;"), std::string::npos) << out;
  EXPECT_NE(out.find("BUF_BYTES = 16384;"), std::string::npos) << out;
}

// A tiling class whose method writing the tiling data is defined in its header (the shared
// tiling of a family of operators: the .cpp computes the members, the header's FillTilingData
// writes them with set_<field>): the header's method is sliced too, so what the .cpp computes is
// tunable; nothing of the header is rewritten, and a kernel class's same-named method is not
// followed.
TEST(Stage1ClassTiling, AHeaderMethodWritingTheTilingDataCarriesTheSlice) {
  const std::string header = R"(#pragma once
namespace optiling {
class ListTiling {
public:
    explicit ListTiling(gert::TilingContext* c) : ctx(c) {}
    ge::graphStatus Run();
private:
    void Divide(uint64_t ub);
    void FillTilingData() {
        data.set_tileBytes(tileBytes);
        data.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
    }
    gert::TilingContext* ctx;
    ListTilingData data;
    uint32_t tileBytes = 0;
};
}
)";
  const std::string host = R"(#include "list_tiling.h"
namespace optiling {
void ListTiling::Divide(uint64_t ub) {
    uint32_t usable = ub / 3;
    tileBytes = usable / 32 * 32;
}
ge::graphStatus ListTiling::Run() {
    uint64_t ub = 0;
    platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo()).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    uint32_t extra = 4096;
    Divide(ub);
    FillTilingData();
    ctx->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ListTiling t(context);
    return t.Run();
}
}
)";
  // A kernel class with a method of the same name: followed, it would make `extra` reach the
  // tiling data.
  const std::string kernel = R"(class KernelList {
public:
    __aicore__ inline void FillTilingData() { data.set_tileBytes(extra); }
};
)";
  synthesis_input in;
  in.host_files.push_back({"op_host/list_tiling.cpp", host});
  in.host_files.push_back({"op_host/list_tiling.h", header});
  in.kernel_files.push_back({"op_kernel/list.cpp", kernel});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  const tunable* third = nullptr;
  std::string names;
  for (const auto& tu : r.tmpl->tunables) {
    names += tu.name + "=" + std::to_string(tu.value) + " ";
    if (tu.kind == tunable_kind::count && tu.value == 3) third = &tu;
    for (const auto& oc : tu.occurrences) EXPECT_EQ(r.tmpl->files[oc.file].path, "op_host/list_tiling.cpp") << tu.name;
  }
  ASSERT_NE(third, nullptr) << "the UB share in Divide reaches the tiling data through the header's FillTilingData: " << names;
  EXPECT_EQ(names.find("=4096"), std::string::npos) << "the kernel's FillTilingData was followed: " << names;
  bool noted = false;
  for (const auto& n : r.tmpl->notes) noted |= n.find("FillTilingData") != std::string::npos && n.find("other sources") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(r.tmpl->instantiate(r.tmpl->base()).at("op_host/list_tiling.cpp"), host);
}

}  // namespace
}  // namespace aopt::stage1
