#include "bank_command.h"

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/jobs/bank_service.h"
#include "aopt/search/experience.h"

namespace aopt::app {

namespace {

namespace fs = std::filesystem;

struct cli_state {
  std::ostream* out = nullptr;
  std::string bank_dir;
  // list
  std::size_t limit = 50;
  std::string after;
  std::string bottleneck;
  bool json = false;
  // search
  std::string query;
  std::size_t k = 5;
  double k1 = 1.2;
  double b = 0.75;
  // show
  std::string id;
  // export / import
  std::string format;
  std::string out_file;
  std::string in_file;
  std::string provenance = "import";
};

jobs::bank_service bank_of(const cli_state& s) {
  return jobs::bank_service(s.bank_dir.empty() ? storage::default_bank_dir() : fs::path(s.bank_dir));
}

std::optional<search::bottleneck_class> parse_filter(const std::string& text) {
  return jobs::parse_bottleneck_filter(text, "--bottleneck");
}

std::string classes_of(const search::experience& e) {
  std::string s;
  for (auto c : search::classify_bottleneck(e.bottleneck)) s += std::string(s.empty() ? "" : ",") + search::to_string(c);
  return s.empty() ? "other" : s;
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

void print_row(std::ostream& out, const search::experience& e) {
  out << short_id(e.id) << "  " << classes_of(e) << "  " << search::to_string(e.origin) << "  "
      << e.title << "\n";
}

void run_list(const cli_state& s) {
  std::ostream& out = *s.out;
  const auto bank = bank_of(s);
  const auto filter = parse_filter(s.bottleneck);
  if (!bank.exists()) {
    if (s.json) out << "[]\n";
    else out << "experience bank " << bank.dir().string() << " does not exist yet: 0 tuples "
             << "(fill it with `aopt bank import FILE`)\n";
    return;
  }
  const auto rows = bank.list(s.after, s.limit, filter);
  if (s.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& e : rows.tuples) arr.push_back(search::to_json(e));
    out << arr.dump(2) << "\n";
    return;
  }
  for (const auto& e : rows.tuples) print_row(out, e);
  out << rows.tuples.size() << " shown of " << rows.total << " tuples in " << bank.dir().string() << "\n";
  if (!rows.next_after.empty()) out << "more: --after " << rows.next_after << "\n";
}

void run_search(const cli_state& s) {
  std::ostream& out = *s.out;
  const auto bank = bank_of(s);
  const auto filter = parse_filter(s.bottleneck);
  if (s.k == 0) throw aopt::error(ec::invalid_argument, "bank search: -k must be at least 1");
  if (!bank.exists()) {
    if (s.json) out << "[]\n";
    else out << "experience bank " << bank.dir().string() << " does not exist yet: nothing to search\n";
    return;
  }
  const auto hits = bank.search(s.query, filter, s.k, search::bm25_params{s.k1, s.b});
  if (s.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& h : hits) {
      auto j = search::to_json(h.tuple);
      j["score"] = h.score;
      arr.push_back(j);
    }
    out << arr.dump(2) << "\n";
    return;
  }
  if (hits.empty()) {
    out << "no tuple matches '" << s.query << "'" << (filter ? " with bottleneck " + s.bottleneck : "")
        << " in " << bank.list("", 1).total << " tuples\n";
    return;
  }
  std::size_t rank = 1;
  for (const auto& h : hits) {
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", h.score);
    out << rank++ << ". " << score << "  ";
    print_row(out, h.tuple);
  }
}

void run_show(const cli_state& s) {
  std::ostream& out = *s.out;
  const auto bank = bank_of(s);
  if (!bank.exists())
    throw aopt::error(ec::not_found, "no experience bank at " + bank.dir().string() +
                                         "; import or rewind into it first, or pass --bank with the right directory");
  auto e = bank.find(s.id);
  if (!e)
    throw aopt::error(ec::not_found, "no tuple with id '" + s.id + "' in experience bank " +
                                         bank.dir().string() + "; `aopt bank list` shows the ids");
  if (s.json) {
    out << search::to_json(*e).dump(2) << "\n";
    return;
  }
  out << "id:          " << e->id << "\n"
      << "title:       " << e->title << "\n"
      << "bottleneck:  " << e->bottleneck << "  [" << classes_of(*e) << "]\n"
      << "provenance:  " << search::to_string(e->origin) << "\n";
  if (!e->motif.empty()) out << "motif:       " << e->motif << "\n";
  if (e->evidence) {
    const auto& ev = *e->evidence;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.3f us -> %.3f us", ev.slow_us, ev.fast_us);
    out << "evidence:    " << ev.op << ": " << buf;
    if (ev.fast_us > 0) {
      std::snprintf(buf, sizeof buf, " (%.3fx)", ev.slow_us / ev.fast_us);
      out << buf;
    }
    out << " on " << (ev.backend.empty() ? "?" : ev.backend) << "/"
        << (ev.profile.empty() ? "?" : ev.profile)
        << (ev.backend == "sim" ? " (simulated)" : "") << "\n";
  }
  if (e->embedding)
    out << "embedding:   " << e->embedding->model << " (" << e->embedding->vector.size() << " dims)\n";
  out << "created:     " << search::format_time_ms(e->created_ms) << "\n\n"
      << e->description << "\n\ncode diff:\n"
      << e->code_diff << (e->code_diff.empty() || e->code_diff.back() == '\n' ? "" : "\n");
}

void run_export(const cli_state& s) {
  const auto bank = bank_of(s);
  search::file_format fmt = search::file_format::jsonl;
  if (!s.format.empty()) {
    auto f = search::parse_file_format(s.format);
    if (!f || *f == search::file_format::automatic)
      throw aopt::error(ec::invalid_argument, "bank export: --format '" + s.format + "' must be jsonl or json");
    fmt = *f;
  }
  if (s.out_file.empty() || s.out_file == "-") {
    bank.export_to(*s.out, fmt, /*empty_ok=*/false);
    return;
  }
  std::ostringstream buf;
  const std::size_t n = bank.export_to(buf, fmt, /*empty_ok=*/false);
  common::write_text_file_atomic(s.out_file, buf.str());
  *s.out << "exported " << n << " tuples to " << s.out_file << "\n";
}

void run_import(const cli_state& s) {
  const auto bank = bank_of(s);
  search::file_format fmt = search::file_format::automatic;
  if (!s.format.empty()) {
    auto f = search::parse_file_format(s.format);
    if (!f) throw aopt::error(ec::invalid_argument, "bank import: --format '" + s.format + "' must be auto, json or jsonl");
    fmt = *f;
  }
  auto origin = search::parse_provenance(s.provenance);
  if (!origin)
    throw aopt::error(ec::invalid_argument,
                      "bank import: --provenance '" + s.provenance + "' must be import, rewind or refinement");
  const auto r = bank.import_file(s.in_file, fmt, *origin);
  *s.out << "imported " << s.in_file << ": " << r.report.read << " entries, " << r.report.inserted << " new, "
         << r.report.duplicates << " already present; " << r.total << " tuples in " << bank.dir().string()
         << "\n";
}

}  // namespace

