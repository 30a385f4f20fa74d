// The impure half of `aopt init` (spec_draft_probe.h): build the host, read the OpDef, screen
// each probe's tiling, write the draft.
#include "aopt/evaluation/spec_draft_probe.h"

#include <algorithm>
#include <optional>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/mapped_file.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/inputs.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/spec_draft.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string describe_case(const case_spec& c) {
  std::string out;
  for (const auto& i : c.inputs) {
    if (i.tensors.empty()) continue;
    out += (out.empty() ? "" : ", ") + i.name + " " + (i.is_list ? std::to_string(i.tensors.size()) + " x " : "") +
           shape_text(i.tensors.front().shape) + " " + dtype_name(i.tensors.front().type);
  }
  if (!c.attrs.empty()) out += "; attrs " + c.attrs.dump();
  return out;
}

// First line of a message, at most 300 bytes.
std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  if (l.size() > 300) l = l.substr(0, 300) + "...";
  return l;
}

// Runs case `c` on a build: with `screen` its tiling only (no kernel), "ok" when InferShape and
// the tiling accept it and no output is absurdly larger than the inputs; without, the kernel too
// (no timing), "ok" when it runs clean.
probe_attempt run_probe(backend& be, const build_result& built, std::size_t column, const case_spec& c,
                        const fs::path& run_dir, const common::sandbox_limits& limits, bool screen) {
  probe_attempt a;
  a.case_name = c.name;
  a.shapes = describe_case(c);
  fs::create_directories(run_dir);
  run_spec rs;
  rs.column = column;
  rs.attrs = c.attrs;
  rs.timing = false;
  rs.screen = screen;
  std::int64_t largest_input = 1;
  for (const auto& in : c.inputs) {
    run_input ri;
    ri.name = in.name;
    ri.is_list = in.is_list;
    for (std::size_t k = 0; k < in.tensors.size(); ++k) {
      const auto& ts = in.tensors[k];
      tensor_file tf;
      tf.name = in.name;
      tf.type = ts.type;
      tf.shape = ts.shape;
      tf.file = run_dir / ("in_" + in.name + "_" + std::to_string(k) + ".bin");
      const auto bytes = generate_tensor(ts, 1, c.name, in.name, k);
      common::write_file_bytes(tf.file, bytes.data(), bytes.size());
      largest_input = std::max(largest_input, ts.numel());
      ri.tensors.push_back(std::move(tf));
    }
    rs.inputs.push_back(std::move(ri));
  }
  rs.outputs = output_decls(built.signature, column, c);
  const auto rr = be.run(built, rs, run_dir, limits);
  a.status = rr.status;
  a.diagnostic = first_line(rr.diagnostic);
  // What the tiling logged (OP_LOGE: on stderr with sim's log header, on stdout where an
  // operator defines it as printf, as many cann-ops operators do): the last line.
  if (rr.status == "tiling_error") {
    for (const auto* stream : {&rr.process.err, &rr.process.out}) {
      std::string text = *stream;
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
      const auto nl = text.rfind('\n');
      const std::string last = common::valid_utf8(first_line(nl == std::string::npos ? text : text.substr(nl + 1)));
      if (last.empty()) continue;
      a.diagnostic += std::string(" [") + (stream == &rr.process.err ? "stderr" : "stdout") + ": " + last + "]";
      break;
    }
  }
  if (rr.status == "ok" && rr.harness.contains("output_shapes") && rr.harness["output_shapes"].is_array()) {
    for (const auto& o : rr.harness["output_shapes"]) {
      std::int64_t n = 1;
      for (const auto& d : o.value("shape", nlohmann::json::array())) n *= std::max<std::int64_t>(d.get<std::int64_t>(), 1);
      if (n > 8 * largest_input) {
        a.status = "too_big";
        a.diagnostic = "InferShape makes output '" + o.value("name", std::string()) + "' " +
                       shape_text(o.value("shape", std::vector<std::int64_t>{})) + ", more than 8 times the largest input";
        break;
      }
    }
  }
  std::error_code e;
  fs::remove_all(run_dir, e);
  return a;
}

}  // namespace

