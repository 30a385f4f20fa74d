// The `sim` backend: builds a candidate against the emulator headers and the prebuilt harness
// chain, runs it sandboxed (docs/harness-protocol.md).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <tuple>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <random>
#include <regex>
#include <semaphore>
#include <set>
#include <thread>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fast_hash.h"
#include "aopt/common/stats.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/log.h"
#include "aopt/common/mapped_file.h"
#include "aopt/common/secret.h"
#include "aopt/common/sha256.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/artifacts.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/cache.h"
#include "aopt/evaluation/package_build.h"
#include "aopt/evaluation/raw_gm.h"
#include "aopt/evaluation/sandbox.h"
#include "aopt/evaluation/toolchain.h"

#ifdef AOPT_HAVE_SIM_TIMING
#include "aopt_sim/profile.h"
#include "aopt_sim/timing.h"
#include "aopt_sim/timing_params.h"
#endif

namespace aopt::evaluation {

namespace fs = std::filesystem;
using common::process_outcome;
using common::process_request;
using common::run_process;

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// The first error of a compiler log with a little context (the whole log is kept separately).
std::string first_errors(const std::string& log, std::size_t max_lines) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::size_t first = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("error:") != std::string::npos || lines[i].find("fatal error") != std::string::npos ||
        lines[i].find("undefined reference") != std::string::npos) {
      first = i;
      break;
    }
  }
  if (first == lines.size()) first = 0;
  // Include the "In file included from"/"In function" lines just before it.
  std::size_t start = first;
  while (start > 0 && first - start < 3 &&
         (lines[start - 1].find("In ") != std::string::npos || lines[start - 1].find("from ") != std::string::npos)) {
    --start;
  }
  std::string out;
  for (std::size_t i = start; i < lines.size() && i < start + max_lines; ++i) out += lines[i] + "\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

nlohmann::json inputs_json(const std::vector<run_input>& inputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& in : inputs) {
    if (in.is_list) {
      nlohmann::json l = nlohmann::json::array();
      for (const auto& t : in.tensors) l.push_back({{"shape", t.shape}, {"dtype", dtype_name(t.type)}, {"file", t.file.string()}});
      out.push_back({{"name", in.name}, {"dtype", dtype_name(in.tensors.at(0).type)}, {"list", l}});
    } else {
      const auto& t = in.tensors.at(0);
      out.push_back({{"name", in.name}, {"shape", t.shape}, {"dtype", dtype_name(t.type)}, {"file", t.file.string()}});
    }
  }
  return out;
}

bool take_outputs(const nlohmann::json& result, const fs::path& run_dir, const std::string& where, run_result& rr) {
  // A DYNAMIC output comes back as {"name", "list": [...]}: its tensors are checked one by one
  // as "<name>.<k>" (the names the reference sees too).
  bool written = false;
  auto take = [&](const nlohmann::json& o, const std::string& name) {
    tensor_file t;
    t.name = name;
    t.written_input = written;
    const auto dt = parse_dtype(o.value("dtype", std::string()));
    if (!dt) {
      rr.status = "runtime_error";
      rr.diagnostic = where + ": output '" + t.name + "' has an unknown dtype";
      return false;
    }
    t.type = *dt;
    t.shape = o.value("shape", std::vector<std::int64_t>{});
    t.file = run_dir / o.value("file", "out_" + t.name + ".bin");
    rr.outputs.push_back(t);
    return true;
  };
  // An input the kernel wrote comes back the same way under "written_inputs", named as the
  // input ("<name>.<k>" for an element of a tensor list).
  for (const char* key : {"outputs", "written_inputs"}) {
    written = std::string(key) == "written_inputs";
    const auto& items = result.is_object() && result.contains(key) && result[key].is_array() ? result[key] : nlohmann::json::array();
    for (const auto& o : items) {
      const auto name = o.value("name", std::string());
      if (o.contains("list") && o["list"].is_array()) {
        std::size_t k = 0;
        for (const auto& item : o["list"]) {
          if (!take(item, name + "." + std::to_string(k++))) return false;
        }
      } else if (!take(o, name)) {
        return false;
      }
    }
  }
  return true;
}

namespace {

// Whether the kernel is built with the raw __gm__ access hooks (raw_gm.h): when a source under
// op_kernel/ dereferences a raw __gm__ pointer; AOPT_SIM_RAW_GM=1 or 0 forces it on or off.
bool kernel_traces_raw_gm(const fs::path& kernel_dir) {
  if (const char* force = std::getenv("AOPT_SIM_RAW_GM"); force != nullptr && *force != '\0') return *force == '1';
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kernel_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".cc")) continue;
    std::ifstream in(it->path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (dereferences_raw_gm(text)) return true;
  }
  return false;
}

// Functions of the C library headers (math.h, stdlib.h, string.h, strings.h) that libstdc++
// declares in the global namespace: a kernel of that name cannot be declared beside them.
bool is_c_library_function(const std::string& name) {
  static const std::set<std::string> names = {
      "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh", "erf",
      "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb",
      "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan",
      "nearbyint", "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round", "scalbln", "scalbn", "sin",
      "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc", "j0", "j1", "jn", "y0", "y1", "yn", "gamma", "drem",
      "significand", "exp10", "sincos", "abs", "labs", "llabs", "div", "ldiv", "atoi", "atol", "atof", "rand", "srand",
      "random", "malloc", "calloc", "free", "realloc", "exit", "abort", "getenv", "system", "qsort", "bsearch",
      "memcpy", "memset", "memmove", "memcmp", "strlen", "strcmp", "strcpy", "index", "rindex", "time", "clock",
      "signal", "select", "sleep", "read", "write", "close", "open", "link", "sync", "pause", "kill", "wait"};
  return names.count(name) > 0;
}

std::string tail(const std::string& s, std::size_t n = 1500) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

// Compile steps (run concurrently, each `-c` so ccache can cache them) followed by one link.
struct compile_job {
  std::vector<std::vector<std::string>> compiles;
  std::vector<std::string> link;
  std::string what;  // "host", "kernel column 0"
};

struct compile_outcome {
  bool ok = false;
  bool reused = false;  // taken from the artifact cache, nothing compiled
  std::string log;
  double seconds = 0;
};

// The line of a kernel compile's log saying the PCH was not used (-Winvalid-pch), into
// br.kernel_pch_rejected (the first one); a warning the first time in this process.
void note_rejected_pch(build_result& br, const compile_outcome& out) {
  if (out.reused || !br.kernel_pch_rejected.empty()) return;
  const auto at = out.log.find("[-Winvalid-pch]");
  if (at == std::string::npos) return;
  const auto newline = out.log.rfind('\n', at);
  const std::size_t line = newline == std::string::npos ? 0 : newline + 1;
  br.kernel_pch_rejected = out.log.substr(line, at - line);
  static std::once_flag warned;
  std::call_once(warned, [&] {
    common::logger()->warn("the kernel PCH was not used, so every kernel compiles from scratch: {}", br.kernel_pch_rejected);
  });
}

// A compiler log as the user may see it: valid UTF-8, bounded, and without what the compiler
// said about files outside the package, the toolchain and the system headers (`#include
// "/etc/shadow"` would otherwise quote the file in its errors): those lines and their context
// are withheld.
std::string sanitize_log(const std::string& log, const fs::path& build_dir) {
  const auto& tc = toolchain::get();
  std::vector<std::string> allowed = {fs::absolute(build_dir).lexically_normal().string(), "/usr"};
  for (const auto& p : {tc.sim_include, tc.eval_include, tc.pch_header, tc.host_pch_header}) {
    if (!p.empty()) allowed.push_back(fs::absolute(fs::path(p)).lexically_normal().string());
  }
  auto location = [](const std::string& line) -> std::string {
    std::size_t at = 0;
    for (const char* lead : {"In file included from ", "                 from "}) {
      if (line.rfind(lead, 0) == 0) at = std::strlen(lead);
    }
    if (at >= line.size() || line[at] != '/') return {};
    const auto colon = line.find(':', at);
    return line.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
  };
  std::istringstream in(log);
  std::string out;
  bool withholding = false;
  for (std::string line; std::getline(in, line);) {
    const std::string loc = location(line);
    if (!loc.empty()) {
      const std::string norm = fs::path(loc).lexically_normal().string();
      withholding = std::none_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return path_under(norm, a); });
      if (withholding) {
        out += norm + ": [diagnostic withheld: the file is outside the package and the toolchain]\n";
        continue;
      }
    } else if (withholding && (line.empty() || line[0] == ' ' || line.find(" | ") != std::string::npos)) {
      continue;
    } else {
      withholding = false;
    }
    out += line + "\n";
  }
  return common::bounded_text(out, 128 * 1024, "\n[compiler output truncated]");
}

