// The stand-in CANN runtime (tests/cann/standin/acl/) through its C interface, the one the real
// runner calls: the runtime's rules and error codes, "device" memory, the streams' clocks and
// events, the faults; and the aclnn header and library the stand-in build generates, compiled
// here for an operator with an attribute of each type and launched against a fake device that
// records what the runtime asks of the emulator.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "acl/aclnn_gen.h"
#include "acl/standin_acl.h"

namespace fs = std::filesystem;

namespace {

std::string recent() {
  const char* m = aclGetRecentErrMsg();
  return m ? m : "";
}

// aclInit and device 0 for this thread, whatever ran before in this process. The host's launch
// cost is modelled apart (test_cann_first_day_unit.cpp): here launches cost the host nothing.
void ready() {
  ::setenv("AOPT_STANDIN_LAUNCH_US", "0", 1);
  ::setenv("AOPT_STANDIN_TILING_US", "0", 1);
  const aclError e = aclInit(nullptr);
  ASSERT_TRUE(e == ACL_SUCCESS || e == ACL_ERROR_REPEAT_INITIALIZE) << e;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << recent();
  recent();
}

void* device_copy(const void* host, size_t bytes) {
  void* d = nullptr;
  EXPECT_EQ(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << recent();
  EXPECT_EQ(aclrtMemcpy(d, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << recent();
  return d;
}

// Declared first: the only test that sees the runtime before aclInit when the binary runs whole.
TEST(StandinAclRuntime, CallsBeforeInitFailAndInitHappensOnce) {
  void* p = nullptr;
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  EXPECT_NE(recent().find("not initialized"), std::string::npos);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_NE(recent().find("repeated initialization"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);  // read once, then cleared
}

TEST(StandinAclRuntime, DevicesAndTheThreadsContext) {
  ready();
  // A thread without aclrtSetDevice has no context (107002).
  std::thread([] {
    aclrtStream s = nullptr;
    aclrtEvent e = nullptr;
    void* p = nullptr;
    EXPECT_EQ(aclrtCreateStream(&s), 107002);
    EXPECT_EQ(aclrtCreateEvent(&e), 107002);
    EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), 107002);
    EXPECT_NE(recent().find("context is null"), std::string::npos);
    EXPECT_EQ(aclrtSetDevice(1), 107001);  // one device unless AOPT_STANDIN_DEVICES says more
    EXPECT_NE(recent().find("invalid device id 1"), std::string::npos);
    EXPECT_EQ(aclrtSetDevice(-1), 107001);
    ::setenv("AOPT_STANDIN_DEVICES", "2", 1);
    EXPECT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
    ::unsetenv("AOPT_STANDIN_DEVICES");
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), 107000);
  }).join();
}

TEST(StandinAclRuntime, DeviceMemoryIsTrackedAndCopiesAreChecked) {
  ready();
  std::vector<float> host(256, 1.5f), back(256, 0.0f);
  const size_t bytes = host.size() * sizeof(float);
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d) % 512, 0u);
  EXPECT_EQ(aclrtMemcpy(d, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(back.data(), bytes, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);
  // The kind must match the pointers, the count the destination.
  EXPECT_EQ(aclrtMemcpy(back.data(), bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(recent().find("dst is not device memory"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(d, bytes, d, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(recent().find("src is device memory"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(back.data(), bytes, host.data(), bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(d, bytes - 4, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(recent().find("exceeds destMax"), std::string::npos);
  // A range that runs past the allocation's end is not device memory either.
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(d) + 8, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(d) + 8, bytes - 8, host.data(), bytes - 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_TRUE(aopt_standin_is_device_memory(d, bytes));
  EXPECT_FALSE(aopt_standin_is_device_memory(host.data(), 4));
  EXPECT_EQ(aclrtFree(host.data()), 107000);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d), 107000);
  EXPECT_FALSE(aopt_standin_is_device_memory(d, 4));
  // The device's size (AOPT_STANDIN_DEVICE_MEMORY) counts live allocations.
  ::setenv("AOPT_STANDIN_DEVICE_MEMORY", "1000", 1);
  void *a = nullptr, *b = nullptr;
  EXPECT_EQ(aclrtMalloc(&a, 600, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&b, 600, ACL_MEM_MALLOC_HUGE_FIRST), 207001);
  EXPECT_NE(recent().find("out of device memory"), std::string::npos);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&b, 600, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  ::unsetenv("AOPT_STANDIN_DEVICE_MEMORY");
  EXPECT_EQ(aclrtMalloc(&a, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST(StandinAclRuntime, EventsReadTheStreamsClock) {
  ready();
  aclrtStream s = nullptr, other = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&other), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), 107000);
  EXPECT_NE(recent().find("start event was never recorded"), std::string::npos);
  ASSERT_EQ(aopt_standin_stream_launch(s, 7.0, 0, nullptr, false), ACL_SUCCESS);  // before start: not counted
  ASSERT_EQ(aclrtRecordEvent(start, s), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(s, 12.5, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(other, 1000.0, 0, nullptr, false), ACL_SUCCESS);  // another stream's clock
  ASSERT_EQ(aopt_standin_stream_launch(s, 0.25, 0, nullptr, false), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), 107000);
  EXPECT_NE(recent().find("end event was never recorded"), std::string::npos);
  ASSERT_EQ(aclrtRecordEvent(end, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 0.01275f);
  // The default stream (nullptr) has a clock of its own.
  ASSERT_EQ(aclrtRecordEvent(start, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(nullptr, 3.0, 0, nullptr, false), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 0.003f);
  EXPECT_EQ(aclrtRecordEvent(start, reinterpret_cast<aclrtStream>(&ms)), 107000);  // not a stream
  for (auto* e : {start, end}) EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), 107000);
  for (auto* x : {s, other}) EXPECT_EQ(aclrtDestroyStream(x), ACL_SUCCESS);
}

TEST(StandinAclRuntime, FaultsOfTheRuntime) {
  ready();
  ::setenv("AOPT_STANDIN_FAULT", "device_busy", 1);
  EXPECT_EQ(aclrtSetDevice(0), 507033);
  EXPECT_NE(recent().find("in use by another process"), std::string::npos);
  ::unsetenv("AOPT_STANDIN_FAULT");
  // A failed kernel: the launch returns, the synchronization reports, and keeps reporting.
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aopt_standin_stream_launch(s, 5.0, 507015, "EZ9999: Inner Error!\nEZ9999: an aivec exception", false), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s), 507015);
  const std::string m = recent();
  EXPECT_EQ(m.rfind("EZ9999: Inner Error!", 0), 0u) << m;
  EXPECT_NE(m.find("aivec exception"), std::string::npos) << m;
  EXPECT_EQ(aclrtSynchronizeStream(s), 507015);
  recent();
  // A hung kernel: the synchronization never returns (here: still waiting after 300 ms).
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    aopt_standin_stream_launch(s, 5.0, 0, nullptr, true);
    aclrtSynchronizeStream(s);
    ::_exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, WNOHANG), 0) << "aclrtSynchronizeStream returned on a hung stream";
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
}

// ---- the generated aclnn interface ----

// An operator with an input of each kind, an attribute of each type and two outputs.
nlohmann::json every_kind_signature() {
  auto tensor = [](const char* name, const char* type) {
    return nlohmann::json{{"name", name}, {"param_type", type}, {"dtypes", {"float32"}}, {"formats", {"ND"}}};
  };
  auto attr = [](const char* name, const char* type, bool required) {
    return nlohmann::json{{"name", name}, {"type", type}, {"required", required}};
  };
  return {{"op_type", "StandinEveryKind"},
          {"kernel", "standin_every_kind"},
          {"inputs", {tensor("x", "required"), tensor("bias", "optional"), tensor("xs", "dynamic")}},
          {"outputs", {tensor("y", "required"), tensor("z", "required")}},
          {"attrs",
           {attr("alpha", "float", true), attr("n", "int", true), attr("flag", "bool", false), attr("mode", "string", false),
            attr("axes", "list_int", true), attr("scales", "list_float", false), attr("mask", "list_bool", false),
            attr("dst_type", "data_type", false)}}};
}

TEST(StandinAclGenerated, HeaderDeclaresTheParametersAsMsOpGenDoes) {
  using aopt::standin::aclnn_header;
  EXPECT_EQ(aopt::standin::snake_case("AddCustom"), "add_custom");
  EXPECT_EQ(aopt::standin::snake_case("MulV3"), "mul_v3");
  EXPECT_EQ(aopt::standin::snake_case("RMSNorm"), "rms_norm");
  const std::string h = aclnn_header(every_kind_signature());
  EXPECT_NE(h.find("#ifndef ACLNN_STANDIN_EVERY_KIND_H_"), std::string::npos) << h;
  EXPECT_NE(h.find("#include \"aclnn/acl_meta.h\""), std::string::npos) << h;
  EXPECT_NE(h.find("extern \"C\" {"), std::string::npos) << h;
  EXPECT_NE(h.find("aclnnStatus aclnnStandinEveryKindGetWorkspaceSize(\n"
                   "    const aclTensor *x,\n    const aclTensor *biasOptional,\n    const aclTensorList *xs,\n"
                   "    double alpha,\n    int64_t n,\n    bool flag,\n    char *modeOptional,\n    const aclIntArray *axes,\n"
                   "    const aclFloatArray *scalesOptional,\n    const aclBoolArray *maskOptional,\n    int64_t dst_type,\n"
                   "    const aclTensor *yOut,\n    const aclTensor *zOut,\n    uint64_t *workspaceSize,\n    aclOpExecutor **executor);"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("aclnnStatus aclnnStandinEveryKind(\n    void *workspace,\n    uint64_t workspaceSize,\n"
                   "    aclOpExecutor *executor,\n    aclrtStream stream);"),
            std::string::npos)
      << h;
  // A single output is `out`.
  const std::string add = aclnn_header({{"op_type", "AddCustom"},
                                        {"inputs", {{{"name", "x"}}, {{"name", "y"}}}},
                                        {"outputs", {{{"name", "z"}}}},
                                        {"attrs", nlohmann::json::array()}});
  EXPECT_NE(add.find("    const aclTensor *x,\n    const aclTensor *y,\n    const aclTensor *out,\n    uint64_t *workspaceSize,"),
            std::string::npos)
      << add;
}

using every_kind_fn = aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclTensorList*, double, int64_t, bool, char*,
                                      const aclIntArray*, const aclFloatArray*, const aclBoolArray*, int64_t, const aclTensor*,
                                      const aclTensor*, uint64_t*, aclOpExecutor**);
using launch_fn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

constexpr std::uint64_t k_seed = 7117;

// The generated library, compiled as build.sh compiles it, in an installed package's layout.
class StandinAclOp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aopt-standin-acl-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    const fs::path api = root_ / "install" / "vendors" / "customize" / "op_api";
    fs::create_directories(api / "include");
    fs::create_directories(api / "lib");
    const auto sig = every_kind_signature();
    std::ofstream(api / "include" / "aclnn_standin_every_kind.h") << aopt::standin::aclnn_header(sig);
    std::ofstream(root_ / "aclnn_standin_every_kind.cpp") << aopt::standin::aclnn_source(sig);
    const std::string cmd = "c++ -std=c++20 -shared -fPIC -Wall -Werror -I'" + std::string(AOPT_TEST_SOURCE_DIR) +
                            "/tests/cann/standin/toolkit/include' -I'" + (api / "include").string() + "' '" +
                            (root_ / "aclnn_standin_every_kind.cpp").string() + "' -o '" + (api / "lib" / "libcust_opapi.so").string() +
                            "' -L'" + AOPT_STANDIN_LIB64_DIR + "' -lnnopbase -lascendcl 2>'" + (root_ / "cc.log").string() + "'";
    compiled_ = std::system(cmd.c_str()) == 0;
    if (!compiled_) return;
    lib_ = ::dlopen((api / "lib" / "libcust_opapi.so").c_str(), RTLD_NOW);
    if (lib_) {
      gws_ = reinterpret_cast<every_kind_fn>(::dlsym(lib_, "aclnnStandinEveryKindGetWorkspaceSize"));
      launch_ = reinterpret_cast<launch_fn>(::dlsym(lib_, "aclnnStandinEveryKind"));
    }
    std::cout << "stand-in seed " << k_seed << "\n";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  void SetUp() override {
    ASSERT_TRUE(compiled_) << std::ifstream(root_ / "cc.log").rdbuf();
    ASSERT_TRUE(lib_ && gws_ && launch_) << ::dlerror();
    ready();
    log_ = root_ / (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".log");
    ::setenv("AOPT_STANDIN_DEVICE", AOPT_STANDIN_FAKE_DEVICE, 1);
    ::setenv("AOPT_STANDIN_FAKE_LOG", log_.c_str(), 1);
    ::setenv("AOPT_STANDIN_SEED", std::to_string(k_seed).c_str(), 1);
    ::setenv("AOPT_STANDIN_STATE", root_.c_str(), 1);
    ::setenv("AOPT_STANDIN_NOISE", "0", 1);
    ::unsetenv("AOPT_STANDIN_FAULT");
    ::unsetenv("AOPT_STANDIN_FAKE_MODE");
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    for (auto* t : tensors_) aclDestroyTensor(t);
    for (void* d : memory_) aclrtFree(d);
    aclrtDestroyStream(stream_);
  }

  // A device tensor of `shape` filled with `value`.
  aclTensor* tensor(std::vector<int64_t> shape, float value) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<float> host(static_cast<size_t>(n), value);
    void* d = device_copy(host.data(), host.size() * sizeof(float));
    memory_.push_back(d);
    tensors_.push_back(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape.data(), shape.size(), d));
    return tensors_.back();
  }
  std::vector<float> read(const aclTensor* t, size_t n) {
    std::vector<float> host(n);
    EXPECT_EQ(aclrtMemcpy(host.data(), n * 4, t->data, n * 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << recent();
    return host;
  }
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> r;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) r.push_back(nlohmann::json::parse(line));
    return r;
  }

  // GetWorkspaceSize with every attribute set, x filled with `x_value`.
  aclnnStatus prepare(float x_value, uint64_t& ws, aclOpExecutor*& ex) {
    x_ = tensor({2, 8}, x_value);
    const aclTensor* items[] = {tensor({4}, 1.0f), tensor({3}, 2.0f)};
    xs_ = aclCreateTensorList(items, 2);
    y_ = tensor({2, 8}, 0.0f);
    z_ = tensor({16}, 0.0f);
    const int64_t axes[] = {0, 2};
    const float scales[] = {0.25f};
    const bool mask[] = {true, false};
    aclIntArray* a = aclCreateIntArray(axes, 2);
    aclFloatArray* s = aclCreateFloatArray(scales, 1);
    aclBoolArray* m = aclCreateBoolArray(mask, 2);
    char mode[] = "fast";
    const aclnnStatus st = gws_(x_, nullptr, xs_, 0.5, -3, true, mode, a, s, m, 1, y_, z_, &ws, &ex);
    aclDestroyIntArray(a);  // aclnn keeps copies: the caller may free its arrays at once
    aclDestroyFloatArray(s);
    aclDestroyBoolArray(m);
    return st;
  }
  float timed_launch(aclOpExecutor* ex, void* ws, uint64_t ws_size) {
    aclrtEvent a = nullptr, b = nullptr;
    aclrtCreateEvent(&a);
    aclrtCreateEvent(&b);
    aclrtRecordEvent(a, stream_);
    EXPECT_EQ(launch_(ws, ws_size, ex, stream_), ACL_SUCCESS) << recent();
    aclrtRecordEvent(b, stream_);
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << recent();
    float ms = -1;
    EXPECT_EQ(aclrtEventElapsedTime(&ms, a, b), ACL_SUCCESS);
    aclrtDestroyEvent(a);
    aclrtDestroyEvent(b);
    return ms;
  }

  static fs::path root_;
  static bool compiled_;
  static void* lib_;
  static every_kind_fn gws_;
  static launch_fn launch_;
  fs::path log_;
  aclrtStream stream_ = nullptr;
  std::vector<aclTensor*> tensors_;
  std::vector<void*> memory_;
  aclTensor *x_ = nullptr, *y_ = nullptr, *z_ = nullptr;
  aclTensorList* xs_ = nullptr;
};
fs::path StandinAclOp::root_;
bool StandinAclOp::compiled_ = false;
void* StandinAclOp::lib_ = nullptr;
every_kind_fn StandinAclOp::gws_ = nullptr;
launch_fn StandinAclOp::launch_ = nullptr;

TEST_F(StandinAclOp, AttributesTensorsAndPackageReachTheDevice) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(prepare(3.0f, ws, ex), ACL_SUCCESS) << recent();
  EXPECT_EQ(ws, 4096u);  // the tiling's workspace
  const auto rq = requests();
  ASSERT_EQ(rq.size(), 1u);
  const auto& r = rq[0]["request"];
  EXPECT_EQ(r["op_type"], "StandinEveryKind");
  EXPECT_EQ(r["install"], (root_ / "install").string());
  EXPECT_EQ(r["vendor"], "customize");
  EXPECT_EQ(r["warmup"], 0);
  EXPECT_EQ(r["repeat"], 1);
  EXPECT_EQ(r["attrs"], nlohmann::json::parse(R"({"alpha": 0.5, "n": -3, "flag": true, "mode": "fast", "axes": [0, 2],
                                                  "scales": [0.25], "mask": [true, false], "dst_type": 1})"))
      << r["attrs"].dump();
  ASSERT_EQ(r["inputs"].size(), 2u);  // the absent optional input is left out
  EXPECT_EQ(r["inputs"][0]["name"], "x");
  EXPECT_EQ(r["inputs"][0]["shape"], nlohmann::json({2, 8}));
  EXPECT_EQ(r["inputs"][0]["dtype"], "float32");
  EXPECT_TRUE(fs::path(r["inputs"][0]["file"].get<std::string>()).is_absolute());  // as the runner contract has it
  EXPECT_EQ(r["inputs"][1]["name"], "xs");
  EXPECT_EQ(r["inputs"][1]["list"].size(), 2u);
  EXPECT_EQ(r["inputs"][1]["list"][1]["shape"], nlohmann::json({3}));
  ASSERT_EQ(r["outputs"].size(), 2u);
  EXPECT_EQ(r["outputs"][0]["name"], "y");
  EXPECT_EQ(r["outputs"][1]["shape"], nlohmann::json({16}));
  // The launch writes the outputs (the fake device: x's values) and takes the latency, 10 us.
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  memory_.push_back(w);
  EXPECT_FLOAT_EQ(timed_launch(ex, w, ws), 0.010f);
  EXPECT_EQ(read(y_, 16), std::vector<float>(16, 3.0f));
  EXPECT_EQ(read(z_, 16), std::vector<float>(16, 3.0f));
  // An executor is single use.
  EXPECT_EQ(launch_(w, ws, ex, stream_), 161002);
  EXPECT_NE(recent().find("single use"), std::string::npos);
  for (const auto* t : xs_->tensors) std::erase(tensors_, t);  // destroyed with their list
  EXPECT_EQ(aclDestroyTensorList(xs_), ACL_SUCCESS);
}

