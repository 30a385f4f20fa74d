// The cost of isolation: N runs of /usr/bin/true with resource limits only, then N in their own
// namespaces with the evaluator's mounts, then N in one prepared sandbox (a sandbox_session, as
// the runs of one evaluation); prints the mean of each and the difference per run.
// Usage: aopt-sandbox-bench [N]   (scripts/bench-sandbox.sh)
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "aopt/common/subprocess.h"

using namespace aopt::common;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 50;
  const auto& support = probe_isolation();
  std::cout << "namespaces: " << (support.namespaces ? "yes" : "no") << ", pids cgroup: "
            << (support.pids_cgroup ? "yes" : "no") << "\n";
  auto mean_ms = [&](bool isolate, bool session) {
    process_request r;
    r.argv = {"/usr/bin/true"};
    r.iso.enabled = isolate;
    r.iso.mounts = system_mounts();
    r.iso.max_processes = 64;
    if (session) r.session = std::make_shared<sandbox_session>(r.iso);
    double total = 0;
    for (int i = 0; i < n; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto out = run_process(r);
      total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!out.ok()) {
        std::cerr << "run failed: " << out.describe() << " " << out.error << "\n";
        std::exit(1);
      }
    }
    return total / n;
  };
  const double plain = mean_ms(false, false);
  const double isolated = mean_ms(true, false);
  const double in_session = mean_ms(true, true);  // the session's start included, once
  std::cout << "runs: " << n << " each\nplain:    " << plain << " ms/run\nisolated: " << isolated
            << " ms/run\ncost of isolation: " << isolated - plain << " ms/run\nin one session: " << in_session
            << " ms/run\ncost of isolation in one session: " << in_session - plain << " ms/run\n";
  return 0;
}
