// `aopt corpus DIR` (corpus.h): walk, evaluate in parallel slots, classify, tabulate, resume.
#include "aopt/evaluation/corpus.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/spec_draft.h"
#include "aopt/evaluation/spec_draft_probe.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

bool has_host_sources(const fs::path& op_dir) {
  std::error_code e;
  const auto host = op_dir / "op_host";
  if (!fs::is_directory(host, e)) return false;
  for (const auto& f : fs::directory_iterator(host, e)) {
    const auto ext = f.path().extension();
    if ((ext == ".cpp" || ext == ".cc") && f.is_regular_file(e)) return true;
  }
  return false;
}

}  // namespace

bool has_msopst_cases(const fs::path& op_dir) {
  std::error_code e;
  const auto st = op_dir / "tests" / "st";
  if (!fs::is_directory(st, e)) return false;
  for (const auto& f : fs::directory_iterator(st, e)) {
    if (f.path().extension() == ".json") return true;
  }
  return false;
}

namespace {

std::string read_all_sources(const fs::path& dir) {
  std::string all;
  std::error_code e;
  if (!fs::is_directory(dir, e)) return all;
  for (const auto& f : fs::recursive_directory_iterator(dir, e)) {
    const auto ext = f.path().extension().string();
    if (f.is_regular_file() && (ext == ".cpp" || ext == ".h" || ext == ".hpp" || ext == ".cc")) {
      all += common::read_text_file(f.path());
    }
  }
  return all;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A cell of a Markdown table: one line, pipes escaped, at most `max` characters.
std::string cell(std::string s, std::size_t max = 160) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  if (out.size() > max) out = out.substr(0, max) + "...";
  return out;
}

bool is_unsupported(const std::string& cause) { return cause == "cube" || cause == "aicpu"; }

// `aopt init` found no spec for an operator without cases: its corpus cause and first error.
struct init_failure {
  std::string cause, first_error;
};

}  // namespace

nlohmann::json corpus_entry::to_json() const {
  nlohmann::json j = {{"op", op}, {"status", status}, {"cause", cause}, {"first_error", first_error}, {"seconds", seconds}};
  if (!note.empty()) j["note"] = note;
  if (!cases.empty()) j["cases"] = cases;
  return j;
}

corpus_entry corpus_entry::from_json(const nlohmann::json& j) {
  corpus_entry e;
  e.op = j.value("op", std::string());
  e.status = j.value("status", std::string());
  e.cause = j.value("cause", std::string());
  e.first_error = j.value("first_error", std::string());
  e.note = j.value("note", std::string());
  e.cases = j.value("cases", std::string());
  e.seconds = j.value("seconds", 0.0);
  return e;
}

