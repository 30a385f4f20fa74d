// The host harness of the `sim` backend: `host --signature` and `host --run run.json`, exactly
// as docs/harness-protocol.md specifies. Linked (with main.cpp) into every candidate's host
// executable together with the operator's op_host sources.
#include "aopt_sim/host/harness.h"
#include "aopt_sim/host/tunable.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt_sim/host/host.h"
#include "aopt_sim/host/list_tensor_desc.h"
#include "aopt_sim/host/private_format.h"
#include "aopt_sim/host/tiling_data_ptr.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/types.h"
#include "aopt_sim/profile.h"
#include "aopt_sim/runtime.h"
#include "aopt_sim/trace_io.h"
#include "register/tilingdata_base.h"
#if __has_include("aopt_sim/timing.h")
#include "aopt_sim/timing.h"
#define AOPT_HARNESS_HAVE_TIMING 1
#endif

namespace aopt::sim::harness {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using gm_ptr = std::uint8_t*;

// The request itself is malformed (an evaluator bug, not an operator result): exit code 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The operator failed before launch (tiling, InferShape, attributes): status tiling_error.
struct tiling_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct tensor_item {
  std::vector<std::int64_t> shape;
  ge::DataType dtype = ge::DT_FLOAT;
  std::string dtype_name;
  std::string file;             // as given in run.json
  std::size_t bytes = 0;        // inputs: the file's size (numel * element size)
  bool shape_given = false;
  gm_ptr gm = nullptr;          // inputs: read straight into emulated GM when the request is read
  // A private format of its OpDef column (aopt_sim/host/private_format.h): the tensor lies in GM in
  // that layout (storage_shape), the case's data in the plain origin layout; 0 when plain.
  ge::Format storage_format = ge::FORMAT_ND;
  ge::Format origin_layout = ge::FORMAT_ND;
  std::vector<std::int64_t> storage_shape;
};

struct io_arg {
  std::string name;
  std::size_t ir_index = 0;
  bool present = true;
  bool is_list = false;
  std::vector<tensor_item> items;
};

// The OpDef column a run's tensors match: the first whose dtype is each present input's and
// output's, and whose format allows each present input's rank (NCHW/NHWC: 4, NCDHW/NDHWC: 5, any
// other: any). Its formats are what the real runtime's tensor descriptors carry (the column's
// kernel is the one selected); npos when none matches (the descriptors keep ND).
std::size_t matching_column(const aopt::sim::host::op_def_record& rec, const std::vector<io_arg>& ins, const std::vector<io_arg>& outs) {
  std::size_t columns = 0;
  for (const auto* params : {&rec.inputs, &rec.outputs}) {
    for (const auto& p : *params) columns = std::max(columns, p.dtypes.size());
  }
  // A plain format that allows the rank; a private one (NC1HWC0, FRACTAL_NZ, ...) never matches:
  // sim's tensors are in their plain layout.
  auto rank_ok = [](ge::Format f, std::size_t rank) {
    switch (f) {
      case ge::FORMAT_ND: return true;
      case ge::FORMAT_NC: case ge::FORMAT_CN: return rank == 2;
      case ge::FORMAT_NCL: return rank == 3;
      case ge::FORMAT_NCHW: case ge::FORMAT_NHWC: case ge::FORMAT_HWCN: case ge::FORMAT_CHWN: return rank == 4;
      case ge::FORMAT_NCDHW: case ge::FORMAT_NDHWC: case ge::FORMAT_DHWCN: case ge::FORMAT_DHWNC: return rank == 5;
      default: return false;
    }
  };
  // Then a column with private formats (NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_Z_3D) whose plain
  // origin rank is the tensor's: the harness lays the tensor out in it (lay_out_private_formats).
  for (const bool allow_private : {false, true}) {
    for (std::size_t c = 0; c < columns; ++c) {
      bool ok = true;
      for (const auto* args : {&ins, &outs}) {
        const auto& params = args == &ins ? rec.inputs : rec.outputs;
        for (const auto& a : *args) {
          if (!a.present || a.ir_index >= params.size() || a.items.empty()) continue;
          const auto& p = params[a.ir_index];
          if (!p.dtypes.empty() && p.dtypes[std::min(c, p.dtypes.size() - 1)] != a.items.front().dtype) ok = false;
          if (args != &ins || p.formats.empty()) continue;
          const ge::Format f = p.formats[std::min(c, p.formats.size() - 1)];
          const auto origin_rank = host::private_format_origin_rank(f);
          const std::size_t rank = a.items.front().shape.size();
          if (!rank_ok(f, rank) && !(allow_private && origin_rank && *origin_rank == rank)) ok = false;
        }
      }
      if (ok) return c;
    }
  }
  return static_cast<std::size_t>(-1);
}

std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

gert::Shape to_gert(const std::vector<std::int64_t>& s) {
  gert::Shape g;
  for (auto d : s) g.AppendDim(d);
  return g;
}

std::vector<std::int64_t> from_gert(const gert::Shape& g) {
  std::vector<std::int64_t> s;
  for (std::size_t i = 0; i < g.GetDimNum(); ++i) s.push_back(g.GetDim(i));
  return s;
}

std::size_t elem_bytes(ge::DataType dt) { return static_cast<std::size_t>(ge::GetSizeByDataType(dt)); }

// The evaluator's per-run secret that tags the result channel. It lives on a page of its own
// that is unreadable (PROT_NONE) while operator code runs, so the host tiling or the kernel
// cannot copy it by reading the harness's memory in passing.
class channel_secret {
 public:
  channel_secret() {
    page_ = ::mmap(nullptr, page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page_ == MAP_FAILED) page_ = nullptr;
  }
  ~channel_secret() {
    if (page_ != nullptr) ::munmap(page_, page_bytes);
  }
  channel_secret(const channel_secret&) = delete;
  channel_secret& operator=(const channel_secret&) = delete;
  // Reads the secret (one line) from stdin: the first reader wins, so a static initializer of
  // the operator that took it leaves the harness without one, and the run fails.
  bool read_from_stdin() {
    if (page_ == nullptr) return false;
    auto* p = static_cast<char*>(page_);
    std::size_t n = 0;
    while (n + 1 < page_bytes) {
      char c;
      const ssize_t r = ::read(0, &c, 1);
      if (r <= 0 || c == '\n') break;
      p[n++] = c;
    }
    p[n] = '\0';
    len_ = n;
    return n >= 16;
  }
  void hide() {
    if (page_ != nullptr) ::mprotect(page_, page_bytes, PROT_NONE);
  }
  std::string reveal() {
    if (page_ == nullptr || ::mprotect(page_, page_bytes, PROT_READ) != 0) return {};
    return std::string(static_cast<const char*>(page_), len_);
  }

 private:
  static constexpr std::size_t page_bytes = 4096;
  void* page_ = nullptr;
  std::size_t len_ = 0;
};

// Junk that fills output buffers before the kernel runs (device memory is not zeroed): large in
// every dtype (fp16 61280, fp32/bf16 ~1.3e36, int32 2071690107, int8 123), so a kernel that
// skips part of its output fails the check. The evaluator knows it as harness_output_fill
// (evaluation/checker.h): a baseline reference's unwritten elements are not compared.
constexpr unsigned char output_junk = 0x7B;
constexpr std::size_t shape_out_words = 9;  // per output: the dimension count, then 8 dimensions (OP_OUTSHAPE)

// A screen runs the tiling twice, its stack and tiling buffer painted with each of these first
// (runner::find_junk_words).
constexpr unsigned char paint_first = 0xA5;
constexpr unsigned char paint_second = 0x5A;

// Fills the stack below the caller's frame with `paint`: the frames of the function the caller
// calls next lie in that area, so their uninitialised locals read it.
[[gnu::noinline]] void paint_stack(unsigned char paint) {
  volatile unsigned char area[64 * 1024];
  for (auto& b : area) b = paint;
}

// The file a written input's final contents go to (an "out_" name, as the result channel wants).
std::string written_file(const io_arg& a, std::size_t r) {
  return "out_written_" + a.name + (a.is_list ? "_" + std::to_string(r) : std::string()) + ".bin";
}

class runner {
 public:
  explicit runner(std::string path, int result_fd = -1, channel_secret* secret = nullptr)
      : run_path_(std::move(path)), result_fd_(result_fd), secret_(secret) {
    dir_ = fs::path(run_path_).parent_path();
  }
  ~runner() {
    for (void* p : allocations_) aopt::sim::gm_free(p);
    if (handle_ != nullptr) dlclose(handle_);
  }
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  int run();

