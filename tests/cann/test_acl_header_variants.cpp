// aopt-acl-run against the forms CANN's generated aclnn headers take (issue 36): ValueDepend
// inputs (`const aclIntArray *` / `const aclFloatArray *` parameters named like an input), in-place
// parameters (`aclTensor *<name>Ref`), optional inputs given and absent, several outputs
// (`<name>Out`), double / bool / string / list attributes, a list-of-lists attribute refused by
// name. First the parser and binder on header text in the installed headers' layout; then each
// variant end to end: the stand-in msOpGen writes the header and the operator library, the real
// runner binary binds a request and calls it through libffi on the stand-in runtime, whose fake
// device records what reached the kernel.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "acl/aclnn_gen.h"
#include "error_text.h"
#include "runner.h"

namespace fs = std::filesystem;
namespace run = aopt::acl_run;

namespace {

using aopt::testing::message_of;

// A declaration as installed headers lay it out (one parameter a line, the msOpGen comment).
std::string header(const std::string& op, const std::vector<std::string>& params) {
  std::string s = "/*\n * calution: this file was generated automaticlly donot change it.\n*/\n#include \"aclnn/acl_meta.h\"\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n__attribute__((visibility(\"default\")))\naclnnStatus aclnn" +
                  op + "GetWorkspaceSize(\n";
  for (const auto& p : params) s += "    " + p + ",\n";
  return s + "    uint64_t *workspaceSize,\n    aclOpExecutor **executor);\n#ifdef __cplusplus\n}\n#endif\n";
}

nlohmann::json tensor(const std::string& name, const std::string& dtype, std::vector<int> shape) {
  return {{"name", name}, {"dtype", dtype}, {"shape", shape}, {"file", "in_" + name + ".bin"}};
}

TEST(AclHeaderVariants, ValueDependInputsAreBoundToTheirInputsValues) {
  const auto params = run::parse_aclnn_header(header("Resize", {"const aclTensor *x", "const aclIntArray *size", "const aclFloatArray *scales",
                                                                 "const aclIntArray *axes", "const aclTensor *out"}),
                                              "aclnnResizeGetWorkspaceSize", "aclnn_resize.h");
  const nlohmann::json rq = {{"inputs", {tensor("x", "float32", {4}), tensor("size", "int64", {2}), tensor("scales", "float32", {2})}},
                             {"attrs", {{"axes", {0, 1}}}},
                             {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"shape", {4}}, {"file", "out_y.bin"}}}}};
  const auto call = run::bind_request(params, rq);
  ASSERT_EQ(call.params.size(), 7u);
  EXPECT_EQ(call.params[0].tensors, std::vector<std::size_t>{0});
  ASSERT_TRUE(call.params[1].value_input.has_value());
  EXPECT_EQ(*call.params[1].value_input, 1u);  // size: the input "size"
  ASSERT_TRUE(call.params[2].value_input.has_value());
  EXPECT_EQ(*call.params[2].value_input, 2u);
  EXPECT_FALSE(call.params[3].value_input.has_value());  // axes: an attribute
  EXPECT_EQ(call.params[3].attr, nlohmann::json({0, 1}));
  EXPECT_EQ(call.params[4].tensors, std::vector<std::size_t>{3});  // the output
  // The values as the array gets them.
  const std::int64_t sz[] = {7, 9};
  EXPECT_EQ(run::int_values(std::string(reinterpret_cast<const char*>(sz), sizeof sz), call.inputs[1]), (std::vector<std::int64_t>{7, 9}));
  const std::int32_t sz32[] = {3, -1};
  run::tensor_arg i32 = call.inputs[1];
  i32.dtype = "int32";
  EXPECT_EQ(run::int_values(std::string(reinterpret_cast<const char*>(sz32), sizeof sz32), i32), (std::vector<std::int64_t>{3, -1}));
  // A float input for an integer array says what to give.
  nlohmann::json bad = rq;
  bad["inputs"][1]["dtype"] = "float32";
  EXPECT_NE(message_of([&] { run::bind_request(params, bad); }).find("'size' (const aclIntArray *) is a ValueDepend input"), std::string::npos);
}