CLI::App* add_bank_commands(CLI::App& app, std::ostream& out) {
  auto state = std::make_shared<cli_state>();
  state->out = &out;

  CLI::App* bank = nullptr;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == "bank") bank = sub;
  }
  if (bank == nullptr) bank = app.add_subcommand("bank", "The experience bank: list, search, show, export, import");
  bank->require_subcommand(1);
  bank->add_option("--bank", state->bank_dir,
                   "Bank directory (default " + storage::default_bank_dir().string() + ")");

  auto* list = bank->add_subcommand("list", "List tuples in id order");
  list->fallthrough();
  list->add_option("--limit", state->limit, "At most N tuples (0 = all)")->capture_default_str();
  list->add_option("--after", state->after, "Start after this id (paging)");
  list->add_option("--bottleneck", state->bottleneck, "Only tuples of this bottleneck class");
  list->add_flag("--json", state->json, "JSON array output");
  list->callback([state] { run_list(*state); });

  auto* search = bank->add_subcommand("search", "BM25 search over bottleneck, title, description");
  search->fallthrough();
  search->add_option("query", state->query, "Query text")->required();
  search->add_option("--bottleneck", state->bottleneck, "Only tuples of this bottleneck class");
  search->add_option("-k", state->k, "Number of results")->capture_default_str();
  search->add_option("--k1", state->k1, "BM25 k1")->capture_default_str();
  search->add_option("--b", state->b, "BM25 b")->capture_default_str();
  search->add_flag("--json", state->json, "JSON array output (with scores)");
  search->callback([state] { run_search(*state); });

  auto* show = bank->add_subcommand("show", "Show one tuple with its diff");
  show->fallthrough();
  show->add_option("id", state->id, "Tuple id or unique prefix (>= 4 characters)")->required();
  show->add_flag("--json", state->json, "JSON output");
  show->callback([state] { run_show(*state); });

  auto* exp = bank->add_subcommand("export", "Write every tuple as JSONL or a JSON array");
  exp->fallthrough();
  exp->add_option("--format", state->format, "jsonl (default) or json");
  exp->add_option("--out", state->out_file, "Output file (default: stdout)");
  exp->callback([state] { run_export(*state); });

  auto* imp = bank->add_subcommand("import", "Import the paper's JSON bank or JSONL tuples");
  imp->fallthrough();
  imp->add_option("file", state->in_file, "File to import")->required();
  imp->add_option("--format", state->format, "auto (default), json or jsonl");
  imp->add_option("--provenance", state->provenance, "import (default), rewind or refinement")
      ->capture_default_str();
  imp->callback([state] { run_import(*state); });
  return bank;
}

}  // namespace aopt::app
