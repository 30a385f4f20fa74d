// The impure half of `aopt init` (spec_draft_probe.h): build the host, read the OpDef, screen
// each probe's tiling, write the draft.
#include "aopt/evaluation/spec_draft_probe.h"

#include <algorithm>
#include <map>
#include <optional>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/mapped_file.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/backend.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/checker.h"
#include "aopt/evaluation/inputs.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/spec_draft.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

// A probe run that leaves more than this share of its outputs unwritten is "mostly_unwritten".
constexpr double kMostlyUnwritten = 0.5;

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

// The share of the declared outputs' bytes a kernel run left as the harness filled them (0 when
// the kernel wrote one of its inputs: in place, the written inputs are compared like outputs, also
// where the OpDef declares an output of the same name the kernel never writes, as the scatters into
// `var` do). 1: every element untouched (a shape the operator returns early on), which compares
// nothing and is never ok (evaluator), so the probe moves on.
double unwritten_share(const run_result& rr) {
  std::uint64_t total = 0, fill = 0;
  for (const auto& o : rr.outputs) {
    if (o.written_input) return 0.0;
    std::error_code e;
    if (!fs::exists(o.file, e)) return 0.0;
    const common::mapped_file f(o.file);
    const std::uint8_t* b = f.data();
    total += f.size();
    fill += static_cast<std::uint64_t>(std::count(b, b + f.size(), harness_output_fill));
  }
  return total == 0 ? 0.0 : static_cast<double>(fill) / static_cast<double>(total);
}

// Runs case `c` on a build: with `screen` its tiling only (no kernel), "ok" when InferShape and
// the tiling accept it and no output is absurdly larger than the inputs; without, the kernel too
// (no timing), "ok" when it runs clean and writes most of its outputs.
probe_attempt run_probe(backend& be, const build_result& built, std::size_t column, const case_spec& c,
                        const fs::path& run_dir, const common::sandbox_limits& limits, bool screen, std::int64_t output_cap = 0) {
  probe_attempt a;
  a.case_name = c.name;
  a.shapes = describe_case(c);
  fs::create_directories(run_dir);
  // The column the build chose for this case (select_column: its dtypes and the plain formats its
  // ranks allow, as the evaluation's runs and the harness's descriptors), else the draft's.
  std::string why;
  if (const auto col = select_column(built.signature, align_case(c, built.signature), why)) column = *col;
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
      if (n > std::max(8 * largest_input, output_cap)) {
        a.status = "too_big";
        a.input_elements = largest_input;
        a.output_elements = n;
        a.diagnostic = "InferShape makes output '" + o.value("name", std::string()) + "' " +
                       shape_text(o.value("shape", std::vector<std::int64_t>{})) + ", more than 8 times the largest input";
        break;
      }
    }
  }
  const double share = !screen && a.status == "ok" ? unwritten_share(rr) : 0.0;
  if (share == 1.0) {
    a.status = "nothing_written";
    a.diagnostic = "the kernel ran clean but wrote no element of its outputs at this shape (they still hold the harness's "
                   "fill): an evaluation there would compare nothing";
  } else {
    // Most of the output untouched (upsample_bilinear2d_aa at rank 5 wrote 0.2% of it): the kernel
    // does not handle this shape; a later probe is preferred, this one kept only as a last resort.
    if (share > kMostlyUnwritten) {
      a.status = "mostly_unwritten";
      a.diagnostic = "the kernel ran clean but left " + std::to_string(static_cast<int>(share * 100.0 + 0.5)) +
                     "% of its outputs' bytes as the harness filled them: it does not handle this shape";
    }
  }
  std::error_code e;
  fs::remove_all(run_dir, e);
  return a;
}

// Phase 2's refusal: the OpDef's dtypes, input by input.
std::string column_failure(const op_interface& op) {
  std::string s;
  for (const auto& i : op.inputs) {
    std::string l;
    for (const auto& t : i.dtypes) l += (l.empty() ? "" : "/") + t;
    s += (s.empty() ? "" : ", ") + i.name + " " + l;
  }
  return "no dtype column of " + op.op_type + "'s OpDef has only dtypes aopt.json knows (" + s + ")";
}

// Screens a probe's case on the host build and, when the tiling accepts it, runs the kernel on it
// (o.run_kernel): a shape the tiling takes but the kernel does not handle (its UB overflows, it
// reads past an input) is not drafted. The kernel is built on the first probe the tiling accepts.
struct prober {
  backend& be;
  const candidate& cand;
  const build_result& built;
  std::size_t column;
  fs::path work;
  const draft_options& o;
  spec_draft& d;
  std::map<std::size_t, build_result> fulls{};  // the kernel builds, one per column a probe ran
  std::string kernel_problem{};
  std::size_t n = 0;