// Compiler processes at once in this process, whoever asks (the host sources of one build, the
// kernel's dtype columns, every evaluation slot): AOPT_BUILD_JOBS, default twice the cores and at
// least 4. Unbounded, an operator with fifteen host sources started fifteen compilers per slot
// (300 MB each) on a two-core machine.
std::counting_semaphore<4096>& compile_gate() {
  static std::counting_semaphore<4096> gate([] {
    const char* v = std::getenv("AOPT_BUILD_JOBS");
    const long n = v ? std::atol(v) : 0;
    if (n > 0) return std::min<long>(n, 4096);
    return std::max<long>(4, 2 * static_cast<long>(std::thread::hardware_concurrency()));
  }());
  return gate;
}

compile_outcome run_step(const std::vector<std::string>& argv, const fs::path& cwd, const sandbox_policy& policy) {
  process_request req;
  req.argv = argv;
  req.cwd = cwd.string();
  // A compiler is bounded like a run (`#include </dev/zero>` would otherwise eat the machine): 300 s
  // of CPU is its budget. The wall clock only catches a compiler that waits without computing, so it
  // is four times that: on a loaded machine (load 25 on two cores) mat_mul_v3's kernel, 37 s of CPU,
  // took past 300 s of wall time and failed for the machine's sake, not its own.
  req.limits.cpu_seconds = 300;
  req.limits.wall_timeout = std::chrono::seconds(4 * req.limits.cpu_seconds);
  req.limits.address_space_bytes = std::uint64_t(8) << 30;
  req.limits.file_size_bytes = std::uint64_t(1) << 30;
  req.limits.max_output_bytes = 256 * 1024;
  req.iso = compile_isolation(policy, cwd);
  req.env = {{"CCACHE_SLOPPINESS", "pch_defines,time_macros,include_file_mtime,include_file_ctime"},
             {"CCACHE_NOHASHDIR", "1"},
             {"CCACHE_BASEDIR", cwd.string()},
             {"LC_ALL", "C"}};
  if (!toolchain::get().ccache_dir.empty()) req.env.emplace_back("CCACHE_DIR", toolchain::get().ccache_dir);
  compile_gate().acquire();
  common::process_outcome out;
  try {
    out = run_process(req);
  } catch (...) {
    compile_gate().release();
    throw;
  }
  compile_gate().release();
  compile_outcome r;
  r.seconds = out.wall_seconds;
  r.ok = out.ok();
  r.log = out.err + out.out;
  if (out.err_truncated) r.log += "\n[compiler output truncated]";
  if (!r.ok && out.end == common::process_end::spawn_failed) r.log += "\n[compiler could not start: " + out.error + "]";
  else if (!r.ok && out.end != common::process_end::exited) r.log += "\n[compiler " + out.describe() + "]";
  r.log = sanitize_log(r.log, cwd);
  return r;
}

// Built artifacts (host executables, kernel libraries) by the content of what went into them, so
// a candidate that changes only the tiling (Stage I) reuses the kernel library of its parent
// and one that changes only the kernel (Stage II) reuses the host executable: ccache still
// costs a hashed preprocess plus a link per step. The key covers the toolchain, every argument
// (build-directory paths normalised), the content of every input file an argument names that
// exists before the build, and `inputs` (the candidate's source files the step can see; see
// side_inputs_key). Only successful builds are stored (artifacts.h: where, and how hosts share).
std::string artifact_key(const compile_job& job, const fs::path& dir, const std::string& inputs) {
  common::sha256 h;
  h.field("aopt-artifact-v1").field(toolchain::get().id()).field(inputs);
  const std::string d = dir.string();
  auto arg = [&](const std::string& a) {
    std::string n = a;
    for (auto at = n.find(d); at != std::string::npos; at = n.find(d, at + 1)) n.replace(at, d.size(), "@");
    h.field(n);
  };
  for (const auto& c : job.compiles) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      arg(c[i]);
      // The translation unit itself (a generated wrapper lives outside the sources).
      if (i > 0 && c[i - 1] == "-c") h.field(common::read_text_file(c[i]));
    }
    h.field("|");
  }
  for (const auto& a : job.link) arg(a);
  return h.finish_hex();
}

bool source_extension(const std::string& ext) { return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" || ext == ".C"; }

// Whether `text` includes a source file (`#include "x.cpp"`): then one translation unit of a
// side can see another's source, and an object of that side is keyed by all of them.
bool includes_a_source(const std::string& text) {
  for (auto at = text.find("#include"); at != std::string::npos; at = text.find("#include", at + 8)) {
    const auto open = text.find_first_not_of(" \t", at + 8);
    if (open == std::string::npos || (text[open] != '"' && text[open] != '<')) continue;
    const auto close = text.find(text[open] == '"' ? '"' : '>', open + 1);
    if (close == std::string::npos) break;
    if (source_extension(fs::path(text.substr(open + 1, close - open - 1)).extension().string())) return true;
  }
  return false;
}

// The candidate sources a build step can see, keyed: the files of its own side ("op_host" or
// "op_kernel") and every header of the package (a kernel includes the tiling header from
// op_host; neither side includes the other's .cpp files in any layout aopt accepts). `objects`:
// what one translation unit of the side sees besides its own text: the same without the side's
// sources (so one host source's object is reused when another host source changed), unless a
// source of the side includes a source.
struct side_keys {
  std::string link;     // the whole side: the linked artifact's key
  std::string objects;  // one translation unit's, besides its own text
};
side_keys side_inputs_key(const fs::path& src, const std::string& side) {
  std::vector<std::tuple<std::string, bool, std::string>> files;  // relative path, a source, text
  std::error_code e;
  bool sources_include_sources = false;
  for (auto it = fs::recursive_directory_iterator(src, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = fs::relative(it->path(), src).generic_string();
    const std::string ext = it->path().extension().string();
    const bool header = ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".inc";
    if (!header && rel.rfind(side + "/", 0) != 0) continue;
    std::string text = common::read_text_file(it->path());
    const bool source = source_extension(ext);
    if (source && includes_a_source(text)) sources_include_sources = true;
    files.emplace_back(rel, source, std::move(text));
  }
  std::sort(files.begin(), files.end());
  common::sha256 whole, seen;
  whole.field(side);
  seen.field(side).field("without sources");
  for (const auto& [rel, source, text] : files) {
    whole.field(rel).field(text);
    if (!source) seen.field(rel).field(text);
  }
  side_keys k;
  k.link = whole.finish_hex();
  k.objects = sources_include_sources ? k.link : seen.finish_hex();
  return k;
}

// The file a job's link step writes (its "-o" argument).
fs::path link_output(const compile_job& job) {
  for (std::size_t i = 0; i + 1 < job.link.size(); ++i) {
    if (job.link[i] == "-o") return job.link[i + 1];
  }
  return {};
}

// The file a compile step writes (its "-o" argument).
fs::path compile_output(const std::vector<std::string>& argv) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o") return argv[i + 1];
  }
  return {};
}

// A stored artifact placed at `out`: this host's store first, then another host's (the daemon's
// builders, another node), whose artifact is shipped rather than rebuilt.
bool fetch_artifact(const std::string& key, const fs::path& out) {
  const auto& cache = artifact_store::local();
  if (cache.fetch(key, out)) return true;
  const auto& shared = shared_artifacts();
  if (!shared.get) return false;
  auto bytes = shared.get(key);
  if (!bytes) return false;
  cache.write(key, *bytes);
  return cache.fetch(key, out);
}

void store_artifact(const std::string& key, const fs::path& file) {
  const auto& cache = artifact_store::local();
  cache.store(key, file);
  const auto& shared = shared_artifacts();
  if (shared.put) {
    if (auto bytes = cache.read(key)) shared.put(key, *bytes);
  }
}

// The artifact keys of one build step: the linked file's, and each compile's object's (empty
// when the store is off or the caller gave no inputs).
struct step_keys {
  std::string link;
  std::vector<std::string> objects;
};
step_keys compile_keys(const compile_job& job, const fs::path& cwd, const side_keys& inputs) {
  step_keys k;
  if (!artifact_store::local().enabled() || inputs.link.empty() || link_output(job).empty()) return k;
  k.link = artifact_key(job, cwd, inputs.link);
  if (job.compiles.size() < 2) return k;  // one translation unit: its object is the link's
  for (const auto& argv : job.compiles) {
    compile_job one;
    one.compiles = {argv};
    k.objects.push_back(compile_output(argv).empty() ? std::string() : artifact_key(one, cwd, "object:" + inputs.objects));
  }
  return k;
}

