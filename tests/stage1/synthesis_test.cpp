// Template synthesis on fixture tiling functions (copies of the example operators), with
// reformatted and renamed versions; instantiation round trips and g++ syntax checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

#include "aopt/common/error.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"
#include "stage1_test_util.h"

namespace aopt::stage1 {
namespace {

using test::load_package;

tiling_template synth(const std::string& pkg) {
  auto r = synthesize(load_package(pkg));
  EXPECT_TRUE(r.tmpl.has_value()) << (r.error ? r.error->reason : "");
  if (!r.tmpl) throw std::runtime_error("synthesis failed for " + pkg);
  return *r.tmpl;
}

// name kind value domain occurrences
using row = std::tuple<std::string, std::string, std::int64_t, std::string, std::size_t>;
std::vector<row> rows(const tiling_template& t) {
  std::vector<row> out;
  for (const auto& tu : t.tunables) {
    out.emplace_back(tu.name, to_string(tu.kind), tu.value, tu.dom.describe(), tu.occurrences.size());
  }
  return out;
}
// Everything but the names: what must survive renaming and reformatting.
std::vector<std::tuple<std::string, std::int64_t, std::string, std::size_t, bool>> shape(const tiling_template& t) {
  std::vector<std::tuple<std::string, std::int64_t, std::string, std::size_t, bool>> out;
  for (const auto& tu : t.tunables) {
    out.emplace_back(to_string(tu.kind), tu.value, tu.dom.describe(), tu.occurrences.size(), tu.kernel_linked);
  }
  return out;
}

void expect_round_trip(const tiling_template& t) {
  const auto files = t.instantiate(t.base());
  ASSERT_EQ(files.size(), t.files.size());
  for (const auto& f : t.files) EXPECT_EQ(files.at(f.path), f.content) << f.path;
}

TEST(Stage1Synthesis, AddCustom) {
  const auto t = synth("add_custom");
  EXPECT_EQ(t.function_name, "TilingFunc");
  EXPECT_EQ(t.files.at(0).path, "op_host/add_custom.cpp");
  EXPECT_EQ(rows(t), (std::vector<row>{
                         {"BLOCK_BYTES", "alignment", 32, "pow2 [32, 512]", 2},
                         {"BUFFER_NUM", "buffer_num", 2, "choices {1, 2}", 2},
                         {"QUEUE_NUM", "count", 3, "range [3, 12]", 1},
                         {"TILING_KEY_ADD", "key", 1, "choices {1}", 1},
                         {"core_count", "block_dim", 0, "cores 0|1..cores", 1},
                     }));
  EXPECT_TRUE(t.tunables[1].kernel_linked);
  EXPECT_EQ(t.files.at(t.tunables[1].occurrences[1].file).path, "op_kernel/add_custom.cpp");
  EXPECT_TRUE(t.tunables[3].fixed(device_limits{}));
  EXPECT_NE(t.tunables[4].context.find("GetCoreNumAiv"), std::string::npos);
  expect_round_trip(t);

  auto v = t.base();
  v[1] = 1;   // single buffering: host and kernel together
  v[4] = 8;   // eight cores
  v[0] = 64;
  const auto files = t.instantiate(v);
  const auto& host = files.at("op_host/add_custom.cpp");
  const auto& kernel = files.at("op_kernel/add_custom.cpp");
  EXPECT_NE(host.find("constexpr uint32_t BUFFER_NUM = 1;  // double buffering"), std::string::npos);
  EXPECT_NE(kernel.find("constexpr int32_t BUFFER_NUM = 1;"), std::string::npos);
  EXPECT_NE(kernel.find("constexpr uint32_t BLOCK_BYTES = 64;"), std::string::npos);
  EXPECT_NE(host.find("const uint32_t coreNum = 8;"), std::string::npos);
  EXPECT_EQ(t.describe_change(v), "BLOCK_BYTES=64, BUFFER_NUM=1, core_count=8");
}

TEST(Stage1Synthesis, ReformattedAndRenamedFindTheSameTunables) {
  const auto base = synth("add_custom");
  auto in = load_package("add_custom_reformatted");
  in.kernel_files = load_package("add_custom").kernel_files;
  const auto ref = synthesize(in);
  ASSERT_TRUE(ref.tmpl);
  EXPECT_EQ(shape(*ref.tmpl), shape(base));
  EXPECT_EQ(rows(*ref.tmpl), rows(base));
  expect_round_trip(*ref.tmpl);

  in = load_package("add_custom_renamed");
  in.kernel_files = load_package("add_custom").kernel_files;
  const auto ren = synthesize(in);
  ASSERT_TRUE(ren.tmpl);
  EXPECT_EQ(ren.tmpl->function_name, "ComputeAddTiling");
  EXPECT_EQ(shape(*ren.tmpl), shape(base));
  EXPECT_EQ(ren.tmpl->tunables[2].name, "QUEUE_COUNT");
  EXPECT_EQ(ren.tmpl->tunables[3].name, "KEY_MAIN");
  expect_round_trip(*ren.tmpl);
}

TEST(Stage1Synthesis, MulV3LayoutThree) {
  const auto t = synth("mul_v3");
  EXPECT_EQ(t.function_name, "MulV3TilingFunc");
  EXPECT_EQ(rows(t), (std::vector<row>{
                         {"BLOCK_BYTES", "alignment", 32, "pow2 [32, 512]", 2},
                         {"QUEUE_NUM", "count", 3, "range [3, 12]", 1},
                         {"core_count", "block_dim", 0, "cores 0|1..cores", 2},
                         {"schMode_key", "key", 0, "choices {0, 1}", 1},
                         {"schMode_key_2", "key", 1, "choices {0, 1}", 1},
                         {"tileNum_count", "count", 2, "range [2, 8]", 1},
                     }));
  EXPECT_EQ(t.tunables[3].spellings,
            (std::vector<std::string>{"MUL_V3_TPL_SCH_MODE_STREAM", "MUL_V3_TPL_SCH_MODE_ONE_TILE"}));
  expect_round_trip(t);
  auto v = t.base();
  v[2] = 16;
  v[3] = 1;
  v[5] = 4;
  const auto host = t.instantiate(v).at("op_host/op_tiling.cpp");
  EXPECT_NE(host.find("(blocks + 16 - 1) / 16;"), std::string::npos);
  EXPECT_NE(host.find("uint32_t schMode = MUL_V3_TPL_SCH_MODE_ONE_TILE;"), std::string::npos);
  EXPECT_NE(host.find("singleTile / 4 / alignNum * alignNum"), std::string::npos);
}

TEST(Stage1Synthesis, SuiteReduceSumIdiomsCapsAndKeys) {
  const auto t = synth("reduce_sum");
  EXPECT_EQ(rows(t), (std::vector<row>{
                         {"BUFFER_NUM", "buffer_num", 2, "choices {1, 2}", 2},
                         {"core_count", "block_dim", 0, "cores 0|1..cores", 1},
                         {"key", "key", 1, "choices {1, 2}", 1},
                         {"bytesPerElem_count", "count", 2, "range [2, 8]", 1},
                         {"tileLength_size", "size", 1024, "log_range [64, 16384]", 1},
                         {"tileLength_align", "alignment", 64, "pow2 [64, 1024]", 2},
                         {"tileLength_align_2", "alignment", 64, "pow2 [64, 1024]", 3},
                         {"rowsPerTile_flag", "flag", 1, "choices {0, 1}", 1},
                         {"outBatch", "size", 128, "log_range [8, 2048]", 1},
                         {"key_2", "key", 2, "choices {1, 2}", 1},
                         {"tileLength_align_3", "alignment", 64, "pow2 [64, 1024]", 3},
                         {"tileLength_cap", "size", 4096, "log_range [256, 65536]", 2},
                         {"rowsPerTile_cap", "size", 4095, "log_range [255, 65520]", 2},
                         {"outBatch_flag", "flag", 0, "choices {0, 1}", 1},
                     }));
  expect_round_trip(t);
  auto v = t.base();
  v[*t.find("tileLength_align_2")] = 128;
  v[*t.find("tileLength_cap")] = 8192;
  const auto host = t.instantiate(v).at("op_host/reduce_sum_custom.cpp");
  EXPECT_NE(host.find("(reduce + 127) / 128 * 128"), std::string::npos);
  EXPECT_NE(host.find("if (tileLength > 8192) {\n            tileLength = 8192;"), std::string::npos);
}

TEST(Stage1Synthesis, SuiteMulKeysAndPlaceholderInit) {
  const auto t = synth("mul");
  EXPECT_EQ(rows(t), (std::vector<row>{
                         {"BUFFER_NUM", "buffer_num", 1, "choices {1, 2}", 2},
                         {"ALIGN_BYTES", "alignment", 256, "pow2 [256, 4096]", 1},
                         {"UB_RESERVED_BYTES", "size", 0, "log_range 0|[32, 16384]", 1},
                         {"core_count", "block_dim", 0, "cores 0|1..cores", 1},
                         {"tilingKey", "key", 2, "choices {1, 2}", 1},
                         {"tilingKey_2", "key", 1, "choices {1, 2}", 1},
                         {"bytesPerElem_count", "count", 3, "range [3, 12]", 1},
                         {"bytesPerElem_count_2", "count", 2, "range [2, 8]", 1},
                     }));
  // The placeholder note, and the helper it calls (DtypeBytes) followed into the slice.
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_NE(t.notes[1].find("initialised to 0"), std::string::npos);
  EXPECT_NE(t.notes[0].find("(DtypeBytes)"), std::string::npos);
  expect_round_trip(t);
}

// How many of the template's notes say `what`.
std::size_t notes_saying(const tiling_template& t, const std::string& what) {
  return static_cast<std::size_t>(std::count_if(t.notes.begin(), t.notes.end(),
                                                [&](const std::string& n) { return n.find(what) != std::string::npos; }));
}

// A kernel whose tiling keys run the given class instantiations (`{12, "KernelRows<half>"}`).
std::string kernel_of_keys(const std::vector<std::pair<int, std::string>>& paths) {
  std::string k = "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR tiling) {\n";
  for (std::size_t i = 0; i < paths.size(); ++i) {
    k += std::string(i == 0 ? "    if" : "    else if") + " (TILING_KEY_IS(" + std::to_string(paths[i].first) + ")) { " +
         paths[i].second + " op; op.Run(x); }\n";
  }
  return k + "}\n";
}

// The end of the key tests' tiling functions (after their key choice).
const char* const kKeyTilingEnd = R"(    tiling.set_tile(4096 / width);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}
)";

// Key constants the kernel defines as well name its paths (TILING_KEY_IS(KEY_F32)): renumbering
// one in both files could make two dtypes share a path, so the constants are not tunables; each
// key site chooses among the spellings instead. A host-only key constant stays a tunable. (The
// kernel is generic over its input type, DTYPE_X: see KeysOfAKernelTypedByTheKeyAreNotChoices.)
TEST(Stage1Synthesis, KeyConstantsTheKernelDefinesAreSpellingsNotNumbers) {
  const std::string host = R"(#include "k_tiling.h"
namespace optiling {
constexpr int KEY_F16 = 1;
constexpr int KEY_F32 = 2;
constexpr int KEY_I64 = 3;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingData tiling;
    uint32_t width = 2;
    uint32_t key = KEY_F16;
    auto dt = context->GetInputDesc(0)->GetDataType();
    if (dt == ge::DT_FLOAT) {
        key = KEY_F32;
        width = 4;
    } else if (dt == ge::DT_INT64) {
        key = KEY_I64;
        width = 8;
    }
    context->SetTilingKey(key);
)" + std::string(kKeyTilingEnd);
  const std::string kernel = "constexpr int KEY_F16 = 1;\nconstexpr int KEY_F32 = 2;\nconstexpr int KEY_I64 = 3;\n"
                             "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR tiling) {\n"
                             "    if (TILING_KEY_IS(KEY_F16)) { Run<DTYPE_X, DTYPE_X>(x); }\n}\n";
  synthesis_input in;
  in.host_files.push_back({"op_host/k.cpp", host});
  in.kernel_files.push_back({"op_kernel/k.cpp", kernel});
  auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  for (const auto& tu : r.tmpl->tunables) {
    EXPECT_EQ(tu.name.rfind("KEY_", 0), std::string::npos) << tu.name << " is a key constant of the kernel";
    for (const auto& o : tu.occurrences) EXPECT_EQ(r.tmpl->files.at(o.file).path, "op_host/k.cpp") << tu.name;
  }
  std::size_t key_sites = 0;
  for (const auto& tu : r.tmpl->tunables) key_sites += tu.kind == tunable_kind::key;
  EXPECT_EQ(key_sites, 3u);
  expect_round_trip(*r.tmpl);
  // Chosen spellings keep the constants: the float branch may take the f16 path's spelling.
  const auto k2 = r.tmpl->find("key_2");
  ASSERT_TRUE(k2);
  auto v = r.tmpl->base();
  ASSERT_EQ(r.tmpl->tunables[*k2].spellings.size(), 3u);
  v[*k2] = 0;
  const auto files = r.tmpl->instantiate(v);
  EXPECT_NE(files.at("op_host/k.cpp").find("        key = KEY_F16;\n        width = 4;"), std::string::npos) << files.at("op_host/k.cpp");
  EXPECT_NE(files.at("op_host/k.cpp").find("constexpr int KEY_F32 = 2;"), std::string::npos);

  // Without the kernel's definitions the constants are the key numbers themselves.
  in.kernel_files.clear();
  r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  EXPECT_TRUE(r.tmpl->find("KEY_F32").has_value());
}

// The key made of parts (add_rms_norm's `dtypeKey * 10 + modeKey`), the type's part assigned in a
// helper's switch on the data type and as a default before it, compared elsewhere: the type's
// constants are no tunables at any of their uses (another value runs another type's code), the
// mode's constants, chosen by the shape, stay choices, and a size a type branch assigns to a
// variable that is no part of the key stays a tunable.
TEST(Stage1Synthesis, ATypedPartOfTheKeyIsNoTunableWhereverItIsWritten) {
  const std::string host = R"(#include "k_tiling.h"
namespace optiling {
static constexpr uint32_t DKEY_HALF = 1;
static constexpr uint32_t DKEY_FLOAT = 2;
static constexpr uint32_t UB_ELEMS_B16 = 12288;
static constexpr uint32_t UB_ELEMS_B32 = 6144;
static void ByType(ge::DataType dt, uint32_t &dkey, uint32_t &ubElems)
{
    switch (dt) {
        case ge::DT_FLOAT16:
            dkey = DKEY_HALF;
            ubElems = UB_ELEMS_B16;
            break;
        default:
            dkey = DKEY_FLOAT;
            ubElems = UB_ELEMS_B32;
            break;
    }
}
constexpr uint32_t MODE_ROWS = 2;
constexpr uint32_t MODE_SPLIT = 3;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    uint32_t dkey = DKEY_HALF;
    TilingData tiling;
    uint32_t width = 2;
    uint32_t ubElems = 0;
    ByType(context->GetInputDesc(0)->GetDataType(), dkey, ubElems);
    uint32_t cols = context->GetInputShape(0)->GetStorageShape().GetDim(1);
    uint32_t modeKey = MODE_ROWS;
    if (cols > ubElems) {
        modeKey = MODE_SPLIT;
    }
    uint32_t align = (dkey == DKEY_FLOAT) ? 8 : 16;
    tiling.set_rows(ubElems / (cols + align));
    context->SetTilingKey(dkey * 10 + modeKey);
)" + std::string(kKeyTilingEnd);
  synthesis_input in;
  in.host_files.push_back({"op_host/k.cpp", host});
  in.kernel_files.push_back({"op_kernel/k.cpp", kernel_of_keys({{12, "KernelRows<half>"}, {13, "KernelSplit<half>"},
                                                                 {22, "KernelRows<float>"}, {23, "KernelSplit<float>"}})});
  auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  std::set<std::string> names;
  for (const auto& tu : r.tmpl->tunables) names.insert(tu.name);
  EXPECT_FALSE(names.count("DKEY_HALF")) << ::testing::PrintToString(names);
  EXPECT_FALSE(names.count("DKEY_FLOAT")) << ::testing::PrintToString(names);
  EXPECT_TRUE(names.count("MODE_ROWS") || names.count("MODE_SPLIT")) << ::testing::PrintToString(names);
  EXPECT_TRUE(names.count("UB_ELEMS_B16")) << ::testing::PrintToString(names);
  EXPECT_GE(notes_saying(*r.tmpl, "a data type's part of the tiling key"), 1u) << ::testing::PrintToString(r.tmpl->notes);
  expect_round_trip(*r.tmpl);
  // A kernel generic over its input type (DTYPE_X): the type's part is a choice like any other.
  in.kernel_files[0].content = kernel_of_keys({{12, "KernelRows<DTYPE_X>"}, {22, "KernelRows<float>"}});
  const auto generic = synthesize(in);
  ASSERT_TRUE(generic.tmpl) << generic.error->reason;
  EXPECT_TRUE(generic.tmpl->find("DKEY_HALF") || generic.tmpl->find("DKEY_FLOAT"));
}

// A kernel without DTYPE_ macros learns its data type from the tiling key (abs of cann-ops: one
// class per type, `if (TILING_KEY_IS(2)) { KernelAbs_int32 op; ... }`): a key the host chooses in
// a data-type branch has no alternative (another value runs int32 code on float16 data), so it is
// not a tunable, written as a literal, a host constant, a constant of both files or straight in
// SetTilingKey; a key chosen by anything else stays one.
TEST(Stage1Synthesis, KeysOfAKernelTypedByTheKeyAreNotChoices) {
  const std::string host = R"(#include "k_tiling.h"
namespace optiling {
constexpr int KEY_F32 = 2;
constexpr int KEY_I64 = 3;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingData tiling;
    uint32_t width = 2;
    uint32_t key = 1;
    auto dt = context->GetInputDesc(0)->GetDataType();
    if (dt == ge::DT_FLOAT) {
        key = KEY_F32;
        width = 4;
    } else if (dt == ge::DT_INT64) {
        key = KEY_I64;
        width = 8;
    } else {
        key = 1;
    }
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (total % 64 == 0) {
        context->SetTilingKey(key);
    } else {
        context->SetTilingKey(7);
    }
)" + std::string(kKeyTilingEnd);
  synthesis_input in;
  in.host_files.push_back({"op_host/k.cpp", host});
  in.kernel_files.push_back({"op_kernel/k.cpp", kernel_of_keys({{1, "KernelHalf"}, {2, "KernelFloat"}})});
  auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  std::vector<std::string> keys;
  for (const auto& tu : r.tmpl->tunables) {
    if (tu.kind == tunable_kind::key) keys.push_back(tu.name + "@" + tu.context);
    EXPECT_EQ(tu.name.rfind("KEY_", 0), std::string::npos) << tu.name << ": the data type's key";
  }
  ASSERT_EQ(keys.size(), 1u) << ::testing::PrintToString(keys);
  EXPECT_NE(keys[0].find("SetTilingKey(7)"), std::string::npos) << keys[0] << ": chosen by the shape, not the type";
  // The default type's note too (`key = 1`).
  EXPECT_EQ(notes_saying(*r.tmpl, "chosen by the data type"), 4u) << ::testing::PrintToString(r.tmpl->notes);
  expect_round_trip(*r.tmpl);
  // The same host with a kernel generic over its input type: every key site is a choice again.
  in.kernel_files[0].content = kernel_of_keys({{1, "Kernel<DTYPE_X, DTYPE_X>"}, {2, "Kernel<DTYPE_X, float>"}});
  r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << r.error->reason;
  keys.clear();
  for (const auto& tu : r.tmpl->tunables) keys.push_back(tu.name);
  EXPECT_GE(std::count_if(r.tmpl->tunables.begin(), r.tmpl->tunables.end(),
                          [](const tunable& tu) { return tu.kind == tunable_kind::key; }),
            2)
      << ::testing::PrintToString(keys);
}

TEST(Stage1Synthesis, LiteralsMacrosAndNamedFunction) {
  const auto t = synth("literals");
  EXPECT_EQ(t.function_name, "MyTiling");
  EXPECT_EQ(rows(t), (std::vector<row>{
                         {"LIT_TILE_ELEMS", "size", 2048, "log_range [128, 32768]", 1},
                         {"tile_cap", "size", 8192, "log_range [512, 131072]", 2},
                         {"pad_align", "alignment", 128, "pow2 [128, 2048]", 3},
                         {"useFastPath_flag", "flag", 1, "choices {0, 1}", 1},
                         {"block_dim", "block_dim", 8, "range [1, cores]", 1},
                         {"tiling_key", "key", 3, "choices {3}", 1},
                     }));
  expect_round_trip(t);
  auto v = t.base();
  v[0] = 4096;
  v[2] = 256;
  v[4] = 40;
  const auto host = t.instantiate(v).at("op_host/lit_custom.cpp");
  EXPECT_NE(host.find("#define LIT_TILE_ELEMS 4096\n"), std::string::npos);
  EXPECT_NE(host.find("(total + 256 - 1) / 256 * 256"), std::string::npos);
  EXPECT_NE(host.find("SetBlockDim(40)"), std::string::npos);
  EXPECT_TRUE(t.check(v, device_limits{40, 196608}) == std::nullopt);
  EXPECT_NE(t.check(v, device_limits{20, 196608}).value_or("").find("block_dim = 40"), std::string::npos);
}

TEST(Stage1Synthesis, NoTilingFunctionIsARecordedFailure) {
  synthesis_input in;
  in.host_files.push_back({"op_host/x.cpp", "namespace ops { int f() { return 1; } }\n"});
  const auto r = synthesize(in);
  EXPECT_FALSE(r.tmpl);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->reason.find("'TilingFunc'"), std::string::npos);
  EXPECT_NE(r.error->reason.find("op_host/x.cpp"), std::string::npos);
}

