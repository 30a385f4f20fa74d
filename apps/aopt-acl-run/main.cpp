// aopt-acl-run REQUEST.json: runs one request of the cann backend on an Ascend device (docs/cann.md,
// "The runner"). It loads the CANN runtime (libacl_rt.so or libascendcl.so, libnnopbase.so) and
// the installed operator's aclnn library with dlopen, calls aclnn<Op>GetWorkspaceSize through
// libffi with the parameters its generated header declares, times kernel time (a repeatable
// executor, `launches` launches between two ACL events on a busy stream, per sample), and writes
// the outputs and result.json.
//
// Exit codes: 0 done; 1 a CANN call failed ("[ERROR] <call> failed, error code <N>" and the
// runtime's own message, which the backend maps to a status) or the runtime/package is missing;
// 2 the request cannot be carried out as written (which field, what to do).
#include <dlfcn.h>
#include <ffi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "acl_abi.h"
#include "runner.h"

namespace fs = std::filesystem;
using namespace aopt::acl_run;

namespace {

// A CANN call that returned an error.
struct acl_failure {
  std::string call;
  long code;
};

// The runtime or the package is not there (exit 1 with the message).
struct missing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void* open_lib(const std::string& name, const std::string& fix) {
  void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (h == nullptr) throw missing("cannot load " + name + ": " + ::dlerror() + "; " + fix);
  return h;
}

template <class F>
F symbol(void* lib, const char* name, const std::string& lib_name) {
  void* p = ::dlsym(lib, name);
  if (p == nullptr) throw missing(lib_name + " has no symbol " + name + " (a CANN version this runner does not know?)");
  return reinterpret_cast<F>(p);
}

// The runtime's functions, typed by the declarations of acl_abi.h.
struct acl_api {
#define AOPT_ACL_MEMBER(name, ret, params) aopt::acl_abi::name##_fn* name = nullptr;
  AOPT_ACL_RUNTIME_FUNCTIONS(AOPT_ACL_MEMBER)
  AOPT_ACL_NNOPBASE_FUNCTIONS(AOPT_ACL_MEMBER)
  AOPT_ACL_EXECUTOR_FUNCTIONS(AOPT_ACL_MEMBER)
#undef AOPT_ACL_MEMBER
  std::string runtime_lib;  // the library the runtime came from