 private:
  fs::path resolve(const std::string& f) const {
    fs::path p(f);
    return p.is_absolute() || dir_.empty() ? p : dir_ / p;
  }
  void load_request();
  tensor_item read_item(const json& j, const std::string& name, bool is_input, const std::string& gm_name);
  void read_into_gm(tensor_item& t, const fs::path& p, const std::string& where, const std::string& gm_name);
  io_arg read_arg(const json& j, const std::string& name, std::size_t ir, bool is_input);
  void build_instance();
  void set_attrs();
  void apply_data_format();
  ge::Format origin_layout_of(std::size_t rank) const;
  void lay_out_private_formats();
  void gather_private_outputs();
  void infer_outputs();
  const double* init_value(const io_arg& a, const tensor_item& t) const;
  static void fill_with(tensor_item& t, double v);
  void run_tiling();
  void call_tiling(unsigned char paint);  // paint 0: the stack and tiling buffer as they are
  void find_junk_words();
  void find_tiling_scalars();
  void allocate_gm();
  void launch_kernel();
  void find_written_inputs();
  void write_outputs();
  void write_result();
  gm_ptr alloc(std::size_t bytes, const std::string& name) {
    void* p = aopt::sim::gm_alloc_device(bytes, name);
    allocations_.push_back(p);
    return static_cast<gm_ptr>(p);
  }

  void write_frame(const json& r);
  void save_trace_file(const std::vector<core_trace>& cores);

  std::string run_path_;
  int result_fd_ = -1;               // the evaluator's result channel; -1 = result.json
  channel_secret* secret_ = nullptr;
  fs::path dir_;
  json req_;
  fs::path result_path_ = "result.json";
  device_profile profile_;
  const host::op_def_record* rec_ = nullptr;
  host::op_instance op_;
  std::vector<io_arg> inputs_;
  std::vector<io_arg> outputs_;
  // Inputs whose GM buffers the kernel changed (in-place operators): each (input, element), sent
  // back like outputs under "written_inputs" (docs/harness-protocol.md).
  std::vector<std::pair<const io_arg*, std::size_t>> written_;
  std::shared_ptr<void> compile_info_;
  std::vector<void*> allocations_;
  std::vector<gm_ptr> args_;
  // An operator with OutputShapeDependOnCompute outputs takes one more GM argument after its
  // outputs: 9 uint64 per output (its dimension count, then up to 8 dimensions), where the kernel
  // writes each such output's real shape (the documented OP_OUTSHAPE layout).
  std::uint64_t* shape_out_ = nullptr;
  void apply_computed_shapes();
  std::size_t workspace_bytes_ = 0;
  std::size_t tiling_bytes_ = 0;
  json warnings_ = json::array();  // the launch's warnings (hw_error objects), e.g. truncated_copy
  void* handle_ = nullptr;