TEST(Stage1Synthesis, InstantiateRejectsWrongSize) {
  const auto t = synth("literals");
  try {
    (void)t.instantiate({1, 2});
    FAIL() << "expected aopt::error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("2 values"), std::string::npos);
  }
}

TEST(Stage1Synthesis, MarkersWrapTheEvolvableRegion) {
  const auto t = synth("add_custom");
  const auto marked = t.marked(t.base());
  const auto& host = marked.at("op_host/add_custom.cpp");
  const auto start = host.find("// EVOLVE-BLOCK-START\n");
  const auto end = host.find("// EVOLVE-BLOCK-END\n");
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(host.find("// EVOLVE-BLOCK-START", start + 1), std::string::npos);
  EXPECT_LT(start, host.find("constexpr uint32_t BLOCK_BYTES"));
  EXPECT_GT(end, host.find("return ge::GRAPH_SUCCESS;"));
  EXPECT_LT(end, host.find("namespace ge {"));
  EXPECT_NE(host.find("//   BUFFER_NUM: buffer_num, choices {1, 2}, value 2 (also in the kernel)\n"), std::string::npos);
  const auto& kernel = marked.at("op_kernel/add_custom.cpp");
  EXPECT_LT(kernel.find("// EVOLVE-BLOCK-START"), kernel.find("constexpr int32_t BUFFER_NUM"));
  EXPECT_GT(kernel.find("// EVOLVE-BLOCK-END"), kernel.find("constexpr uint32_t BLOCK_BYTES"));
  // Markers are comments: the marked source still compiles.
  std::string log;
  EXPECT_EQ(test::syntax_check("add_custom", {{"op_host/add_custom.cpp", host}}, "op_host/add_custom.cpp", "", log), 0)
      << log;
}