  void load() {
    const std::string fix = "source <CANN>/set_env.sh first (it puts the toolkit's lib64 on LD_LIBRARY_PATH; docs/cann.md)";
    // CANN 8.5 and later ship the runtime as libacl_rt.so (libascendcl.so kept for
    // compatibility); 8.0-8.3 as libascendcl.so only.
    void* rt = nullptr;
    std::string tried;
    for (const char* name : {"libacl_rt.so", "libascendcl.so"}) {
      rt = ::dlopen(name, RTLD_NOW | RTLD_GLOBAL);
      if (rt != nullptr) {
        runtime_lib = name;
        break;
      }
      tried += std::string(tried.empty() ? "" : "; ") + ::dlerror();
    }
    if (rt == nullptr) throw missing("cannot load the CANN runtime (libacl_rt.so or libascendcl.so): " + tried + "; " + fix);
    void* nn = open_lib("libnnopbase.so", fix);
#define AOPT_ACL_LOAD_RT(name, ret, params) name = symbol<aopt::acl_abi::name##_fn*>(rt, #name, runtime_lib);
#define AOPT_ACL_LOAD_NN(name, ret, params) name = symbol<aopt::acl_abi::name##_fn*>(nn, #name, "libnnopbase.so");
#define AOPT_ACL_LOAD_OPTIONAL(name, ret, params) name = reinterpret_cast<aopt::acl_abi::name##_fn*>(::dlsym(nn, #name));
    AOPT_ACL_RUNTIME_FUNCTIONS(AOPT_ACL_LOAD_RT)
    AOPT_ACL_NNOPBASE_FUNCTIONS(AOPT_ACL_LOAD_NN)
    AOPT_ACL_EXECUTOR_FUNCTIONS(AOPT_ACL_LOAD_OPTIONAL)
#undef AOPT_ACL_LOAD_RT
#undef AOPT_ACL_LOAD_NN
#undef AOPT_ACL_LOAD_OPTIONAL
  }
};

acl_api acl;

void check(aclError rc, const std::string& call) {
  if (rc != ACL_SUCCESS) throw acl_failure{call, rc};
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw request_error("cannot open " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const void* data, std::size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!out) throw missing("cannot write " + p.string());
}

// Device memory of one tensor and its aclTensor.
struct device_tensor {
  void* mem = nullptr;
  std::size_t bytes = 0;
  aclTensor* tensor = nullptr;
};

device_tensor make_tensor(const tensor_arg& t, const std::string* host_bytes) {
  const auto dt = *acl_dtype(t.dtype);
  device_tensor d;
  d.bytes = static_cast<std::size_t>(numel(t.shape)) * dt.bytes;
  check(acl.aclrtMalloc(&d.mem, std::max<std::size_t>(d.bytes, 32), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc(" + t.name + ")");
  if (host_bytes != nullptr && d.bytes > 0) {
    check(acl.aclrtMemcpy(d.mem, d.bytes, host_bytes->data(), d.bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy(" + t.name + ", host to device)");
  }
  const auto strides = strides_of(t.shape);
  d.tensor = acl.aclCreateTensor(t.shape.data(), t.shape.size(), dt.acl, strides.data(), 0, ACL_FORMAT_ND, t.shape.data(),
                                 t.shape.size(), d.mem);
  if (d.tensor == nullptr) throw acl_failure{"aclCreateTensor(" + t.name + ")", 0};
  return d;
}

// The value of one attribute parameter, kept alive for the call, and its libffi type.
struct arg_slot {
  union {
    void* ptr;
    double f64;
    float f32;
    std::int64_t i64;
    std::int32_t i32;
    std::uint8_t b;
  } v{};
  ffi_type* type = &ffi_type_pointer;
  std::string text;                 // string attributes
  std::vector<std::int64_t> ints;   // scalar / array values
  std::vector<float> floats;
  std::unique_ptr<bool[]> bools;
  double scalar_f = 0;
  std::int64_t scalar_i = 0;
  bool scalar_b = false;
};

void fill_attr(arg_slot& s, const bound_param& b) {
  const auto& a = b.attr;
  if (a.is_null()) return;  // an optional pointer attribute the request does not give: nullptr, its default
  switch (b.param.kind) {
    case param_kind::f64: s.type = &ffi_type_double; s.v.f64 = a.get<double>(); break;
    case param_kind::f32: s.type = &ffi_type_float; s.v.f32 = a.get<float>(); break;
    case param_kind::i64: s.type = &ffi_type_sint64; s.v.i64 = a.get<std::int64_t>(); break;
    case param_kind::i32: s.type = &ffi_type_sint32; s.v.i32 = a.get<std::int32_t>(); break;
    case param_kind::boolean: s.type = &ffi_type_uint8; s.v.b = a.get<bool>() ? 1 : 0; break;
    case param_kind::string: s.text = a.get<std::string>(); s.v.ptr = s.text.data(); break;
    case param_kind::scalar:
      if (a.is_boolean()) {
        s.scalar_b = a.get<bool>();
        s.v.ptr = acl.aclCreateScalar(&s.scalar_b, ACL_BOOL);
      } else if (a.is_number_integer()) {
        s.scalar_i = a.get<std::int64_t>();
        s.v.ptr = acl.aclCreateScalar(&s.scalar_i, ACL_INT64);
      } else {
        s.scalar_f = a.get<double>();
        s.v.ptr = acl.aclCreateScalar(&s.scalar_f, ACL_DOUBLE);
      }
      break;
    case param_kind::int_array:
      for (const auto& x : a) s.ints.push_back(x.get<std::int64_t>());
      s.v.ptr = acl.aclCreateIntArray(s.ints.data(), s.ints.size());
      break;
    case param_kind::float_array:
      for (const auto& x : a) s.floats.push_back(x.get<float>());
      s.v.ptr = acl.aclCreateFloatArray(s.floats.data(), s.floats.size());
      break;
    case param_kind::bool_array:
      s.bools = std::make_unique<bool[]>(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) s.bools[i] = a[i].get<bool>();
      s.v.ptr = acl.aclCreateBoolArray(s.bools.get(), a.size());
      break;
    default: break;
  }
  if (s.type == &ffi_type_pointer && b.param.kind != param_kind::string && s.v.ptr == nullptr) {
    throw acl_failure{"aclCreate* for attribute '" + b.param.name + "'", 0};
  }
}

// A ValueDepend input: the array of its file's values.
void fill_value_depend(arg_slot& s, const bound_param& b, const tensor_arg& in) {
  const std::string bytes = read_file(in.file);
  if (b.param.kind == param_kind::int_array) {
    s.ints = int_values(bytes, in);
    s.v.ptr = acl.aclCreateIntArray(s.ints.data(), s.ints.size());
  } else {
    s.floats = float_values(bytes, in);
    s.v.ptr = acl.aclCreateFloatArray(s.floats.data(), s.floats.size());
  }
  if (s.v.ptr == nullptr) throw acl_failure{"aclCreate*Array for the ValueDepend input '" + b.param.name + "'", 0};
}

using launch_fn = aclnnStatus (*)(void*, std::uint64_t, aclOpExecutor*, aclrtStream);

// 1. The request file: what to run, where its package is installed, how often.
struct run_request {
  nlohmann::json rq;
  std::string op_type;
  int device = 0, warmup = 0, repeat = 1, launches = 1;
  fs::path vendor_dir;
};

run_request read_request(const fs::path& request_file) {
  run_request r;
  try {
    r.rq = nlohmann::json::parse(read_file(request_file));
  } catch (const nlohmann::json::exception& e) {
    throw request_error(request_file.string() + ": not valid JSON: " + e.what());
  }
  const auto& rq = r.rq;
  for (const char* k : {"op_type", "install"}) {
    if (!rq.contains(k) || !rq[k].is_string()) throw request_error(request_file.string() + ": \"" + std::string(k) + "\" missing or not a string");
  }
  r.op_type = rq["op_type"].get<std::string>();
  r.device = rq.value("device", 0);
  r.warmup = rq.value("warmup", 0);
  r.repeat = rq.value("repeat", 1);
  if (r.warmup < 0 || r.repeat < 1) throw request_error(request_file.string() + ": \"warmup\" must be >= 0 and \"repeat\" >= 1");
  r.launches = rq.value("launches", 1);
  if (r.launches < 1) throw request_error(request_file.string() + ": \"launches\" (per timed sample) must be >= 1");
  r.vendor_dir = fs::path(rq["install"].get<std::string>()) / "vendors" / rq.value("vendor", std::string("customize"));
  return r;
}

// 2. The installed operator's two aclnn functions and the request bound to their parameters.
struct operator_api {
  std::string gws_name, run_name;
  bound_call call;
  void* gws = nullptr;
  launch_fn launch = nullptr;
};

operator_api open_operator(const run_request& r) {
  std::error_code e;
  if (!fs::is_directory(r.vendor_dir / "op_api", e)) {
    throw missing("no custom operator package installed under " + r.vendor_dir.string() + " (op_api/ missing): check [commands] install");
  }
  // The installed package first on the custom operator path, as its bin/set_env.bash would.
  const char* old = std::getenv("ASCEND_CUSTOM_OPP_PATH");
  const std::string opp = r.vendor_dir.string() + (old != nullptr && *old ? std::string(":") + old : "");
  ::setenv("ASCEND_CUSTOM_OPP_PATH", opp.c_str(), 1);

  operator_api op;
  op.gws_name = "aclnn" + r.op_type + "GetWorkspaceSize";
  op.run_name = "aclnn" + r.op_type;
  const fs::path header = find_aclnn_header(r.vendor_dir / "op_api" / "include", r.op_type);
  const auto params = parse_aclnn_header(read_file(header), op.gws_name, header.string());
  op.call = bind_request(params, r.rq);

  acl.load();
  const fs::path opapi = r.vendor_dir / "op_api" / "lib" / "libcust_opapi.so";
  void* oplib = open_lib(opapi.string(), "check the install step's package (op_api/lib/)");
  op.gws = symbol<void*>(oplib, op.gws_name.c_str(), opapi.string());
  op.launch = symbol<launch_fn>(oplib, op.run_name.c_str(), opapi.string());
  return op;
}

// 3. The device: a stream and the two events that time it.
struct device_session {
  int device = 0;
  aclrtStream stream = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
};

device_session open_device(int device) {
  device_session d;
  d.device = device;
  const aclError init = acl.aclInit(nullptr);
  if (init != ACL_ERROR_REPEAT_INITIALIZE) check(init, "aclInit");
  check(acl.aclrtSetDevice(device), "aclrtSetDevice(" + std::to_string(device) + ")");
  check(acl.aclrtCreateStream(&d.stream), "aclrtCreateStream");
  check(acl.aclrtCreateEvent(&d.start), "aclrtCreateEvent");
  check(acl.aclrtCreateEvent(&d.end), "aclrtCreateEvent");
  return d;
}

// 4. Device tensors: the inputs' from their files, then the outputs'. An in-place output
// (`<name>Ref`) has no tensor of its own: it is read back from its input's.
std::vector<device_tensor> upload_tensors(const bound_call& call) {
  std::vector<device_tensor> tensors;
  for (const auto& in : call.inputs) {
    const std::string bytes = read_file(in.file);
    const auto want = static_cast<std::size_t>(numel(in.shape)) * acl_dtype(in.dtype)->bytes;
    if (bytes.size() != want) {
      throw request_error(in.file + " (input '" + in.name + "') holds " + std::to_string(bytes.size()) + " bytes; its shape and dtype need " +
                          std::to_string(want));
    }
    tensors.push_back(make_tensor(in, &bytes));
  }
  for (const auto& out : call.outputs) tensors.push_back(out.in_place_of ? device_tensor{} : make_tensor(out, nullptr));
  return tensors;
}

// 5. The call of aclnn<Op>GetWorkspaceSize through libffi: its arguments in header order (the
// last two, workspace size and executor, filled per call) and the workspace it asks for. Not
// copied or moved: the arguments point into it.
struct workspace_call {
  std::string name;
  void* fn = nullptr;
  std::vector<arg_slot> slots;
  std::vector<ffi_type*> types;
  std::vector<void*> values;
  std::vector<std::vector<const aclTensor*>> lists;
  ffi_cif cif{};
  std::uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  void* workspace = nullptr;
  std::uint64_t workspace_capacity = 0;

  workspace_call(const operator_api& op, const std::vector<device_tensor>& tensors) : name(op.gws_name), fn(op.gws) {
    const auto& call = op.call;
    slots.resize(call.params.size());
    lists.reserve(call.params.size());
    for (std::size_t i = 0; i < call.params.size(); ++i) {
      const auto& b = call.params[i];
      auto& s = slots[i];
      switch (b.param.kind) {
        case param_kind::tensor: s.v.ptr = b.tensors.empty() ? nullptr : tensors[b.tensors.front()].tensor; break;  // absent optional: nullptr
        case param_kind::tensor_list: {
          if (b.tensors.empty()) break;
          lists.emplace_back();
          for (auto t : b.tensors) lists.back().push_back(tensors[t].tensor);
          s.v.ptr = acl.aclCreateTensorList(lists.back().data(), lists.back().size());
          if (s.v.ptr == nullptr) throw acl_failure{"aclCreateTensorList(" + b.param.name + ")", 0};
          break;
        }
        case param_kind::workspace_size: s.v.ptr = &ws_size; break;
        case param_kind::executor: s.v.ptr = &executor; break;
        default:
          if (b.value_input) fill_value_depend(s, b, call.inputs[*b.value_input]);
          else fill_attr(s, b);
      }
      types.push_back(s.type);
    }
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, static_cast<unsigned>(types.size()), &ffi_type_sint32, types.data()) != FFI_OK) {
      throw missing("libffi cannot prepare a call of " + name + " with " + std::to_string(types.size()) + " parameters");
    }
    for (auto& s : slots) values.push_back(&s.v);
  }
  workspace_call(const workspace_call&) = delete;
  workspace_call& operator=(const workspace_call&) = delete;
  ~workspace_call() {
    if (workspace != nullptr) acl.aclrtFree(workspace);
  }

  // One aclnn<Op>GetWorkspaceSize: a new executor and the workspace it needs.
  void prepare() {
    ws_size = 0;
    executor = nullptr;
    ffi_sarg status = 0;
    ffi_call(&cif, FFI_FN(fn), &status, values.data());
    check(static_cast<aclError>(status), name);
    if (ws_size > workspace_capacity) {
      if (workspace != nullptr) acl.aclrtFree(workspace);
      workspace = nullptr;
      check(acl.aclrtMalloc(&workspace, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc(workspace of " + std::to_string(ws_size) + " bytes)");
      workspace_capacity = ws_size;
    }
  }
};

// 6. Kernel time, as msprof's Task Duration means it: one executor made repeatable
// (aclSetAclOpExecutorRepeatable), `launches` launches between one event pair per sample, the
// stream kept busy by two untimed launches before the start event so that the host's enqueue of
// the next launch overlaps the kernel before it. Without a repeatable executor (a runtime
// without the call), each launch needs a new executor and is timed alone: that figure holds the
// host's launch too, and result.json says so.
struct timing {
  std::vector<double> samples;
  std::vector<double> submit;  // the host's time in aclnn<Op> (tiling copy and enqueue), sorted
  std::string method;
  bool repeatable = false;
};

timing measure(workspace_call& w, const operator_api& op, const device_session& d, const run_request& r) {
  timing t;
  auto launch_once = [&](bool timed) {
    const auto t0 = std::chrono::steady_clock::now();
    check(op.launch(w.ws_size > 0 ? w.workspace : nullptr, w.ws_size, w.executor, d.stream), op.run_name);
    if (timed) t.submit.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  };
  auto elapsed_us = [&]() {
    float ms = 0;
    check(acl.aclrtEventElapsedTime(&ms, d.start, d.end), "aclrtEventElapsedTime");
    return static_cast<double>(ms) * 1000.0;
  };
  w.prepare();
  t.repeatable = acl.aclSetAclOpExecutorRepeatable != nullptr && acl.aclDestroyAclOpExecutor != nullptr &&
                 acl.aclSetAclOpExecutorRepeatable(w.executor) == ACL_SUCCESS;
  if (t.repeatable) {
    t.method = "events_busy_stream";
    constexpr int busy = 2;
    for (int i = 0; i < r.warmup; ++i) launch_once(false);
    check(acl.aclrtSynchronizeStream(d.stream), "aclrtSynchronizeStream");
    for (int k = 0; k < r.repeat; ++k) {
      for (int i = 0; i < busy; ++i) launch_once(false);
      check(acl.aclrtRecordEvent(d.start, d.stream), "aclrtRecordEvent");
      for (int i = 0; i < r.launches; ++i) launch_once(true);
      check(acl.aclrtRecordEvent(d.end, d.stream), "aclrtRecordEvent");
      check(acl.aclrtSynchronizeStream(d.stream), "aclrtSynchronizeStream");
      t.samples.push_back(elapsed_us() / r.launches);
    }
    acl.aclDestroyAclOpExecutor(w.executor);
  } else {
    t.method = "events_per_launch_with_host_launch";
    if (acl.aclGetRecentErrMsg != nullptr) acl.aclGetRecentErrMsg();  // a refused aclSetAclOpExecutorRepeatable's message
    for (int i = 0; i < r.warmup + r.repeat; ++i) {
      if (i > 0) w.prepare();
      check(acl.aclrtRecordEvent(d.start, d.stream), "aclrtRecordEvent");
      launch_once(i >= r.warmup);
      check(acl.aclrtRecordEvent(d.end, d.stream), "aclrtRecordEvent");
      check(acl.aclrtSynchronizeStream(d.stream), "aclrtSynchronizeStream");
      if (i >= r.warmup) t.samples.push_back(elapsed_us());
    }
  }
  std::sort(t.submit.begin(), t.submit.end());
  return t;
}

std::string device_bytes(const device_tensor& d, const std::string& name) {
  std::string host(d.bytes, '\0');
  if (d.bytes > 0) check(acl.aclrtMemcpy(host.data(), host.size(), d.mem, d.bytes, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy(" + name + ", device to host)");
  return host;
}

// 7a. The outputs, copied back into their files.
nlohmann::json read_outputs(const bound_call& call, const std::vector<device_tensor>& tensors) {
  nlohmann::json outputs = nlohmann::json::array();
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    const auto& out = call.outputs[o];
    const std::string host = device_bytes(tensors[out.in_place_of ? *out.in_place_of : call.inputs.size() + o], out.name);
    write_file(out.file, host.data(), host.size());
    nlohmann::json oj = {{"name", out.name}, {"dtype", out.dtype}, {"shape", out.shape}, {"file", out.file}};
    if (out.shape_assumed) oj["shape_assumed"] = true;
    outputs.push_back(oj);
  }
  return outputs;
}

// 7b. Inputs the kernel wrote (in place, without an output of its own): their device contents
// differ from the file they came from. Reported like outputs under "written_inputs" (a tensor
// list whole when any element changed), as the sim harness reports them
// (docs/harness-protocol.md, "Inputs the kernel writes"); a `<name>Ref` input is an output already.
nlohmann::json read_written_inputs(const bound_call& call, const std::vector<device_tensor>& tensors) {
  nlohmann::json written = nlohmann::json::array();
  std::map<std::string, std::vector<std::size_t>> by_name;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    if (!by_name.count(call.inputs[i].name)) order.push_back(call.inputs[i].name);
    by_name[call.inputs[i].name].push_back(i);
  }
  for (const auto& name : order) {
    const auto& idx = by_name[name];
    const bool in_place = std::any_of(call.outputs.begin(), call.outputs.end(), [&](const tensor_arg& o) {
      return o.in_place_of && std::find(idx.begin(), idx.end(), *o.in_place_of) != idx.end();
    });
    if (in_place) continue;
    std::vector<std::string> contents;
    bool changed = false;
    for (auto i : idx) {
      std::string host = device_bytes(tensors[i], name);
      changed = changed || host != read_file(call.inputs[i].file);
      contents.push_back(std::move(host));
    }
    if (!changed) continue;
    nlohmann::json items = nlohmann::json::array();
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const auto& in = call.inputs[idx[k]];
      const std::string file = "written_" + name + (idx.size() > 1 ? "." + std::to_string(k) : std::string()) + ".bin";
      write_file(file, contents[k].data(), contents[k].size());
      items.push_back({{"name", name}, {"dtype", in.dtype}, {"shape", in.shape}, {"file", file}});
    }
    if (idx.size() == 1) written.push_back(items[0]);
    else written.push_back({{"name", name}, {"dtype", call.inputs[idx[0]].dtype}, {"list", items}});
  }
  return written;
}

int run(const fs::path& request_file) {
  const run_request r = read_request(request_file);
  const operator_api op = open_operator(r);
  const device_session d = open_device(r.device);
  std::vector<device_tensor> tensors = upload_tensors(op.call);
  nlohmann::json result;
  {
    workspace_call w(op, tensors);
    const timing t = measure(w, op, d, r);
    result = {{"outputs", read_outputs(op.call, tensors)},
              {"samples_us", t.samples},
              {"warmup", r.warmup},
              {"device", r.device},
              {"runner", "aopt-acl-run"},
              {"runtime_library", acl.runtime_lib},
              {"workspace_bytes", w.workspace_capacity},
              {"timing_method", t.method},
              {"launches_per_sample", t.repeatable ? r.launches : 1},
              {"submit_us", t.submit.empty() ? 0.0 : t.submit[t.submit.size() / 2]}};
    result["written_inputs"] = read_written_inputs(op.call, tensors);
    const std::string text = result.dump(1) + "\n";
    write_file(r.rq.value("result", std::string("result.json")), text.data(), text.size());
    for (auto& dt : tensors) {
      if (dt.tensor != nullptr) acl.aclDestroyTensor(dt.tensor);
      if (dt.mem != nullptr) acl.aclrtFree(dt.mem);
    }
  }  // the workspace is freed here
  acl.aclrtDestroyEvent(d.start);
  acl.aclrtDestroyEvent(d.end);
  acl.aclrtDestroyStream(d.stream);
  acl.aclrtResetDevice(d.device);
  acl.aclFinalize();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::cerr << "usage: aopt-acl-run REQUEST.json | --check\n"
                 "Runs one request of aopt's cann backend on an Ascend device (docs/cann.md, \"The runner\").\n"
                 "--check: loads the CANN runtime and finds every function the runner calls (aopt doctor runs it).\n";
    return argc == 2 ? 0 : 2;
  }
  try {
    if (std::strcmp(argv[1], "--check") == 0) {
      acl.load();
      std::cout << "CANN runtime loaded: " << acl.runtime_lib << " and libnnopbase.so have every function aopt-acl-run calls"
                << (acl.aclSetAclOpExecutorRepeatable != nullptr ? "" : " (no aclSetAclOpExecutorRepeatable: timings will include the host's launch)")
                << (aopt::acl_abi::checked_against_cann_headers ? "; built against CANN's headers" : "") << "\n";
      return 0;
    }
    return run(argv[1]);
  } catch (const request_error& e) {
    std::cerr << "[ERROR] aopt-acl-run: " << e.what() << "\n";
    return 2;
  } catch (const acl_failure& f) {
    std::cerr << "[ERROR] " << f.call << " failed, error code " << f.code << "\n";
    if (acl.aclGetRecentErrMsg != nullptr) {
      if (const char* m = acl.aclGetRecentErrMsg(); m != nullptr && *m) std::cerr << m << "\n";
    }
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "[ERROR] aopt-acl-run: " << e.what() << "\n";
    return 1;
  }
}