  // result
  std::string status_ = "ok";
  std::string message_;
  json hw_error_ = nullptr;
  json timing_ = nullptr;
  std::uint32_t ub_bytes_ = 0;
  bool tiled_ = false;
  bool screen_ = false;  // "screen": true: the tiling ran, the kernel does not
  std::vector<std::size_t> junk_words_;  // a screen's tiling scalars (indices into scalars_) no run wrote
  // A screen's tiling data as scalars: one per element of each field of the operator's registered
  // tiling class (REGISTER_TILING_DATA_CLASS, when its size is the data's), else one per 32-bit word.
  struct tiling_scalar {
    std::size_t offset = 0;
    std::size_t size = 4;
    bool is_signed = false;
  };
  std::vector<tiling_scalar> scalars_;
  bool scalars_by_fields_ = false;
  std::int64_t scalar_value(const tiling_scalar& v) const;
  // Seconds per step (read_inputs, tiling, emulate, timing, write_outputs): result.json "phases".
  json phases_ = json::object();
  std::chrono::steady_clock::time_point lap_ = std::chrono::steady_clock::now();
  void lap(const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    phases_[phase] = std::chrono::duration<double>(now - lap_).count();
    lap_ = now;
  }
};

json hw_error_json(const hw_error& e) {
  return {{"kind", hw_error_kind_name(e.kind)}, {"message", e.message},   {"file", e.site.file},
          {"line", e.site.line},                {"function", e.site.function}, {"api", e.site.api},
          {"block_idx", e.block_idx}};
}

void runner::load_request() {
  std::ifstream in(run_path_);
  if (!in) throw usage_error("cannot open " + run_path_ + ": give the path of a run.json (docs/harness-protocol.md)");
  try {
    req_ = json::parse(in);
  } catch (const json::exception& e) {
    throw usage_error(run_path_ + ": not valid JSON: " + e.what());
  }
  if (!req_.is_object()) throw usage_error(run_path_ + ": the request must be a JSON object");
  result_path_ = resolve(req_.value("result", std::string("result.json")));
}

// The input file goes straight into its emulated GM buffer (no intermediate copy).
void runner::read_into_gm(tensor_item& t, const fs::path& p, const std::string& where, const std::string& gm_name) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw usage_error(where + ": cannot open tensor file " + p.string());
  struct stat st {};
  const std::size_t want = static_cast<std::size_t>(numel(t.shape)) * elem_bytes(t.dtype);
  if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != want) {
    const auto have = static_cast<std::size_t>(st.st_size);
    ::close(fd);
    throw usage_error(where + ": " + p.string() + " holds " + std::to_string(have) + " bytes but shape " +
                      shape_str(t.shape) + " of " + t.dtype_name + " needs " + std::to_string(want));
  }
  t.bytes = want;
  t.gm = alloc(want, gm_name);
  std::size_t done = 0;
  while (done < want) {
    const ssize_t n = ::read(fd, t.gm + done, want - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw usage_error(where + ": cannot read tensor file " + p.string() + " (" +
                        (n < 0 ? std::string(std::strerror(errno)) : std::string("shorter than it was")) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

tensor_item runner::read_item(const json& j, const std::string& name, bool is_input, const std::string& gm_name) {
  tensor_item t;
  const std::string where = run_path_ + ": " + (is_input ? "input '" : "output '") + name + "'";
  if (!j.is_object()) throw usage_error(where + " must be an object");
  if (!j.contains("dtype") || !j["dtype"].is_string()) throw usage_error(where + " has no \"dtype\" string");
  t.dtype_name = j["dtype"].get<std::string>();
  auto dt = host::parse_dtype(t.dtype_name);
  if (!dt) throw usage_error(where + ": unknown dtype '" + t.dtype_name + "' (use float16 float32 bfloat16 int8 ... bool)");
  t.dtype = *dt;
  if (j.contains("shape")) {
    if (!j["shape"].is_array()) throw usage_error(where + ": \"shape\" must be an array of integers");
    for (const auto& d : j["shape"]) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) {
        throw usage_error(where + ": \"shape\" must hold non-negative integers");
      }
      t.shape.push_back(d.get<std::int64_t>());
    }
    t.shape_given = true;
  } else if (is_input) {
    throw usage_error(where + " has no \"shape\"");
  }
  if (!j.contains("file") || !j["file"].is_string()) throw usage_error(where + " has no \"file\"");
  t.file = j["file"].get<std::string>();
  if (is_input) read_into_gm(t, resolve(t.file), where, gm_name);
  return t;
}

io_arg runner::read_arg(const json& j, const std::string& name, std::size_t ir, bool is_input) {
  io_arg a;
  a.name = name;
  a.ir_index = ir;
  if (j.contains("list")) {
    a.is_list = true;
    if (!j["list"].is_array()) throw usage_error(run_path_ + ": \"list\" of '" + name + "' must be an array");
    std::size_t r = 0;
    for (const auto& item : j["list"]) {
      a.items.push_back(read_item(item, name, is_input, "input " + name + "[" + std::to_string(r++) + "]"));
    }
  } else {
    a.items.push_back(read_item(j, name, is_input, "input " + name));
  }
  return a;
}

void runner::build_instance() {
  const json ins = req_.value("inputs", json::array());
  const json outs = req_.value("outputs", json::array());
  if (!ins.is_array() || !outs.is_array()) throw usage_error(run_path_ + ": \"inputs\" and \"outputs\" must be arrays");
  auto find = [](const json& arr, const std::string& name) -> const json* {
    for (const auto& e : arr) {
      if (e.is_object() && e.value("name", std::string()) == name) return &e;
    }
    return nullptr;
  };
  if (rec_->defined) {
    for (std::size_t ir = 0; ir < rec_->inputs.size(); ++ir) {
      const auto& p = rec_->inputs[ir];
      const json* j = find(ins, p.name);
      if (j == nullptr) {
        if (p.type == host::param_type::required) {
          throw usage_error(run_path_ + ": required input '" + p.name + "' of " + rec_->op_type + " is missing");
        }
        io_arg a;
        a.name = p.name;
        a.ir_index = ir;
        a.present = false;
        inputs_.push_back(std::move(a));
        continue;
      }
      inputs_.push_back(read_arg(*j, p.name, ir, true));
    }
    for (std::size_t ir = 0; ir < rec_->outputs.size(); ++ir) {
      const auto& p = rec_->outputs[ir];
      const json* j = find(outs, p.name);
      if (j == nullptr) {
        throw usage_error(run_path_ + ": output '" + p.name + "' of " + rec_->op_type +
                          " is missing (every output needs a dtype and a file)");
      }
      outputs_.push_back(read_arg(*j, p.name, ir, false));
    }
  } else {
    for (std::size_t i = 0; i < ins.size(); ++i) inputs_.push_back(read_arg(ins[i], ins[i].value("name", ""), i, true));
    for (std::size_t i = 0; i < outs.size(); ++i) outputs_.push_back(read_arg(outs[i], outs[i].value("name", ""), i, false));
  }

  op_.node_type = rec_->op_type;
  op_.node_name = rec_->op_type;
  op_.ir_input_count = inputs_.size();
  op_.ir_output_count = outputs_.size();
  op_.platform = host::default_platform();
  auto fill_slot = [](host::io_slot& s, const io_arg& a, std::size_t rel, const tensor_item& t) {
    s.name = a.name;
    s.ir_index = a.ir_index;
    s.relative = rel;
    s.shape.MutableOriginShape() = to_gert(t.shape);
    s.shape.MutableStorageShape() = to_gert(t.shape);
    s.desc.SetDataType(t.dtype);
    s.tensor.MutableShape() = s.shape;
    s.tensor.SetDataType(t.dtype);
    if (t.gm != nullptr && t.bytes > 0) s.tensor.SetData(t.gm, t.bytes);
  };
  for (const auto& a : inputs_) {
    if (!a.present) continue;
    for (std::size_t r = 0; r < a.items.size(); ++r) {
      op_.inputs.emplace_back();
      fill_slot(op_.inputs.back(), a, r, a.items[r]);
    }
  }
  for (const auto& a : outputs_) {
    for (std::size_t r = 0; r < a.items.size(); ++r) {
      op_.outputs.emplace_back();
      fill_slot(op_.outputs.back(), a, r, a.items[r]);
    }
  }
  // The formats of the OpDef column the tensors match (ND when none does).
  if (rec_->defined) {
    const std::size_t col = matching_column(*rec_, inputs_, outputs_);
    auto set_format = [&](host::io_slot& s, const std::vector<host::param_def>& params) {
      if (col == static_cast<std::size_t>(-1) || s.ir_index >= params.size() || params[s.ir_index].formats.empty()) return;
      const auto& formats = params[s.ir_index].formats;
      const ge::Format f = formats[std::min(col, formats.size() - 1)];
      s.desc.SetOriginFormat(f);
      s.desc.SetStorageFormat(f);
      s.tensor.SetOriginFormat(f);
      s.tensor.SetStorageFormat(f);
    };
    for (auto& sl : op_.inputs) set_format(sl, rec_->inputs);
    for (auto& sl : op_.outputs) set_format(sl, rec_->outputs);
    lay_out_private_formats();
  }
}

// The plain layout a private-format tensor of this rank comes from: the operator's data_format
// (the case's, else its OpDef default) when it names one of this rank, else NCHW / NCDHW.
ge::Format runner::origin_layout_of(std::size_t rank) const {
  std::string df;
  const json attrs = req_.value("attrs", json::object());
  if (attrs.is_object() && attrs.contains("data_format") && attrs["data_format"].is_string()) {
    df = attrs["data_format"].get<std::string>();
  } else {
    for (const auto& a : rec_->attrs) {
      if (a.name == "data_format" && a.kind == gert::AoptAttrValue::kind::string) df = a.default_value.s;
    }
  }
  const ge::Format f = host::layout_of_data_format(df, rank);
  if (f == ge::FORMAT_NCHW || f == ge::FORMAT_NHWC || f == ge::FORMAT_NCDHW || f == ge::FORMAT_NDHWC) return f;
  return rank == 4 ? ge::FORMAT_NCHW : ge::FORMAT_NCDHW;
}

// A tensor whose column format is private (aopt_sim/host/private_format.h) is given to the operator
// as the runtime's TransData would: its descriptor's origin format the plain layout and origin shape
// the case's, its storage format and shape the private ones, and an input's data moved into that
// layout in GM (padding zero). An output's storage shape follows once its shape is known
// (infer_outputs); its data comes back to the plain layout after the run (gather_private_outputs).
void runner::lay_out_private_formats() {
  for (auto* args : {&inputs_, &outputs_}) {
    auto& slots = args == &inputs_ ? op_.inputs : op_.outputs;
    std::size_t k = 0;  // the slot of each present item, in order
    for (auto& a : *args) {
      if (args == &inputs_ && !a.present) continue;
      for (auto& t : a.items) {
        auto& s = slots[k++];
        const ge::Format f = s.desc.GetStorageFormat();
        if (!host::private_format_origin_rank(f)) continue;
        t.storage_format = f;
        t.origin_layout = origin_layout_of(host::private_format_origin_rank(f).value());
        s.desc.SetOriginFormat(t.origin_layout);
        s.tensor.SetOriginFormat(t.origin_layout);
        if (args == &inputs_) {
          const auto storage = host::private_storage_shape(f, t.origin_layout, t.shape, elem_bytes(t.dtype));
          const auto idx = host::private_format_index(f, t.origin_layout, t.shape, elem_bytes(t.dtype));
          if (!storage) throw tiling_failure("input '" + a.name + "' " + shape_str(t.shape) + " does not fit its private format");
          t.storage_shape = *storage;
          const std::size_t e = elem_bytes(t.dtype), bytes = static_cast<std::size_t>(numel(*storage)) * e;
          gm_ptr laid = alloc(bytes, "input " + a.name);
          std::memset(laid, 0, bytes);
          for (std::size_t i = 0; i < idx.size(); ++i) std::memcpy(laid + idx[i] * e, t.gm + i * e, e);
          t.gm = laid;
          t.bytes = bytes;
          s.shape.MutableStorageShape() = to_gert(*storage);
          s.tensor.MutableShape() = s.shape;
          s.tensor.SetData(t.gm, t.bytes);
        }
      }
    }
  }
}

// After the run: each private-format output back in its plain layout at the start of its GM.
void runner::gather_private_outputs() {
  for (auto& a : outputs_) {
    for (auto& t : a.items) {
      if (t.storage_format == ge::FORMAT_ND || t.gm == nullptr) continue;
      const auto idx = host::private_format_index(t.storage_format, t.origin_layout, t.shape, elem_bytes(t.dtype));
      const std::size_t e = elem_bytes(t.dtype);
      std::vector<std::byte> plain(idx.size() * e);
      for (std::size_t i = 0; i < idx.size(); ++i) std::memcpy(plain.data() + i * e, t.gm + idx[i] * e, e);
      std::memcpy(t.gm, plain.data(), plain.size());
    }
  }
}

void runner::set_attrs() {
  const json attrs = req_.value("attrs", json::object());
  if (!attrs.is_object()) throw usage_error(run_path_ + ": \"attrs\" must be an object");
  using K = gert::AoptAttrValue::kind;
  // The OpDef's attributes, then the private ones (IMPL_OP_*.PrivateAttr), as GE lays them out.
  std::vector<const aopt::sim::host::attr_def*> defs;
  for (const auto& def : rec_->attrs) defs.push_back(&def);
  for (const auto& def : rec_->private_attrs) defs.push_back(&def);
  for (const auto* defp : defs) {
    const auto& def = *defp;
    auto v = std::make_unique<gert::AoptAttrValue>(def.default_value);
    v->k = def.kind;
    if (attrs.contains(def.name)) {
      const json& j = attrs[def.name];
      try {
        switch (def.kind) {
          case K::boolean: v->b = j.get<bool>(); break;
          case K::int64: case K::data_type: v->i = j.get<std::int64_t>(); break;
          case K::float32: v->f = j.get<float>(); break;
          case K::string: v->s = j.get<std::string>(); break;
          case K::list_int: v->li = j.get<std::vector<std::int64_t>>(); break;
          case K::list_float: v->lf = j.get<std::vector<float>>(); break;
          case K::list_bool: {
            v->lb.clear();
            for (const auto& b : j) v->lb.push_back(b.get<bool>() ? 1 : 0);
            break;
          }
          case K::none: break;
        }
      } catch (const json::exception& e) {
        throw usage_error(run_path_ + ": attribute '" + def.name + "' has the wrong JSON type for its OpDef type: " +
                          e.what());
      }
    } else if (def.required && !def.has_value) {
      // A required attribute the OpDef writes a value for (`.AttrType(REQUIRED).String("LSTM")`)
      // takes that value, as aopt init drafts it (msOpST cases of rnn/dynamic_rnnv2 leave them out).
      throw tiling_failure("required attribute '" + def.name + "' of " + rec_->op_type +
                           " has no value: add it to the case's \"attrs\"");
    }
    op_.attrs.aopt_add(std::move(v));
  }
}

// An operator whose OpDef declares ND but which has a string attribute `data_format` gets, in a
// framework graph, tensors in the layout that attribute names; its InferShape and tiling read it
// from the descriptors (avg_pool3_d: x's origin format NDHWC or NCDHW, nothing else). Each ND
// tensor of that layout's rank takes it, and so does an output not shaped yet when an input did
// [ASSUMED: as a graph's producer would set them].
void runner::apply_data_format() {
  std::size_t index = 0;
  for (; index < rec_->attrs.size(); ++index) {
    if (rec_->attrs[index].name == "data_format" && rec_->attrs[index].kind == gert::AoptAttrValue::kind::string) break;
  }
  if (index >= rec_->attrs.size()) return;
  const char* value = op_.attrs.GetStr(index);
  if (value == nullptr) return;
  // An output InferShape has not shaped yet (rank 0) takes the layout of the first input given one.
  ge::Format first = ge::FORMAT_ND;
  for (auto* slots : {&op_.inputs, &op_.outputs}) {
    for (auto& s : *slots) {
      if (s.desc.GetOriginFormat() != ge::FORMAT_ND) continue;
      const std::size_t rank = s.shape.GetOriginShape().GetDimNum();
      const ge::Format f = slots == &op_.outputs && rank == 0 ? first : host::layout_of_data_format(value, rank);
      if (f == ge::FORMAT_ND) continue;
      if (first == ge::FORMAT_ND && slots == &op_.inputs) first = f;
      s.desc.SetOriginFormat(f);
      s.desc.SetStorageFormat(f);
      s.tensor.SetOriginFormat(f);
      s.tensor.SetStorageFormat(f);
    }
  }
}

void runner::infer_outputs() {
  bool need_shape = false;
  for (const auto& a : outputs_) {
    for (const auto& t : a.items) need_shape = need_shape || !t.shape_given;
  }
  if (need_shape && rec_->infer_shape != nullptr) {
    gert::InferShapeContext ctx(&op_);
    ge::graphStatus st = ge::GRAPH_FAILED;
    try {
      st = rec_->infer_shape(&ctx);
    } catch (const std::exception& e) {
      throw tiling_failure(std::string("InferShape threw: ") + e.what());
    }
    if (st != ge::GRAPH_SUCCESS) {
      throw tiling_failure("InferShape of " + rec_->op_type + " returned failure (" + std::to_string(st) + ")");
    }
  }
  std::vector<std::int64_t> first_input;
  for (const auto& a : inputs_) {
    if (a.present && !a.items.empty()) {
      first_input = a.items.front().shape;
      break;
    }
  }
  std::size_t slot = 0;
  for (auto& a : outputs_) {
    for (auto& t : a.items) {
      auto& s = op_.outputs[slot++];
      if (!t.shape_given) {
        // Without InferShape: the first input's shape; an element of a tensor-list output takes
        // the shape of the same element of the first tensor-list input (foreach: y[k] like x[k]).
        std::vector<std::int64_t> fallback = first_input;
        if (a.is_list) {
          const std::size_t k = static_cast<std::size_t>(&t - a.items.data());
          for (const auto& in : inputs_) {
            if (in.present && in.is_list) {
              if (k < in.items.size()) fallback = in.items[k].shape;
              break;
            }
          }
        }
        t.shape = rec_->infer_shape != nullptr ? from_gert(s.shape.GetOriginShape()) : fallback;
        for (auto d : t.shape) {
          if (d < 0) {
            throw tiling_failure("InferShape gave output '" + a.name + "' the shape " + shape_str(t.shape) +
                                 " with an unknown dimension: give the shape in the case");
          }
        }
      }
      s.shape.MutableOriginShape() = to_gert(t.shape);
      s.shape.MutableStorageShape() = to_gert(t.shape);
      if (t.storage_format != ge::FORMAT_ND) {
        const auto storage = host::private_storage_shape(t.storage_format, t.origin_layout, t.shape, elem_bytes(t.dtype));
        if (!storage) throw tiling_failure("output '" + a.name + "' " + shape_str(t.shape) + " does not fit its private format");
        t.storage_shape = *storage;
        s.shape.MutableStorageShape() = to_gert(*storage);
      }
      s.tensor.MutableShape() = s.shape;
    }
  }
}

void runner::run_tiling() {
  if (rec_->tiling == nullptr) {
    throw tiling_failure("no tiling function is registered for " + rec_->op_type +
                         ": use this->AICore().SetTiling(TilingFunc) or IMPL_OP_OPTILING(" + rec_->op_type +
                         ").Tiling(TilingFunc)");
  }
  if (rec_->make_compile_info) {
    compile_info_ = rec_->make_compile_info();
    op_.compile_info = compile_info_.get();
    gert::TilingParseContext pctx(compile_info_.get(), op_.platform, op_.node_name.c_str());
    ge::graphStatus st = ge::GRAPH_FAILED;
    try {
      st = rec_->tiling_parse(&pctx);
    } catch (const std::exception& e) {
      throw tiling_failure(std::string("TilingParse threw: ") + e.what());
    }
    if (st != ge::GRAPH_SUCCESS) throw tiling_failure("TilingParse returned failure (" + std::to_string(st) + ")");
  }
  const bool screen = req_.value("screen", false);
  call_tiling(screen ? paint_first : 0);
  tiled_ = true;
  tiling_bytes_ = op_.raw_tiling.GetDataSize();
  if (tiling_bytes_ == 0) {
    throw tiling_failure("the tiling function left the tiling data size at 0: call "
                         "context->GetRawTilingData()->SetDataSize(tiling.GetDataSize()) after SaveToBuffer");
  }
  if (tiling_bytes_ > op_.raw_tiling.GetCapacity()) {
    throw tiling_failure("tiling data size " + std::to_string(tiling_bytes_) + " exceeds the buffer capacity " +
                         std::to_string(op_.raw_tiling.GetCapacity()));
  }
  if (op_.block_dim == 0) {
    throw tiling_failure("the tiling function set block dim 0 (call context->SetBlockDim(n) with n >= 1)");
  }
  if (op_.block_dim > 65535) {
    throw tiling_failure("block dim " + std::to_string(op_.block_dim) + " exceeds 65535");
  }
  workspace_bytes_ = op_.workspace_num > 0 ? op_.workspaces[0] : 0;
  if (screen) find_junk_words();
}

void runner::call_tiling(unsigned char paint) {
  gert::TilingContext ctx(&op_);
  if (paint != 0) {
    std::memset(op_.raw_tiling.GetData(), paint, op_.raw_tiling.GetCapacity());
    paint_stack(paint);
  }
  ge::graphStatus st = ge::GRAPH_FAILED;
  // A tiling class bound to the raw buffer by SetDataPtr writes into it during this call only.
  aopt::sim::host::clear_data_ptr_bindings();
  try {
    st = rec_->tiling(&ctx);
  } catch (const std::exception& e) {
    aopt::sim::host::clear_data_ptr_bindings();
    throw tiling_failure(std::string("the tiling function threw: ") + e.what());
  }
  aopt::sim::host::clear_data_ptr_bindings();
  if (st != ge::GRAPH_SUCCESS) {
    throw tiling_failure("the tiling function of " + rec_->op_type + " returned failure (" + std::to_string(st) +
                         "); its OP_LOGE output is on stderr");
  }
}

// The scalars of a screen's tiling data: the registered tiling class's fields by their types when
// the class is this operator's and its size is the data's, padded to 8 or not (a uint16 array is one scalar per
// element, an int64 one scalar), else the data as 32-bit words. Padding between fields is skipped.
void runner::find_tiling_scalars() {
  scalars_.clear();
  scalars_by_fields_ = false;
  const auto& classes = host::tiling_classes();
  const auto it = classes.find(rec_->op_type);
  if (it != classes.end() && it->second.layout != nullptr &&
      (it->second.size == tiling_bytes_ || (it->second.size + 7) / 8 * 8 == tiling_bytes_)) {  // GetDataSize pads to 8
    host::tiling_layout fields;
    it->second.layout(fields, 0);
    for (const auto& f : fields) {
      const bool known = f.elem_size == 1 || f.elem_size == 2 || f.elem_size == 4 || f.elem_size == 8;
      const std::size_t size = known ? f.elem_size : 4;
      const std::size_t count = known ? f.count : f.count * f.elem_size / 4;
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t at = f.offset + i * size;
        if (at + size <= tiling_bytes_) scalars_.push_back({at, size, known && f.is_signed});
      }
    }
    scalars_by_fields_ = true;
    return;
  }
  for (std::size_t at = 0; at + 4 <= tiling_bytes_; at += 4) scalars_.push_back({at, 4, false});
}