spec_draft draft_spec(const fs::path& op_dir, const draft_options& o) {
  package_options po;
  po.without_cases = true;
  po.isolate = o.eval.sandbox.isolate;
  po.tree_root = o.tree_root;
  auto pkg = std::make_shared<const op_package>(load_package(op_dir, po));
  spec_draft d;
  d.kernel = pkg->spec.kernel;
  const candidate cand(pkg);
  auto be = make_sim_backend(o.eval.profile, o.eval.sandbox);
  const fs::path root = o.eval.work_root.empty() ? fs::temp_directory_path() / "aopt-work" : o.eval.work_root;
  fs::create_directories(root);
  const fs::path work = common::make_unique_dir(root, "init-" + d.kernel.substr(0, 40) + "-");
  struct cleanup {
    fs::path dir;
    bool keep;
    ~cleanup() {
      std::error_code e;
      if (!keep) fs::remove_all(dir, e);
    }
  } guard{work, o.eval.keep_workdir};

  const build_result built = be->build(cand, work / "build", {});
  if (!built.ok) {
    d.stage = built.stage.empty() ? "host" : built.stage;
    d.compile_diagnostic = built.diagnostic;
    d.failure = built.stage == "signature" ? "the host executable built but `host --signature` failed: " + first_line(built.diagnostic)
                                           : "the host sources do not compile, so the OpDef and the tiling cannot be read: " +
                                                 first_line(built.diagnostic);
    return d;
  }
  const auto op = op_interface::from_signature(built.signature);
  d.op_type = op.op_type;
  const auto column = preferred_column(op);
  if (!column) {
    d.stage = "column";
    d.failure = "no dtype column of " + op.op_type + "'s OpDef has only dtypes aopt.json knows (" +
                [&] {
                  std::string s;
                  for (const auto& i : op.inputs) {
                    std::string l;
                    for (const auto& t : i.dtypes) l += (l.empty() ? "" : "/") + t;
                    s += (s.empty() ? "" : ", ") + i.name + " " + l;
                  }
                  return s;
                }() +
                ")";
    return d;
  }
  std::vector<std::string> notes;
  notes.push_back("drafted by `aopt init` from " + op.op_type + "'s OpDef and its tiling: review the shapes, ranges and attributes");
  const auto attrs = draft_attrs(op, *column, notes);
  const auto probes = timed_probes(op, attrs, o.max_probes);
  std::size_t n = 0;
  // The kernel, built on the first probe the tiling accepts, runs each accepted probe once
  // (o.run_kernel): a shape the tiling takes but the kernel does not handle (its UB overflows, it
  // reads past an input) is not drafted.
  std::optional<build_result> full;
  std::string kernel_problem;
  auto accepted = [&](const case_spec& c, const std::string& what) {
    auto a = run_probe(*be, built, *column, c, work / "probe" / std::to_string(n++), o.eval.limits, true);
    a.what = what;
    d.attempts.push_back(a);
    if (a.status != "ok" || !o.run_kernel) return a.status == "ok";
    if (!full && kernel_problem.empty()) {
      const std::vector<const case_spec*> cs = {&c};
      auto b = be->build(cand, work / "full", cs);
      if (b.ok) {
        full = std::move(b);
      } else {
        kernel_problem = first_line(b.diagnostic.empty() ? b.stage : b.diagnostic);
      }
    }
    if (!full) return true;  // the kernel does not build on sim: the shapes are only screened
    auto r = run_probe(*be, *full, *column, c, work / "probe" / std::to_string(n++), o.eval.limits, false);
    r.what = what + ", kernel run";
    d.attempts.push_back(r);
    return r.status == "ok";
  };
  const probe* chosen = nullptr;
  std::int64_t elements = o.elements;
  std::vector<const probe*> tiled;  // probes the tiling accepted but the kernel failed on
  for (std::int64_t size : {o.elements, o.elements / 16, o.elements / 256}) {
    if (chosen != nullptr || (size != o.elements && (size < 4096 || !o.run_kernel || !full))) break;
    std::vector<const probe*> todo;
    for (const auto& p : probes) todo.push_back(&p);
    if (size != o.elements && !tiled.empty()) todo = tiled;  // smaller: only what failed when run
    tiled.clear();
    for (const auto* p : todo) {
      const auto c = probe_case(op, *p, *column, "perf", true, size, false);
      const std::size_t before = d.attempts.size();
      if (accepted(c, p->what)) {
        chosen = p;
        elements = size;
        break;
      }
      if (d.attempts.size() - before == 2) tiled.push_back(p);
    }
  }
  if (chosen == nullptr) {
    d.stage = "probe";
    const bool ran = !tiled.empty() || std::any_of(d.attempts.begin(), d.attempts.end(), [](const probe_attempt& a) {
      return a.what.find("kernel run") != std::string::npos;
    });
    d.failure = ran ? "every shape " + op.op_type + "'s tiling accepted failed when its kernel ran (" + std::to_string(d.attempts.size()) +
                          " probes and runs)"
                    : "InferShape or the tiling of " + op.op_type + " refused every shape tried (" + std::to_string(d.attempts.size()) +
                          " probes)";
    return d;
  }
  if (elements != o.elements) {
    notes.push_back("the timed case holds about " + std::to_string(elements) + " elements: at " + std::to_string(o.elements) +
                    " every shape the tiling accepted failed when the kernel ran");
  }
  const probe* tail = nullptr;
  const auto tails = tail_probes(*chosen);
  std::string tail_refusal;
  for (const auto& p : tails) {
    const auto c = probe_case(op, p, *column, "tail", false, elements, true);
    if (accepted(c, p.what)) {
      tail = &p;
      break;
    }
    if (tail_refusal.empty()) tail_refusal = d.attempts.back().status + ": " + d.attempts.back().diagnostic;
  }
  std::vector<case_spec> cases;
  cases.push_back(probe_case(op, *chosen, *column, "perf", true, elements, false, &notes));
  if (tail != nullptr) {
    cases.push_back(probe_case(op, *tail, *column, "tail", false, elements, true, &notes));
    if (tail != &tails.front()) notes.push_back("the unaligned tail " + describe_case(probe_case(op, tails.front(), *column, "tail", false, elements, true)) +
                                                " failed (" + tail_refusal + "); the tail case is aligned in its last dimension");
  } else {
    notes.push_back("no tail case: every tail shape tried failed (" + tail_refusal + ")");
  }
  if (chosen != &probes.front()) {
    notes.push_back("shapes: " + chosen->what + " (probe " + std::to_string(chosen - probes.data() + 1) + " of " +
                    std::to_string(probes.size()) + "; the ones before failed)");
  }
  if (!kernel_problem.empty()) {
    notes.push_back("the kernel does not build on sim (" + kernel_problem + "): the shapes are those the tiling accepts, not run");
  } else if (!o.run_kernel) {
    notes.push_back("the shapes are those the tiling accepts (--no-run: the kernel was not run)");
  }
  for (const auto& in : op.inputs) {
    if (in.kind == "optional" && !chosen->with_optional) notes.push_back("optional input '" + in.name + "' left out");
    for (const auto& out : op.outputs) {
      if (out.name == in.name) notes.push_back("input '" + in.name + "' is also an output: the operator updates it in place");
    }
  }
  if (op.outputs.empty()) notes.push_back(op.op_type + " declares no outputs: it writes into its inputs (in place)");
  d.spec = draft_json(d.kernel, cases, notes);
  // What aopt eval will read: validated before anyone sees it.
  parse_op_spec(draft_text(d.spec), op_dir / "aopt.json");
  d.ok = true;
  return d;
}

std::string describe_failure(const spec_draft& d, std::size_t max_lines) {
  std::string out = d.failure + "\n";
  if (!d.compile_diagnostic.empty()) out += d.compile_diagnostic + "\n";
  std::size_t shown = 0;
  for (const auto& a : d.attempts) {
    if (shown++ == max_lines) {
      out += "  ... and " + std::to_string(d.attempts.size() - max_lines) + " more\n";
      break;
    }
    out += "  " + a.case_name + " " + a.shapes + " (" + a.what + "): " + a.status + (a.diagnostic.empty() ? "" : ": " + a.diagnostic) + "\n";
  }
  if (d.stage == "probe") {
    out += "write the cases by hand (docs/evaluation.md, \"Package\"), or give `aopt init` the size the operator expects (--elements)\n";
  }
  return out;
}

}  // namespace aopt::evaluation
