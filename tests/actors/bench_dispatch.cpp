// Dispatch throughput of the evaluator pool and its scaling with the number of devices, on
// devices whose run costs a fixed sleep (so that this machine's cores do not limit it).
//
//   bench_dispatch local SLEEP_MS EVALS_PER_DEVICE      devices in this process
//   bench_dispatch nodes SLEEP_MS EVALS_PER_DEVICE      devices on remote nodes: one aopt-node-
//                                                       like child process per device, over
//                                                       CAF's middleman on loopback
// For 1, 2, 4, 8 and 16 devices: evaluations per minute, the ratio to one device, and the
// orchestration cost per evaluation (wall time over the ideal ceil(evals/devices) * sleep,
// divided by the evaluations). Two jobs send batches of `devices` requests each, as the search
// does (docs/BENCHMARKS.md, "Dispatch over devices").
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/job_support.hpp"
#include "aopt/actors/node.hpp"
#include "aopt/actors/spawn.hpp"

using namespace aopt;
using namespace aopt::actors;
using namespace aopt::protocols;
using clock_type = std::chrono::steady_clock;

namespace {

optimize::package_evaluate_fn sleeper(std::chrono::milliseconds d) {
  return [d](const std::string&, const optimize::eval_request& r) {
    std::this_thread::sleep_for(d);
    optimize::eval_report out;
    out.ok = true;
    out.status = aopt::vocab::eval_status::ok;
    out.latency_us = 1.0 + r.round;
    out.backend = "sleep";
    return out;
  };
}

// Two jobs, each sending batches of `batch` requests until `total` evaluations are done.
double drive(caf::actor_system& sys, const evaluator_pool_actor& pool, std::size_t batch, std::size_t total) {
  const auto t0 = clock_type::now();
  std::vector<std::thread> jobs;
  for (int j = 0; j < 2; ++j) {
    jobs.emplace_back([&, j] {
      caf::scoped_actor self{sys};
      std::size_t done = 0;
      const std::size_t mine = total / 2 + (j == 0 ? total % 2 : 0);
      while (done < mine) {
        const auto n = std::min(batch, mine - done);
        std::vector<eval_envelope> b;
        for (std::size_t i = 0; i < n; ++i) {
          optimize::eval_request r;
          r.package = "job" + std::to_string(j);
          r.round = static_cast<int>(i);
          r.files = {{"op_kernel/k.cpp", std::string(4096, 'x')}};  // a kernel's worth of source
          b.push_back(pack_routed(r));
        }
        self->request(pool, std::chrono::minutes(5), evaluate_atom::value, "job" + std::to_string(j), std::string(),
                      std::move(b))
            .receive([&](eval_reports& r) { done += r.get().size(); },
                     [&](caf::error& e) {
                       std::cerr << "pool: " << sys.render(e) << "\n";
                       std::exit(1);
                     });
      }
    });
  }
  for (auto& t : jobs) t.join();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

int node_main(const std::string& port, const std::string& name, int sleep_ms) {
  node_options o;
  o.port = static_cast<std::uint16_t>(std::stoi(port));
  o.name = name;
  o.devices = {{"d0", "", "sleep", "", {}}};
  o.heartbeat = std::chrono::milliseconds(1000);
  o.stop = [] { return ::getppid() == 1; };  // the bench went away
  run_node(o, [sleep_ms](package_fetcher) {
    return std::vector<optimize::package_evaluate_fn>{sleeper(std::chrono::milliseconds(sleep_ms))};
  });
  return 0;
}

std::size_t count_up(caf::actor_system& sys, const evaluator_pool_actor& pool) {
  caf::scoped_actor self{sys};
  std::size_t n = 0;
  self->request(pool, std::chrono::seconds(10), parallelism_atom::value, std::string())
      .receive([&](std::uint64_t x) { n = x; }, [](caf::error&) {});
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--node") return node_main(argv[2], argv[3], std::atoi(argv[4]));
  if (argc != 4 || (std::string(argv[1]) != "local" && std::string(argv[1]) != "nodes")) {
    std::cerr << "usage: bench_dispatch local|nodes SLEEP_MS EVALS_PER_DEVICE\n";
    return 2;
  }
  const bool remote = std::string(argv[1]) == "nodes";
  const int sleep_ms = std::atoi(argv[2]);
  const std::size_t per_device = static_cast<std::size_t>(std::atoi(argv[3]));
  std::cout << fmt::format("dispatch over {} devices, run = sleep {} ms, {} evaluations per device, two jobs\n",
                           remote ? "remote (one node process each, loopback)" : "in-process", sleep_ms, per_device);
  std::cout << "| devices | evaluations | wall s | evaluations/min | vs 1 device | efficiency | orchestration ms/eval |\n";
  std::cout << "|---:|---:|---:|---:|---:|---:|---:|\n";
  double one = 0;
  for (std::size_t n : {1, 2, 4, 8, 16}) {
    caf::actor_system_config cfg;
    if (remote) cfg.load<caf::io::middleman>();
    caf::actor_system sys{with_message_types(cfg)};
    std::vector<device_evaluator> local;
    std::vector<evaluator_actor> evaluators;
    if (!remote) {
      for (std::size_t i = 0; i < n; ++i) {
        evaluators.push_back(spawn_evaluator(sys, sleeper(std::chrono::milliseconds(sleep_ms)), "d" + std::to_string(i)));
        local.push_back({{"d" + std::to_string(i), "", "sleep", "", {}}, evaluators.back()});
      }
    }
    pool_options po;
    po.timeout = std::chrono::minutes(1);
    po.device_wait = std::chrono::minutes(1);
    po.registry_key = "bench";
    auto pool = spawn_evaluator_pool(sys, std::move(local), po);
    node_registry_actor registry;
    std::vector<pid_t> children;
    if (remote) {
      registry_options ro;
      ro.pool = pool;
      ro.pool_key = "bench";
      registry = spawn_node_registry(sys, ro);
      auto port = sys.middleman().publish(registry, 0, "127.0.0.1", true);
      if (!port) {
        std::cerr << "publish: " << sys.render(port.error()) << "\n";
        return 1;
      }
      for (std::size_t i = 0; i < n; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
          const auto p = std::to_string(*port), name = "n" + std::to_string(i), s = std::to_string(sleep_ms);
          ::execl("/proc/self/exe", "bench_dispatch", "--node", p.c_str(), name.c_str(), s.c_str(),
                  static_cast<char*>(nullptr));
          std::_Exit(127);
        }
        children.push_back(pid);
      }
      const auto end = clock_type::now() + std::chrono::seconds(60);
      while (count_up(sys, pool) < n && clock_type::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (count_up(sys, pool) < n) {
        std::cerr << "only " << count_up(sys, pool) << " of " << n << " nodes joined\n";
        return 1;
      }
    }
    const std::size_t total = n * per_device;
    (void)drive(sys, pool, n, 2 * n);  // warm-up: connections, first messages
    const double wall = drive(sys, pool, n, total);
    const double per_min = 60.0 * static_cast<double>(total) / wall;
    if (n == 1) one = per_min;
    const double ideal = std::ceil(static_cast<double>(total) / static_cast<double>(n)) * sleep_ms / 1000.0;
    std::cout << fmt::format("| {} | {} | {:.2f} | {:.0f} | {:.2f}x | {:.3f} | {:.2f} |\n", n, total, wall, per_min,
                             per_min / one, per_min / one / static_cast<double>(n),
                             1000.0 * (wall - ideal) / static_cast<double>(total) * static_cast<double>(n));
    caf::scoped_actor self{sys};
    if (registry) {
      (void)sys.middleman().unpublish(registry, 0);
      stop_all(self, registry);
    }
    stop_all(self, pool);
    for (auto& e : evaluators) stop_all(self, e);
    for (auto pid : children) {
      ::kill(pid, SIGTERM);
      int st = 0;
      ::waitpid(pid, &st, 0);
    }
  }
  return 0;
}