std::int64_t runner::scalar_value(const tiling_scalar& v) const {
  const auto* bytes = static_cast<const unsigned char*>(op_.raw_tiling.GetData()) + v.offset;
  std::uint64_t u = 0;
  for (std::size_t b = 0; b < v.size; ++b) u |= static_cast<std::uint64_t>(bytes[b]) << (8 * b);  // little-endian
  if (v.is_signed && v.size < 8 && (u >> (8 * v.size - 1)) != 0) u |= ~std::uint64_t{0} << (8 * v.size);
  return static_cast<std::int64_t>(u);
}

// A screen's tiling ran on a stack and tiling buffer painted with paint_first; run it again on
// paint_second: a scalar of the tiling data that differs was never written (a stack array copied
// in part, as xlogy's shape[128]). Such scalars are reported as 0 and listed in "junk_words", so
// the search never reads them as lengths or counts.
void runner::find_junk_words() {
  find_tiling_scalars();
  const auto* data = static_cast<const unsigned char*>(op_.raw_tiling.GetData());
  const std::vector<unsigned char> first(data, data + tiling_bytes_);
  try {
    call_tiling(paint_second);
  } catch (const tiling_failure&) {
    return;  // a tiling that fails the second time: nothing learned, the first run's words stand
  }
  if (op_.raw_tiling.GetDataSize() != tiling_bytes_) return;
  auto* now = static_cast<unsigned char*>(op_.raw_tiling.GetData());
  for (std::size_t i = 0; i < scalars_.size(); ++i) {
    const auto& v = scalars_[i];
    if (std::memcmp(first.data() + v.offset, now + v.offset, v.size) == 0) continue;
    junk_words_.push_back(i);
    std::memset(now + v.offset, 0, v.size);
  }
}

