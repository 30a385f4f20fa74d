// `aopt doctor [--cann-config FILE]`: is this machine ready for the cann backend? Each check
// prints ok / MISSING / warn with what to do; exit 0 when nothing is missing, 1 otherwise.
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "aopt/common/subprocess.h"
#include "aopt/evaluation/cann.h"
#include "commands.h"

namespace aopt::app {

namespace fs = std::filesystem;

namespace {

struct doctor_args {
  std::string cann_config;
  std::string work_dir;
};

struct report {
  int missing = 0;
  void ok(const std::string& what, const std::string& detail) { std::cout << fmt::format("ok       {:<12} {}\n", what, detail); }
  void warn(const std::string& what, const std::string& detail, const std::string& fix) {
    std::cout << fmt::format("warn     {:<12} {}\n         {:<12} fix: {}\n", what, detail, "", fix);
  }
  void miss(const std::string& what, const std::string& detail, const std::string& fix) {
    ++missing;
    std::cout << fmt::format("MISSING  {:<12} {}\n         {:<12} fix: {}\n", what, detail, "", fix);
  }
};

// A command run after sourcing set_env.sh (when there): what the cann backend's commands see.
common::process_outcome in_env(const fs::path& set_env, const std::string& line,
                               const std::map<std::string, std::string>& env = {}) {
  common::process_request r;
  std::string script = line;
  if (!set_env.empty()) script = ". " + evaluation::expand_command("{f}", {{"f", set_env.string()}}, "set_env") + " >/dev/null 2>&1; " + line;
  r.argv = {"/bin/bash", "-c", script};
  r.limits.wall_timeout = std::chrono::seconds(30);
  for (const auto& [k, v] : env) r.env.emplace_back(k, v);
  return common::run_process(r);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

int run(const doctor_args& a) {
  report rep;
  std::optional<evaluation::cann_profile> prof;
  fs::path toolkit;
  if (!a.cann_config.empty()) {
    prof = evaluation::load_cann_profile(a.cann_config);  // a bad profile: exit 2 with file:line
    rep.ok("profile", prof->file.string() + " (soc " + prof->soc_version + ", device " + std::to_string(prof->device) + ")");
    toolkit = prof->toolkit;
  }
  // Without a profile: ASCEND_TOOLKIT_HOME, else the documented places of a default install,
  // CANN 8.5 and later (<root>/cann/set_env.sh) first, then 8.0-8.3
  // (<root>/ascend-toolkit/set_env.sh beside latest/), under /usr/local/Ascend and $HOME/Ascend.
  std::vector<fs::path> candidates;
  if (!prof) {
    if (const char* t = std::getenv("ASCEND_TOOLKIT_HOME"); t && *t) candidates.emplace_back(t);
    std::vector<fs::path> roots = {"/usr/local/Ascend"};
    if (const char* h = std::getenv("HOME"); h && *h) roots.push_back(fs::path(h) / "Ascend");
    for (const auto& t : evaluation::default_toolkits(roots)) candidates.push_back(t);
    toolkit = evaluation::find_toolkit(candidates).value_or(candidates.front());
  }
  const fs::path set_env = prof ? prof->set_env : evaluation::default_set_env(toolkit);
  std::error_code e;
  const bool have_toolkit = fs::is_regular_file(set_env, e);
  if (have_toolkit) {
    std::string version;
    for (const char* v : {"version.cfg", "version.info"}) {
      if (fs::is_regular_file(toolkit / v, e) && version.empty()) {
        std::ifstream in(toolkit / v);
        for (std::string l; std::getline(in, l);) {
          if (l.find("version") != std::string::npos && l[0] != '#') version = l;
        }
      }
    }
    rep.ok("toolkit", toolkit.string() + (version.empty() ? "" : " (" + version + ")"));
  } else {
    std::string also;
    for (std::size_t i = 1; i < candidates.size(); ++i) also += (also.empty() ? "" : ", ") + evaluation::default_set_env(candidates[i]).string();
    rep.miss("toolkit", "no CANN toolchain is present: " + set_env.string() + " does not exist" + (also.empty() ? "" : " (nor " + also + ")"),
             "install the CANN toolkit for your chip (Ascend-cann-toolkit_<version>_linux-<arch>.run --install, then the "
             "matching Ascend-cann-kernels package), or point [cann] toolkit / ASCEND_TOOLKIT_HOME at it; docs/cann.md, steps 1-2");
  }
  const fs::path env_file = have_toolkit ? set_env : fs::path();
  std::map<std::string, std::string> extra;
  if (prof) extra.insert(prof->environment.begin(), prof->environment.end());
  bool have_smi = false;
  for (const char* tool : {"msprof", "npu-smi"}) {
    const auto o = in_env(env_file, std::string("command -v ") + tool, extra);
    if (o.ok()) {
      if (std::string(tool) == "npu-smi") have_smi = true;
      rep.ok(tool, first_line(o.out));
    } else if (std::string(tool) == "msprof") {
      rep.miss(tool, "not on PATH after set_env.sh", "it ships with the CANN toolkit (tools/profiler); install the toolkit, or source its set_env.sh");
    } else {
      rep.miss(tool, "not found: the NPU driver is not installed", "install the Ascend driver and firmware packages for the card (npu-smi comes with the driver); docs/cann.md, step 1");
    }
  }
  // The runner (the run command's program) and the runtime it loads, as the backend will start it.
  if (prof) {
    const std::string line = prof->run.line;
    const std::string program = line.substr(0, line.find_first_of(" \t"));
    const auto found = in_env(env_file, "command -v " + evaluation::expand_command("{p}", {{"p", program}}, "run"), extra);
    if (!found.ok()) {
      rep.miss("runner", program + " ([commands] run) is not on PATH after set_env.sh",
               "build aopt (it builds apps/aopt-acl-run) and put aopt-acl-run on PATH or its path in [commands] run; docs/cann.md, step 5");
    } else if (program.find("aopt-acl-run") != std::string::npos) {
      const auto check = in_env(env_file, first_line(found.out) + " --check", extra);
      if (check.ok()) rep.ok("runner", first_line(found.out) + ": " + first_line(check.out));
      else rep.miss("runner", first_line(check.err + check.out), "source the toolkit's set_env.sh (it puts lib64 on LD_LIBRARY_PATH); docs/cann.md, step 5");
    } else {
      rep.ok("runner", first_line(found.out) + " (not aopt-acl-run: not checked further)");
    }
  }
  // The operator's msOpGen project must build the binary package: aclnn<Op> launches the
  // kernel binary the package installs (docs/cann.md, step 4).
  if (prof) {
    const fs::path presets = prof->project_template / "CMakePresets.json";
    std::ifstream in(presets);
    std::stringstream text;
    text << in.rdbuf();
    static const std::regex binary(R"re("ENABLE_BINARY_PACKAGE"\s*:\s*\{[^}]*"value"\s*:\s*"([^"]*)")re");
    std::smatch m;
    const std::string t = text.str();
    if (!in) {
      rep.miss("project", presets.string() + " not found ([cann] project_template)", "generate the operator's project with msopgen; docs/cann.md, step 4");
    } else if (!std::regex_search(t, m, binary) || (m[1].str() != "True" && m[1].str() != "ON" && m[1].str() != "true")) {
      rep.miss("project", presets.string() + ": ENABLE_BINARY_PACKAGE is not True",
               "set \"ENABLE_BINARY_PACKAGE\": {\"type\": \"BOOL\", \"value\": \"True\"} in its cacheVariables (aclnn launches the kernel "
               "binary of the package); docs/cann.md, step 4");
    } else {
      rep.ok("project", prof->project_template.string() + " (ENABLE_BINARY_PACKAGE True)");
    }
  }
  // Without npu-smi (said above) there is no device list to read.
  const auto smi = have_smi ? in_env(env_file, "npu-smi info", extra) : common::process_outcome{};
  if (have_smi && smi.ok()) {
    // Device rows of the table: "| 0     910B4      | OK     | ..."
    static const std::regex row(R"(\|\s*(\d+)\s+(\S+)\s*\|\s*(\w+)\s*\|)");
    int devices = 0;
    std::string names;
    for (auto it = std::sregex_iterator(smi.out.begin(), smi.out.end(), row); it != std::sregex_iterator(); ++it) {
      ++devices;
      names += (names.empty() ? "" : ", ") + (*it)[1].str() + ": " + (*it)[2].str() + " " + (*it)[3].str();
    }
    if (devices == 0) {
      rep.miss("devices", "npu-smi info lists no NPU", "check the card and driver (npu-smi info as root; dmesg)");
    } else {
      rep.ok("devices", std::to_string(devices) + " visible (" + names + ")");
      if (prof && prof->soc_short().find("910b") != std::string::npos && names.find("910B") == std::string::npos) {
        rep.warn("soc", "profile says " + prof->soc_version + ", npu-smi shows " + names, "set [cann] soc_version to the chip npu-smi names");
      }
    }
  } else if (have_smi) {
    rep.miss("devices", "npu-smi info failed: " + first_line(smi.err + smi.out), "run it by hand; a permission error means your user is not in the driver's group (HwHiAiUser)");
  }
  bool any_node = false;
  for (int i = 0; i < 64; ++i) {
    const fs::path node = "/dev/davinci" + std::to_string(i);
    if (!fs::exists(node, e)) continue;
    any_node = true;
    if (::access(node.c_str(), R_OK | W_OK) != 0) {
      rep.miss("permissions", node.string() + " is not readable and writable by this user",
               "add the user to the driver's group (usermod -aG HwHiAiUser $USER) and log in again");
    }
  }
  if (any_node) rep.ok("dev nodes", "/dev/davinci* present");
  else rep.miss("dev nodes", "no /dev/davinci* device node", "the NPU driver is not loaded; install it (docs/cann.md, step 1) or run where the card is");
  const fs::path work = a.work_dir.empty() ? fs::temp_directory_path() : fs::path(a.work_dir);
  struct statvfs st {};
  if (::statvfs(work.c_str(), &st) == 0) {
    const double gib = static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize) / (1u << 30);
    if (gib < 2.0) rep.miss("disk", fmt::format("{:.1f} GiB free under {}", gib, work.string()), "each candidate build needs about 200 MB; free 2 GiB or set TMPDIR elsewhere");
    else rep.ok("disk", fmt::format("{:.1f} GiB free under {}", gib, work.string()));
  }
  if (rep.missing == 0) {
    std::cout << "ready for --backend cann\n";
    return 0;
  }
  std::cout << rep.missing << " problem(s): the cann backend cannot run here" << (have_toolkit ? "" : " (no CANN toolchain; --backend sim works without one)") << "\n";
  return 1;
}

}  // namespace

command_fn add_doctor_command(CLI::App& app) {
  auto a = std::make_shared<doctor_args>();
  app.add_option("--cann-config", a->cann_config, "command profile to check (default: the toolkit of ASCEND_TOOLKIT_HOME or /usr/local/Ascend)");
  app.add_option("--work-dir", a->work_dir, "where candidate builds go (disk check; default $TMPDIR)");
  return [a]() { return run(*a); };
}

}  // namespace aopt::app
