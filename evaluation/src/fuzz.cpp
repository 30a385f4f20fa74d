#include "aopt/evaluation/fuzz.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/subprocess.h"
#include "aopt/evaluation/sandbox.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

// Runs in the interpreter (argv: script, function, calls, seed). The script's own prints go to
// stderr; stdout carries only the JSON list of the calls' dicts. Exit 3: no numpy; 4: no such
// function; 5: the script raised (traceback on stderr).
constexpr const char* driver = R"PY(
import importlib.util, json, os, random, sys, traceback
script, function, calls, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
out, sys.stdout = sys.stdout, sys.stderr
try:
    import numpy as np
except ImportError as e:
    sys.stderr.write("aopt-fuzz: %s\n" % e)
    sys.exit(3)
sys.path.insert(0, os.path.dirname(script))
random.seed(seed)
np.random.seed(seed)
def plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError("a %s is not JSON: return lists, numbers, booleans and strings" % type(v).__name__)
try:
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(script))[0], script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, function, None)
    if not callable(fn):
        sys.stderr.write("aopt-fuzz: %s defines no function %s\n" % (script, function))
        sys.exit(4)
    text = json.dumps([fn() for _ in range(calls)], default=plain, allow_nan=False)
except SystemExit:
    raise
except BaseException:
    traceback.print_exc()
    sys.exit(5)
out.write(text)
out.flush()
)PY";

std::string last_lines(const std::string& text, std::size_t n) {
  std::size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return "(nothing on stderr)";
  std::size_t at = end + 1;
  for (std::size_t k = 0; k < n && at > 0; ++k) {
    const auto nl = text.rfind('\n', at - 1);
    at = nl == std::string::npos ? 0 : nl;
  }
  std::string s = text.substr(at, end + 1 - at);
  while (!s.empty() && s.front() == '\n') s.erase(0, 1);
  return s;
}

std::string on_path(const std::string& name) {
  const fs::path p = common::find_on_path(name);
  return p.empty() ? name : p.string();
}

// The interpreter's installation outside /usr (a venv or pyenv prefix), bound read-only.
std::vector<fs::path> interpreter_prefix(const std::string& python) {
  std::error_code e;
  const fs::path real = fs::canonical(python, e);
  if (e || path_under(real.string(), "/usr") || !real.has_parent_path()) return {};
  return {real.parent_path().parent_path()};
}

}  // namespace

std::string fuzz_python() {
  const char* env = std::getenv("AOPT_PYTHON");
  if (env != nullptr && *env != '\0') {
    const std::string v = env;
    return v.find('/') == std::string::npos ? on_path(v) : fs::absolute(v).string();
  }
  std::error_code e;
  if (fs::is_regular_file("/usr/bin/python3", e)) return "/usr/bin/python3";
  return on_path("python3");
}

msopst_fuzz_outputs run_msopst_fuzz(const std::vector<msopst_fuzz_request>& requests, const fs::path& case_file,
                                    const fs::path& op_dir_in, const fuzz_run_options& options) {
  msopst_fuzz_outputs out;
  if (requests.empty()) return out;
  const std::string python = fuzz_python();
  std::error_code ec_;
  const fs::path op_dir = fs::weakly_canonical(fs::absolute(op_dir_in), ec_);
  sandbox_policy policy;
  policy.isolate = options.isolate;
  policy.devices.clear();
  for (const auto& r : requests) {
    const std::string who = r.where + ": case " + r.case_name + ": " + r.origin();
    auto fail = [&](ec code, const std::string& msg) { throw error(code, who + ": " + msg); };
    const auto under = common::resolve_under(op_dir, r.script);
    if (!under) {
      fail(ec::invalid_spec, r.script.string() + " is outside the operator package " + op_dir.string() +
                                 " (symbolic links followed); keep the fuzz script inside it");
    }
    const fs::path script = *under;
    if (!fs::is_regular_file(script)) fail(ec::not_found, r.script.string() + ": no such script; put the fuzz script beside " + case_file.filename().string() + " or fix fuzz_impl");
    common::process_request req;
    req.argv = {python, "-I", "-B", "-c", driver, script.string(), r.function, std::to_string(r.count), std::to_string(r.seed)};
    req.cwd = script.parent_path().string();
    req.env = {{"OPENBLAS_NUM_THREADS", "1"}, {"OMP_NUM_THREADS", "1"}, {"MKL_NUM_THREADS", "1"}, {"PYTHONHASHSEED", "0"}};
    req.limits.wall_timeout = std::chrono::milliseconds(static_cast<long long>(options.timeout_seconds * 1000));
    req.limits.cpu_seconds = static_cast<std::uint64_t>(options.timeout_seconds) + 1;
    req.limits.address_space_bytes = options.memory_bytes;
    req.limits.file_size_bytes = std::uint64_t(64) << 20;
    req.limits.max_output_bytes = max_spec_file_bytes;
    std::vector<fs::path> read_only = {op_dir};
    for (const auto& p : interpreter_prefix(python)) read_only.push_back(p);
    req.iso = script_isolation(policy, read_only);
    const auto res = common::run_process(req);
    const std::string install = "install python3 and numpy (Debian: apt-get install python3-numpy, or scripts/install-deps.sh), or set AOPT_PYTHON to a python3 that has numpy";
    if (res.end == common::process_end::spawn_failed) fail(ec::not_found, "cannot run the Python interpreter " + python + " (" + res.error + "); " + install);
    if (res.end == common::process_end::timed_out) {
      fail(ec::invalid_spec, "did not finish within " + common::seconds_text(options.timeout_seconds) + " s; make the function faster or its cases smaller");
    }
    if (res.end == common::process_end::exited && res.exit_code == 3) fail(ec::not_found, python + " has no numpy (" + last_lines(res.err, 1) + "); " + install);
    if (res.end == common::process_end::exited && res.exit_code == 4) fail(ec::invalid_spec, "the script defines no function " + r.function + "; fix fuzz_impl");
    if (res.end == common::process_end::exited && res.exit_code == 5) fail(ec::invalid_spec, "the script raised an exception:\n" + last_lines(res.err, 4));
    if (!res.ok()) {
      const std::string why = res.memory_exhausted() ? "; it ran out of memory (limit " + std::to_string(options.memory_bytes >> 20) + " MiB)"
                              : res.cpu_limit_hit() ? "; it hit the CPU time limit"
                                                    : "";
      fail(ec::invalid_spec, python + " " + res.describe() + why + (res.isolation_note.empty() ? "" : " (" + res.isolation_note + ")") + ":\n" + last_lines(res.err, 4));
    }
    if (res.out_truncated) fail(ec::invalid_spec, "printed more than " + std::to_string(max_spec_file_bytes >> 20) + " MiB of JSON; make its cases smaller");
    nlohmann::ordered_json calls;
    try {
      calls = common::parse_json_doc(res.out, r.script.string() + " output").value;
    } catch (const error&) {
      fail(ec::invalid_spec, "printed something that is not JSON (" + (res.out.empty() ? std::string("nothing") : "'" + res.out.substr(0, 120) + "'") +
                                 "); a fuzz function returns a dict and must not write to file descriptor 1");
    }
    if (!calls.is_array() || calls.size() != r.count) fail(ec::invalid_spec, "the output is not a list of " + std::to_string(r.count) + " results");
    msopst_fuzz_output o;
    o.origin = r.origin();
    for (auto& c : calls) o.calls.push_back(std::move(c));
    out[r.index] = std::move(o);
  }
  return out;
}

}  // namespace aopt::evaluation
