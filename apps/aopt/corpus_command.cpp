// `aopt corpus DIR [-j N] [--out PREFIX] [--rerun] [--only OP]... [--notes FILE] [--profile P]
//                  [--cache-dir D] [--timeout S] [--memory-limit MiB]`
// Every operator of a cann-ops-style tree, unchanged, on its own msOpST cases (evaluation/corpus.h).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/evaluation/corpus.h"
#include "commands.h"

namespace aopt::app {

namespace ev = aopt::evaluation;

namespace {

struct corpus_args {
  std::string root;
  std::string out = "corpus";
  unsigned jobs = 1;
  bool rerun = false;
  std::vector<std::string> only;
  std::string notes;
  std::string profile = "910b4";
  std::string cache_dir;
  bool msopst_only = false;
  run_limit_options run;
};

}  // namespace

command_fn add_corpus_command(CLI::App& app) {
  auto a = std::make_shared<corpus_args>();
  app.add_option("DIR", a->root, "root of a cann-ops-style tree (operators with op_host/, op_kernel/, and tests/st/*.json or not)")
      ->required();
  app.add_option("-j,--jobs", a->jobs, "operators evaluated at once")->check(CLI::Range(1, 64));
  app.add_option("--out", a->out, "output prefix: writes PREFIX.json and PREFIX.md (default: corpus)");
  app.add_flag("--rerun", a->rerun, "evaluate operators already in PREFIX.json again");
  app.add_option("--only", a->only, "evaluate only this operator (path relative to DIR); repeatable");
  app.add_option("--notes", a->notes, "JSON file {\"cat/op\": {\"cause\": ..., \"note\": ...}}: causes found by hand");
  app.add_option("--profile", a->profile, "device profile: a name (910b4, a2) or a .json path");
  app.add_option("--cache-dir", a->cache_dir, "evaluation cache directory");
  app.add_flag("--msopst-only", a->msopst_only,
               "only the operators with msOpST cases (otherwise the others get a spec from `aopt init`, kept in PREFIX.specs/)");
  add_run_limit_options(app, a->run);
  return [a]() -> int {
    ev::corpus_options o;
    o.root = a->root;
    o.json_out = a->out + ".json";
    o.markdown_out = a->out + ".md";
    o.notes_file = a->notes;
    o.jobs = a->jobs;
    o.rerun = a->rerun;
    o.only = a->only;
    o.msopst_only = a->msopst_only;
    o.specs_dir = a->out + ".specs";
    o.eval.profile = a->profile;
    o.eval.cache_dir = a->cache_dir;
    o.eval.limits = a->run.limits();
    o.progress = [](const ev::corpus_entry& e, std::size_t done, std::size_t total) {
      std::cerr << fmt::format("[{}/{}] {} {} ({:.1f} s){}\n", done, total, e.op, e.status, e.seconds,
                               e.first_error.empty() ? "" : ": " + e.first_error.substr(0, 140));
    };
    const auto rep = ev::run_corpus(o);
    const auto sum = rep.to_json()["summary"];
    std::cout << fmt::format("corpus: {} of {} supported operators ok ({} operators, {} unsupported); tables in {}.md and {}.json\n",
                             sum["ok"].get<std::size_t>(), sum["supported"].get<std::size_t>(),
                             sum["operators"].get<std::size_t>(),
                             sum["operators"].get<std::size_t>() - sum["supported"].get<std::size_t>(), a->out, a->out);
    return 0;
  };
}

}  // namespace aopt::app