TEST_F(StandinAclOp, LaunchesOfTheSameInputsEmulateOnceAndNoiseIsSeeded) {
  ::setenv("AOPT_STANDIN_NOISE", "0.2", 1);
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  memory_.push_back(w);
  std::vector<float> ms;
  for (int i = 0; i < 4; ++i) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(prepare(5.0f, ws, ex), ACL_SUCCESS) << recent();
    ms.push_back(timed_launch(ex, w, ws));
  }
  EXPECT_EQ(requests().size(), 1u);  // memoized on the inputs' bytes, shapes, dtypes and attrs
  for (float v : ms) EXPECT_GT(v, 0.0f);
  EXPECT_NE(ms[0], ms[1]);  // 20% noise, drawn per launch
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(prepare(6.0f, ws, ex), ACL_SUCCESS) << recent();  // new bytes: a new emulation
  EXPECT_EQ(requests().size(), 2u);
  timed_launch(ex, w, ws);
  EXPECT_EQ(read(y_, 16), std::vector<float>(16, 6.0f));
}

TEST_F(StandinAclOp, FailuresOfTilingAndKernelMapToTheirCodes) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  // The emulator's tiling fails: GetWorkspaceSize says 561002 with the diagnostic.
  ::setenv("AOPT_STANDIN_FAKE_MODE", "tiling", 1);
  EXPECT_EQ(prepare(11.0f, ws, ex), 561002);
  EXPECT_NE(recent().find("tile 0 too small"), std::string::npos);
  // The emulated kernel fails: the launch returns, the stream's synchronization says 507015.
  ::setenv("AOPT_STANDIN_FAKE_MODE", "runtime", 1);
  ASSERT_EQ(prepare(12.0f, ws, ex), ACL_SUCCESS) << recent();
  EXPECT_EQ(launch_(nullptr, 0, ex, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), 507015);
  EXPECT_NE(recent().find("fake kernel fault"), std::string::npos);
  // A workspace smaller than asked for is refused by the launch.
  ::unsetenv("AOPT_STANDIN_FAKE_MODE");
  ASSERT_EQ(prepare(13.0f, ws, ex), ACL_SUCCESS) << recent();
  EXPECT_EQ(launch_(nullptr, 0, ex, stream_), 161002);
  EXPECT_NE(recent().find("workspaceSize 0 is below"), std::string::npos);
  // An input in host memory: the kernel faults at run time, as an out-of-range read would.
  aclrtStream s2 = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s2), ACL_SUCCESS);
  std::vector<float> host(16, 1.0f);
  const int64_t shape[] = {2, 8};
  aclTensor* bad = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, host.data());
  tensors_.push_back(bad);
  const aclTensor* items[] = {tensor({4}, 1.0f)};
  aclTensorList* xs = aclCreateTensorList(items, 1);
  const int64_t axes[] = {0};
  aclIntArray* a = aclCreateIntArray(axes, 1);
  char mode[] = "fast";
  // (nullptr for the optional list attrs: their defaults)
  ASSERT_EQ(gws_(bad, nullptr, xs, 0.5, 1, false, mode, a, nullptr, nullptr, 0, y_, z_, &ws, &ex), ACL_SUCCESS) << recent();
  EXPECT_EQ(launch_(nullptr, 0, ex, s2), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s2), 507015);
  EXPECT_NE(recent().find("outside device memory"), std::string::npos);
  aclDestroyIntArray(a);
  delete xs;  // its tensor is in tensors_
  aclrtDestroyStream(s2);
}

