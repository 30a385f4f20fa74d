// aopt-node: a remote evaluator node. It joins an aoptd's node registry (aopt-node --join
// HOST:PORT), registers its devices and evaluates the daemon's candidates on them until SIGTERM
// or SIGINT. Packages arrive by content digest and are kept under --state-dir, so a node fetches
// each operator once (docs/deploy.md).
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "aopt/actors/node.hpp"
#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/log.h"
#include "aopt/common/ownership.h"
#include "aopt/common/secret.h"
#include "aopt/common/tar.h"
#include "aopt/evaluation/artifacts.h"
#include "aopt/evaluation/package.h"
#include "aopt/jobs/daemon_paths.h"
#include "aopt/jobs/device_setup.h"
#include "aopt/jobs/sim_slots.h"

namespace {

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

std::atomic<bool> stop_requested{false};

void on_signal(int) { stop_requested = true; }

// The packages this node has seen, by id, materialised once per digest under `root`.
class package_store {
 public:
  package_store(fs::path root, aopt::actors::package_fetcher fetch) : root_(std::move(root)), fetch_(std::move(fetch)) {}

  std::shared_ptr<const aopt::jobs::sim_package> get(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
    const auto digest = fetch_.digest(id);
    auto& pkg = by_digest_[digest];
    if (!pkg) {
      const fs::path dir = root_ / digest;
      if (!fs::exists(dir / ".complete")) {
        const fs::path tmp = root_ / (digest + ".tmp" + std::to_string(::getpid()));
        fs::remove_all(tmp);
        aopt::common::write_tree(tmp, fetch_.files(digest));
        aopt::common::write_text_file_atomic(tmp / ".complete", digest + "\n");
        fs::remove_all(dir);
        fs::rename(tmp, dir);
        aopt::common::logger()->info("package {} ({}) fetched into {}", id, digest.substr(0, 12), dir.string());
      }
      pkg = aopt::jobs::make_sim_package(std::make_shared<const ev::op_package>(ev::load_package(dir)));
    }
    by_id_[id] = pkg;
    return pkg;
  }