// The builds under way in this process, by artifact key: a slot that needs what another slot
// (or job) is compiling right now waits for that build and takes its artifact, instead of
// compiling the same sources beside it (a job's base and its first search-form variant need the
// same kernel at the same time).
class builds_under_way {
 public:
  static builds_under_way& get() {
    static builds_under_way b;
    return b;
  }
  // True: the caller builds `key` and calls done(key) after; false: it waited for another build
  // of it (whose artifact is stored if that build succeeded).
  bool start_or_wait(const std::string& key) {
    std::shared_future<void> other;
    {
      std::lock_guard lock(mu_);
      auto it = building_.find(key);
      if (it == building_.end()) {
        std::promise<void> p;
        building_.emplace(key, std::make_pair(std::move(p), std::shared_future<void>()));
        auto& entry = building_.at(key);
        entry.second = entry.first.get_future().share();
        return true;
      }
      other = it->second.second;
    }
    other.wait();
    return false;
  }
  void done(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = building_.find(key);
    if (it == building_.end()) return;
    it->second.first.set_value();
    building_.erase(it);
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::pair<std::promise<void>, std::shared_future<void>>> building_;
};

compile_outcome compile_unshared(const compile_job& job, const fs::path& cwd, const sandbox_policy& policy, const step_keys& keys,
                                 std::chrono::steady_clock::time_point t0);

compile_outcome compile(const compile_job& job, const fs::path& cwd, const sandbox_policy& policy, const side_keys& inputs = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path out = link_output(job);
  const step_keys keys = compile_keys(job, cwd, inputs);
  auto reused = [&] {
    compile_outcome r;
    r.ok = true;
    r.reused = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  if (keys.link.empty()) return compile_unshared(job, cwd, policy, keys, t0);
  for (;;) {
    if (fetch_artifact(keys.link, out)) return reused();
    if (builds_under_way::get().start_or_wait(keys.link)) break;
    // Another build of the same artifact ended: its artifact, or (it failed) a build of our own.
  }
  try {
    auto r = compile_unshared(job, cwd, policy, keys, t0);
    builds_under_way::get().done(keys.link);
    return r;
  } catch (...) {
    builds_under_way::get().done(keys.link);
    throw;
  }
}

// The compiles and link of a step whose artifact was not stored.
compile_outcome compile_unshared(const compile_job& job, const fs::path& cwd, const sandbox_policy& policy, const step_keys& keys,
                                 std::chrono::steady_clock::time_point t0) {
  const fs::path out = link_output(job);
  // Each translation unit whose object is stored (its text, the headers and the arguments are
  // the same: another source of the side changed) is not compiled again, only linked.
  compile_outcome r;
  r.ok = true;
  std::vector<std::future<compile_outcome>> steps;
  std::vector<std::size_t> compiled;
  for (std::size_t i = 0; i < job.compiles.size(); ++i) {
    const std::string okey = i < keys.objects.size() ? keys.objects[i] : std::string();
    if (!okey.empty() && fetch_artifact(okey, compile_output(job.compiles[i]))) continue;
    std::error_code e;
    fs::remove(compile_output(job.compiles[i]), e);  // never written through a link into the store
    compiled.push_back(i);
    steps.push_back(std::async(std::launch::async, [argv = job.compiles[i], cwd, &policy] { return run_step(argv, cwd, policy); }));
  }
  for (std::size_t s = 0; s < steps.size(); ++s) {
    auto o = steps[s].get();
    if (!o.ok) r.ok = false;
    if (!o.log.empty()) r.log += o.log + "\n";
    const std::size_t i = compiled[s];
    if (o.ok && i < keys.objects.size() && !keys.objects[i].empty()) store_artifact(keys.objects[i], compile_output(job.compiles[i]));
  }
  if (r.ok) {
    auto o = run_step(job.link, cwd, policy);
    r.ok = o.ok;
    r.log += o.log;
  }
  if (r.ok && !keys.link.empty()) store_artifact(keys.link, out);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// A fresh secret per run for the result channel (128 bits from the kernel's CSPRNG).
std::string random_secret() { return common::random_hex(16); }

// Parses the harness's result frame (docs/harness-protocol.md, "The result channel"): the
// header and trailer must carry this run's secret, the outputs follow in the order of the
// result's "outputs", and nothing may follow the trailer. Writes each output to `run_dir`.
std::optional<nlohmann::json> read_result_channel(const fs::path& file, const std::string& secret, const fs::path& run_dir,
                                                  std::string& why) {
  const common::mapped_file m(file);
  const std::string_view v(reinterpret_cast<const char*>(m.data()), m.size());
  std::size_t at = 0;
  auto expect = [&](const std::string& lit) {
    if (v.substr(at, lit.size()) != lit) return false;
    at += lit.size();
    return true;
  };
  auto number = [&](std::uint64_t& n) {
    n = 0;
    std::size_t digits = 0;
    while (at < v.size() && v[at] >= '0' && v[at] <= '9' && digits < 19) n = n * 10 + static_cast<std::uint64_t>(v[at++] - '0'), ++digits;
    return digits > 0 && at < v.size() && v[at++] == '\n';
  };
  std::uint64_t len = 0;
  if (!expect("AOPT-RESULT 1 " + secret + "\n")) {
    why = "no header with this run's secret";
    return std::nullopt;
  }
  if (!number(len) || len > v.size() - at) {
    why = "malformed result length";
    return std::nullopt;
  }
  auto j = nlohmann::json::parse(v.substr(at, len), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    why = "the result is not a JSON object";
    return std::nullopt;
  }
  at += len;
  if (j.value("status", std::string()) == "ok") {
    auto take = [&](const nlohmann::json& item) {
      std::uint64_t n = 0;
      const std::string name = item.is_object() && item.contains("file") && item["file"].is_string() ? item["file"].get<std::string>() : "";
      if (name.size() < 8 || name.rfind("out_", 0) != 0 || name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
        why = "an output has no valid file name";
        return false;
      }
      if (!expect("\n") || !number(n) || n > v.size() - at) {
        why = "malformed output '" + name + "'";
        return false;
      }
      common::write_file_bytes(run_dir / name, v.data() + at, static_cast<std::size_t>(n));
      at += n;
      return true;
    };
    for (const char* key : {"outputs", "written_inputs"}) {
      for (const auto& o : j.value(key, nlohmann::json::array())) {
        if (o.contains("list") && o["list"].is_array()) {
          for (const auto& item : o["list"]) {
            if (!take(item)) return std::nullopt;
          }
        } else if (!take(o)) {
          return std::nullopt;
        }
      }
    }
  }
  if (!expect("\nEND " + secret + "\n")) {
    why = "no trailer with this run's secret";
    return std::nullopt;
  }
  if (at != v.size()) {
    why = std::to_string(v.size() - at) + " bytes after the trailer";
    return std::nullopt;
  }
  return j;
}

// Reads `host --signature` from the OpDef in the host sources' text, to start compiling the
// kernel while the host compiles. Verified against the real signature afterwards.
nlohmann::json predict_signature(const std::vector<std::string>& texts) {
  static const std::map<std::string, std::string> ge_names = {
      {"DT_FLOAT16", "float16"}, {"DT_FLOAT", "float32"}, {"DT_BF16", "bfloat16"}, {"DT_INT8", "int8"},
      {"DT_UINT8", "uint8"},     {"DT_INT16", "int16"},   {"DT_UINT16", "uint16"},   {"DT_INT32", "int32"},
      {"DT_UINT32", "uint32"},   {"DT_INT64", "int64"},   {"DT_UINT64", "uint64"},   {"DT_BOOL", "bool"},
      {"DT_COMPLEX64", "complex64"}};
  const std::regex cls(R"(class\s+(\w+)\s*:\s*public\s+(?:ops\s*::\s*)?OpDef)");
  const std::regex io(R"(\b(Input|Output)\s*\(\s*\"(\w+)\"\s*\))");
  const std::regex dt(R"(DT_\w+)");
  const std::regex fm(R"(FORMAT_(\w+))");
  for (const auto& text : texts) {
    std::smatch m;
    if (!std::regex_search(text, m, cls)) continue;
    nlohmann::json sig = {{"op_type", m[1].str()}, {"inputs", nlohmann::json::array()}, {"outputs", nlohmann::json::array()}};
    const std::string body = m.suffix().str();
    std::vector<std::pair<std::size_t, std::smatch>> ios;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), io); it != std::sregex_iterator(); ++it) {
      ios.emplace_back(static_cast<std::size_t>(it->position()), *it);
    }
    for (std::size_t k = 0; k < ios.size(); ++k) {
      const std::size_t from = ios[k].first;
      const std::size_t to = k + 1 < ios.size() ? ios[k + 1].first : body.size();
      const std::string whole = body.substr(from, to - from);  // this parameter's chain of calls
      std::string seg = whole;
      const auto dpos = seg.find("DataType(");
      if (dpos == std::string::npos) return nullptr;
      const auto close = seg.find(')', dpos);
      seg = seg.substr(dpos, close == std::string::npos ? std::string::npos : close - dpos);
      nlohmann::json dtypes = nlohmann::json::array();
      for (auto it = std::sregex_iterator(seg.begin(), seg.end(), dt); it != std::sregex_iterator(); ++it) {
        auto g = ge_names.find(it->str());
        if (g == ge_names.end()) return nullptr;
        dtypes.push_back(g->second);
      }
      // The formats as `host --signature` spells them (FORMAT_ND -> "ND"), from `.Format({...})`.
      nlohmann::json formats = nlohmann::json::array();
      const auto fpos = whole.find(".Format(");
      if (fpos != std::string::npos) {
        const auto fclose = whole.find(')', fpos);
        const std::string fseg = whole.substr(fpos, fclose == std::string::npos ? std::string::npos : fclose - fpos);
        for (auto it = std::sregex_iterator(fseg.begin(), fseg.end(), fm); it != std::sregex_iterator(); ++it) {
          formats.push_back((*it)[1].str());
        }
      }
      const bool is_input = ios[k].second[1].str() == "Input";
      sig[is_input ? "inputs" : "outputs"].push_back({{"name", ios[k].second[2].str()}, {"dtypes", dtypes}, {"formats", formats}});
    }
    return sig;
  }
  return nullptr;
}

