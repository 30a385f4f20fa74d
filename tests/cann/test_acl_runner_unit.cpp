// aopt-acl-run's logic that needs no device (apps/aopt-acl-run/runner.h): reading a generated
// aclnn header, binding a runner request to its parameters; and the real binary's answers where
// no CANN runtime is installed.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/wait.h>

#include "runner.h"

namespace fs = std::filesystem;
using namespace aopt::acl_run;

namespace {

// The layout msOpGen generates (our own text): a banner, a comment per function, the visibility
// attribute, one parameter per line, attrs between inputs and outputs.
const char* kHeader = R"(/*
 * generated: do not edit
 */
#ifndef ACLNN_SCALE_ADD_CUSTOM_H_
#define ACLNN_SCALE_ADD_CUSTOM_H_
#include "aclnn/acl_meta.h"
#ifdef __cplusplus
extern "C" {
#endif
/* funtion: aclnnScaleAddCustomGetWorkspaceSize
 * parameters :
 * x : required
 * alpha : required (aclnnScaleAddCustom(x, y) is not a call)
 */
__attribute__((visibility("default")))
aclnnStatus aclnnScaleAddCustomGetWorkspaceSize(
    const aclTensor *x,
    const aclTensorList *ys,
    double alpha,
    int64_t tile_num,
    bool   useTail,
    char *mode,
    const aclIntArray *dims,
    const aclTensor *out,
    uint64_t *workspaceSize,
    aclOpExecutor **executor);
__attribute__((visibility("default")))
aclnnStatus aclnnScaleAddCustom(
    void *workspace,
    uint64_t workspaceSize,
    aclOpExecutor *executor,
    aclrtStream stream);
#ifdef __cplusplus
}
#endif
#endif
)";

nlohmann::json request() {
  return nlohmann::json::parse(R"({
    "op_type": "ScaleAddCustom", "install": "/nowhere", "device": 0, "warmup": 1, "repeat": 3,
    "attrs": {"alpha": 0.5, "tileNum": 8, "use_tail": true, "mode": "fast", "dims": [0, 1]},
    "inputs": [{"name": "x", "shape": [4, 8], "dtype": "float16", "file": "/in/x.bin"},
               {"name": "ys", "list": [{"shape": [4, 8], "dtype": "float16", "file": "/in/y0.bin"},
                                       {"shape": [4, 8], "dtype": "float16", "file": "/in/y1.bin"}]}],
    "outputs": [{"name": "z", "dtype": "float16", "file": "out_z.bin"}],
    "result": "result.json"})");
}

