// aopt: AscendOptimizer command line.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <utility>

#include <unistd.h>

#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "bank_command.h"
#include "commands.h"

namespace {

// Exit code 3 means a bug in aopt (bad input is 2): say so and ask for a report.
constexpr const char* k_report = "; this is a bug in aopt, please report it with the command line";

// Last resort for what must not happen (a crash; an exception escaping a thread, which would
// call std::terminate): one line and exit code 3 instead of a core dump or a bare abort.
void install_last_resort_handlers() {
  std::set_terminate([] {
    std::string what = "unknown exception";
    if (auto e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = x.what();
      } catch (...) {
      }
    } else {
      what = "std::terminate without an exception";
    }
    std::cerr << "aopt: internal error: " << what << k_report << std::endl;
    std::_Exit(3);
  });
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // sanitizers report crashes themselves
  static char alt_stack[64 * 1024];  // a stack overflow needs another stack to run the handler on
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sa.sa_handler = [](int sig) {  // async-signal-safe: write(2) and _exit only
    const char* head = "aopt: internal error: fatal signal ";
    const char* name = sigabbrev_np(sig);
    (void)!write(2, head, std::strlen(head));
    if (name != nullptr) (void)!write(2, name, std::strlen(name));
    (void)!write(2, k_report, std::strlen(k_report));
    (void)!write(2, "\n", 1);
    _exit(3);
  };
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  install_last_resort_handlers();
  CLI::App app{"aopt: makes AscendC operators faster (backends: sim, a CPU emulation whose latencies are simulated; cann, a real NPU through the CANN toolchain, measured)"};
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level, "trace, debug, info, warn (default), error, off");
  std::map<CLI::App*, aopt::app::command_fn> commands;
  auto* eval = app.add_subcommand("eval", "Compile, check and time one operator package");
  commands[eval] = aopt::app::add_eval_command(*eval);
  auto* init = app.add_subcommand("init", "Draft an aopt.json from the operator itself: OpDef, shapes its tiling accepts, value ranges");
  commands[init] = aopt::app::add_init_command(*init);
  auto* corpus = app.add_subcommand("corpus", "Evaluate every operator of a cann-ops-style tree unchanged on its msOpST cases (or a spec aopt init drafts); tables of causes");
  commands[corpus] = aopt::app::add_corpus_command(*corpus);
  std::string argv_line = "aopt";
  for (int i = 1; i < argc; ++i) argv_line += std::string(" ") + argv[i];
  auto* optimize = app.add_subcommand("optimize", "Optimize an operator package: tiling evolution and kernel rewriting, alternating");
  commands[optimize] = aopt::app::add_optimize_command(*optimize, argv_line);
  auto* bench = app.add_subcommand("bench", "Run AscendOptimizer and the baselines at equal budget on a suite; print the table");
  commands[bench] = aopt::app::add_bench_command(*bench, argv_line);
  auto* doctor = app.add_subcommand("doctor", "Check this machine for the cann backend (toolkit, msprof, npu-smi devices, permissions, disk)");
  commands[doctor] = aopt::app::add_doctor_command(*doctor);
  auto* calibrate = app.add_subcommand("calibrate", "Fit a sim device profile to msprof op outputs of the calibration kernels on a device");
  commands[calibrate] = aopt::app::add_calibrate_command(*calibrate);
  auto* motifs = app.add_subcommand("motifs", "List the motif sites of a package (what the offline engine can change)");
  commands[motifs] = aopt::app::add_motifs_command(*motifs);
  // `aopt bank ...` runs from CLI11 callbacks during parse (apps/aopt/bank_command.cpp).
  auto* submit = app.add_subcommand("submit", "Submit an operator package to aoptd; prints the job id last");
  commands[submit] = aopt::app::add_submit_command(*submit);
  auto* jobs = app.add_subcommand("jobs", "List aoptd's jobs");
  commands[jobs] = aopt::app::add_jobs_command(*jobs);
  auto* devices = app.add_subcommand("devices", "List aoptd's evaluators (devices) with their state");
  commands[devices] = aopt::app::add_devices_command(*devices);
  auto* job = app.add_subcommand("job", "Show one aoptd job (JSON)");
  commands[job] = aopt::app::add_job_command(*job);
  auto* watch = app.add_subcommand("watch", "Follow a job's progress live (the lines aopt optimize prints)");
  commands[watch] = aopt::app::add_watch_command(*watch);
  auto* cancel = app.add_subcommand("cancel", "Cancel an aoptd job");
  commands[cancel] = aopt::app::add_cancel_command(*cancel);
  auto* fetch = app.add_subcommand("fetch", "Download a finished job's optimized package and reports");
  commands[fetch] = aopt::app::add_fetch_command(*fetch);
  CLI::App* bank = aopt::app::add_bank_commands(app);
  auto rewind_fn = aopt::app::add_bank_rewind_command(*bank);  // `aopt bank rewind` (apps/aopt/rewind_command.cpp)
  commands[bank->get_subcommand("rewind")] = std::move(rewind_fn);
  app.parse_complete_callback([&] {
    if (!log_level.empty()) aopt::common::set_log_level(log_level);
  });
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
    for (auto& [sub, fn] : commands) {
      if (sub->parsed()) return fn();
    }
    if (bank->parsed()) return 0;
  } catch (const aopt::error& e) {
    std::cerr << "aopt: error (" << aopt::to_string(e.code()) << "): " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "aopt: internal error: out of memory (std::bad_alloc)" << k_report << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "aopt: internal error: " << e.what() << k_report << "\n";
    return 3;
  } catch (...) {
    std::cerr << "aopt: internal error: unknown exception" << k_report << "\n";
    return 3;
  }
  return 2;
}