std::vector<std::string> kernel_defines(const nlohmann::json& sig, std::size_t column) {
  std::vector<std::string> d;
  if (sig.contains("op_type") && sig["op_type"].is_string()) d.push_back("-DAOPT_OP_TYPE=" + sig["op_type"].get<std::string>());
  // An output named like an input is a Ref parameter: the build names it `<name>_ref` (the aclnn
  // interface's `varRef`, the kernel entry's `y_ref`), so its macros are DTYPE_<NAME>_REF.
  std::set<std::string> input_names;
  if (sig.contains("inputs")) {
    for (const auto& t : sig["inputs"]) input_names.insert(t.value("name", std::string()));
  }
  for (const char* side : {"inputs", "outputs"}) {
    if (!sig.contains(side)) continue;
    const bool outputs = std::string(side) == "outputs";
    for (const auto& t : sig[side]) {
      const auto& dts = t.value("dtypes", nlohmann::json::array());
      if (dts.empty()) continue;
      const auto name = dts[std::min(column, dts.size() - 1)].get<std::string>();
      const auto type = parse_dtype(name);
      if (!type) continue;
      const std::string pname = t.value("name", std::string("x"));
      const std::string n = upper(outputs && input_names.count(pname) ? pname + "_ref" : pname);
      d.push_back("-DDTYPE_" + n + "=" + cpp_type(*type));
      d.push_back("-DORIG_DTYPE_" + n + "=" + std::string(ge_type(*type)).substr(4));  // DT_BF16: an integer in #if (dtype_macros.h)
      // FORMAT_X1=FORMAT_FRACTAL_NZ, as the real build: an integer in #if (format_macros.h).
      const auto& fms = t.value("formats", nlohmann::json::array());
      if (!fms.empty() && fms[std::min(column, fms.size() - 1)].is_string()) {
        const auto fm = fms[std::min(column, fms.size() - 1)].get<std::string>();
        if (fm != "RESERVED") d.push_back("-DFORMAT_" + n + "=FORMAT_" + fm);
      }
    }
  }
  return d;
}

class sim_backend final : public backend {
 public:
  sim_backend(const std::string& profile, sandbox_policy policy) : tc_(toolchain::get()), policy_(std::move(policy)) {
    if (profile.size() > 5 && profile.substr(profile.size() - 5) == ".json") {
      profile_path_ = fs::absolute(profile);
      profile_name_ = fs::path(profile).stem().string();
    } else {
      profile_name_ = profile;
      profile_path_ = fs::path(tc_.profile_dir) / (profile + ".json");
    }
    if (!fs::is_regular_file(profile_path_)) {
      std::string known;
      std::error_code e;
      if (fs::is_directory(tc_.profile_dir, e)) {
        for (const auto& f : fs::directory_iterator(tc_.profile_dir)) {
          if (f.path().extension() == ".json") known += (known.empty() ? "" : ", ") + f.path().stem().string();
        }
      }
      throw error(ec::not_found, "device profile '" + profile + "' not found (" + profile_path_.string() +
                                     "); known profiles: " + (known.empty() ? "none" : known) +
                                     "; pass --profile NAME or a path to a profile .json");
    }
    fingerprint_ = common::sha256().field(tc_.id()).field(common::sha256_file_hex(profile_path_)).finish_hex();
    read_noise();
  }

  std::string name() const override { return "sim"; }
  std::string profile_name() const override { return profile_name_; }
  std::string fingerprint() const override { return fingerprint_; }

  build_result build(const candidate& cand, const fs::path& dir, const std::vector<const case_spec*>& cases) override {
    tc_.check_host_chain();
    const auto t0 = std::chrono::steady_clock::now();
    build_result br;
    br.dir = dir;
    br.tunables = cand.tunables_env();
    const fs::path src = dir / "src";
    fs::create_directories(src);
    cand.materialize(src);
    const auto& pkg = cand.package();
    br.host_exe = dir / "host";
    const auto base = base_argv(src);
    const compile_job host = host_job(pkg, base, src, dir, br.host_exe);
    const kernel_recipe recipe{base, kernel_unit(cand, src, dir), kernel_tiling_include(pkg, src, dir),
                               kernel_traces_raw_gm(src / "op_kernel"), &pkg, src, dir};

    const side_keys kernel_inputs = side_inputs_key(src, "op_kernel");
    // Speculative kernel builds from the OpDef as written in the sources.
    std::vector<std::string> host_texts;
    for (const auto& h : pkg.host_sources) host_texts.push_back(cand.content(h));
    const nlohmann::json predicted = predict_signature(host_texts);
    std::map<std::size_t, std::pair<std::vector<std::string>, std::future<compile_outcome>>> speculative;
    if (!predicted.is_null()) {
      for (const auto* c : cases) {
        std::string why;
        const auto col = select_column(predicted, align_case(*c, predicted), why);
        if (!col || speculative.count(*col)) continue;
        auto defs = kernel_defines(predicted, *col);
        auto job = kernel_job(recipe, defs, *col);
        speculative.emplace(*col, std::make_pair(defs, std::async(std::launch::async, [this, job, dir, &kernel_inputs] { return compile(job, dir, policy_, kernel_inputs); })));
      }
    }
    const auto host_out = compile(host, dir, policy_, side_inputs_key(src, "op_host"));
    br.host_seconds = host_out.seconds;
    br.host_reused = host_out.reused;
    speculated spec_done;
    for (auto& [col, p] : speculative) spec_done.emplace(col, std::make_pair(p.first, p.second.get()));
    if (!host_out.ok) {
      br.stage = "host";
      br.log = host_out.log;
      br.diagnostic = "host sources do not compile:\n" + first_errors(host_out.log);
      br.total_seconds = secs_since(t0);
      return br;
    }
    if (!read_signature(br, dir)) {
      br.total_seconds = secs_since(t0);
      return br;
    }
    return build_kernels(br, cases, recipe, spec_done, kernel_inputs, t0);
  }