int run_binary(const std::string& args, std::string& output) {
  // No CANN runtime on the path, whatever the machine has installed.
  const std::string cmd = "LD_LIBRARY_PATH= " + std::string(AOPT_ACL_RUN_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[512];
  output.clear();
  while (std::fgets(buf, sizeof buf, p) != nullptr) output += buf;
  const int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST(AclRunner, ReadsTheGeneratedHeadersDeclaration) {
  const auto params = parse_aclnn_header(kHeader, "aclnnScaleAddCustomGetWorkspaceSize", "aclnn_scale_add_custom.h");
  ASSERT_EQ(params.size(), 10u);
  const std::vector<std::pair<std::string, param_kind>> want = {
      {"x", param_kind::tensor},       {"ys", param_kind::tensor_list}, {"alpha", param_kind::f64},
      {"tile_num", param_kind::i64},   {"useTail", param_kind::boolean}, {"mode", param_kind::string},
      {"dims", param_kind::int_array}, {"out", param_kind::tensor},     {"workspaceSize", param_kind::workspace_size},
      {"executor", param_kind::executor}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(params[i].name, want[i].first) << i;
    EXPECT_EQ(params[i].kind, want[i].second) << params[i].name;
  }
  EXPECT_EQ(params[0].type, "const aclTensor *");
  // The launch function's name is a prefix of GetWorkspaceSize's: it must not be taken for it.
  const auto launch = parse_aclnn_header(std::string(kHeader) + "\naclnnStatus aclnnOther(uint64_t *workspaceSize, aclOpExecutor **executor);",
                                         "aclnnOther", "h");
  EXPECT_EQ(launch.size(), 2u);
}

TEST(AclRunner, RefusesWhatItCannotPassNamingTheParameter) {
  try {
    parse_aclnn_header("aclnnStatus aclnnXGetWorkspaceSize(const aclTensor *x, aclDataType dt, uint64_t *workspaceSize, aclOpExecutor **executor);",
                       "aclnnXGetWorkspaceSize", "aclnn_x.h");
    FAIL() << "an aclDataType parameter was accepted";
  } catch (const request_error& e) {
    EXPECT_NE(std::string(e.what()).find("'dt'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aclnn_x.h"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_aclnn_header(kHeader, "aclnnOtherGetWorkspaceSize", "h"), request_error);
  EXPECT_THROW(parse_aclnn_header("aclnnStatus aclnnXGetWorkspaceSize(const aclTensor *x);", "aclnnXGetWorkspaceSize", "h"), request_error);
}

TEST(AclRunner, SnakeCaseAsMsOpGenNamesItsFiles) {
  EXPECT_EQ(snake_case("AddCustom"), "add_custom");
  EXPECT_EQ(snake_case("LeakyReluCustom"), "leaky_relu_custom");
  EXPECT_EQ(snake_case("GeluV2"), "gelu_v2");
  EXPECT_EQ(snake_case("ROIAlign"), "roi_align");
}

TEST(AclRunner, FindsTheHeaderByNameOrByWhatItDeclares) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-acl-header-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "aclnn_other.h") << "aclnnStatus aclnnOtherGetWorkspaceSize(uint64_t *workspaceSize, aclOpExecutor **executor);\n";
  std::ofstream(dir / "aclnn_is_na_n_v2.h") << "aclnnStatus aclnnIsNaNV3GetWorkspaceSize(uint64_t *workspaceSize, aclOpExecutor **executor);\n";
  std::ofstream(dir / "aclnn_scale_add_custom.h") << kHeader;
  EXPECT_EQ(find_aclnn_header(dir, "ScaleAddCustom").filename(), "aclnn_scale_add_custom.h");
  EXPECT_EQ(find_aclnn_header(dir, "IsNaNV3").filename(), "aclnn_is_na_n_v2.h");
  EXPECT_THROW(find_aclnn_header(dir, "Missing"), request_error);
  fs::remove_all(dir);
}

TEST(AclRunner, BindsTensorsInOrderAndAttributesByName) {
  const auto params = parse_aclnn_header(kHeader, "aclnnScaleAddCustomGetWorkspaceSize", "h");
  const auto call = bind_request(params, request());
  ASSERT_EQ(call.inputs.size(), 3u);  // x, ys[0], ys[1]
  ASSERT_EQ(call.outputs.size(), 1u);
  EXPECT_EQ(call.params[0].tensors, std::vector<std::size_t>{0});
  EXPECT_EQ(call.params[1].tensors, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(call.params[2].attr.get<double>(), 0.5);
  EXPECT_EQ(call.params[3].attr.get<std::int64_t>(), 8);  // tile_num <- "tileNum"
  EXPECT_EQ(call.params[4].attr.get<bool>(), true);       // useTail <- "use_tail"
  EXPECT_EQ(call.params[7].tensors, std::vector<std::size_t>{3});  // out <- z
  // The output has no shape in the request: the first input's, and it says so.
  EXPECT_EQ(call.outputs[0].shape, (std::vector<std::int64_t>{4, 8}));
  EXPECT_TRUE(call.outputs[0].shape_assumed);
}

TEST(AclRunner, SaysWhatTheRequestLacksOrHasTooMuchOf) {
  const auto params = parse_aclnn_header(kHeader, "aclnnScaleAddCustomGetWorkspaceSize", "h");
  auto expect_error = [&](nlohmann::json rq, const std::string& words) {
    try {
      bind_request(params, rq);
      ADD_FAILURE() << "accepted; expected an error with: " << words;
    } catch (const request_error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  auto rq = request();
  rq["attrs"].erase("mode");
  expect_error(rq, "'mode'");
  rq = request();
  rq["attrs"]["extra"] = 1;
  expect_error(rq, "'extra'");
  rq = request();
  rq["attrs"]["alpha"] = "half";
  expect_error(rq, "'alpha'");
  rq = request();
  rq["outputs"].push_back({{"name", "w"}, {"dtype", "float16"}, {"file", "out_w.bin"}});
  expect_error(rq, "dynamic output");
  rq = request();
  rq["inputs"][1] = {{"name", "ys"}, {"shape", {4, 8}}, {"dtype", "float16"}, {"file", "/in/y.bin"}};
  expect_error(rq, "tensor list");
  rq = request();
  rq["inputs"][0]["dtype"] = "complex64";
  expect_error(rq, "\"dtype\"");
}

// CANN names an optional input or pointer attribute "<name>Optional": bound by name when the
// request gives it, nullptr (its default) when not; inputs bind by name before order.
TEST(AclRunner, OptionalParametersTakeNullptrWhenTheRequestLacksThem) {
  const auto params = parse_aclnn_header(
      "aclnnStatus aclnnBiasAddGetWorkspaceSize(const aclTensor *x, const aclTensor *biasOptional, const aclTensor *scale,"
      " char *modeOptional, const aclIntArray *dimsOptional, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);",
      "aclnnBiasAddGetWorkspaceSize", "h");
  auto rq = nlohmann::json::parse(R"({"attrs": {"dims": [1]},
    "inputs": [{"name": "x", "shape": [4], "dtype": "float32", "file": "x.bin"},
               {"name": "scale", "shape": [4], "dtype": "float32", "file": "s.bin"}],
    "outputs": [{"name": "z", "shape": [4], "dtype": "float32", "file": "out_z.bin"}]})");
  auto call = bind_request(params, rq);
  EXPECT_EQ(call.params[0].tensors, std::vector<std::size_t>{0});
  EXPECT_TRUE(call.params[1].tensors.empty());  // biasOptional: not in the request
  EXPECT_EQ(call.params[2].tensors, std::vector<std::size_t>{1});  // scale, by name, not by position
  EXPECT_TRUE(call.params[3].attr.is_null());   // modeOptional: its default
  EXPECT_EQ(call.params[4].attr, nlohmann::json::array({1}));  // dimsOptional <- "dims"
  EXPECT_EQ(call.params[5].tensors, std::vector<std::size_t>{2});
  // Given, the optional input binds by its name.
  rq["inputs"].push_back({{"name", "bias"}, {"shape", {4}}, {"dtype", "float32"}, {"file", "b.bin"}});
  call = bind_request(params, rq);
  EXPECT_EQ(call.params[1].tensors, std::vector<std::size_t>{2});
  EXPECT_EQ(call.params[2].tensors, std::vector<std::size_t>{1});
  // A required value attribute has no default the runner could take.
  const auto needs = parse_aclnn_header("aclnnStatus aclnnYGetWorkspaceSize(const aclTensor *x, double alpha, const aclTensor *out,"
                                        " uint64_t *workspaceSize, aclOpExecutor **executor);", "aclnnYGetWorkspaceSize", "h");
  rq = nlohmann::json::parse(R"({"inputs": [{"name": "x", "shape": [4], "dtype": "float32", "file": "x.bin"}],
    "outputs": [{"name": "y", "shape": [4], "dtype": "float32", "file": "out_y.bin"}]})");
  EXPECT_THROW(bind_request(needs, rq), request_error);
}

TEST(AclRunner, StridesAreRowMajor) {
  EXPECT_EQ(strides_of({2, 3, 4}), (std::vector<std::int64_t>{12, 4, 1}));
  EXPECT_EQ(strides_of({}), std::vector<std::int64_t>{});
  EXPECT_EQ(numel({2, 3, 4}), 24);
}

// The real binary: a bad request exits 2 naming the field; a package without a CANN runtime on
// LD_LIBRARY_PATH exits 1 and says what to do.
TEST(AclRunner, TheBinaryExplainsABadRequestAndAMissingRuntime) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-acl-bin-" + std::to_string(::getpid()));
  fs::create_directories(dir / "install/vendors/customize/op_api/include");
  std::ofstream(dir / "install/vendors/customize/op_api/include/aclnn_scale_add_custom.h") << kHeader;
  std::string out;
  EXPECT_EQ(run_binary("", out), 2);
  EXPECT_NE(out.find("usage"), std::string::npos) << out;
  std::ofstream(dir / "bad.json") << "{\"op_type\": 3}";
  EXPECT_EQ(run_binary((dir / "bad.json").string(), out), 2);
  EXPECT_NE(out.find("\"op_type\""), std::string::npos) << out;
  auto rq = request();
  rq["install"] = (dir / "install").string();
  std::ofstream(dir / "rq.json") << rq.dump();
  // The request binds to the header first; then the runtime loads, before any input is read.
  EXPECT_EQ(run_binary((dir / "rq.json").string(), out), 1);
  EXPECT_NE(out.find("libascendcl.so"), std::string::npos) << out;
  EXPECT_NE(out.find("set_env.sh"), std::string::npos) << out;
  EXPECT_EQ(run_binary("--check", out), 1);  // no runtime on this test's LD_LIBRARY_PATH
  EXPECT_NE(out.find("libascendcl.so"), std::string::npos) << out;
  fs::remove_all(dir);
}