 private:
  std::mutex mu_;
  fs::path root_;
  aopt::actors::package_fetcher fetch_;
  std::map<std::string, std::shared_ptr<const aopt::jobs::sim_package>> by_id_, by_digest_;
};

std::string default_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "node";
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aopt-node: a remote evaluator node of aoptd (docs/deploy.md)"};
  std::string join, name = default_name(), profile = "910b4", state_dir, cache_dir, log_level = "info";
  std::size_t count = 0;
  std::vector<std::string> device_args, npu_args, labels;
  std::uint32_t heartbeat_ms = 1000;
  bool use_cache = true;
  app.add_option("--join", join, "The daemon's node address, HOST:PORT ([nodes] listen of aoptd)")->required();
  app.add_option("--name", name, "This node's name, unique among the daemon's nodes (default: the host name)");
  app.add_option("--devices", count, "Number of sim devices sim0..simN-1 of --profile (default: 2, or 1 on one core)");
  app.add_option("--device", device_args, "A device ID[:PROFILE] (repeatable; replaces --devices)");
  app.add_option("--npu", npu_args,
                 "An NPU device ID:CANN_CONFIG[:DEVICE_ID] measured by the cann backend (repeatable; replaces --devices); "
                 "its class is the command profile's [cann] name, --profile the sim profile of its chip");
  app.add_option("--profile", profile, "Device profile of the --devices, or of the NPUs' chip (name or .json file)");
  app.add_option("--label", labels, "A label of every device (repeatable)");
  app.add_option("--state-dir", state_dir, "Where fetched packages are kept (default: <state>/node)");
  app.add_option("--cache-dir", cache_dir, "Evaluation cache (default: the user's)");
  app.add_flag("!--no-cache", use_cache, "Do not use the evaluation result cache");
  bool shared_builds = true;
  app.add_flag("!--no-shared-builds", shared_builds,
               "Compile every candidate here instead of taking the daemon's built artifacts and handing it ours");
  app.add_option("--heartbeat-ms", heartbeat_ms, "Heartbeat period (the daemon loses a node after its heartbeat_timeout_ms)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error");
  std::string tls_cert, tls_key, tls_ca, token_file;
  app.add_option("--tls-cert", tls_cert, "This node's certificate (PEM), when the daemon's nodes speak mutual TLS");
  app.add_option("--tls-key", tls_key, "The key of --tls-cert (PEM)");
  app.add_option("--tls-ca", tls_ca, "The CA that signed the daemon's certificate (PEM)");
  app.add_option("--token-file", token_file,
                 "The daemon's node token (a copy of its [nodes] token_file, by default <state_dir>/node-token), "
                 "readable by this user only (default: <state>/node-token when it exists)");
  CLI11_PARSE(app, argc, argv);
  aopt::common::set_log_level(log_level);
  auto log = aopt::common::logger();
  try {
    aopt::actors::node_options o;
    const auto address = aopt::actors::parse_host_port(join, "--join", false);
    o.host = address.host;
    o.port = address.port;
    o.name = name;
    o.tls = {tls_cert, tls_key, tls_ca};
    // The token: given, or the one a daemon of this user on this host made in its default state
    // directory (README's one-host setup), when there is a usable one.
    std::error_code ignored;  // a default that cannot be looked at is not there
    if (!token_file.empty()) {
      o.token = aopt::common::read_secret_file(token_file, "--token-file");
    } else if (const auto mine = aopt::jobs::default_state_dir() / "node-token"; fs::exists(mine, ignored)) {
      try {
        o.token = aopt::common::read_secret_file(mine, "the default node token");
      } catch (const aopt::error& e) {
        log->warn("{}; joining without a token", e.what());
      }
    }
    o.heartbeat = std::chrono::milliseconds(std::max<std::uint32_t>(heartbeat_ms, 50));
    // Devices: the sim profile of each, and for an NPU its command profile and device id.
    std::vector<aopt::jobs::device_config> devices;
    for (const auto& d : device_args) {
      const auto c = d.find(':');
      devices.push_back({d.substr(0, c), "sim", c == std::string::npos ? profile : d.substr(c + 1), {}, {}});
    }
    for (const auto& d : npu_args) {
      // ID:CANN_CONFIG[:DEVICE_ID]; a config path may hold ':' only before a numeric last field.
      const auto c = d.find(':');
      if (c == std::string::npos || c == 0 || c + 1 == d.size()) {
        throw aopt::error(aopt::ec::invalid_argument, "--npu '" + d + "': expected ID:CANN_CONFIG[:DEVICE_ID]");
      }
      std::string rest = d.substr(c + 1);
      std::optional<int> npu;
      const auto last = rest.rfind(':');
      if (last != std::string::npos && last + 1 < rest.size() &&
          rest.find_first_not_of("0123456789", last + 1) == std::string::npos) {
        npu = std::stoi(rest.substr(last + 1));
        rest = rest.substr(0, last);
      }
      devices.push_back({d.substr(0, c), "npu", profile, fs::absolute(rest), npu});
    }
    if (devices.empty()) devices = aopt::jobs::default_sim_devices(count, profile);
    aopt::jobs::slot_options base;
    base.use_cache = use_cache;
    base.cache_dir = cache_dir;
    std::vector<aopt::jobs::device_setup> setups;
    for (const auto& d : devices) {
      setups.push_back(aopt::jobs::set_up_device(d, base));
      aopt::protocols::device_info info;
      info.id = d.id;
      info.kind = d.kind;
      info.chip = setups.back().chip;
      info.device_class = setups.back().device_class;
      info.labels = labels;
      o.devices.push_back(std::move(info));
    }
    // The packages (operator sources) and artifacts kept here are this user's only.
    ::umask(077);
    const fs::path state = state_dir.empty() ? aopt::jobs::default_state_dir() / "node" : fs::path(state_dir);
    aopt::common::make_private_dir(state, 0700, "state directory", true);
    const fs::path root = state / "packages";
    fs::create_directories(root);
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    o.stop = [] { return stop_requested.load(); };
    o.log = [log](aopt::actors::node_log_level level, const std::string& line) {
      if (level == aopt::actors::node_log_level::warn) log->warn("{}", line);
      else log->info("{}", line);
    };
    aopt::actors::run_node(o, [&](aopt::actors::package_fetcher fetch) {
      // Builds shared with the daemon: an artifact it has is fetched, not compiled; what this
      // node compiles is handed over for the other nodes (docs/deploy.md, "Shared builds").
      if (shared_builds) aopt::evaluation::set_artifact_remote({fetch.artifacts.get, fetch.artifacts.put});
      auto store = std::make_shared<package_store>(root, std::move(fetch));
      std::vector<aopt::optimize::package_evaluate_fn> fns;
      for (const auto& d : setups) {
        auto one = aopt::jobs::make_sim_slots([store](const std::string& pkg) { return store->get(pkg); }, d.slot);
        fns.push_back(std::move(one.front()));
      }
      return fns;
    });
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "aopt-node: " << e.what() << "\n";
    return 2;
  }
}