// Each OutputShapeDependOnCompute output takes the shape its kernel wrote (apply after a clean
// run): the spec's shape was its upper bound, allocated in full; what lies past the real size is
// not output. A shape that is not one (no dimensions, more than 8, more elements than were
// allocated) is the kernel's error.
void runner::apply_computed_shapes() {
  if (shape_out_ == nullptr) return;
  for (auto& a : outputs_) {
    if (a.ir_index >= rec_->outputs.size() || !rec_->outputs[a.ir_index].shape_depends_on_compute || a.is_list) continue;
    if (!a.present || a.items.empty()) continue;
    auto& t = a.items.front();
    const std::uint64_t* w = shape_out_ + a.ir_index * shape_out_words;
    std::vector<std::int64_t> shape(w + 1, w + 1 + std::min<std::uint64_t>(w[0], shape_out_words - 1));
    const bool fits = w[0] >= 1 && w[0] <= shape_out_words - 1 &&
                      std::all_of(shape.begin(), shape.end(), [](std::int64_t d) { return d >= 0; }) && numel(shape) <= numel(t.shape);
    if (!fits) {
      status_ = "runtime_error";
      message_ = "output '" + a.name + "' is OutputShapeDependOnCompute, but the shape its kernel wrote (" + std::to_string(w[0]) +
                 " dimensions) is not one of at most 8 dimensions within the " + std::to_string(numel(t.shape)) +
                 " elements allocated for it (the case's shape, its upper bound): write the dimension count, then the dimensions, "
                 "as uint64, into the GM argument after the outputs";
      return;
    }
    t.shape = shape;
  }
}

// The OpDef's InitValue for output `a` (docs/harness-protocol.md "Output fill"), or null: the one
// value, or the entry of the OpDef column the run's tensors match.
const double* runner::init_value(const io_arg& a, const tensor_item& t) const {
  if (!rec_->defined || a.ir_index >= rec_->outputs.size()) return nullptr;
  const auto& p = rec_->outputs[a.ir_index];
  if (p.init_values.empty()) return nullptr;
  if (p.init_values.size() == 1) return &p.init_values.front();
  std::size_t col = matching_column(*rec_, inputs_, outputs_);
  if (col >= p.init_values.size()) {  // no column matches all tensors: the first of this output's dtype
    const auto it = std::find(p.dtypes.begin(), p.dtypes.end(), t.dtype);
    col = it == p.dtypes.end() ? 0 : static_cast<std::size_t>(it - p.dtypes.begin());
  }
  return &p.init_values[std::min(col, p.init_values.size() - 1)];
}