TEST_F(StandinAclOp, FaultsOfTheStandInToolchain) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  memory_.push_back(w);
  ::setenv("AOPT_STANDIN_FAULT", "tiling_error", 1);
  EXPECT_EQ(prepare(21.0f, ws, ex), 561002);
  EXPECT_NE(recent().find("AOPT_STANDIN_FAULT=tiling_error"), std::string::npos);
  EXPECT_TRUE(requests().empty());  // the tiling fails before any emulation
  ::setenv("AOPT_STANDIN_FAULT", "acl_error", 1);
  ASSERT_EQ(prepare(22.0f, ws, ex), ACL_SUCCESS) << recent();
  EXPECT_EQ(launch_(w, ws, ex, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), 507015);
  const std::string m = recent();
  EXPECT_EQ(m.rfind("EZ9999: Inner Error!", 0), 0u) << m;
  // The runtime's faults are not the device's: the emulator runs without them, except
  // missing_csv (the stand-in msprof's CSVs are written by the device).
  ::setenv("AOPT_STANDIN_FAULT", "missing_csv", 1);
  ASSERT_EQ(prepare(23.0f, ws, ex), ACL_SUCCESS) << recent();
  aclrtStream s2 = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s2), ACL_SUCCESS);
  EXPECT_EQ(launch_(w, ws, ex, s2), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s2), ACL_SUCCESS);
  aclrtDestroyStream(s2);
  const auto rq = requests();
  ASSERT_EQ(rq.size(), 2u);
  EXPECT_EQ(rq[0]["fault"], "");
  EXPECT_EQ(rq[1]["fault"], "missing_csv");
  ::unsetenv("AOPT_STANDIN_FAULT");
}

}  // namespace