  // output_cap: the output size a probe sized by size_for_output may reach (else 8 times its
  // largest input).
  bool accepted(const case_spec& c, const std::string& what, std::int64_t output_cap = 0) {
    auto a = run_probe(be, built, column, c, work / "probe" / std::to_string(n++), o.eval.limits, true, output_cap);
    a.what = what;
    d.attempts.push_back(a);
    if (a.status != "ok" || !o.run_kernel) return a.status == "ok";
    // The kernel of the column this case runs (a probe of another rank may take another column:
    // select_column prefers plain formats its ranks allow), built once per column.
    std::string why;
    const std::size_t col = select_column(built.signature, align_case(c, built.signature), why).value_or(column);
    if (kernel_problem.empty() && !fulls.count(col)) {
      const std::vector<const case_spec*> cs = {&c};
      auto b = be.build(cand, work / ("full-" + std::to_string(col)), cs);
      if (b.ok) {
        fulls.emplace(col, std::move(b));
      } else {
        kernel_problem = first_line(b.diagnostic.empty() ? b.stage : b.diagnostic);
      }
    }
    if (!fulls.count(col)) return true;  // the kernel does not build on sim: the shapes are only screened
    auto r = run_probe(be, fulls.at(col), column, c, work / "probe" / std::to_string(n++), o.eval.limits, false, output_cap);
    r.what = what + ", kernel run";
    d.attempts.push_back(r);
    return r.status == "ok";
  }
};

struct timed_choice {
  const probe* chosen = nullptr;
  std::int64_t elements = 0;
  bool kernel_failed = false;  // some probe the tiling accepted failed when its kernel ran
  bool output_sized = false;   // the size is the one whose output fits (size_for_output)
  bool mostly_unwritten = false;  // every probe run left most of the output unwritten; the first kept
};

// Phase 3: the timed case's probe, at o.elements, then (only those the kernel failed on) at 1/16
// and 1/256 of it.
timed_choice choose_timed(prober& pr, const op_interface& op, const std::vector<probe>& probes) {
  const auto& o = pr.o;
  timed_choice t;
  t.elements = o.elements;
  std::vector<const probe*> tiled;  // probes the tiling accepted but the kernel failed on
  const probe* partial = nullptr;   // the first probe whose run left most of the output unwritten
  std::int64_t partial_size = 0;
  for (std::int64_t size : {o.elements, o.elements / 16, o.elements / 256}) {
    if (t.chosen != nullptr || (size != o.elements && (size < 4096 || !o.run_kernel || pr.fulls.empty()))) break;
    std::vector<const probe*> todo;
    for (const auto& p : probes) todo.push_back(&p);
    if (size != o.elements && !tiled.empty()) todo = tiled;  // smaller: only what failed when run
    tiled.clear();
    for (const auto* p : todo) {
      const auto c = probe_case(op, *p, pr.column, "perf", true, size, false);
      const std::size_t before = pr.d.attempts.size();
      if (pr.accepted(c, p->what)) {
        t.chosen = p;
        t.elements = size;
        break;
      }
      if (pr.d.attempts.back().status == "mostly_unwritten" && partial == nullptr) {
        partial = p;
        partial_size = size;
      }
      if (pr.d.attempts.size() - before == 2) tiled.push_back(p);
      // An output growing faster than the input (InferShape squares a vector into its diagonal
      // matrix): the same probe again at the size whose output holds about as many elements.
      const auto& last = pr.d.attempts.back();
      if (last.status == "too_big") {
        const auto fit = size_for_output(size, last.input_elements, last.output_elements);
        if (fit > 0 && fit < size && pr.accepted(probe_case(op, *p, pr.column, "perf", true, fit, false), p->what + ", sized so the output fits",
                                                 2 * size)) {
          t.chosen = p;
          t.elements = fit;
          t.output_sized = true;
          break;
        }
      }
    }
  }
  if (t.chosen == nullptr && partial != nullptr) {
    t.chosen = partial;  // nothing better: the draft says so (choice_notes)
    t.elements = partial_size;
    t.mostly_unwritten = true;
  }
  t.kernel_failed = !tiled.empty();
  return t;
}

std::string probe_failure(const spec_draft& d, const op_interface& op, bool kernel_failed) {
  const bool ran = kernel_failed || std::any_of(d.attempts.begin(), d.attempts.end(), [](const probe_attempt& a) {
                     return a.what.find("kernel run") != std::string::npos;
                   });
  return ran ? "every shape " + op.op_type + "'s tiling accepted failed when its kernel ran (" + std::to_string(d.attempts.size()) +
                   " probes and runs)"
             : "InferShape or the tiling of " + op.op_type + " refused every shape tried (" + std::to_string(d.attempts.size()) +
                   " probes)";
}