// Every fixture: a random restart of all its tunables (seeded) still compiles.
TEST(Stage1Synthesis, InstantiatedVariantsCompile) {
  const std::uint64_t seed = 20240601;
  std::cout << "seed " << seed << "\n";
  const std::vector<std::pair<std::string, std::string>> pkgs = {{"add_custom", "op_host/add_custom.cpp"},
                                                                 {"mul_v3", "op_host/op_tiling.cpp"},
                                                                 {"reduce_sum", "op_host/reduce_sum_custom.cpp"},
                                                                 {"mul", "op_host/mul_custom.cpp"},
                                                                 {"literals", "op_host/lit_custom.cpp"}};
  for (const auto& [pkg, host] : pkgs) {
    const auto t = synth(pkg);
    mutator_config cfg;
    cfg.mutate_keys = true;
    mutator m(t, cfg, seed);
    const auto v = m.restart();
    ASSERT_FALSE(m.infeasible(v)) << pkg;
    std::string log;
    EXPECT_EQ(test::syntax_check(pkg, t.instantiate(v), host, "", log), 0)
        << pkg << " " << t.describe_change(v) << "\n" << log;
  }
  // The kernel of add_custom with its linked constants changed compiles too.
  const auto t = synth("add_custom");
  auto v = t.base();
  v[0] = 128;
  v[1] = 1;
  std::string log;
  EXPECT_EQ(test::syntax_check("add_custom", t.instantiate(v), "op_kernel/add_custom.cpp",
                               "-mf16c -Iop_kernel -Iop_host -include op_host/add_custom_tiling.h "
                               "-DAOPT_OP_TYPE=AddCustom -D__CCE_AICORE__=220 -D__DAV_C220_VEC__ "
                               "-DASCENDC_CPU_DEBUG=0 -DDTYPE_X=half -DDTYPE_Y=half -DDTYPE_Z=half",
                               log),
            0)
      << log;
}

}  // namespace
}  // namespace aopt::stage1
