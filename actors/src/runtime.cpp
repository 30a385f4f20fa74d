// actors::runtime: one actor system with the shared evaluators and pool, the role actors (pools
// serving every job) and the Distiller, spawned once; each run_optimize call registers its job,
// spawns the job's progress listener (cooperative: no thread of its own) and runs the job's
// search on the calling thread: a job adds no thread to the process.
#include "aopt/actors/runtime.hpp"

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include "aopt/actors/convert.hpp"
#include "aopt/actors/job_support.hpp"
#include "aopt/actors/spawn.hpp"
#include "aopt/common/error.h"
#include "aopt/common/secret.h"
#include "aopt/protocols/message_types.hpp"

namespace aopt::actors {

using namespace protocols;

namespace {

// A device event as a message: it owns its report (the sender's is gone once it was sent).
struct owned_device_event {
  device_event event;
  std::optional<optimize::eval_report> report;
};

// The observers' side of device events (metrics): the pool and the node registry send each
// event here instead of calling the listener on their own thread, so a slow observer never holds
// them. Detached (one thread for the runtime's life): an observer may take locks.
caf::behavior device_observer(caf::event_based_actor*, device_listener fn) {
  return {
      [fn](const local<owned_device_event>& m) {
        auto e = m.get().event;
        e.report = m.get().report ? &*m.get().report : nullptr;
        fn(e);
      },
  };
}

// A listener that sends each event to `observer`.
device_listener sender_to(caf::actor observer) {
  return [observer](const device_event& e) {
    owned_device_event m{e, e.report != nullptr ? std::optional<optimize::eval_report>(*e.report) : std::nullopt};
    m.event.report = nullptr;
    caf::anon_send(observer, make_local(std::move(m)));
  };
}

}  // namespace

struct runtime::impl {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  runtime_options opt;
  std::shared_ptr<search_table> jobs = std::make_shared<search_table>();
  std::vector<evaluator_actor> evaluators;
  std::vector<evaluator_actor> builders;
  service_actors actors;
  node_registry_actor registry;
  caf::actor observer;         // receives the device events when there is a listener
  device_listener to_observer;  // what the pool and the registry call: a send to `observer`
  std::optional<std::uint16_t> published_port;
  // What the node registry's messages to the pool carry: a secret of this process.
  const std::string registry_key = common::random_hex(16);

  static caf::actor_system_config& configure(caf::actor_system_config& cfg, const runtime_options& o) {
    if (o.nodes) cfg.load<caf::io::middleman>();
    if (o.nodes && o.tls.enabled()) {
      cfg.openssl_certificate = o.tls.certificate;
      cfg.openssl_key = o.tls.key;
      cfg.openssl_cafile = o.tls.ca;
      cfg.load<caf::openssl::manager>();
    }
    return with_message_types(cfg);
  }

  impl(std::vector<device_slot> devices, runtime_options o)
      : sys(configure(cfg, o)), opt(std::move(o)) {
    std::vector<device_evaluator> pooled;
    for (auto& d : devices) {
      evaluators.push_back(spawn_evaluator(sys, std::move(d.evaluate), d.info.name()));
      pooled.push_back({d.info, evaluators.back()});
    }
    pool_options po;
    po.timeout = opt.timeouts.evaluation;
    po.device_wait = opt.nodes ? opt.device_wait : std::chrono::milliseconds(0);
    if (opt.listener) {
      observer = sys.spawn<caf::detached>(device_observer, opt.listener);
      to_observer = sender_to(observer);
    }
    po.listener = to_observer;
    for (std::size_t i = 0; i < opt.builders.size(); ++i)
      builders.push_back(spawn_evaluator(sys, std::move(opt.builders[i]), "builder" + std::to_string(i)));
    po.builders = builders;
    po.builder_class = opt.builder_class;
    po.registry_key = registry_key;
    actors.pool = spawn_evaluator_pool(sys, std::move(pooled), std::move(po));
    actors.mutator = spawn_mutator(sys, jobs, opt.role_workers);
    actors.diagnoser = spawn_diagnoser(sys, jobs, opt.role_workers);
    actors.retriever = spawn_retriever(sys, jobs, opt.role_workers);
    actors.refiner = spawn_refiner(sys, jobs, opt.role_workers);
    actors.distiller = spawn_distiller(sys, jobs);
  }