TEST(AclHeaderVariants, AnInPlaceParameterTakesTheInputAndGivesTheOutputOfItsName) {
  const auto params = run::parse_aclnn_header(header("AddInplace", {"aclTensor *selfRef", "const aclTensor *other", "double alpha"}),
                                              "aclnnAddInplaceGetWorkspaceSize", "aclnn_add_inplace.h");
  ASSERT_EQ(params.size(), 5u);
  EXPECT_TRUE(params[0].in_place);
  EXPECT_EQ(params[0].kind, run::param_kind::tensor);
  EXPECT_FALSE(params[1].in_place);
  const nlohmann::json rq = {{"inputs", {tensor("self", "float16", {8}), tensor("other", "float16", {8})}},
                             {"attrs", {{"alpha", 2.0}}},
                             {"outputs", {{{"name", "self"}, {"dtype", "float16"}, {"file", "out_self.bin"}}}}};
  const auto call = run::bind_request(params, rq);
  EXPECT_EQ(call.params[0].tensors, std::vector<std::size_t>{0});
  EXPECT_EQ(call.params[1].tensors, std::vector<std::size_t>{1});
  ASSERT_EQ(call.outputs.size(), 1u);
  ASSERT_TRUE(call.outputs[0].in_place_of.has_value());
  EXPECT_EQ(*call.outputs[0].in_place_of, 0u);
  EXPECT_EQ(call.outputs[0].shape, (std::vector<std::int64_t>{8}));
  EXPECT_FALSE(call.outputs[0].shape_assumed);
}

TEST(AclHeaderVariants, OptionalSeveralOutputsAndEveryAttributeType) {
  const auto params =
      run::parse_aclnn_header(header("Every", {"const aclTensor *x", "const aclTensor *biasOptional", "double alpha", "bool flag", "char *modeOptional",
                                               "const aclIntArray *axes", "const aclFloatArray *scalesOptional", "const aclBoolArray *mask",
                                               "int64_t n", "const aclTensor *yOut", "const aclTensor *zOut"}),
                              "aclnnEveryGetWorkspaceSize", "aclnn_every.h");
  nlohmann::json rq = {{"inputs", {tensor("x", "float32", {4})}},
                       {"attrs", {{"alpha", 0.5}, {"flag", true}, {"axes", {1}}, {"mask", {true}}, {"n", 3}}},
                       {"outputs",
                        {{{"name", "y"}, {"dtype", "float32"}, {"shape", {4}}, {"file", "y.bin"}},
                         {{"name", "z"}, {"dtype", "float32"}, {"shape", {2}}, {"file", "z.bin"}}}}};
  auto call = run::bind_request(params, rq);
  EXPECT_TRUE(call.params[1].tensors.empty());  // the absent optional input: nullptr
  EXPECT_TRUE(call.params[4].attr.is_null());   // modeOptional: nullptr, its default
  EXPECT_EQ(call.params[9].tensors, std::vector<std::size_t>{1});
  EXPECT_EQ(call.params[10].tensors, std::vector<std::size_t>{2});
  rq["inputs"].push_back(tensor("bias", "float32", {4}));
  call = run::bind_request(params, rq);
  EXPECT_EQ(call.params[1].tensors, std::vector<std::size_t>{1});  // given: by name
  // A list-of-lists attribute: refused, naming it and what to do.
  rq["attrs"]["axes"] = {{0, 1}, {2}};
  const auto m = message_of([&] { run::bind_request(params, rq); });
  EXPECT_NE(m.find("attribute 'axes' is a list of lists"), std::string::npos) << m;
}

// ---- end to end: the stand-in msOpGen's header and library, the real runner, libffi ----

class AclHeaderVariantsRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aopt-acl-variants-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  struct outcome {
    int exit_code = -1;
    std::string output;
    nlohmann::json result, device;  // result.json; what reached the fake device
  };

  // Installs the operator of `sig` as the stand-in build does, writes the inputs and runs the
  // runner on `request` (inputs' "values" become their files).
  static outcome run_variant(const std::string& name, const nlohmann::json& sig, nlohmann::json request) {
    const fs::path dir = root_ / name;
    const fs::path api = dir / "install" / "vendors" / "customize" / "op_api";
    fs::create_directories(api / "include");
    fs::create_directories(api / "lib");
    const std::string snake = aopt::standin::snake_case(sig["op_type"].get<std::string>());
    std::ofstream(api / "include" / ("aclnn_" + snake + ".h")) << aopt::standin::aclnn_header(sig);
    std::ofstream(dir / "op.cpp") << aopt::standin::aclnn_source(sig);
    const std::string cc = "c++ -std=c++20 -shared -fPIC -Wall -Werror -I'" + std::string(AOPT_TEST_SOURCE_DIR) +
                           "/tests/cann/standin/toolkit/include' -I'" + (api / "include").string() + "' '" + (dir / "op.cpp").string() +
                           "' -o '" + (api / "lib" / "libcust_opapi.so").string() + "' -L'" + AOPT_STANDIN_LIB64_DIR +
                           "' -lnnopbase -lascendcl > '" + (dir / "cc.log").string() + "' 2>&1";
    outcome o;
    if (std::system(cc.c_str()) != 0) {
      std::ifstream in(dir / "cc.log");
      o.output.assign(std::istreambuf_iterator<char>(in), {});
      ADD_FAILURE() << "the generated library does not compile:\n" << o.output;
      return o;
    }
    for (auto& in : request["inputs"]) {
      const auto values = in["values"];
      in.erase("values");
      in["file"] = (dir / ("in_" + in["name"].get<std::string>() + ".bin")).string();
      std::ofstream f(in["file"].get<std::string>(), std::ios::binary);
      for (const auto& v : values) {
        if (in["dtype"] == "int64") {
          const std::int64_t x = v.get<std::int64_t>();
          f.write(reinterpret_cast<const char*>(&x), sizeof x);
        } else {
          const float x = v.get<float>();
          f.write(reinterpret_cast<const char*>(&x), sizeof x);
        }
      }
    }
    request["op_type"] = sig["op_type"];
    request["install"] = (dir / "install").string();
    request["warmup"] = 1;
    request["repeat"] = 2;
    request["launches"] = 3;
    request["result"] = (dir / "result.json").string();
    for (auto& out : request["outputs"]) out["file"] = (dir / ("out_" + out["name"].get<std::string>() + ".bin")).string();
    std::ofstream(dir / "request.json") << request.dump();
    const std::string cmd = "cd '" + dir.string() + "' && LD_LIBRARY_PATH='" + AOPT_STANDIN_LIB64_DIR + "' AOPT_STANDIN_DEVICE='" +
                            AOPT_STANDIN_FAKE_DEVICE + "' AOPT_STANDIN_FAKE_LOG='" + (dir / "device.log").string() +
                            "' AOPT_STANDIN_STATE='" + dir.string() + "' AOPT_STANDIN_NOISE=0 '" + AOPT_ACL_RUN_BINARY + "' '" +
                            (dir / "request.json").string() + "' > '" + (dir / "run.log").string() + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    o.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    {
      std::ifstream in(dir / "run.log");
      o.output.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (fs::exists(dir / "result.json")) o.result = nlohmann::json::parse(std::ifstream(dir / "result.json"));
    std::ifstream log(dir / "device.log");
    std::string line;
    if (std::getline(log, line)) o.device = nlohmann::json::parse(line);
    return o;
  }
  static std::vector<float> floats(const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    std::string b((std::istreambuf_iterator<char>(in)), {});
    std::vector<float> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), v.size() * 4);
    return v;
  }

  static fs::path root_;
};
fs::path AclHeaderVariantsRun::root_;

nlohmann::json in(const std::string& name, const std::string& dtype, std::vector<int> shape, nlohmann::json values) {
  return {{"name", name}, {"dtype", dtype}, {"shape", shape}, {"values", values}};
}
nlohmann::json sig_tensor(const std::string& name, const std::string& dtype, const std::string& type = "required") {
  return {{"name", name}, {"dtypes", {dtype}}, {"formats", {"ND"}}, {"param_type", type}};
}

