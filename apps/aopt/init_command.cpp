// `aopt init OP_DIR [--elements N] [--out FILE] [--force] [--json] [--no-run] [--profile P]
//                   [--no-sandbox] [--keep-workdir] [--timeout S] [--memory-limit MiB]`
// A draft aopt.json from the operator itself (evaluation/spec_draft_probe.h; docs/evaluation.md,
// "Drafting a spec: aopt init").
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/evaluation/spec_draft.h"
#include "aopt/evaluation/spec_draft_probe.h"
#include "commands.h"

namespace aopt::app {

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

struct init_args {
  std::string op_dir;
  std::int64_t elements = std::int64_t(1) << 21;
  std::string out;
  bool force = false;
  bool json = false;
  std::string profile = "910b4";
  bool no_sandbox = false;
  bool keep_workdir = false;
  bool no_run = false;
  std::string tree;
  run_limit_options run;
};

nlohmann::json attempts_json(const ev::spec_draft& d) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : d.attempts) {
    a.push_back({{"case", x.case_name}, {"what", x.what}, {"shapes", x.shapes}, {"status", x.status}, {"diagnostic", x.diagnostic}});
  }
  return a;
}

}  // namespace

command_fn add_init_command(CLI::App& app) {
  auto a = std::make_shared<init_args>();
  app.add_option("OP_DIR", a->op_dir, "operator package directory (op_host/, op_kernel/)")->required();
  app.add_option("--elements", a->elements, "elements of the timed case's main tensor (about; default 2097152)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 32));
  app.add_option("--out", a->out, "where to write the draft (default OP_DIR/aopt.json)");
  app.add_flag("--force", a->force, "overwrite an existing file");
  app.add_flag("--json", a->json, "print {status, out, spec, attempts, failure} as JSON");
  app.add_option("--profile", a->profile, "device profile of sim: a name (910b4, a2) or a .json path");
  app.add_flag("--no-sandbox", a->no_sandbox, "build and run without namespaces (resource limits only; also AOPT_SANDBOX=0)");
  app.add_flag("--keep-workdir", a->keep_workdir, "keep the build and probe directory");
  app.add_flag("--no-run", a->no_run, "only screen the tiling; do not build and run the kernel on the shapes it accepts");
  app.add_option("--tree", a->tree,
                 "a directory above OP_DIR (e.g. a cann-ops checkout) inside which the package's CMakeLists.txt may reach "
                 "shared headers and sources, read-only (as aopt eval --tree); default: nothing outside OP_DIR")
      ->check(CLI::ExistingDirectory);
  add_run_limit_options(app, a->run);
  return [a]() -> int {
    const fs::path out = a->out.empty() ? fs::path(a->op_dir) / "aopt.json" : fs::path(a->out);
    std::error_code e;
    if (fs::exists(out, e) && !a->force) {
      throw error(ec::invalid_argument, out.string() + ": already exists; pass --force to overwrite it, or --out FILE to write elsewhere");
    }
    ev::draft_options o;
    o.elements = a->elements;
    o.run_kernel = !a->no_run;
    o.eval.profile = a->profile;
    o.eval.keep_workdir = a->keep_workdir;
    if (a->no_sandbox) o.eval.sandbox.isolate = false;
    o.eval.limits = a->run.limits();
    o.tree_root = a->tree;
    const auto d = ev::draft_spec(a->op_dir, o);
    if (d.ok) {
      if (out.has_parent_path()) fs::create_directories(out.parent_path());
      common::write_text_file_atomic(out, ev::draft_text(d.spec));
    }
    if (a->json) {
      nlohmann::json j = {{"status", d.ok ? "ok" : "failed"}, {"kernel", d.kernel}, {"op_type", d.op_type}, {"attempts", attempts_json(d)}};
      if (d.ok) {
        j["out"] = fs::absolute(out).string();
        j["spec"] = nlohmann::json::parse(d.spec.dump());
      } else {
        j["stage"] = d.stage;
        j["failure"] = d.failure;
        if (!d.compile_diagnostic.empty()) j["diagnostic"] = d.compile_diagnostic;
      }
      std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return d.ok ? 0 : 1;
    }
    if (!d.ok) {
      std::cerr << "aopt init: no spec for " << a->op_dir << ": " << ev::describe_failure(d);
      return 1;
    }
    std::cout << fmt::format("wrote {} ({}, {} probes):\n", out.string(), d.op_type, d.attempts.size());
    for (const auto& c : d.spec["cases"]) std::cout << "  case " << c.dump() << "\n";
    for (const auto& n : d.spec["notes"]) std::cout << "  note: " << n.get<std::string>() << "\n";
    std::cout << fmt::format("check it with: aopt eval {}{}{}\n", a->op_dir, a->out.empty() ? "" : " --spec " + out.string(),
                             a->tree.empty() ? "" : " --tree " + a->tree);
    return 0;
  };
}

}  // namespace aopt::app
