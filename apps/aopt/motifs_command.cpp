// `aopt motifs OP_DIR [--inverse]`: the motif sites of a package, i.e. what the offline engine
// could change (forward: optimizations, inverse: de-optimizations used by rewind).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "aopt/evaluation/package.h"
#include "aopt/motifs/motif.h"
#include "commands.h"
#include "support.h"

namespace aopt::app {

command_fn add_motifs_command(CLI::App& app) {
  struct args {
    std::string op_dir;
    bool inverse = false;
  };
  auto a = std::make_shared<args>();
  app.add_option("OP_DIR", a->op_dir, "Operator package")->required()->check(CLI::ExistingDirectory);
  app.add_flag("--inverse", a->inverse, "List de-optimization (inverse) sites instead");
  return [a]() {
    const auto pkg = evaluation::load_package(a->op_dir);
    motifs::parser parser;
    motifs::source_set src(load_files(pkg), parser);
    const auto dir = a->inverse ? motifs::direction::inverse : motifs::direction::forward;
    std::size_t n = 0;
    for (const auto& m : motifs::all_motifs()) {
      for (const auto& s : motifs::sites_for(*m, src, dir)) {
        std::cout << fmt::format("{:<22} {}: {}\n", m->id(), s.path, s.summary);
        ++n;
      }
    }
    std::cout << fmt::format("{} {} site(s) in {}\n", n, motifs::to_string(dir), pkg.dir.string());
    return 0;
  };
}

}  // namespace aopt::app