  run_result run(const build_result& built, const run_spec& spec, const fs::path& run_dir,
                 const common::sandbox_limits& limits) override {
    run_result rr;
    fs::create_directories(run_dir);
    auto it = built.kernels.find(spec.column);
    // A screen stops after the tiling: it needs no kernel (aopt init screens a host-only build).
    if (it == built.kernels.end() && !spec.screen) {
      throw error(ec::internal, "sim backend: no kernel built for dtype column " + std::to_string(spec.column));
    }
    nlohmann::json rj;
    if (it != built.kernels.end()) rj["kernel_so"] = it->second.string();
    rj["kernel"] = built.signature.value("kernel", std::string());
    rj["profile"] = profile_path_.string();
    rj["inputs"] = inputs_json(spec.inputs);
    rj["outputs"] = nlohmann::json::array();
    for (const auto& o : spec.outputs) {
      if (o.list_count > 0) {  // DYNAMIC output: one file per tensor of the list
        nlohmann::json l = nlohmann::json::array();
        for (std::size_t k = 0; k < o.list_count; ++k) {
          nlohmann::json item = {{"dtype", dtype_name(o.type)}, {"file", "out_" + o.name + "_" + std::to_string(k) + ".bin"}};
          if (k < o.list_shapes.size()) item["shape"] = o.list_shapes[k];
          l.push_back(item);
        }
        rj["outputs"].push_back({{"name", o.name}, {"dtype", dtype_name(o.type)}, {"list", l}});
        continue;
      }
      nlohmann::json oj = {{"name", o.name}, {"dtype", dtype_name(o.type)}, {"file", "out_" + o.name + ".bin"}};
      if (o.shape) oj["shape"] = *o.shape;
      rj["outputs"].push_back(oj);
    }
    rj["attrs"] = spec.attrs;
    rj["timing"] = spec.timing;
    if (spec.screen) rj["screen"] = true;
    common::write_json_file(run_dir / "run.json", rj);
    std::error_code e;
    fs::remove(run_dir / "result.json", e);

    // The verdict comes back on a pipe of the evaluator's, tagged with a secret only the harness
    // is given (docs/harness-protocol.md, "The result channel"); nothing the operator writes
    // into its directory is read.
    const std::string secret = random_secret();
    const fs::path channel = run_dir / "channel.bin";
    process_request req;
    req.argv = {built.host_exe.string(), "--run", "run.json", "--result-fd", "3"};
    req.cwd = run_dir.string();
    req.limits = limits;
    req.stdin_data = secret + "\n";
    req.channel_fd = 3;
    req.channel_file = channel.string();
    req.channel_max_bytes = limits.file_size_bytes > 0 ? limits.file_size_bytes : std::uint64_t(1) << 34;
    std::vector<fs::path> visible = {built.dir, profile_path_};
    for (const auto& in : spec.inputs) {
      for (const auto& t : in.tensors) visible.push_back(t.file);
    }
    req.iso = run_isolation(policy_, visible, run_dir, {run_dir / "run.json"});
    req.session = built.sandbox;
    if (!built.tunables.empty()) req.env.emplace_back("AOPT_TUNABLES", built.tunables);
    rr.process = run_process(req);
    const auto& p = rr.process;
    const std::string err_tail = common::valid_utf8(tail(p.err, 1200));
    if (p.end == common::process_end::spawn_failed) {
      throw error(ec::subprocess_error, "cannot start " + built.host_exe.string() + ": " + p.error);
    }
    if (p.end == common::process_end::timed_out) {
      rr.status = "timeout";
      rr.diagnostic = "the kernel did not finish within the wall-clock limit of " +
                      common::seconds_text(limits.wall_timeout.count() / 1000.0) + " s (hang or endless loop?); process group killed";
      return rr;
    }
    if (p.cpu_limit_hit()) {
      rr.status = "resource_error";
      rr.diagnostic = "CPU-time limit of " + std::to_string(limits.cpu_seconds) + " s exceeded (" + p.describe() + ")";
      return rr;
    }
    if (p.file_limit_hit() || p.channel_truncated) {
      rr.status = "resource_error";
      rr.diagnostic = "file-size limit of " + std::to_string(limits.file_size_bytes) + " bytes exceeded (" + p.describe() + ")";
      return rr;
    }
    if (p.memory_exhausted()) {
      rr.status = "resource_error";
      rr.diagnostic = "memory limit of " + std::to_string(limits.address_space_bytes >> 20) +
                      " MiB exhausted (runaway allocation?); " + p.describe() + ": " + common::valid_utf8(tail(p.err, 400));
      return rr;
    }
    if (p.end == common::process_end::signaled) {
      rr.status = "runtime_error";
      rr.diagnostic = "the operator crashed: " + p.describe() + " (peak RSS " + std::to_string(p.max_rss_bytes >> 20) +
                      " MiB)" + (err_tail.empty() ? "" : "; stderr: " + err_tail);
      return rr;
    }
    if (p.channel_bytes == 0) {
      rr.status = "runtime_error";
      rr.diagnostic = "the harness " + p.describe() + " without a result" + (err_tail.empty() ? "" : "; stderr: " + err_tail);
      return rr;
    }
    std::string why;
    auto harness = read_result_channel(channel, secret, run_dir, why);
    fs::remove(channel, e);
    if (!harness) {
      rr.status = "runtime_error";
      rr.trusted = false;
      rr.diagnostic = "the result channel was tampered with or cut short (" + why +
                      "): operator code wrote to the evaluator's result descriptor, or the harness was stopped";
      return rr;
    }
    rr.harness = std::move(*harness);
    rr.status = rr.harness.value("status", std::string("runtime_error"));
    rr.diagnostic = rr.harness.value("message", std::string());
    const auto& hw = rr.harness.contains("hw_error") ? rr.harness["hw_error"] : nlohmann::json();
    if (hw.is_object()) {
      auto str = [&](const char* k) { return hw.contains(k) && hw[k].is_string() ? hw[k].get<std::string>() : std::string(); };
      std::string d = "hardware error " + str("kind");
      if (!str("file").empty()) d += " at " + str("file") + ":" + std::to_string(hw.value("line", 0));
      if (!str("function").empty()) d += " in " + str("function");
      if (!str("api").empty()) d += " (" + str("api") + ")";
      if (hw.contains("block_idx") && hw["block_idx"].is_number()) d += " on core " + std::to_string(hw["block_idx"].get<int>());
      d += ": " + str("message");
      rr.diagnostic = rr.diagnostic.empty() || rr.diagnostic == str("message") ? d : rr.diagnostic + "; " + d;
    }
    // The runtime reports C++ exceptions escaping the kernel as invalid_use, and a core thread
    // that could not start as a launch failure: an allocation failure under the memory limit is
    // a resource problem, not a wrong kernel.
    if (rr.status == "runtime_error") {
      std::string msg = rr.harness.value("message", std::string());
      if (hw.is_object() && hw.contains("message") && hw["message"].is_string()) msg += " " + hw["message"].get<std::string>();
      for (const char* needle : {"bad_alloc", "Cannot allocate memory", "out of memory"}) {
        if (msg.find(needle) == std::string::npos) continue;
        rr.status = "resource_error";
        rr.diagnostic = "memory limit of " + std::to_string(limits.address_space_bytes >> 20) +
                        " MiB exhausted (runaway allocation?): " + rr.diagnostic;
        return rr;
      }
    }
    if (rr.status != "ok" && rr.status != "tiling_error" && rr.status != "runtime_error") {
      rr.diagnostic = "harness reported unknown status '" + rr.status + "': " + rr.diagnostic;
      rr.status = "runtime_error";
    }
    if (rr.status == "ok" && noise_.relative_sd > 0) add_noise(rr, built, spec);
    if (rr.status == "ok") take_outputs(rr.harness, run_dir, "result.json", rr);
    return rr;
  }

  std::optional<roofline_estimate> roofline(double bytes_read, double bytes_written, double vector_repeats) const override {
#ifdef AOPT_HAVE_SIM_TIMING
    try {
      const auto prof = aopt::sim::load_profile(profile_path_.string());
      const auto params = aopt::sim::parse_timing_params(prof.raw, profile_path_.string());
      aopt::sim::roofline_input in;
      in.bytes_read = bytes_read;
      in.bytes_written = bytes_written;
      in.vector_repeats = vector_repeats;
      const auto b = aopt::sim::roofline(in, params);
      return roofline_estimate{b.bound_us, b.launch_us, b.memory_us, b.vector_us, b.memory_bound};
    } catch (const std::exception& ex) {
      common::logger()->warn("roofline unavailable for profile {}: {}", profile_path_.string(), ex.what());
      return std::nullopt;
    }
#else
    (void)bytes_read;
    (void)bytes_written;
    (void)vector_repeats;
    return std::nullopt;
#endif
  }

 private:
  static double secs_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  build_result& kernel_failure(build_result& br, const compile_outcome& out, std::size_t col,
                               std::chrono::steady_clock::time_point t0) {
    br.ok = false;
    br.stage = "kernel";
    br.log = out.log;
    br.diagnostic = "kernel (dtype column " + std::to_string(col) + ") does not compile:\n" + first_errors(out.log);
    br.total_seconds = secs_since(t0);
    return br;
  }

  // What a kernel column's compile needs besides its defines.
  struct kernel_recipe {
    std::vector<std::string> base;  // base_argv
    std::string tu;                 // the kernel source, or the wrapper that includes it
    std::string tiling;             // the force-included tiling header; empty: none
    bool raw_gm = false;            // trace raw GM accesses
    const op_package* pkg = nullptr;
    fs::path src, dir;
  };
  // Speculative kernel builds by column: their defines and outcome.
  using speculated = std::map<std::size_t, std::pair<std::vector<std::string>, compile_outcome>>;

  // The compiler command every compile starts from: launcher, flags, the emulator's and the
  // package's kernel and host directories.
  std::vector<std::string> base_argv(const fs::path& src) const {
    std::vector<std::string> base = tc_.launcher;
    base.push_back(tc_.cxx);
    for (const auto& f : tc_.common_flags) base.push_back(f);
    base.push_back("-I" + tc_.sim_include);
    base.push_back("-I" + (src / "op_kernel").string());
    base.push_back("-I" + (src / "op_host").string());
    return base;
  }

