// Subcommands of `aopt`. Each registers its options on the app and returns the function that runs it.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "aopt/common/subprocess.h"
#include "aopt/evaluation/package.h"

namespace aopt::app {

using command_fn = std::function<int()>;

// `--timeout S` and `--memory-limit MiB` of the commands that run operators (eval, corpus).
struct run_limit_options {
  double timeout_s = 60;
  std::uint64_t memory_mib = 8192;
  common::sandbox_limits limits() const;  // wall S, CPU 2S+1, address space
};
void add_run_limit_options(CLI::App& app, run_limit_options& o);

// `--spec FILE` and `--timed-shape SHAPE` of the commands that load a package (eval, optimize,
// submit): the cases from another aopt.json, the timed case at another shape.
struct package_args {
  std::string spec;
  std::string timed_shape;
  std::string tree;
  evaluation::package_options options() const;  // throws invalid_argument for a bad shape
};
void add_package_options(CLI::App& app, package_args& a);

// `aopt eval OP_DIR ...`: compile, check and time one operator package.
command_fn add_eval_command(CLI::App& app);

// `aopt init OP_DIR ...`: a draft aopt.json from the operator's OpDef and tiling (init_command.cpp).
command_fn add_init_command(CLI::App& app);

// `aopt corpus DIR ...`: every operator of a cann-ops-style tree on its own msOpST cases.
command_fn add_corpus_command(CLI::App& app);

// `aopt optimize OP_DIR ...`: the whole loop; writes the optimized package and reports.
// `argv_line` is the command line, recorded in the report.
command_fn add_optimize_command(CLI::App& app, const std::string& argv_line);

// `aopt bench SUITE_DIR ...`: every method at equal budget on a suite; the paper's table.
command_fn add_bench_command(CLI::App& app, const std::string& argv_line);

// `aopt motifs OP_DIR [--inverse]`: the motif sites of a package.
command_fn add_motifs_command(CLI::App& app);

// `aopt doctor [--cann-config FILE]`: what the cann backend needs on this machine, what to fix.
command_fn add_doctor_command(CLI::App& app);

// `aopt calibrate --base NAME (--cann-config FILE | --from DIR)`: a sim profile fitted to a device.
command_fn add_calibrate_command(CLI::App& app);

// `aopt bank rewind SEED_DIR...`: offline rewind into the experience bank. `bank` is the `bank`
// subcommand (app::add_bank_commands, bank_command.h); its `--bank` is honoured.
command_fn add_bank_rewind_command(CLI::App& bank);

// The daemon's client (client_command.cpp; docs/api.md): `aopt submit OP_DIR`, `jobs`, `job ID`,
// `watch ID`, `cancel ID`, `fetch ID --out DIR`, each with `--socket PATH` (or AOPT_SOCKET) and
// `--daemon-user USER` (or AOPT_DAEMON_USER): whom to trust to listen there besides you and root.
command_fn add_submit_command(CLI::App& app);
command_fn add_jobs_command(CLI::App& app);
command_fn add_devices_command(CLI::App& app);  // `aopt devices`: aoptd's evaluators
command_fn add_job_command(CLI::App& app);
command_fn add_watch_command(CLI::App& app);
command_fn add_cancel_command(CLI::App& app);
command_fn add_fetch_command(CLI::App& app);

}  // namespace aopt::app