TEST_F(AclHeaderVariantsRun, ValueDependIntAndFloatArrays) {
  nlohmann::json shape_in = sig_tensor("shape", "int64"), scale_in = sig_tensor("scale", "float32");
  shape_in["value_depend"] = true;
  scale_in["value_depend"] = true;
  const nlohmann::json sig = {{"op_type", "ResizeCustom"},
                              {"inputs", {sig_tensor("x", "float32"), shape_in, scale_in}},
                              {"outputs", {sig_tensor("y", "float32")}},
                              {"attrs", nlohmann::json::array()}};
  const std::string h = aopt::standin::aclnn_header(sig);
  EXPECT_NE(h.find("    const aclTensor *x,\n    const aclIntArray *shape,\n    const aclFloatArray *scale,\n    const aclTensor *out,"),
            std::string::npos)
      << h;
  const auto o = run_variant("value_depend", sig,
                             {{"inputs", {in("x", "float32", {4}, {1, 2, 3, 4}), in("shape", "int64", {3}, {2, 3, 5}),
                                          in("scale", "float32", {2}, {0.5, 4.0})}},
                              {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"shape", {4}}}}}});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.device["values"]["shape"], nlohmann::json({2, 3, 5})) << o.device.dump();
  EXPECT_EQ(o.device["values"]["scale"], nlohmann::json({0.5, 4.0})) << o.device.dump();
  EXPECT_EQ(floats(root_ / "value_depend" / "out_y.bin"), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(AclHeaderVariantsRun, InPlaceRefParameter) {
  const nlohmann::json sig = {{"op_type", "AccumulateCustom"},
                              {"inputs", {sig_tensor("src", "float32"), sig_tensor("dst", "float32")}},
                              {"outputs", {sig_tensor("dst", "float32")}},
                              {"attrs", nlohmann::json::array()}};
  const std::string h = aopt::standin::aclnn_header(sig);
  EXPECT_NE(h.find("    const aclTensor *src,\n    aclTensor *dstRef,\n    uint64_t *workspaceSize,"), std::string::npos) << h;
  const auto o = run_variant("ref", sig,
                             {{"inputs", {in("src", "float32", {3}, {7, 8, 9}), in("dst", "float32", {3}, {0, 0, 0})}},
                              {"outputs", {{{"name", "dst"}, {"dtype", "float32"}}}}});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  // The kernel (the fake device: the first input's bytes) wrote into dst; the runner read it back.
  EXPECT_EQ(floats(root_ / "ref" / "out_dst.bin"), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(o.result["outputs"][0]["shape"], nlohmann::json({3}));
}

TEST_F(AclHeaderVariantsRun, OptionalSeveralOutputsAndEveryAttributeType) {
  const nlohmann::json sig = {
      {"op_type", "EveryCustom"},
      {"inputs", {sig_tensor("x", "float32"), sig_tensor("bias", "float32", "optional")}},
      {"outputs", {sig_tensor("y", "float32"), sig_tensor("z", "float32")}},
      {"attrs",
       {{{"name", "alpha"}, {"type", "float"}, {"required", true}},
        {{"name", "flag"}, {"type", "bool"}, {"required", true}},
        {{"name", "mode"}, {"type", "string"}, {"required", false}},
        {{"name", "axes"}, {"type", "list_int"}, {"required", true}},
        {{"name", "scales"}, {"type", "list_float"}, {"required", true}},
        {{"name", "mask"}, {"type", "list_bool"}, {"required", true}},
        {{"name", "n"}, {"type", "int"}, {"required", true}}}}};
  const std::string h = aopt::standin::aclnn_header(sig);
  EXPECT_NE(h.find("    const aclTensor *biasOptional,\n    double alpha,\n    bool flag,\n    char *modeOptional,"), std::string::npos) << h;
  EXPECT_NE(h.find("    const aclTensor *yOut,\n    const aclTensor *zOut,"), std::string::npos) << h;
  const nlohmann::json attrs = {{"alpha", 0.75}, {"flag", true}, {"mode", "fast"}, {"axes", {0, -1}}, {"scales", {0.5, 2.0}},
                                {"mask", {false, true}}, {"n", -7}};
  for (const bool with_bias : {false, true}) {
    nlohmann::json inputs = {in("x", "float32", {2}, {5, 6})};
    if (with_bias) inputs.push_back(in("bias", "float32", {2}, {1, 1}));
    const std::string name = with_bias ? "every_bias" : "every";
    const auto o = run_variant(name, sig,
                               {{"inputs", inputs},
                                {"attrs", attrs},
                                {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"shape", {2}}}, {{"name", "z"}, {"dtype", "float32"}, {"shape", {4}}}}}});
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const auto& rq = o.device["request"];
    EXPECT_EQ(rq["attrs"], attrs) << rq.dump();
    EXPECT_EQ(rq["inputs"].size(), with_bias ? 2u : 1u) << rq.dump();
    EXPECT_EQ(floats(root_ / name / "out_y.bin"), (std::vector<float>{5, 6}));
    EXPECT_EQ(floats(root_ / name / "out_z.bin"), (std::vector<float>{5, 6, 5, 6}));
    // Kernel time: launches on a busy stream with a repeatable executor (the fake kernel: 10 us).
    EXPECT_EQ(o.result["timing_method"], "events_busy_stream") << o.result.dump();
    EXPECT_EQ(o.result["launches_per_sample"], 3);
    for (const auto& s : o.result["samples_us"]) EXPECT_NEAR(s.get<double>(), 10.0, 1e-3) << o.result.dump();
  }
}

}  // namespace