  // The host executable's compiles and link.
  compile_job host_job(const op_package& pkg, const std::vector<std::string>& base, const fs::path& src, const fs::path& dir,
                       const fs::path& host_exe) const {
    compile_job host;
    host.what = "host";
    host.link = {tc_.cxx, "-o", host_exe.string(), "-rdynamic"};
    for (std::size_t i = 0; i < pkg.host_sources.size(); ++i) {
      const std::string obj = (dir / ("host_" + std::to_string(i) + ".o")).string();
      // The include directories the package's CMakeLists.txt gives its host libraries come
      // before the emulated CANN headers, as the operator lists them before
      // ${ASCEND_CANN_PACKAGE_PATH}/include: a shared directory's own header (cann-ops'
      // src/common/inc/tiling/tiling_type.h) wins over the CANN header of the same name.
      auto argv = base;
      const auto first_include = std::find(argv.begin(), argv.end(), "-I" + tc_.sim_include);
      std::vector<std::string> own;
      for (const auto& d : pkg.host_include_dirs) own.push_back("-I" + (src / d).string());
      argv.insert(first_include, own.begin(), own.end());
      for (const auto& d : pkg.host_definitions) argv.push_back("-D" + d);
      for (const auto& f : tc_.host_flags) argv.push_back(f);
      if (!tc_.host_pch_header.empty()) {
        argv.push_back("-include");
        argv.push_back(tc_.host_pch_header);
        if (!tc_.launcher.empty()) argv.push_back("-fpch-preprocess");
      }
      // Stage I's run-time tunables (after the PCH, which must come first): a search-form
      // source reads them, any other does not notice.
      argv.push_back("-include");
      argv.push_back(tc_.sim_include + "/aopt_sim/host/tunable.h");
      argv.insert(argv.end(), {"-c", (src / pkg.host_sources[i]).string(), "-o", obj});
      host.compiles.push_back(argv);
      host.link.push_back(obj);
    }
    if (tc_.use_mold) host.link.push_back("-fuse-ld=mold");
    // Tiling and proto sources the real build links into separate libraries (package.h).
    if (pkg.host_libraries_apart) host.link.push_back("-Wl,--allow-multiple-definition");
    host.link.push_back("-Wl,--start-group");
    for (const auto& l : tc_.host_link) host.link.push_back(l);
    host.link.push_back("-Wl,--end-group");
    if (!tc_.host_rpath.empty()) host.link.push_back("-Wl,-rpath," + tc_.host_rpath);
    host.link.insert(host.link.end(), {"-ldl", "-pthread"});
    return host;
  }

  // The translation unit a kernel column compiles: the kernel source, or a wrapper around it.
  static std::string kernel_unit(const candidate& cand, const fs::path& src, const fs::path& dir) {
    const auto& pkg = cand.package();
    std::string kernel_tu = (src / pkg.kernel_source).string();
    // The wrapper names the kernel source relative to itself: an absolute path would put the
    // build's unique directory into the wrapper's bytes, so ccache's direct mode (which hashes
    // them) would miss on every build and run the preprocessor again.
    const fs::path rel = fs::path(kernel_tu).lexically_relative(dir);
    std::string included = rel.empty() || *rel.begin() == ".." ? kernel_tu : rel.generic_string();
    // A source with a launch `k<<<...>>>(...)` (a launch wrapper the NPU build compiles): its
    // copy with each launch written as sim's chevron_launch, which the harness never calls
    // (aopt_sim/kernel/chevron_launch.h); its quoted includes still resolve from the source's
    // directory (kernel_job's -iquote). Diagnostics name the source's lines.
    if (const auto launches = kernel_launches_rewritten(cand.content(pkg.kernel_source))) {
      const fs::path copy = dir / "kernel_launches.cpp";
      common::write_text_file(copy, "// Generated by aopt: " + pkg.kernel_source +
                                        " with its <<<>>> launches as sim's chevron_launch.\n"
                                        "#include \"aopt_sim/kernel/chevron_launch.h\"\n#line 1 \"" +
                                        included + "\"\n" + *launches);
      kernel_tu = copy.string();
      included = copy.filename().string();
    }
    const std::string& k = pkg.spec.kernel;
    // A kernel templated on its tiling key (layout 3: `template <...> __global__ __aicore__ void
    // k(...)`) has no C symbol: compile a wrapper that includes the kernel source and defines
    // the entry the harness looks for (sim/include/aopt_sim/host/tpl_entry.h).
    const std::regex templated("template\\s*<[^;{]*>\\s*(__global__\\s+__aicore__|__aicore__\\s+__global__)\\s+void\\s+" + k +
                               "\\s*\\(");
    const fs::path wrapper = dir / "kernel_entry.cpp";
    if (!k.empty() && std::regex_search(cand.content(pkg.kernel_source), templated)) {
      common::write_text_file(wrapper, "// Generated by aopt: entry for a kernel templated on its tiling key.\n#include \"" +
                                           included + "\"\n#include \"aopt_sim/host/tpl_entry.h\"\nAOPT_TPL_KERNEL_ENTRY(" + k + ")\n");
      return wrapper.string();
    }
    if (is_c_library_function(k)) {
      // A kernel named like a C library function (`tanh`, `abs`) collides with the declaration
      // the emulator's standard headers bring into the global namespace; on the chip no libc
      // is in scope. Renamed for the host build; the harness looks for the prefixed name first.
      common::write_text_file(wrapper, "// Generated by aopt: kernel " + k + " renamed (a C library function of that name is in scope).\n#define " +
                                           k + " aopt_kernel_entry_" + k + "\n#include \"" + included + "\"\n");
      return wrapper.string();
    }
    return kernel_tu;
  }

