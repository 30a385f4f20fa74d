// `aopt bank list|search|show|export|import`: the experience bank's command line over
// jobs::bank_service (the operations aoptd's /v1/bank runs too), added to any CLI11 app. Target
// `aopt_bank_command` (linked by aopt and the storage tests). Commands throw aopt::error on
// failure (message says what, where and what to do); the caller prints e.what() and exits
// non-zero.
#pragma once

#include <iostream>

namespace CLI {
class App;
}

namespace aopt::app {

// Adds (or reuses) the `bank` subcommand of `app` with the subcommands
//   list   [--limit N] [--after ID] [--bottleneck B] [--json]
//   search QUERY [--bottleneck B] [-k N] [--k1 X] [--b X] [--json]
//   show   ID [--json]            (ID: full id or a unique prefix of >= 4 characters)
//   export [--format jsonl|json] [--out FILE]
//   import FILE [--format auto|json|jsonl] [--provenance import|rewind|refinement]
// and the option `--bank DIR` (on `bank`, also accepted after the subcommand; default
// storage::default_bank_dir()). Output goes to `out`, which must outlive `app`. Returns the `bank`
// subcommand, so other commands (`rewind`) can be added to it.
CLI::App* add_bank_commands(CLI::App& app, std::ostream& out = std::cout);

}  // namespace aopt::app