// Writes `v` into every element of output `t`, in its dtype.
void runner::fill_with(tensor_item& t, double v) {
  const auto n = static_cast<std::size_t>(numel(t.storage_format != ge::FORMAT_ND ? t.storage_shape : t.shape));
  auto fill = [&](auto x) {
    auto* d = reinterpret_cast<decltype(x)*>(t.gm);
    for (std::size_t i = 0; i < n; ++i) d[i] = x;
  };
  switch (t.dtype) {
    case ge::DT_FLOAT: return fill(static_cast<float>(v));
    case ge::DT_FLOAT16: return fill(static_cast<half>(static_cast<float>(v)));
    case ge::DT_BF16: return fill(bfloat16_t(static_cast<float>(v)));
    case ge::DT_DOUBLE: return fill(v);
    case ge::DT_INT8: return fill(static_cast<std::int8_t>(v));
    case ge::DT_UINT8: return fill(static_cast<std::uint8_t>(v));
    case ge::DT_BOOL: return fill(static_cast<std::uint8_t>(v != 0));
    case ge::DT_INT16: return fill(static_cast<std::int16_t>(v));
    case ge::DT_UINT16: return fill(static_cast<std::uint16_t>(v));
    case ge::DT_INT32: return fill(static_cast<std::int32_t>(v));
    case ge::DT_UINT32: return fill(static_cast<std::uint32_t>(v));
    case ge::DT_INT64: return fill(static_cast<std::int64_t>(v));
    case ge::DT_UINT64: return fill(static_cast<std::uint64_t>(v));
    default:
      if (v == 0) std::memset(t.gm, 0, n * elem_bytes(t.dtype));  // any other dtype: zero is all-zero bytes
  }
}

void runner::allocate_gm() {
  // A Ref parameter, an output named like an input (Input("y") and Output("y")): one tensor, as on
  // the chip, where the caller passes the same tensor for both (aclnn's `yRef`). The output's
  // argument is the input's GM, whichever of the two the kernel writes through; its result is the
  // final content (and the input comes back as written too). Not when shapes or dtypes differ.
  auto ref_input = [&](const io_arg& o) -> const io_arg* {
    for (const auto& in : inputs_) {
      if (!in.present || in.name != o.name || in.is_list != o.is_list || in.items.size() != o.items.size()) continue;
      for (std::size_t r = 0; r < in.items.size(); ++r) {
        if (in.items[r].shape != o.items[r].shape || in.items[r].dtype != o.items[r].dtype) return nullptr;
      }
      return &in;
    }
    return nullptr;
  };
  auto place = [&](io_arg& a, bool is_input) -> gm_ptr {
    if (!a.present) return nullptr;
    const io_arg* same = is_input ? nullptr : ref_input(a);
    for (std::size_t r = 0; r < a.items.size(); ++r) {
      auto& t = a.items[r];
      if (is_input) continue;  // already in GM (read_into_gm)
      if (same != nullptr) {
        t.gm = same->items[r].gm;
        continue;
      }
      const auto& laid = t.storage_format != ge::FORMAT_ND ? t.storage_shape : t.shape;
      const std::size_t bytes = static_cast<std::size_t>(numel(laid)) * elem_bytes(t.dtype);
      t.gm = alloc(bytes, "output " + a.name + (a.is_list ? "[" + std::to_string(r) + "]" : ""));
      std::memset(t.gm, output_junk, bytes);
      if (const double* v = init_value(a, t)) fill_with(t, *v);
    }
    if (!a.is_list) return a.items.front().gm;
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<const void*> ptrs;
    for (const auto& t : a.items) {
      shapes.push_back(t.shape);
      ptrs.push_back(t.gm);
    }
    const auto words = host::build_list_desc(shapes, ptrs);
    gm_ptr d = alloc(words.size() * sizeof(std::uint64_t), "tensor list " + a.name);
    std::memcpy(d, words.data(), words.size() * sizeof(std::uint64_t));
    return d;
  };
  for (auto& a : inputs_) args_.push_back(place(a, true));
  for (auto& a : outputs_) args_.push_back(place(a, false));
  const bool computed = std::any_of(outputs_.begin(), outputs_.end(), [&](const io_arg& a) {
    return a.ir_index < rec_->outputs.size() && rec_->outputs[a.ir_index].shape_depends_on_compute;
  });
  if (computed) {
    const std::size_t bytes = rec_->outputs.size() * shape_out_words * sizeof(std::uint64_t);
    shape_out_ = reinterpret_cast<std::uint64_t*>(alloc(bytes, "output shapes"));
    std::memset(shape_out_, 0, bytes);
    args_.push_back(reinterpret_cast<gm_ptr>(shape_out_));
  }
  // Workspace: the system part the library API reserves (GetLibApiWorkSpaceSize; the kernel's
  // GetUserWorkspace skips it) followed by what the tiling asked for in GetWorkspaceSizes()[0].
  args_.push_back(alloc(workspace_bytes_ + aopt::sim::sys_workspace_bytes, "workspace"));
  gm_ptr tiling = alloc(tiling_bytes_, "tiling");
  std::memcpy(tiling, op_.raw_tiling.GetData(), tiling_bytes_);
  args_.push_back(tiling);
}

template <std::size_t... I>
void call_with(void* sym, gm_ptr* a, std::index_sequence<I...>) {
  using fn_t = void (*)(decltype((void)I, gm_ptr{})...);
  fn_t f;
  static_assert(sizeof f == sizeof sym);
  std::memcpy(&f, &sym, sizeof f);
  f(a[I]...);
}

constexpr std::size_t max_kernel_args = 48;

template <std::size_t N>
void call_arity(void* sym, std::vector<gm_ptr>& a) {
  if (a.size() == N) {
    call_with(sym, a.data(), std::make_index_sequence<N>{});
  } else if constexpr (N > 1) {
    call_arity<N - 1>(sym, a);
  } else {
    throw std::runtime_error("kernel called with " + std::to_string(a.size()) + " arguments");
  }
}