  // The operator's other op_host/ headers declaring tiling structs, sorted (kernel_tiling_view's
  // more_headers: the kernel sees every struct, one per tiling key in weight_quant_batch_matmul_v2).
  static std::vector<std::string> other_tiling_headers(const op_package& pkg, const fs::path& src) {
    std::vector<std::string> out;
    std::error_code e;
    if (!fs::is_directory(src / "op_host", e)) return out;
    for (const auto& entry : fs::directory_iterator(src / "op_host", e)) {
      if (!entry.is_regular_file(e) || entry.path().extension() != ".h") continue;
      const std::string rel = entry.path().lexically_relative(src).generic_string();
      if (rel == pkg.tiling_header) continue;
      if (common::read_text_file(entry.path()).find("BEGIN_TILING_DATA_DEF") != std::string::npos) out.push_back(rel);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The tiling header as the kernel sees it: force-included as it is when it is kernel-safe,
  // else only its tiling structs (package_build.h, kernel_tiling_view), as the real build
  // generates the kernel's kernel_tiling header instead of compiling the host header.
  static std::string kernel_tiling_include(const op_package& pkg, const fs::path& src, const fs::path& dir) {
    if (pkg.tiling_header.empty()) return {};
    std::vector<std::string> dirs = pkg.kernel_include_dirs;
    dirs.insert(dirs.end(), pkg.host_include_dirs.begin(), pkg.host_include_dirs.end());
    dirs.insert(dirs.end(), {"op_kernel", "op_host"});
    const auto view = kernel_tiling_view(
        pkg.tiling_header,
        [&](const std::string& rel) {
          std::error_code e;
          const fs::path p = src / rel;
          return rel.find("..") == std::string::npos && fs::is_regular_file(p, e) ? common::read_text_file(p) : std::string();
        },
        dirs, other_tiling_headers(pkg, src));
    if (!view) return (src / pkg.tiling_header).string();
    const fs::path gen = dir / "aopt_kernel_tiling.h";
    common::write_text_file(gen, *view);
    return gen.string();
  }

  // One kernel column's compile and link.
  compile_job kernel_job(const kernel_recipe& kr, const std::vector<std::string>& defines, std::size_t column) const {
    compile_job k;
    k.what = "kernel column " + std::to_string(column);
    auto argv = kr.base;
    if (kr.raw_gm) argv.insert(argv.end(), raw_gm_trace_flags().begin(), raw_gm_trace_flags().end());
    if (!tc_.pch_header.empty()) {
      // The PCH leaves the op type's tiling pick out (it mentions no macro the line defines,
      // else GCC rejects it): defined as when it was built, the pick force-included after it.
      argv.push_back("-DAOPT_SIM_KERNEL_PCH");
      argv.push_back("-Winvalid-pch");  // a rejected PCH says why (build_result::kernel_pch_rejected)
      argv.push_back("-include");
      argv.push_back(tc_.pch_header);
      if (!tc_.launcher.empty()) argv.push_back("-fpch-preprocess");
      argv.push_back("-include");
      argv.push_back(tc_.sim_include + "/aopt_sim/kernel/op_type_tiling.h");
    }
    if (!kr.tiling.empty()) {
      argv.push_back("-include");
      argv.push_back(kr.tiling);
    }
    // The DT_* names as integers for the kernel's `#if ORIG_DTYPE_X == DT_BF16`: after the PCH
    // and the tiling header, whose host includes spell ge::DT_* (dtype_macros.h).
    argv.push_back("-include");
    argv.push_back(tc_.sim_include + "/aopt_sim/kernel/dtype_macros.h");
    argv.push_back("-include");
    argv.push_back(tc_.sim_include + "/aopt_sim/kernel/format_macros.h");
    // The device compiler's scalar min/max, which kernels name unqualified (device_builtins.h).
    argv.push_back("-include");
    argv.push_back(tc_.sim_include + "/aopt_sim/kernel/device_builtins.h");
    // The kernel's own include directories (add_ops_compile_options ... OPTIONS -I...), then
    // the host libraries' ones, which the force-included tiling header's includes may need.
    for (const auto& d : kr.pkg->kernel_include_dirs) argv.push_back("-I" + (kr.src / d).string());
    for (const auto& d : kr.pkg->host_include_dirs) argv.push_back("-I" + (kr.src / d).string());
    // A translation unit generated beside the build (kernel_unit) finds the kernel source's
    // quoted includes where the source would.
    if (fs::path(kr.tu).parent_path() == kr.dir) {
      argv.push_back("-iquote");
      argv.push_back((kr.src / kr.pkg->kernel_source).parent_path().string());
    }
    for (const auto& d : tc_.fixed_defines) argv.push_back(d);
    for (const auto& d : defines) argv.push_back(d);
    const std::string obj = (kr.dir / ("kernel_" + std::to_string(column) + ".o")).string();
    argv.insert(argv.end(), {"-c", kr.tu, "-o", obj});
    k.compiles.push_back(argv);
    k.link = {tc_.cxx, "-shared", "-o", (kr.dir / ("kernel_" + std::to_string(column) + ".so")).string(), obj};
    if (tc_.use_mold) k.link.push_back("-fuse-ld=mold");
    return k;
  }

  // The real signature (`host --signature`), sandboxed; prepares the build's shared sandbox.
  // False (br says why: stage "signature") when it fails.
  bool read_signature(build_result& br, const fs::path& dir) {
    process_request req;
    req.argv = {br.host_exe.string(), "--signature"};
    const fs::path sig_dir = dir / "signature";
    fs::create_directories(sig_dir);
    req.cwd = sig_dir.string();
    req.limits.wall_timeout = std::chrono::seconds(30);
    req.limits.cpu_seconds = 30;
    req.limits.address_space_bytes = std::uint64_t(8) << 30;
    req.limits.file_size_bytes = std::uint64_t(64) << 20;
    // Every run of this build (this one, then each case's) shares one prepared sandbox.
    if (policy_.isolate) br.sandbox = std::make_shared<common::sandbox_session>(run_session_base(policy_, {dir, profile_path_}));
    req.iso = run_isolation(policy_, {dir, profile_path_}, sig_dir, {});
    req.session = br.sandbox;
    const auto out = run_process(req);
    if (!out.ok()) {
      br.stage = "signature";
      br.log = out.err;
      br.diagnostic = "`host --signature` " + (out.end == common::process_end::spawn_failed ? "could not start: " + out.error : out.describe()) +
                      ": " + common::valid_utf8(tail(out.err, 800));
      return false;
    }
    try {
      br.signature = nlohmann::json::parse(out.out);
    } catch (const std::exception& e) {
      br.stage = "signature";
      br.diagnostic = std::string("`host --signature` printed invalid JSON: ") + e.what();
      return false;
    }
    return true;
  }

  // Kernels for the columns the cases need; reuses speculative builds whose defines matched.
  build_result& build_kernels(build_result& br, const std::vector<const case_spec*>& cases, const kernel_recipe& recipe,
                              const speculated& spec_done, const side_keys& kernel_inputs,
                              std::chrono::steady_clock::time_point t0) {
    const fs::path& dir = recipe.dir;
    std::set<std::size_t> columns;
    for (const auto* c : cases) {
      std::string why;
      const auto col = select_column(br.signature, align_case(*c, br.signature), why);
      if (col) columns.insert(*col);
    }
    std::map<std::size_t, std::future<compile_outcome>> pending;
    double kernel_seconds = 0;
    bool kernels_reused = !columns.empty();
    for (auto col : columns) {
      const auto defs = kernel_defines(br.signature, col);
      auto it = spec_done.find(col);
      if (it != spec_done.end() && it->second.first == defs) {
        br.speculation_hit = true;
        kernel_seconds = std::max(kernel_seconds, it->second.second.seconds);
        kernels_reused = kernels_reused && it->second.second.reused;
        note_rejected_pch(br, it->second.second);
        if (!it->second.second.ok) return kernel_failure(br, it->second.second, col, t0);
        br.kernels[col] = dir / ("kernel_" + std::to_string(col) + ".so");
        continue;
      }
      auto job = kernel_job(recipe, defs, col);
      pending.emplace(col, std::async(std::launch::async, [this, job, dir, &kernel_inputs] { return compile(job, dir, policy_, kernel_inputs); }));
    }
    std::optional<std::pair<std::size_t, compile_outcome>> failed;
    for (auto& [col, f] : pending) {
      auto out = f.get();
      kernel_seconds = std::max(kernel_seconds, out.seconds);
      kernels_reused = kernels_reused && out.reused;
      note_rejected_pch(br, out);
      if (!out.ok && !failed) failed = std::make_pair(col, out);
      if (out.ok) br.kernels[col] = dir / ("kernel_" + std::to_string(col) + ".so");
    }
    br.kernel_seconds = kernel_seconds;
    br.kernel_reused = kernels_reused;
    if (failed) return kernel_failure(br, failed->second, failed->first, t0);
    br.ok = true;
    br.total_seconds = secs_since(t0);
    return br;
  }

  const toolchain& tc_;
  sandbox_policy policy_;
  std::string profile_name_;
  // A test profile's "measurement_noise": {"value": {"relative_sd", "repeat", "seed"}}: each run
  // reports `repeat` timings, the simulated one times (1 + relative_sd * N(0, 1)), seeded by the
  // seed, the built artefacts and the case, and a count of earlier runs of the same (docs/cann.md,
  // "Measurement"). Real profiles have none: sim stays deterministic with zero spread.
  struct noise_spec {
    double relative_sd = 0;
    int repeat = 1;
    std::uint64_t seed = 1;
  };
  void read_noise() {
    const auto j = common::read_json_file(profile_path_);
    if (!j.contains("measurement_noise")) return;
    const auto& v = j["measurement_noise"].value("value", nlohmann::json::object());
    noise_.relative_sd = v.value("relative_sd", 0.0);
    noise_.repeat = v.value("repeat", 9);
    noise_.seed = v.value("seed", std::uint64_t{1});
    if (!(noise_.relative_sd >= 0 && noise_.relative_sd < 0.5) || noise_.repeat < 1) {
      throw error(ec::invalid_spec, profile_path_.string() + ": measurement_noise needs 0 <= relative_sd < 0.5 and repeat >= 1");
    }
  }
  void add_noise(run_result& rr, const build_result& built, const run_spec& spec) {
    auto& timing = rr.harness["timing"];
    if (!timing.is_object() || !timing.contains("Task Duration(us)") || !timing["Task Duration(us)"].is_number()) return;
    const double us = timing["Task Duration(us)"].get<double>();
    std::uint64_t key = common::fast_hash_file(built.host_exe) ^ (common::fast_hash_file(built.kernels.at(spec.column)) * 3);
    for (const auto& in : spec.inputs) {
      for (const auto& t : in.tensors) {
        for (auto d : t.shape) key = key * 1099511628211ull ^ static_cast<std::uint64_t>(d);
      }
    }
    std::uint64_t count = 0;
    {
      std::lock_guard<std::mutex> lock(noise_mutex_);
      count = noise_runs_[key]++;
    }
    std::mt19937_64 rng(noise_.seed * 0x9E3779B97F4A7C15ull ^ key ^ (count * 0xBF58476D1CE4E5B9ull));
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<double> samples;
    for (int i = 0; i < noise_.repeat; ++i) samples.push_back(std::max(1e-3, us * (1.0 + noise_.relative_sd * z(rng))));
    const auto s = common::summarize(samples);
    timing["simulated_us"] = us;
    timing["Task Duration(us)"] = s.median;
    rr.harness["measurement"] = {{"measured", false},       {"noise_relative_sd", noise_.relative_sd},
                                 {"repetitions", s.n},      {"warmups", 0},
                                 {"median_us", s.median},   {"ci_low_us", s.low},
                                 {"ci_high_us", s.high},    {"spread", s.spread()},
                                 {"samples_us", samples},   {"noise_seed", noise_.seed}};
  }

  fs::path profile_path_;
  std::string fingerprint_;
  noise_spec noise_;
  std::mutex noise_mutex_;
  std::map<std::uint64_t, std::uint64_t> noise_runs_;
};

}  // namespace

case_spec align_case(const case_spec& c, const nlohmann::json& sig) {
  case_spec out = c;
  auto align = [](auto& items, const nlohmann::json& declared) {
    if (declared.size() != items.size()) return;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const bool known = std::any_of(declared.begin(), declared.end(),
                                     [&](const auto& d) { return d.value("name", std::string()) == items[k].name; });
      if (!known) items[k].name = declared[k].value("name", items[k].name);
    }
  };
  align(out.inputs, sig.value("inputs", nlohmann::json::array()));
  align(out.outputs, sig.value("outputs", nlohmann::json::array()));
  // Attributes by name; a camelCase name the OpDef declares in snake_case (dstType, dst_type).
  const auto& attrs = sig.value("attrs", nlohmann::json::array());
  auto declared = [&](const std::string& n) {
    return std::any_of(attrs.begin(), attrs.end(), [&](const auto& a) { return a.value("name", std::string()) == n; });
  };
  nlohmann::json renamed = nlohmann::json::object();
  for (const auto& [name, value] : out.attrs.items()) {
    std::string snake;
    for (char ch : name) {
      if (std::isupper(static_cast<unsigned char>(ch))) snake += std::string("_") + static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      else snake += ch;
    }
    renamed[!declared(name) && declared(snake) ? snake : name] = value;
  }
  out.attrs = renamed;
  // A scalar input given as an attribute (msOpST `attr` naming an OpDef input the case lacks):
  // a one-element tensor holding the value, of the input's dtype in the column of the case's
  // first input.
  const auto& ins = sig.value("inputs", nlohmann::json::array());
  if (!out.inputs.empty() && !out.inputs[0].tensors.empty() && !ins.empty()) {
    const auto first = dtype_name(out.inputs[0].tensors[0].type);
    const auto& dts0 = ins[0].value("dtypes", nlohmann::json::array());
    std::size_t col = 0;
    while (col < dts0.size() && dts0[col] != first) ++col;
    for (const auto& i : ins) {
      const auto name = i.value("name", std::string());
      const bool given = std::any_of(out.inputs.begin(), out.inputs.end(), [&](const input_spec& s) { return s.name == name; });
      const auto& dts = i.value("dtypes", nlohmann::json::array());
      if (given || !out.attrs.contains(name) || !out.attrs[name].is_number() || dts.empty()) continue;
      const auto dt = parse_dtype(dts[std::min(col, dts.size() - 1)].get<std::string>());
      if (!dt) continue;
      input_spec is;
      is.name = name;
      tensor_spec t;
      t.shape = {1};
      t.type = *dt;
      t.values = {out.attrs[name].get<double>()};
      is.tensors.push_back(t);
      out.inputs.push_back(std::move(is));
      out.attrs.erase(name);
    }
  }
  return out;
}