  ~impl() {
    caf::scoped_actor self{sys};
    if (registry) {
      // Over TLS the openssl manager owns the port; the registry's exit closes it.
      if (published_port && !opt.tls.enabled()) (void)sys.middleman().unpublish(registry, *published_port);
      stop_all(self, registry);
    }
    stop_all(self, actors.mutator, actors.diagnoser, actors.retriever, actors.refiner,
             actors.distiller, actors.pool);
    for (const auto& e : evaluators) stop_all(self, e);
    for (const auto& b : builders) stop_all(self, b);
    stop_all(self, observer);
  }
};

namespace {

std::vector<device_slot> as_devices(std::vector<optimize::package_evaluate_fn> slots) {
  if (slots.empty()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator slot is needed (give --slots >= 1)");
  }
  std::vector<device_slot> out;
  for (std::size_t i = 0; i < slots.size(); ++i)
    out.push_back({{"slot" + std::to_string(i), "", "sim", "", {}}, std::move(slots[i])});
  return out;
}

runtime_options options_of(actor_timeouts timeouts, std::size_t role_workers) {
  runtime_options o;
  o.timeouts = timeouts;
  o.role_workers = role_workers;
  return o;
}

}  // namespace

runtime::runtime(std::vector<optimize::package_evaluate_fn> slots, actor_timeouts timeouts,
                 std::size_t role_workers)
    : runtime(as_devices(std::move(slots)), options_of(timeouts, role_workers)) {}

runtime::runtime(std::vector<device_slot> devices, runtime_options options) {
  options.timeouts.validate();
  options.tls.check("nodes");
  if (devices.empty() && !options.nodes) {
    throw aopt::error(ec::invalid_argument,
                      "actors: at least one evaluator device is needed (give --slots >= 1, or let nodes join)");
  }
  if (options.role_workers == 0) {
    throw aopt::error(ec::invalid_argument, "actors: role_workers must be at least 1");
  }
  std::set<std::string> names;
  for (const auto& d : devices) {
    if (d.info.id.empty() || !names.insert(d.info.name()).second) {
      throw aopt::error(ec::invalid_argument,
                        "actors: device ids must be unique and not empty ('" + d.info.id + "' is not)");
    }
  }
  impl_ = std::make_unique<impl>(std::move(devices), std::move(options));
}

runtime::~runtime() = default;

caf::actor_system& runtime::system() { return impl_->sys; }

std::size_t runtime::slots() const { return impl_->evaluators.size(); }

nlohmann::json runtime::devices() const {
  caf::scoped_actor self{impl_->sys};
  std::string text;
  caf::error err;
  self->request(impl_->actors.pool, std::chrono::seconds(10), devices_atom::value)
      .receive([&](std::string& t) { text = std::move(t); }, [&](caf::error& e) { err = std::move(e); });
  if (err || text.empty())
    throw aopt::error(ec::internal, "actors: the evaluator pool did not list its devices: " + impl_->sys.render(err));
  return nlohmann::json::parse(text);
}

std::uint16_t runtime::listen_for_nodes(const node_listen_options& options) {
  if (!impl_->opt.nodes) {
    throw aopt::error(ec::invalid_argument, "actors: this runtime was made without nodes (runtime_options.nodes)");
  }
  if (impl_->registry) throw aopt::error(ec::invalid_argument, "actors: listen_for_nodes was already called");
  if (options.token.empty() && !impl_->opt.tls.enabled()) {
    throw aopt::error(ec::invalid_argument,
                      "actors: nodes must authenticate: without mutual TLS the registry needs a node token");
  }
  registry_options ro;
  ro.pool = impl_->actors.pool;
  ro.pool_key = impl_->registry_key;
  ro.heartbeat_timeout = options.heartbeat_timeout;
  ro.packages = options.packages;
  ro.artifacts = options.artifacts;
  ro.listener = impl_->to_observer;
  ro.token = options.token;
  impl_->registry = spawn_node_registry(impl_->sys, std::move(ro));
  auto port = impl_->opt.tls.enabled()
                  ? caf::openssl::publish(impl_->registry, options.port, options.host.c_str(), true)
                  : impl_->sys.middleman().publish(impl_->registry, options.port, options.host.c_str(), true);
  if (!port) {
    caf::scoped_actor self{impl_->sys};
    stop_all(self, impl_->registry);
    impl_->registry = nullptr;
    throw aopt::error(ec::io_error, "cannot listen for evaluator nodes on " + options.host + ":" +
                                        std::to_string(options.port) + ": " + impl_->sys.render(port.error()) +
                                        " (is the port in use? [nodes] listen)");
  }
  impl_->published_port = *port;
  return *port;
}

optimize::optimize_result runtime::run_optimize(const search_spec& spec) {
  if (spec.engine == nullptr) {
    throw aopt::error(ec::invalid_argument,
                      "run_search: no proposal engine was given (search_spec.engine)");
  }
  spec.timeouts.validate();
  spec.config.validate();
  auto& sys = impl_->sys;
  auto job = std::make_shared<search_context>();
  job->package = spec.package;
  job->device_class = spec.device_class;
  job->engine = spec.engine;
  job->index = std::make_shared<const search::retriever>(spec.bank, spec.make_ranker ? spec.make_ranker() : nullptr);
  job->learned = spec.learned;
  job->decorate = spec.decorate;
  job->timeouts = spec.timeouts;
  // Cooperative: the listener's function only records (the daemon: an event in its store).
  if (spec.progress) job->listener = spawn_progress_listener(sys, spec.progress, spawn_mode::cooperative);
  const auto id = impl_->jobs->add(job);

  std::optional<optimize::optimize_result> result;
  std::exception_ptr failure;
  try {
    result = run_search_here(sys, impl_->actors, *impl_->jobs, id, spec.package, spec.base_files, spec.config);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    caf::scoped_actor self{sys};
    flush(self, impl_->actors.distiller, spec.timeouts.engine);
    flush(self, job->listener, spec.timeouts.engine);
    stop_all(self, job->listener);
  }
  impl_->jobs->remove(id);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace aopt::actors