void runner::launch_kernel() {
  const std::string so = req_.value("kernel_so", std::string());
  if (so.empty()) throw usage_error(run_path_ + ": \"kernel_so\" is missing");
  const std::string kernel = req_.value("kernel", rec_->kernel);
  const fs::path so_path = resolve(so);
  aopt::sim::clear_declared_kernel_types();  // the kernel declares its own when it loads
  handle_ = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* err = dlerror();
    status_ = "runtime_error";
    message_ = "cannot load kernel " + so_path.string() + ": " + (err ? err : "unknown dlopen error") +
               " (an undefined symbol means the kernel uses an API the sim does not provide)";
    return;
  }
  // A kernel named like a C library function is built as aopt_kernel_entry_<name> (the plain
  // name would find libm's function through the object's dependencies).
  void* plain = dlsym(handle_, ("aopt_kernel_entry_" + kernel).c_str());
  if (plain == nullptr) plain = dlsym(handle_, kernel.c_str());
  void* tpl = plain == nullptr ? dlsym(handle_, ("aopt_tpl_entry_" + kernel).c_str()) : nullptr;
  if (plain == nullptr && tpl == nullptr) {
    status_ = "runtime_error";
    message_ = "kernel " + so_path.string() + " has no function '" + kernel + "': declare it extern \"C\" " +
               "__global__ __aicore__ void " + kernel + "(...), or for a templated entry build the wrapper with " +
               "AOPT_TPL_KERNEL_ENTRY(" + kernel + ")";
    return;
  }
  aopt::sim::set_kernel_image(plain != nullptr ? plain : tpl);
  if (args_.size() > max_kernel_args) {
    status_ = "runtime_error";
    message_ = "kernel has " + std::to_string(args_.size()) + " GM arguments; the harness supports up to " +
               std::to_string(max_kernel_args);
    return;
  }

  launch_options opts;
  opts.block_dim = op_.block_dim;
  opts.core_count = profile_.aiv_cores;
  opts.ub_bytes = static_cast<std::uint32_t>(profile_.ub_bytes);
  opts.l1_bytes = static_cast<std::uint32_t>(profile_.l1_bytes);
  opts.l0a_bytes = static_cast<std::uint32_t>(profile_.l0a_bytes);
  opts.l0b_bytes = static_cast<std::uint32_t>(profile_.l0b_bytes);
  opts.l0c_bytes = static_cast<std::uint32_t>(profile_.l0c_bytes);
  opts.bt_bytes = static_cast<std::uint32_t>(profile_.bt_bytes);
  opts.fb_bytes = static_cast<std::uint32_t>(profile_.fb_bytes);
  opts.record_trace = req_.value("timing", true);
  opts.tiling_key = op_.tiling_key;
  opts.aic_count = profile_.aic_cores;
  opts.kernel = aopt::sim::declared_kernel_type(op_.tiling_key).value_or(aopt::sim::kernel_type::aiv_only);
  auto body = [&] {
    try {
      if (plain != nullptr) {
        std::vector<gm_ptr> a = args_;
        call_arity<max_kernel_args>(plain, a);
      } else {
        using tpl_fn = void (*)(gm_ptr*, std::size_t);
        tpl_fn f;
        std::memcpy(&f, &tpl, sizeof f);
        std::vector<gm_ptr> a = args_;
        f(a.data(), a.size());
      }
    } catch (const hw_fault&) {
      throw;
    } catch (const std::exception& e) {
      hw_error err;
      err.kind = hw_error_kind::invalid_use;
      err.message = e.what();
      err.block_idx = aopt::sim::block_idx();
      throw hw_fault{err};
    }
  };
  launch_result lr;
  lap("prepare_launch");
  try {
    lr = aopt::sim::launch(opts, body);
    lap("emulate");
  } catch (const std::exception& e) {
    status_ = "runtime_error";
    message_ = std::string("launch failed: ") + e.what();
    return;
  }
  for (const auto& c : lr.cores) ub_bytes_ = std::max(ub_bytes_, c.ub_peak_bytes);
  for (const auto& w : lr.warnings) warnings_.push_back(hw_error_json(w));
  if (lr.error) {
    status_ = "runtime_error";
    message_ = lr.error->to_string();
    hw_error_ = hw_error_json(*lr.error);
    return;
  }
  apply_computed_shapes();
  if (status_ == "runtime_error") return;
  if (!opts.record_trace) return;
  save_trace_file(lr.cores);
#ifdef AOPT_HARNESS_HAVE_TIMING
  try {
    // Blocks of AIC-only and mixed kernels occupy AI Cores (one AIC with its AIVs each).
    timing_options topts;
    if (aopt::sim::kernel_aic_per_block(opts.kernel) > 0) {
      topts.cores = profile_.aic_cores * (aopt::sim::kernel_aic_per_block(opts.kernel) +
                                          aopt::sim::kernel_aiv_per_block(opts.kernel));
    }
    const timing_report rep = simulate(lr.cores, profile_, topts);
    timing_ = rep.to_json();
    lap("timing");
    if (rep.error) {
      status_ = "runtime_error";
      message_ = rep.error->to_string();
      hw_error_ = hw_error_json(*rep.error);
    }
  } catch (const std::exception& e) {
    status_ = "runtime_error";
    message_ = std::string("timing model failed: ") + e.what();
  }
#else
  timing_ = json{{"simulated", true}, {"profile", profile_.name}, {"unavailable", "built without aopt_sim_timing"}};
#endif
}

// "trace_file" in run.json: the launch's traces for replay under other profiles (aopt calibrate).
void runner::save_trace_file(const std::vector<core_trace>& cores) {
  const std::string file = req_.value("trace_file", std::string());
  if (file.empty()) return;
  try {
    save_traces(resolve(file), cores);
  } catch (const std::exception& e) {
    status_ = "runtime_error";
    message_ = e.what();
  }
}