namespace {
// A plain layout (as `host --signature` spells it) that a tensor of this rank can have; a private
// one (NC1HWC0, NDC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...) never: a case's tensors are in plain layouts.
// The harness's matching_column applies the same rule to the descriptors it fills.
// With `private_too`, also a private format the harness lays a tensor of that rank out in
// (aopt_sim/host/private_format.h: NC1HWC0 and FRACTAL_Z from rank 4, NDC1HWC0 and FRACTAL_Z_3D from 5).
bool format_allows_rank(const std::string& f, std::size_t rank, bool private_too) {
  if (private_too && (f == "NC1HWC0" || f == "FRACTAL_Z")) return rank == 4;
  if (private_too && (f == "NDC1HWC0" || f == "FRACTAL_Z_3D")) return rank == 5;
  if (f == "ND" || f == "RESERVED") return true;
  if (f == "NC" || f == "CN") return rank == 2;
  if (f == "NCL") return rank == 3;
  if (f == "NCHW" || f == "NHWC" || f == "HWCN" || f == "CHWN") return rank == 4;
  if (f == "NCDHW" || f == "NDHWC" || f == "DHWCN" || f == "DHWNC") return rank == 5;
  return false;
}
}  // namespace

std::optional<std::size_t> select_column(const nlohmann::json& sig, const case_spec& c, std::string& why) {
  const auto& ins = sig.value("inputs", nlohmann::json::array());
  if (ins.empty()) return 0;
  std::size_t columns = 0;
  for (const auto& i : ins) columns = std::max(columns, i.value("dtypes", nlohmann::json::array()).size());
  if (columns == 0) return 0;
  std::string names;
  for (const auto& i : ins) names += (names.empty() ? "" : ", ") + i.value("name", std::string());
  for (const auto& ci : c.inputs) {
    const bool known = std::any_of(ins.begin(), ins.end(), [&](const auto& i) { return i.value("name", std::string()) == ci.name; });
    if (!known) {
      why = "case '" + c.name + "' gives input '" + ci.name + "', which the OpDef does not declare (its inputs: " + names + ")";
      return std::nullopt;
    }
  }
  // Three passes: a column whose dtypes match and whose input formats are plain layouts that allow
  // each given tensor's rank (the harness sets the descriptors' formats by the same rule, so
  // tiling and kernel see one column: conv3dv2's fp16 NCDHW column, not its NDC1HWC0 one, for
  // rank-5 tensors; its FORMAT_X selects the kernel), then one whose private formats come from
  // the tensors' ranks (the harness lays them out so: conv3d_backprop_filter_v2's NDC1HWC0), then
  // by dtypes alone.
  for (const int by_format : {2, 1, 0}) {
  for (std::size_t col = 0; col < columns; ++col) {
    bool match = true;
    for (const auto& i : ins) {
      const auto name = i.value("name", std::string());
      const auto& dts = i.value("dtypes", nlohmann::json::array());
      auto it = std::find_if(c.inputs.begin(), c.inputs.end(), [&](const input_spec& s) { return s.name == name; });
      if (it == c.inputs.end()) {
        if (i.value("param_type", std::string("required")) == "optional") continue;
        why = "case '" + c.name + "' has no input '" + name + "' (the OpDef's inputs: " + names + ")";
        return std::nullopt;
      }
      const auto& fms = i.value("formats", nlohmann::json::array());
      if (by_format > 0 && !fms.empty() && fms[std::min(col, fms.size() - 1)].is_string() &&
          !format_allows_rank(fms[std::min(col, fms.size() - 1)].get<std::string>(), it->tensors.at(0).shape.size(), by_format == 1)) {
        match = false;
        break;
      }
      if (dts.empty()) continue;
      const auto want = dts[std::min(col, dts.size() - 1)].get<std::string>();
      if (dtype_name(it->tensors.at(0).type) != want) {
        match = false;
        break;
      }
    }
    // A case may pin an output's dtype (e.g. Cast float32 -> bfloat16): the column must agree.
    for (const auto& o : c.outputs) {
      if (!match || !o.type) continue;
      const auto& outs = sig.value("outputs", nlohmann::json::array());
      for (const auto& so : outs) {
        if (so.value("name", std::string()) != o.name) continue;
        const auto& dts = so.value("dtypes", nlohmann::json::array());
        if (!dts.empty() && dtype_name(*o.type) != dts[std::min(col, dts.size() - 1)].get<std::string>()) match = false;
      }
    }
    if (match) return col;
  }
  }
  std::string have;
  for (const auto& ci : c.inputs) have += (have.empty() ? "" : ", ") + ci.name + ":" + dtype_name(ci.tensors.at(0).type);
  std::string cols;
  for (std::size_t col = 0; col < columns; ++col) {
    std::string one;
    for (const auto& i : ins) {
      const auto& dts = i.value("dtypes", nlohmann::json::array());
      if (!dts.empty()) one += (one.empty() ? "" : ", ") + i.value("name", std::string()) + ":" + dts[std::min(col, dts.size() - 1)].get<std::string>();
    }
    cols += (cols.empty() ? "" : "; ") + std::string("(") + one + ")";
  }
  why = "case '" + c.name + "' uses dtypes (" + have + "), which no OpDef dtype column supports: " + cols;
  return std::nullopt;
}

std::vector<run_output_decl> output_decls(const nlohmann::json& sig, std::size_t column, const case_spec& c) {
  std::vector<run_output_decl> out;
  for (const auto& o : sig.value("outputs", nlohmann::json::array())) {
    run_output_decl d;
    d.name = o.value("name", std::string());
    const auto& dts = o.value("dtypes", nlohmann::json::array());
    if (!dts.empty()) {
      if (auto t = parse_dtype(dts[std::min(column, dts.size() - 1)].get<std::string>())) d.type = *t;
    }
    for (const auto& os : c.outputs) {
      if (os.name == d.name) {
        if (os.type) d.type = *os.type;
        if (os.shape) d.shape = os.shape;
      }
    }
    if (o.value("param_type", std::string()) == "dynamic") {
      // The case's per-element shapes, else as many tensors as its (first) tensor-list input has.
      d.list_count = 1;
      for (const auto& ci : c.inputs) {
        if (ci.is_list) {
          d.list_count = ci.tensors.size();
          break;
        }
      }
      for (const auto& os : c.outputs) {
        if (os.name == d.name && !os.list_shapes.empty()) {
          d.list_shapes = os.list_shapes;
          d.list_count = os.list_shapes.size();
        }
      }
    }
    out.push_back(d);
  }
  return out;
}

std::unique_ptr<backend> make_sim_backend(const std::string& profile, const sandbox_policy& policy) {
  return std::make_unique<sim_backend>(profile, policy);
}

}  // namespace aopt::evaluation