// Phase 4: the draft's cases, the timed one and the first tail shape that runs (with a note when
// the unaligned one failed or none did).
std::vector<case_spec> draft_cases(prober& pr, const op_interface& op, const timed_choice& t, std::vector<std::string>& notes) {
  const auto column = pr.column;
  const probe* tail = nullptr;
  const auto tails = tail_probes(*t.chosen);
  std::string tail_refusal;
  for (const auto& p : tails) {
    const auto c = probe_case(op, p, column, "tail", false, t.elements, true);
    if (pr.accepted(c, p.what)) {
      tail = &p;
      break;
    }
    if (tail_refusal.empty()) tail_refusal = pr.d.attempts.back().status + ": " + pr.d.attempts.back().diagnostic;
  }
  std::vector<case_spec> cases;
  cases.push_back(probe_case(op, *t.chosen, column, "perf", true, t.elements, false, &notes));
  if (tail != nullptr) {
    cases.push_back(probe_case(op, *tail, column, "tail", false, t.elements, true, &notes));
    if (tail != &tails.front()) notes.push_back("the unaligned tail " + describe_case(probe_case(op, tails.front(), column, "tail", false, t.elements, true)) +
                                                " failed (" + tail_refusal + "); the tail case is aligned in its last dimension");
  } else {
    notes.push_back("no tail case: every tail shape tried failed (" + tail_refusal + ")");
  }
  return cases;
}

// Phase 5: what the reviewer should know about the choice.
void choice_notes(const prober& pr, const op_interface& op, const std::vector<probe>& probes, const timed_choice& t,
                  std::vector<std::string>& notes) {
  if (t.chosen != &probes.front()) {
    notes.push_back("shapes: " + t.chosen->what + " (probe " + std::to_string(t.chosen - probes.data() + 1) + " of " +
                    std::to_string(probes.size()) + "; the ones before failed)");
  }
  if (t.mostly_unwritten) {
    notes.push_back("every shape tried left most of the output unwritten when the kernel ran; this one is the first of them: "
                    "review the shapes and attributes (the evaluation compares only the elements the baseline writes)");
  }
  if (!pr.kernel_problem.empty()) {
    notes.push_back("the kernel does not build on sim (" + pr.kernel_problem + "): the shapes are those the tiling accepts, not run");
  } else if (!pr.o.run_kernel) {
    notes.push_back("the shapes are those the tiling accepts (--no-run: the kernel was not run)");
  }
  for (const auto& in : op.inputs) {
    if (in.kind == "optional" && !t.chosen->with_optional) notes.push_back("optional input '" + in.name + "' left out");
    for (const auto& out : op.outputs) {
      if (out.name == in.name) notes.push_back("input '" + in.name + "' is also an output: the operator updates it in place");
    }
  }
  if (op.outputs.empty()) notes.push_back(op.op_type + " declares no outputs: it writes into its inputs (in place)");
}

struct work_dir {
  fs::path dir;
  bool keep;
  ~work_dir() {
    std::error_code e;
    if (!keep) fs::remove_all(dir, e);
  }
};

}  // namespace

spec_draft draft_spec(const fs::path& op_dir, const draft_options& o) {
  // 1. The package and its host build (the OpDef and the tiling).
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
  const work_dir guard{common::make_unique_dir(root, "init-" + d.kernel.substr(0, 40) + "-"), o.eval.keep_workdir};
  const build_result built = be->build(cand, guard.dir / "build", {});
  if (!built.ok) {
    d.stage = built.stage.empty() ? "host" : built.stage;
    d.compile_diagnostic = built.diagnostic;
    d.failure = built.stage == "signature" ? "the host executable built but `host --signature` failed: " + first_line(built.diagnostic)
                                           : "the host sources do not compile, so the OpDef and the tiling cannot be read: " +
                                                 first_line(built.diagnostic);
    return d;
  }
  // 2. The dtype column.
  const auto op = op_interface::from_signature(built.signature);
  d.op_type = op.op_type;
  const auto column = preferred_column(op);
  if (!column) {
    d.stage = "column";
    d.failure = column_failure(op);
    return d;
  }
  // 3. The timed case's shapes.
  std::vector<std::string> notes;
  notes.push_back("drafted by `aopt init` from " + op.op_type + "'s OpDef and its tiling: review the shapes, ranges and attributes");
  const auto attrs = draft_attrs(op, *column, notes);
  const auto probes = timed_probes(op, attrs, o.max_probes);
  prober pr{*be, cand, built, *column, guard.dir, o, d};
  const auto t = choose_timed(pr, op, probes);
  if (t.chosen == nullptr) {
    d.stage = "probe";
    d.failure = probe_failure(d, op, t.kernel_failed);
    return d;
  }
  if (t.output_sized) {
    notes.push_back("the timed case's input is sized for an output of about " + std::to_string(o.elements) + " elements: the output "
                    "grows faster than the input (InferShape), and an input of " + std::to_string(o.elements) +
                    " would make one more than 8 times as large");
  } else if (t.elements != o.elements) {
    notes.push_back("the timed case holds about " + std::to_string(t.elements) + " elements: at " + std::to_string(o.elements) +
                    " every shape the tiling accepted failed when the kernel ran");
  }
  // 4. The cases, 5. the notes, and the draft, validated as aopt eval will read it.
  const auto cases = draft_cases(pr, op, t, notes);
  choice_notes(pr, op, probes, t, notes);
  d.spec = draft_json(d.kernel, cases, notes);
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