// An input the kernel wrote: its GM bytes differ from the file it was read from (the file is
// the evaluator's, read-only; compared after the launch, not copied before it).
void runner::find_written_inputs() {
  for (const auto& a : inputs_) {
    if (!a.present) continue;
    bool changed = false;
    for (std::size_t r = 0; r < a.items.size() && !changed; ++r) {
      const auto& t = a.items[r];
      if (t.gm == nullptr || t.bytes == 0 || t.storage_format != ge::FORMAT_ND) continue;  // private: not compared
      const int fd = ::open(resolve(t.file).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      void* m = ::mmap(nullptr, t.bytes, PROT_READ, MAP_PRIVATE, fd, 0);
      ::close(fd);
      if (m == MAP_FAILED) continue;
      changed = std::memcmp(m, t.gm, t.bytes) != 0;
      ::munmap(m, t.bytes);
    }
    // A tensor list goes back whole when any element changed (positions stay indices).
    if (changed) {
      for (std::size_t r = 0; r < a.items.size(); ++r) written_.emplace_back(&a, r);
    }
  }
}

void runner::write_outputs() {
  for (const auto& [a, r] : written_) {
    if (result_fd_ >= 0) break;
    const auto& t = a->items[r];
    const fs::path p = resolve(written_file(*a, r));
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    if (!f) throw usage_error("cannot write output file " + p.string());
    f.write(reinterpret_cast<const char*>(t.gm), static_cast<std::streamsize>(t.bytes));
  }
  if (result_fd_ >= 0) return;  // they travel in the result frame
  for (const auto& a : outputs_) {
    for (const auto& t : a.items) {
      if (t.gm == nullptr) continue;
      const fs::path p = resolve(t.file);
      std::ofstream f(p, std::ios::binary | std::ios::trunc);
      if (!f) throw usage_error("cannot write output file " + p.string());
      const std::size_t bytes = static_cast<std::size_t>(numel(t.shape)) * elem_bytes(t.dtype);
      f.write(reinterpret_cast<const char*>(t.gm), static_cast<std::streamsize>(bytes));
    }
  }
}

void runner::write_result() {
  json outs = json::array();
  for (const auto& a : outputs_) {
    auto item_json = [](const tensor_item& t) {
      return json{{"shape", t.shape}, {"dtype", t.dtype_name}, {"file", t.file}};
    };
    if (a.is_list) {
      json l = json::array();
      for (const auto& t : a.items) l.push_back(item_json(t));
      outs.push_back({{"name", a.name}, {"list", l}});
    } else if (!a.items.empty()) {
      json o = item_json(a.items.front());
      o["name"] = a.name;
      outs.push_back(o);
    }
  }
  json written = json::array();
  for (std::size_t i = 0; i < written_.size();) {
    const io_arg& a = *written_[i].first;
    auto item = [&](std::size_t r) {
      return json{{"shape", a.items[r].shape}, {"dtype", a.items[r].dtype_name}, {"file", written_file(a, r)}};
    };
    if (a.is_list) {
      json l = json::array();
      for (; i < written_.size() && written_[i].first == &a; ++i) l.push_back(item(written_[i].second));
      written.push_back({{"name", a.name}, {"list", l}});
    } else {
      json o = item(written_[i].second);
      o["name"] = a.name;
      written.push_back(o);
      ++i;
    }
  }
  json r = {{"status", status_}, {"message", message_}, {"outputs", outs}, {"written_inputs", written}, {"ub_bytes", ub_bytes_}, {"ub_usable", profile_.ub_usable_bytes},
            {"hw_error", hw_error_}, {"warnings", warnings_}, {"timing", timing_}, {"phases", phases_}};
  if (aopt_sim::tunables_given() > 0) {
    r["tunables"] = {{"given", aopt_sim::tunables_given()}, {"read", aopt_sim::tunables_read()}};
  }
  r["tiling"] = tiled_ ? json{{"block_dim", op_.block_dim},
                              {"tiling_key", op_.tiling_key},
                              {"workspace_bytes", workspace_bytes_},
                              {"tiling_bytes", tiling_bytes_}}
                       : json(nullptr);
  if (tiled_ && screen_) {
    // The tiling data's scalars (find_tiling_scalars): "words" by its history, "layout" says whether
    // they are the registered class's fields or 32-bit words.
    json words = json::array();
    for (const auto& v : scalars_) words.push_back(scalar_value(v));
    r["tiling"]["words"] = std::move(words);
    r["tiling"]["layout"] = scalars_by_fields_ ? "fields" : "words";
    r["tiling"]["junk_words"] = junk_words_;
    r["tiling"]["core_count"] = profile_.aiv_cores;
    r["tiling"]["ub_capacity"] = profile_.ub_bytes;
    r["tiling"]["ub_usable"] = profile_.ub_usable_bytes;
    r["outputs"] = json::array();
    // The shapes InferShape gave (or the run.json set), one entry per tensor of a list.
    json shapes = json::array();
    for (const auto& a : outputs_) {
      for (const auto& t : a.items) shapes.push_back({{"name", a.name}, {"shape", t.shape}});
    }
    r["output_shapes"] = std::move(shapes);
  }
  if (result_fd_ >= 0) {
    write_frame(r);
    return;
  }
  std::ofstream f(result_path_, std::ios::trunc);
  if (!f) throw usage_error("cannot write " + result_path_.string());
  f << r.dump(1) << "\n";
}

// docs/harness-protocol.md, "The result channel": a header line with the secret, the result
// JSON, each output's bytes in order, a trailer with the secret.
void runner::write_frame(const json& r) {
  const std::string secret = secret_ != nullptr ? secret_->reveal() : std::string();
  auto put = [&](const void* data, std::size_t n) {
    const auto* p = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t w = ::write(result_fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw usage_error(std::string("cannot write the result channel: ") + std::strerror(errno));
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  };
  auto line = [&](const std::string& l) { put(l.data(), l.size()); };
  const std::string body = r.dump();
  line("AOPT-RESULT 1 " + secret + "\n" + std::to_string(body.size()) + "\n");
  line(body);
  if (status_ == "ok" && !screen_) {
    // The same items, in the same order, as the result's "outputs" (write_result).
    auto item = [&](const tensor_item& t) {
      const std::size_t bytes = t.gm == nullptr ? 0 : static_cast<std::size_t>(numel(t.shape)) * elem_bytes(t.dtype);
      line("\n" + std::to_string(bytes) + "\n");
      if (bytes > 0) put(t.gm, bytes);
    };
    for (const auto& a : outputs_) {
      if (a.is_list) {
        for (const auto& t : a.items) item(t);
      } else if (!a.items.empty()) {
        item(a.items.front());
      }
    }
    // Then the inputs the kernel wrote, in the order of "written_inputs".
    for (const auto& [a, r] : written_) item(a->items[r]);
  }
  line("\nEND " + secret + "\n");
}

int runner::run() {
  if (secret_ != nullptr) secret_->hide();
  load_request();
  try {
    profile_ = load_profile(req_.value("profile", std::string("910b4")));
  } catch (const std::exception& e) {
    throw usage_error(std::string("cannot load the device profile: ") + e.what());
  }
  host::set_default_platform(host::platform_from_profile(profile_));
  std::string why;
  rec_ = host::main_op(req_.value("op_type", req_.value("kernel", std::string())), &why);
  if (rec_ == nullptr) throw usage_error(why);
  build_instance();
  lap("read_inputs");
  try {
    set_attrs();
    apply_data_format();
    infer_outputs();
    run_tiling();
    lap("tiling");
  } catch (const tiling_failure& e) {
    status_ = "tiling_error";
    message_ = e.what();
    write_result();
    return 0;
  }
  // A screen (docs/harness-protocol.md, "Screening a tiling"): the tiling's facts only; no GM,
  // no kernel, no outputs.
  if (req_.value("screen", false)) {
    screen_ = true;
    write_result();
    return 0;
  }
  allocate_gm();
  launch_kernel();
  gather_private_outputs();
  if (status_ == "ok") find_written_inputs();
  write_outputs();
  lap("write_outputs");
  write_result();
  return 0;
}

int print_signature(const std::string& hint) {
  std::string why;
  const auto* rec = host::main_op(hint, &why);
  if (rec == nullptr) {
    std::cerr << "host --signature: " << why << "\n";
    return 2;
  }
  std::cout << host::signature_json(*rec).dump() << "\n";
  return 0;
}

void usage(std::ostream& o, const char* argv0) {
  o << "usage: " << argv0 << " --signature [OP_TYPE]\n"
    << "       " << argv0 << " --run run.json\n"
    << "The sim backend's operator harness (docs/harness-protocol.md).\n";
}

// Out of memory anywhere (a core thread, an error handler, result.json itself): a fixed message
// on stderr written without allocating, and exit code 4. The evaluator's sandbox classifies an
// abnormal end whose stderr says "std::bad_alloc" / "out of memory" as resource_error.
constexpr int exit_out_of_memory = 4;

[[noreturn]] void die_out_of_memory(const char* where) noexcept {
  const char head[] = "host: out of memory (std::bad_alloc) ";
  const char tail[] = ": the operator exhausted the memory limit; result.json was not written\n";
  auto put = [](const char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(2, p, n);
      if (w <= 0) return;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  };
  put(head, sizeof head - 1);
  put(where, std::strlen(where));
  put(tail, sizeof tail - 1);
  ::_exit(exit_out_of_memory);
}

std::terminate_handler previous_terminate = nullptr;

bool is_memory_exception(std::exception_ptr ep) noexcept {
  if (!ep) return false;
  try {
    std::rethrow_exception(ep);
  } catch (const std::bad_alloc&) {
    return true;
  } catch (const std::system_error& e) {
    // Thread creation under an address-space limit fails with EAGAIN (no room for a stack).
    return e.code() == std::errc::not_enough_memory || e.code() == std::errc::resource_unavailable_try_again;
  } catch (...) {
    return false;
  }
}

void on_terminate() noexcept {
  if (is_memory_exception(std::current_exception())) die_out_of_memory("in a thread of the harness");
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

}  // namespace

int harness_main(int argc, char** argv) {
  previous_terminate = std::set_terminate(on_terminate);
  const char* argv0 = argc > 0 ? argv[0] : "host";
  if (argc >= 2 && std::strcmp(argv[1], "--signature") == 0) {
    return print_signature(argc >= 3 ? argv[2] : "");
  }
  if (argc >= 3 && std::strcmp(argv[1], "--run") == 0) {
    // --result-fd N: the verdict goes to the evaluator's descriptor N, tagged with the secret the
    // evaluator writes on stdin, and the process ends right after it (_exit: no atexit handler
    // or static destructor of the operator runs once the result is out).
    int result_fd = -1;
    if (argc >= 5 && std::strcmp(argv[3], "--result-fd") == 0) result_fd = std::atoi(argv[4]);
    static channel_secret secret;
    if (result_fd >= 0 && !secret.read_from_stdin()) {
      std::cerr << "host --run: no result-channel secret on stdin (did operator code read stdin?)\n";
      std::cerr.flush();
      ::_exit(2);
    }
    auto finish = [&](int rc) {
      if (result_fd < 0) return rc;
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      ::_exit(rc);
    };
    try {
      runner r(argv[2], result_fd, result_fd >= 0 ? &secret : nullptr);
      return finish(r.run());
    } catch (const usage_error& e) {
      std::cerr << "host --run: " << e.what() << "\n";
      return finish(2);
    } catch (const std::bad_alloc&) {
      die_out_of_memory("while running the request");
    } catch (const std::exception& e) {
      std::cerr << "host --run: internal error: " << e.what() << "\n";
      return finish(3);
    }
  }
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    usage(std::cout, argv0);
    return 0;
  }
  usage(std::cerr, argv0);
  return 2;
}

}  // namespace aopt::sim::harness