std::vector<fs::path> find_corpus_operators(const fs::path& root, bool msopst_only) {
  std::error_code e;
  if (!fs::is_directory(root, e)) {
    throw error(ec::not_found, root.string() + ": no such directory; give the root of a cann-ops-style tree (src/<category>/<op>/)");
  }
  std::vector<fs::path> ops;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, e);
       it != fs::recursive_directory_iterator(); it.increment(e)) {
    if (e) break;
    if (!it->is_directory()) continue;
    const auto& d = it->path();
    if (((fs::is_directory(d / "op_kernel") || fs::is_directory(d / "op_host")) && has_msopst_cases(d)) ||
        (!msopst_only && has_host_sources(d))) {
      ops.push_back(d);
      it.disable_recursion_pending();
    }
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::vector<std::string> cube_missing(const std::string& kernel) {
  // Cube-unit idioms in use (an include of lib/matmul_intf.h alone does not count): the Matmul
  // high-level API, Mmad, cube positions and buffers, LoadData, Fixpipe, the Conv API.
  static const std::regex cube(
      R"(\bMatmul(Impl|Type)?\s*<|\bMmad\s*\(|TPosition::(A1|B1|A2|B2|CO1|CO2|C1|C2)\b|\bLoadData\s*\(|\bFixpipe\s*[<(]|\bConv3[dD]?\s*<)");
  if (!std::regex_search(kernel, cube)) return {};
  // What sim does not emulate yet, one phrase per feature (docs/sim.md, "The Cube unit"). The
  // basic primitives (Nd2Nz, LoadData 2D and 3D v2, Mmad, Fixpipe), the high-level Matmul API and
  // mixed AIC/AIV kernels (KERNEL_TYPE_MIX_AIC_*, CrossCoreSetFlag modes 0-2) are emulated; these are not.
  struct gap {
    const char* pattern;
    const char* what;
  };
  static const gap gaps[] = {
      // No "Conv API" entry: cann-ops' conv operators carry their Conv3d / Conv3DBackprop* classes in
      // their own op_kernel/ sources (conv3d_api.h, conv3d_bp_filter_intf.h, ...), on the primitives.
      // LoadData 3D v2 / v2 Pro (im2col) and its registers are emulated (aopt_sim/kernel/load3d.h);
      // v1 is the older chips' form.
      {R"(\bLoadData3DParamsV1\b)", "LoadData 3D v1 (LoadData3DParamsV1, the form of the older chips)"},
      {R"(\bLoadDataWithSparse\b|\bMmadWithSparse\b|\bLoadDataUnzip\b)", "sparse / compressed Mmad inputs"},
      {R"(\bSetFixPipeConfig\b|\bSetFixPipeClipRelu\b|\bSetFixPipeAddr\b)", "the fixpipe configuration registers (SetFixPipeConfig)"},
      {R"(\bBroadCastVecToMM\b|\bDataCopy\s*\([^;]*\bC2\b)", "copies into the bias table (L1 -> C2)"},
      {R"(\bHccl\b|\bhccl_|HcclServer|\bMc2)", "HCCL collectives"},
  };
  std::vector<std::string> out;
  for (const auto& g : gaps) {
    if (std::regex_search(kernel, std::regex(g.pattern))) out.emplace_back(g.what);
  }
  return out;
}

std::string unsupported_unit(const fs::path& op_dir) {
  const auto kernel = read_all_sources(op_dir / "op_kernel");
  if (kernel.empty()) return "aicpu";
  return cube_missing(kernel).empty() ? "" : "cube";
}

std::string unsupported_reason(const fs::path& op_dir) {
  const auto kernel = read_all_sources(op_dir / "op_kernel");
  if (kernel.empty()) return "no op_kernel/ sources: an AI CPU operator";
  const auto missing = cube_missing(kernel);
  if (missing.empty()) return "";
  std::string s = "uses the Cube unit; sim still lacks: ";
  for (std::size_t i = 0; i < missing.size(); ++i) s += (i ? "; " : "") + missing[i];
  return s;
}

std::string first_error_line(const std::string& diagnostic_in) {
  // Paths inside the evaluation's work directory name the operator's own file.
  static const std::regex work_dir(R"([^ :'"]*/build/src/)");
  const std::string diagnostic = std::regex_replace(diagnostic_in, work_dir, "");
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= diagnostic.size()) {
    const auto nl = diagnostic.find('\n', start);
    lines.push_back(trim(diagnostic.substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  for (const char* key : {"error:", "fatal error", "error"}) {
    for (const auto& l : lines) {
      if (l.find(key) != std::string::npos) return l;
    }
  }
  for (const auto& l : lines) {
    if (!l.empty()) return l;
  }
  return "";
}

std::string classify_failure(const eval_result& r) {
  if (r.ok()) return "ok";
  const auto& s = r.status;
  const auto& d = r.diagnostic;
  if (s == "compile_error") return "missing_api";
  if (s == "timeout" || s == "resource_error") return "limits";
  for (const char* k : {"deadlock", "double_set_event", "sync_all_missing_core"}) {
    if (d.find(std::string("hardware error ") + k) != std::string::npos) return "timing";
  }
  return "semantics";
}

std::map<std::string, std::size_t> corpus_report::by_cause() const {
  std::map<std::string, std::size_t> m;
  for (const auto& e : entries) ++m[e.cause];
  return m;
}

nlohmann::json corpus_report::to_json() const {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& e : entries) ops.push_back(e.to_json());
  std::size_t vector_ops = 0, ok = 0;
  for (const auto& e : entries) {
    if (is_unsupported(e.cause)) continue;
    ++vector_ops;
    ok += e.cause == "ok";
  }
  std::map<std::string, std::size_t> by_cases;
  for (const auto& e : entries) {
    if (!e.cases.empty()) ++by_cases[e.cases];
  }
  return {{"version", 1}, {"operators", ops}, {"by_cause", by_cause()}, {"by_cases", by_cases},
          {"summary", {{"operators", entries.size()}, {"supported", vector_ops}, {"ok", ok}}}};
}

std::string corpus_report::to_markdown() const {
  const auto j = to_json();
  const auto& sum = j["summary"];
  std::string md = fmt::format("# Corpus: {} of {} supported operators evaluate ok ({} operators, {} unsupported)\n\n",
                               sum["ok"].get<std::size_t>(), sum["supported"].get<std::size_t>(),
                               sum["operators"].get<std::size_t>(),
                               sum["operators"].get<std::size_t>() - sum["supported"].get<std::size_t>());
  md += "| cause | operators |\n|---|---|\n";
  for (const char* c : corpus_causes) {
    const auto m = by_cause();
    if (m.count(c)) md += fmt::format("| {} | {} |\n", c, m.at(c));
  }
  if (!j["by_cases"].empty()) {
    md += "\n| cases from | operators | ok |\n|---|---|---|\n";
    for (const auto& [src, count] : j["by_cases"].items()) {
      std::size_t ok = 0;
      for (const auto& e : entries) ok += e.cases == src && e.cause == "ok";
      md += fmt::format("| {} | {} | {} |\n", src, count.get<std::size_t>(), ok);
    }
  }
  md += "\n| operator | status | cause | first error | cases |\n|---|---|---|---|---|\n";
  for (const auto& e : entries) {
    const auto why = e.note.empty() ? e.first_error : e.note + " (" + e.first_error + ")";
    md += fmt::format("| {} | {} | {} | {} | {} |\n", e.op, e.status, e.cause, cell(e.cause == "ok" ? "" : why),
                      e.cases.empty() ? "-" : e.cases);
  }
  return md;
}

corpus_report run_corpus(const corpus_options& o) {
  const auto root = fs::absolute(o.root);
  std::vector<std::string> todo;
  for (const auto& d : find_corpus_operators(root, o.msopst_only)) {
    const auto rel = d.lexically_relative(root).generic_string();
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), rel) != o.only.end()) todo.push_back(rel);
  }
  for (const auto& want : o.only) {
    if (std::find(todo.begin(), todo.end(), want) == todo.end()) {
      throw error(ec::invalid_argument, "--only " + want + ": no operator at " + (root / want).string() +
                                            (o.msopst_only ? " with msOpST cases" : " (op_host/ with sources, or tests/st/ cases)"));
    }
  }
  nlohmann::json notes = nlohmann::json::object();
  if (!o.notes_file.empty()) notes = common::read_json_file(o.notes_file);
  std::map<std::string, corpus_entry> done;
  if (!o.json_out.empty() && fs::exists(o.json_out)) {
    const auto old = common::read_json_file(o.json_out);
    for (const auto& e : old.value("operators", nlohmann::json::array())) {
      auto ce = corpus_entry::from_json(e);
      done[ce.op] = ce;
    }
  }
  std::vector<std::string> queue;
  for (const auto& op : todo) {
    if (o.rerun || !done.count(op)) queue.push_back(op);
  }
  std::mutex mu;
  std::size_t finished = todo.size() - queue.size();
  // Notes (causes found by hand) apply to every failing entry, evaluated now or resumed.
  auto snapshot = [&] {
    corpus_report rep;
    for (auto [op, e] : done) {
      if (notes.contains(op) && e.status != "ok") {
        e.note = notes[op].value("note", std::string());
        e.cause = notes[op].value("cause", e.cause);
      }
      rep.entries.push_back(e);
    }
    return rep;
  };
  auto record = [&](corpus_entry e) {
    std::lock_guard lock(mu);
    done[e.op] = e;
    ++finished;
    const auto rep = snapshot();
    if (!o.json_out.empty()) common::write_json_file(o.json_out, rep.to_json());
    if (!o.markdown_out.empty()) common::write_text_file_atomic(o.markdown_out, rep.to_markdown());
    if (o.progress) o.progress(e, finished, todo.size());
  };
  // Specs `aopt init` drafts for the operators without cases.
  fs::path specs_dir = o.specs_dir;
  std::optional<fs::path> temp_specs;
  if (specs_dir.empty()) {
    temp_specs = common::make_unique_dir(fs::temp_directory_path(), "aopt-corpus-specs-");
    specs_dir = *temp_specs;
  }
  struct remove_temp {
    const std::optional<fs::path>& dir;
    ~remove_temp() {
      std::error_code e;
      if (dir) fs::remove_all(*dir, e);
    }
  } temp_guard{temp_specs};
  auto draft_for_corpus = [&](const fs::path& op_dir, const std::string& op) -> fs::path {
    draft_options d;
    d.elements = o.init_elements;
    d.eval = o.eval;
    d.tree_root = root;
    const auto draft = draft_spec(op_dir, d);
    if (!draft.ok) {
      init_failure f;
      f.cause = draft.stage == "host" ? "missing_api" : "import";
      f.first_error = "aopt init: " + (draft.stage == "host" ? first_error_line(draft.compile_diagnostic) : first_error_line(draft.failure));
      throw f;
    }
    const fs::path file = specs_dir / op / "aopt.json";
    fs::create_directories(file.parent_path());
    common::write_text_file_atomic(file, draft_text(draft.spec));
    return file;
  };
  std::atomic<std::size_t> next{0};
  auto evaluate_queue = [&] {
    evaluator ev(o.eval);
    for (std::size_t i = next++; i < queue.size(); i = next++) {
      const auto& op = queue[i];
      const auto t0 = std::chrono::steady_clock::now();
      corpus_entry e;
      e.op = op;
      const auto unit = unsupported_unit(root / op);
      if (!unit.empty()) {
        e.status = "unsupported";
        e.cause = unit;
        e.first_error = unsupported_reason(root / op);
      } else {
        try {
          package_options po;
          po.isolate = o.eval.sandbox.isolate;
          e.cases = has_msopst_cases(root / op) ? "msopst" : "aopt.json";
          if (e.cases == "aopt.json" && !fs::exists(root / op / "aopt.json") && !fs::exists(root / op / ".." / "aopt.json")) {
            e.cases = "init";
            po.spec_file = draft_for_corpus(root / op, op);
          }
          po.tree_root = root;  // the operators' CMakeLists may reach shared directories inside the tree
          auto pkg = std::make_shared<const op_package>(load_package(root / op, po));
          const auto r = ev.evaluate(candidate(pkg));
          e.status = r.status;
          e.cause = classify_failure(r);
          if (!r.ok()) {
            std::string diag = r.diagnostic;
            for (const auto& c : r.cases) {
              if (diag.empty() && c.status != "ok") diag = c.diagnostic;
            }
            e.first_error = first_error_line(diag);
          }
        } catch (const init_failure& f) {
          e.status = "init_error";
          e.cause = f.cause;
          e.first_error = f.first_error;
        } catch (const std::exception& ex) {
          e.status = "load_error";
          e.cause = "import";
          e.first_error = first_error_line(ex.what());
        }
      }
      e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      record(std::move(e));
    }
  };
  std::exception_ptr failure;
  auto worker = [&] {
    try {
      evaluate_queue();
    } catch (...) {
      std::lock_guard lock(mu);
      if (!failure) failure = std::current_exception();
      next = queue.size();
    }
  };
  std::vector<std::thread> slots;
  for (unsigned k = 0; k < std::max(1u, o.jobs); ++k) slots.emplace_back(worker);
  for (auto& t : slots) t.join();
  if (failure) std::rethrow_exception(failure);
  auto rep = snapshot();
  if (!o.json_out.empty()) common::write_json_file(o.json_out, rep.to_json());
  if (!o.markdown_out.empty()) common::write_text_file_atomic(o.markdown_out, rep.to_markdown());
  return rep;
}

}  // namespace aopt::evaluation
