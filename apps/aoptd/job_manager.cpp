#include "job_manager.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "aopt/actors/runtime.hpp"
#include "aopt/actors/supervisor.hpp"
#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/log.h"
#include "aopt/common/secret.h"
#include "aopt/common/tar.h"
#include "aopt/common/text.h"
#include "aopt/evaluation/artifacts.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/package.h"
#include "aopt/jobs/journal.h"
#include "aopt/jobs/sim_slots.h"
#include "aopt/jobs/llm_options.h"
#include "aopt/llm/session.h"
#include "aopt/optimize/offline_engine.h"
#include "aopt/optimize/report.h"
#include "aopt/jobs/bank_service.h"
#include "aopt/jobs/device_setup.h"
#include "aopt/jobs/job_setup.h"
#include "aopt/storage/experience_bank.h"
#include "aopt/storage/job_store.h"
#include "aopt_sim/profile.h"

namespace aopt::daemon {

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;
using nlohmann::json;

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A profile name as a request or a node may give it: letters, digits, '-' and '_' (no path, no
// ".json": sim::load_profile looks such a name up in the profile directory only).
bool plain_profile_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos;
}

bool terminal(const std::string& state) { return state == "finished" || state == "failed" || state == "cancelled"; }

// The job's evaluation journal in the job store: {"report": optimize::to_json(report)}. Journals
// of earlier versions kept the result record beside the report ("result"): read as the report's
// own (vocab/verdict.h reads a report of version 1's facts from it).
class store_journal final : public jobs::eval_journal {
 public:
  store_journal(storage::job_store& store, std::string id) : store_(store), id_(std::move(id)) {}
  std::optional<optimize::eval_report> find(const std::string& key) override {
    auto j = store_.get_evaluation(id_, key);
    if (!j) return std::nullopt;
    auto report = j->at("report");
    if (j->contains("result")) report["result"] = j->at("result");
    return report.get<optimize::eval_report>();
  }
  void record(const std::string& key, const optimize::eval_report& r) override {
    store_.put_evaluation(id_, key, json{{"report", optimize::to_json(r)}});
  }

 private:
  storage::job_store& store_;
  std::string id_;
};

json public_view(const json& record, std::uint64_t events) {
  json out = record;
  out.erase("corpus");
  out["events"] = events;
  return out;
}

void write_file(const fs::path& p, const std::string& text) { common::write_text_file_atomic(p, text); }

// A word as the shell reads it back: as it is when it is plain, else in single quotes.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || std::string_view("_-.,/:=+@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// report.md's "Reproduce": the submission that runs this job's search again (the same budget,
// seed, profile and engine) on the package it was given, which the client has as OP_DIR.
std::string reproduce_command(const json& record) {
  const auto& o = record.at("options");
  return "aopt submit OP_DIR --budget " + std::to_string(o.at("budget").get<std::size_t>()) + " --seed " +
         std::to_string(o.at("seed").get<std::uint64_t>()) + " --profile " + shell_word(o.at("profile").get<std::string>()) +
         " --engine " + shell_word(o.value("engine", std::string("offline"))) + "  # OP_DIR: the package of job " +
         record.at("id").get<std::string>() + " (" + record.value("name", std::string()) + ")";
}

}  // namespace

job_manager::job_manager(daemon_config cfg, std::vector<job_observer*> observers)
    : cfg_(std::move(cfg)), observers_(std::move(observers)) {
  cfg_.validate();
  sim_classes_.emplace(sim::load_profile(cfg_.profile).name, cfg_.profile);  // fails at start on a bad profile
  std::error_code e;
  fs::create_directories(cfg_.state_dir / "jobs", e);
  if (e) throw error(ec::io_error, (cfg_.state_dir / "jobs").string() + ": cannot create: " + e.message());
  store_ = std::make_unique<storage::job_store>(cfg_.state_dir / "jobs.db");
  // This host's devices: [[devices]], or evaluator_slots sim devices of [jobs] profile. Each
  // device evaluates on its own profile; a job's evaluations go to the devices of its profile.
  auto configured = cfg_.devices;
  // With nodes, this host has devices only when asked for ([[devices]] or evaluator_slots).
  if (configured.empty() && (cfg_.nodes_listen.empty() || cfg_.evaluator_slots != 0)) {
    for (const auto& d : jobs::default_sim_devices(cfg_.evaluator_slots, "")) configured.push_back({d.id, d.kind, "", {}});
  }
  std::vector<actors::device_slot> devices;
  jobs::slot_options base;
  base.use_cache = cfg_.use_cache;
  base.cache_dir = cfg_.cache_dir;
  for (const auto& d : configured) {
    // An npu: the cann backend with this device's id; its class is the command profile's [cann]
    // name, and the search estimates with the sim profile of its chip.
    const auto setup = jobs::set_up_device({d.id, d.kind, d.profile.empty() ? cfg_.profile : d.profile, d.cann_config,
                                            d.npu_device}, base);
    const auto& so = setup.slot;
    const std::string& device_class = setup.device_class;
    profile_sources_[d.id] = so.profile;
    if (d.kind == "npu") {
      profile_sources_[d.id] = d.cann_config.string();
      if (fs::exists(fs::path(sim::profile_dir()) / (device_class + ".json"))) {
        throw error(ec::invalid_spec, "[[devices]] " + d.id + ": its command profile's [cann] name '" + device_class +
                                            "' is also the name of a sim profile; name the site's class apart (e.g. '" +
                                            device_class + "-site0') in " + d.cann_config.string());
      }
      const auto [it, fresh] = npu_classes_.emplace(device_class, so.profile);
      if (!fresh && it->second != so.profile) {
        throw error(ec::invalid_spec, "[[devices]] " + d.id + ": the devices of class '" + device_class +
                                            "' must share one sim profile (" + it->second + " and " + so.profile + ")");
      }
    }
    if (d.kind != "npu") sim_classes_.emplace(device_class, so.profile);
    auto fns = jobs::make_sim_slots([this](const std::string& id) { return find_package(id); }, so);
    local_classes_.insert(device_class);
    devices.push_back({{d.id, "", d.kind, device_class, d.labels, setup.chip}, std::move(fns.front())});
  }
  actors::runtime_options ro;
  // One worker per role and running job: the engine calls of running jobs never queue behind
  // each other.
  ro.role_workers = std::max<std::size_t>(cfg_.max_running, 1);
  ro.nodes = !cfg_.nodes_listen.empty();
  ro.device_wait = std::chrono::milliseconds(cfg_.device_wait_ms);
  ro.tls = {cfg_.nodes_tls_certificate, cfg_.nodes_tls_key, cfg_.nodes_tls_ca};
  if (cfg_.builders > 0) {
    jobs::slot_options bo;
    bo.profile = cfg_.profile;
    bo.use_cache = cfg_.use_cache;
    bo.cache_dir = cfg_.cache_dir;
    bo.slots = cfg_.builders;
    ro.builders = jobs::make_sim_builders([this](const std::string& id) { return find_package(id); }, bo);
    ro.builder_class = sim::load_profile(cfg_.profile).name;
  }
  ro.listener = [this](const actors::device_event& e) { on_device_event(e); };
  const bool ro_tls = ro.tls.enabled();
  runtime_ = std::make_unique<actors::runtime>(std::move(devices), std::move(ro));
  supervisor_ = std::make_unique<actors::job_supervisor>(
      *runtime_, actors::supervisor_config{std::max<std::size_t>(cfg_.max_running, 1), [this](const std::string& id) {
                                             run_job(id);
                                           }});
  if (!cfg_.nodes_listen.empty()) {
    actors::node_listen_options no;
    const auto address = actors::parse_host_port(cfg_.nodes_listen, "nodes.listen", true);  // validate() checked it
    no.host = address.host;
    no.port = address.port;
    no.heartbeat_timeout = std::chrono::milliseconds(cfg_.node_heartbeat_timeout_ms);
    // Built artifacts for the nodes: this host's own (its devices' and builders'), then what
    // nodes handed over, kept apart under the state directory so that no node's artifact is ever
    // run by this host's devices.
    node_artifacts_ = std::make_unique<ev::artifact_store>(cfg_.state_dir / "node-artifacts", std::uintmax_t{2048} << 20);
    no.artifacts.get = [this](const std::string& key) -> std::optional<std::string> {
      if (auto own = ev::artifact_store::local().read(key)) return own;
      return node_artifacts_->read(key);
    };
    no.artifacts.put = [this](const std::string& key, const std::string& bytes) {
      if (!ev::artifact_store::local().read(key)) node_artifacts_->write(key, bytes);
    };
    no.packages = [this](const std::string& id) -> std::optional<optimize::file_map> {
      if (!find_package(id)) return std::nullopt;  // only the packages of running jobs
      return common::read_tree(job_dir(id) / "package");
    };
    // Nodes authenticate, on loopback too (docs/deploy.md, "Security"): the default token is
    // made at the first start; a configured one must exist.
    const auto token_file = cfg_.node_token_file();
    if (!token_file.empty()) {
      no.token = cfg_.nodes_token_file.empty()
                     ? common::read_or_create_secret_file(token_file, "the node token")
                     : common::read_secret_file(token_file, "[nodes] token_file");
    }
    const auto port = runtime_->listen_for_nodes(no);
    nodes_address_ = no.host + ":" + std::to_string(port);
    common::logger()->info("evaluator nodes may join at {} (aopt-node --join {}{}){}", nodes_address_, nodes_address_,
                           token_file.empty() ? "" : " --token-file " + token_file.string(),
                           ro_tls ? " over mutual TLS" : "");
  }
}

void job_manager::on_device_event(const actors::device_event& e) {
  using kind = actors::device_event::kind;
  const auto name = e.device.name();
  for (auto* o : observers_) {
    switch (e.what) {
      case kind::joined: o->on_device(name, false); break;
      case kind::busy: o->on_device(name, true); break;
      case kind::done:
        o->on_device(name, false);
        if (e.report != nullptr) o->on_evaluated(name, e.package, std::string(to_string(e.stage)), *e.report);
        break;
      case kind::down: o->on_device_down(name, e.why); break;
      case kind::node_joined: o->on_node(e.device.node, true); break;
      case kind::node_lost: o->on_node(e.device.node, false); break;
      case kind::queue: o->on_queue(e.device.device_class, e.queued); break;
    }
  }
}

job_manager::~job_manager() {
  shutdown(std::chrono::hours(1));
  supervisor_.reset();
  runtime_.reset();
}

fs::path job_manager::job_dir(const std::string& id) const { return cfg_.state_dir / "jobs" / id; }

std::shared_ptr<const jobs::sim_package> job_manager::find_package(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = packages_.find(id);
  return it == packages_.end() ? nullptr : it->second;
}

job_manager::job_entry& job_manager::entry(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw api_error(404, "not_found", "no job '" + id + "' (see GET /v1/jobs)", "id");
  return it->second;
}

const job_manager::job_entry& job_manager::entry(const std::string& id) const {
  return const_cast<job_manager*>(this)->entry(id);
}

void job_manager::append_event(const std::string& id, job_entry& e, json event, bool durable) {
  event["n"] = e.next_event;
  event["time_ms"] = now_ms();
  store_->put_event(id, e.next_event, event, durable);
  ++e.next_event;
  changed_.notify_all();
}

void job_manager::set_state(job_entry& e, const std::string& state, json extra) {
  const std::string id = e.record.at("id").get<std::string>();
  e.record["state"] = state;
  e.record[state + "_ms"] = now_ms();
  for (auto& [k, v] : extra.items()) e.record[k] = v;
  store_->put_job(id, e.record);
  json ev = {{"kind", "state"}, {"state", state}};
  for (auto& [k, v] : extra.items()) ev[k] = v;
  append_event(id, e, ev);
  common::logger()->info("job {} {}{}", id, state, extra.contains("error") ? ": " + extra["error"].get<std::string>() : "");
  const json view = public_view(e.record, e.next_event);
  for (auto* o : observers_) o->on_state(view);
  tell_counts();
}

json job_manager::state_counts() const {
  json states = json::object();
  for (const auto& [id, e] : jobs_) {
    const std::string s = e.record.at("state");
    states[s] = states.value(s, 0) + 1;
  }
  return states;
}

void job_manager::tell_counts() {
  if (observers_.empty()) return;
  const json states = state_counts();
  for (auto* o : observers_) o->on_jobs(states);
}

job_manager::resolved_profile job_manager::resolve_profile(const std::string& profile) const {
  if (const auto it = npu_classes_.find(profile); it != npu_classes_.end()) return {profile, it->second, "cann"};
  std::string why;
  try {
    return {sim::load_profile(profile).name, profile, "sim"};
  } catch (const std::exception& e) {
    why = e.what();
  }
  // The class of a joined node's npu devices: its chip's sim profile when this host has it.
  if (!nodes_address_.empty()) {
    for (const auto& d : runtime_->devices()) {
      if (d.value("kind", std::string()) != "npu" || d.value("profile", std::string()) != profile) continue;
      const std::string chip = d.value("chip", std::string());
      try {
        if (!plain_profile_name(chip)) throw std::invalid_argument("not a profile name");  // a node names no path here
        return {profile, sim::load_profile(chip).name, "cann"};
      } catch (const std::exception&) {
        common::logger()->warn("npu class {}: its chip's sim profile '{}' (node {}) is not on this host; the search "
                               "estimates with [jobs] profile {}", profile, chip, d.value("node", std::string()), cfg_.profile);
        return {profile, cfg_.profile, "cann"};
      }
    }
  }
  throw error(ec::invalid_argument, why + "; nor is it the class of an npu device of this aoptd" +
                                        (nodes_address_.empty() ? std::string() : " or of a joined node"));
}

job_manager::resolved_profile job_manager::resolve_requested_profile(const std::string& name) const {
  if (npu_classes_.contains(name)) return resolve_profile(name);
  if (const auto it = sim_classes_.find(name); it != sim_classes_.end()) return resolve_profile(it->second);
  const bool plain = plain_profile_name(name);
  if (plain) {
    try {
      return resolve_profile(name);  // the profile directory's, or a joined node's npu class
    } catch (const std::exception&) {
    }
  }
  std::string known;
  for (const auto& k : known_profiles()) known += (known.empty() ? "" : ", ") + k;
  throw api_error(400, "invalid_argument",
                  "profile '" + common::bounded_text(name, 64, "...") + "': " +
                      (plain ? "no such profile" : "not a profile name (a name such as 910b4; paths are not accepted)") +
                      "; known profiles: " + known +
                      (nodes_address_.empty() ? std::string() : " (and the npu classes of a joined node, once it has joined)"),
                  "profile");
}

std::set<std::string> job_manager::known_profiles() const {
  std::set<std::string> out;
  for (const auto& [c, source] : sim_classes_) out.insert(c);
  for (const auto& [c, chip] : npu_classes_) out.insert(c);
  std::error_code e;
  for (auto it = fs::directory_iterator(sim::profile_dir(), e); !e && it != fs::directory_iterator(); it.increment(e)) {
    const auto stem = it->path().stem().string();
    if (it->path().extension() == ".json" && plain_profile_name(stem)) out.insert(stem);
  }
  if (!nodes_address_.empty()) {
    for (const auto& d : runtime_->devices()) {
      if (!d.value("node", std::string()).empty()) out.insert(d.value("profile", std::string()));
    }
  }
  return out;
}

json job_manager::devices() const {
  auto out = runtime_->devices();
  for (auto& d : out) {
    const auto it = profile_sources_.find(d.value("name", std::string()));
    if (d.value("node", std::string()).empty() && it != profile_sources_.end()) d["profile_source"] = it->second;
  }
  return out;
}

fs::path job_manager::bank_dir() const { return cfg_.bank_dir.empty() ? storage::default_bank_dir() : cfg_.bank_dir; }

void job_manager::start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& rec : store_->jobs()) {
      const std::string id = rec.at("id").get<std::string>();
      auto& e = jobs_[id];
      e.record = std::move(rec);
      e.next_event = store_->event_count(id);
      next_seq_ = std::max<std::uint64_t>(next_seq_, e.record.value("seq", std::uint64_t{0}) + 1);
      const json view = public_view(e.record, e.next_event);
      for (auto* o : observers_) o->on_recovered(view);
      if (e.record.at("state") == "running") {
        if (e.record.value("cancel_requested", false)) {
          set_state(e, "cancelled");  // the cancel was accepted before the restart
        } else {
          set_state(e, "queued", {{"resume", true}});
        }
      }
    }
    // Package directories of submissions that crashed before their record was written.
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(cfg_.state_dir / "jobs", ec)) {
      if (!jobs_.count(d.path().filename().string())) fs::remove_all(d.path(), ec);
    }
    std::size_t queued = 0;
    for (const auto& [id, e] : jobs_) queued += e.record.at("state") == "queued";
    common::logger()->info("{} job(s) in the store, {} queued", jobs_.size(), queued);
    tell_counts();
    for (const auto& [id, e] : jobs_) {
      if (e.record.at("state") == "queued") enqueue(e);
    }
  }
}

void job_manager::enqueue(const job_entry& e) {
  supervisor_->enqueue(e.record.at("id").get<std::string>(),
                       {e.record.value("resume", false), e.record.value("priority", 0),
                        static_cast<std::int64_t>(e.record.value("seq", std::uint64_t{0}))});
}

json job_manager::submit(const std::string& tar, const submit_options& o, std::int64_t uid) {
  if (stopping_) throw api_error(503, "shutting_down", "aoptd is shutting down; submit again once it is back");
  const std::size_t budget = o.budget == 0 ? cfg_.default_budget : o.budget;
  if (budget > cfg_.max_budget) {
    throw api_error(400, "invalid_argument",
                    "budget " + std::to_string(budget) + " exceeds jobs.max_budget " + std::to_string(cfg_.max_budget),
                    "budget");
  }
  if (o.engine == "llm" && !cfg_.llm) {
    throw api_error(400, "invalid_argument",
                    "engine 'llm': this aoptd has no [llm] table in its config; add one (docs/llm.md, "
                    "config/aoptd.example.toml) and restart aoptd, or submit with engine offline",
                    "engine");
  }
  if (o.engine != "offline" && o.engine != "llm") {
    throw api_error(400, "invalid_argument", "engine '" + o.engine + "': unknown; use offline or llm", "engine");
  }
  const std::string profile = o.profile.empty() ? cfg_.profile : o.profile;
  resolved_profile resolved;
  try {
    resolved = o.profile.empty() ? resolve_profile(profile) : resolve_requested_profile(profile);
  } catch (const api_error&) {
    throw;
  } catch (const std::exception& e) {
    throw api_error(400, "invalid_argument", "profile '" + profile + "': " + e.what(), "profile");
  }
  const std::string& device_class = resolved.device_class;
  if (nodes_address_.empty() && !local_classes_.contains(device_class)) {
    std::string have;
    for (const auto& c : local_classes_) have += (have.empty() ? "" : ", ") + c;
    throw api_error(400, "invalid_argument",
                    "profile '" + profile + "': no device of this aoptd has it (its devices have " + have +
                        "); add a [[devices]] entry with this profile, or let nodes join ([nodes] listen)",
                    "profile");
  }
  if (o.priority < -100 || o.priority > 100) {
    throw api_error(400, "invalid_argument", "priority must be in [-100, 100]", "priority");
  }
  std::map<std::string, std::string> files;
  try {
    files = common::tar_read(tar);
  } catch (const error& e) {
    throw api_error(400, "invalid_package", e.what(), "body");
  }
  if (files.empty()) throw api_error(400, "invalid_package", "the uploaded tar archive holds no file", "body");
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = store_->next_id();
  }
  const fs::path dir = job_dir(id);
  std::string kernel;
  try {
    common::write_tree(dir / "package", files);
    auto pkg = std::make_shared<const ev::op_package>(ev::load_package(dir / "package"));
    (void)jobs::make_sim_package(pkg);
    kernel = pkg->spec.kernel;
  } catch (const error& e) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    std::string msg = e.what();
    const auto p = msg.find(dir.string() + "/package/");
    if (p != std::string::npos) msg.erase(p, dir.string().size() + 9);  // paths as in the upload
    throw api_error(422, "invalid_package", msg, "body");
  }
  std::size_t bytes = 0;
  for (const auto& [k, v] : files) bytes += v.size();
  // The retrieval corpus is the bank as it is when the job is accepted, persisted with the job:
  // however often the job is interrupted, and whatever other jobs learn meanwhile, it retrieves
  // the same tuples (a snapshot taken at its first start could be lost to a kill before it was
  // stored, and the next start would see what others learned since).
  json corpus = json::array();
  for (const auto& t : jobs::bank_service(bank_dir()).all()) corpus.push_back(t.id);
  std::lock_guard<std::mutex> lock(mu_);
  auto& e = jobs_[id];
  e.record = {{"id", id},
              {"name", o.name.empty() ? kernel : o.name},
              {"uid", uid},
              {"priority", o.priority},
              {"seq", next_seq_++},
              {"options", {{"budget", budget}, {"engine", o.engine}, {"seed", o.seed}, {"profile", profile},
                           {"chip", resolved.sim_profile}, {"backend", resolved.backend}}},
              {"package", {{"files", files.size()}, {"bytes", bytes}}},
              {"created_ms", now_ms()},
              {"attempts", 0},
              {"corpus", std::move(corpus)}};
  set_state(e, "queued");  // persisted before the client hears of it
  enqueue(e);
  return public_view(e.record, e.next_event);
}

std::vector<json> job_manager::list() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<json> out;
  for (const auto& [id, e] : jobs_) out.push_back(public_view(e.record, e.next_event));
  return out;
}

json job_manager::get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto& e = entry(id);
  return public_view(e.record, e.next_event);
}

namespace {
void check_owner(const json& record, std::int64_t uid, const char* what) {
  const auto owner = record.value("uid", std::int64_t{-1});
  if (uid != 0 && uid != owner) {
    throw api_error(403, "forbidden",
                    std::string("only the submitter (uid ") + std::to_string(owner) + ") or root may " + what + " this job",
                    "id");
  }
}
}  // namespace

json job_manager::cancel(const std::string& id, std::int64_t uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& e = entry(id);
  check_owner(e.record, uid, "cancel");
  const std::string state = e.record.at("state");
  if (terminal(state)) throw api_error(409, "conflict", "job " + id + " is already " + state, "id");
  if (state == "queued") {
    set_state(e, "cancelled");
  } else {
    e.cancel = true;  // the runner stops at the job's next evaluation
    e.record["cancel_requested"] = true;
    store_->put_job(id, e.record);
  }
  return public_view(e.record, e.next_event);
}

void job_manager::erase(const std::string& id, std::int64_t uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& e = entry(id);
  check_owner(e.record, uid, "delete");
  const std::string state = e.record.at("state");
  if (!terminal(state)) throw api_error(409, "conflict", "job " + id + " is " + state + "; cancel it first", "id");
  store_->erase_job(id);
  std::error_code ec;
  fs::remove_all(job_dir(id), ec);
  jobs_.erase(id);
  common::logger()->info("job {} deleted", id);
  for (auto* o : observers_) o->on_removed(id);
  tell_counts();
  changed_.notify_all();
}

std::string job_manager::result_tar(const std::string& id) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto& e = entry(id);
    if (e.record.at("state") != "finished") {
      throw api_error(409, "conflict", "job " + id + " is " + e.record.at("state").get<std::string>() +
                                           "; a result exists once it is finished", "id");
    }
  }
  return common::tar_write(common::read_tree(job_dir(id) / "result"));
}

std::string job_manager::report(const std::string& id, const std::string& file) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto& e = entry(id);
    if (e.record.at("state") != "finished") {
      throw api_error(409, "conflict", "job " + id + " is " + e.record.at("state").get<std::string>() +
                                           "; its report exists once it is finished", "id");
    }
  }
  return common::read_text_file(job_dir(id) / "result" / file);
}

std::vector<json> job_manager::events(const std::string& id, std::uint64_t from, std::chrono::milliseconds wait,
                                      bool& over) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] {
    auto it = jobs_.find(id);
    return it == jobs_.end() || it->second.next_event > from || terminal(it->second.record.at("state")) || stopping_;
  };
  (void)entry(id);
  changed_.wait_for(lock, wait, ready);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    over = true;
    return {};
  }
  auto out = store_->events(id, from, 1000);
  over = terminal(it->second.record.at("state")) && from + out.size() >= it->second.next_event;
  return out;
}

json job_manager::health() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {{"status", stopping_ ? "stopping" : "ok"},
          {"jobs", state_counts()},
          {"running", running_},
          {"max_running", cfg_.max_running},
          {"evaluator_slots", runtime_->slots()},
          {"nodes_listen", nodes_address_.empty() ? json() : json(nodes_address_)}};
}

void job_manager::run_job(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(id);
    // Cancelled or deleted while queued; when aoptd is stopping it stays queued for the next start.
    if (it == jobs_.end() || it->second.record.at("state") != "queued" || stopping_) return;
    auto& e = it->second;
    e.record["attempts"] = e.record.value("attempts", 0) + 1;
    e.record.erase("resume");
    set_state(e, "running");
    ++running_;
  }
  std::string failure;
  bool stopped = false;
  try {
    run_job_body(id);
  } catch (const jobs::job_stopped&) {
    stopped = true;
  } catch (const std::exception& e) {
    failure = common::valid_utf8(e.what());  // it may quote the package: stored and served as JSON
  }
  std::lock_guard<std::mutex> lock(mu_);
  packages_.erase(id);
  auto it = jobs_.find(id);
  if (it != jobs_.end()) {
    if (stopped && it->second.cancel) {
      set_state(it->second, "cancelled");
    } else if (stopped) {
      common::logger()->info("job {} interrupted (aoptd stopping); it resumes on the next start", id);
    } else if (!failure.empty()) {
      set_state(it->second, "failed", {{"error", failure}});
    }
  }
  --running_;
  changed_.notify_all();
}

std::vector<search::experience> job_manager::job_corpus(const std::string& id, const json& record) {
  // The bank as it was when the job was accepted (see submit). Records stored before the
  // snapshot moved to submit take it at their first start.
  const jobs::bank_service bank(bank_dir());
  if (record.contains("corpus")) return bank.tuples(record.at("corpus").get<std::vector<std::string>>());
  auto corpus = bank.all();
  json ids = json::array();
  for (const auto& t : corpus) ids.push_back(t.id);
  std::lock_guard<std::mutex> lock(mu_);
  auto& e = entry(id);
  e.record["corpus"] = ids;
  store_->put_job(id, e.record);
  return corpus;
}

optimize::progress_fn job_manager::progress_recorder(const std::string& id) {
  std::uint64_t persisted = 0;
  for (const auto& ev : store_->events(id, 0)) persisted += ev.contains("p") ? 1 : 0;
  return [this, id, persisted, seen = std::uint64_t{0}](const optimize::progress_event& e) mutable {
    const std::uint64_t p = seen++;
    // A resumed job replays what was already streamed: not stored again, but the observers see
    // it, so that their per-job figures start from where the job was.
    const bool replayed = p < persisted;
    const bool is_point = e.kind == "point" && e.point.has_value();
    const bool accepted = e.kind == "accepted";
    const json point = e.point ? optimize::to_json(*e.point) : json();
    json ev = {{"kind", e.kind}, {"p", p}};
    if (is_point) {
      ev["point"] = point;
      ev["line"] = optimize::progress_line(*e.point);
    } else {
      ev["message"] = e.message;
      if (accepted && e.point) ev["point"] = point;
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    if (e.point && (is_point || accepted)) {
      if (is_point) it->second.record["evaluations"] = e.point->evaluations;  // an accepted point may be an earlier one
      it->second.record["best_us"] = e.point->best_us;
    }
    if (!replayed) append_event(id, it->second, std::move(ev), /*durable=*/false);  // the journal is; a replay writes it again
    for (auto* obs : observers_) {
      if (is_point) obs->on_evaluation(id, point);
      if (accepted) obs->on_accepted(id, point, replayed);
    }
  };
}

namespace {

// The result of a job (the optimized package, report.json, report.md): written beside, then
// renamed into place.
void write_result(const fs::path& dir, const ev::op_package& pkg, const optimize::optimize_result& res,
                  const optimize::report_context& ctx) {
  const fs::path tmp = dir / "result.tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  jobs::write_package(pkg, res.best_files, tmp / "package");
  write_file(tmp / "report.json", optimize::report_json(res, ctx).dump(2) + "\n");
  write_file(tmp / "report.md", optimize::report_markdown(res, ctx));
  fs::remove_all(dir / "result", ec);
  fs::rename(tmp, dir / "result");
}

}  // namespace

void job_manager::run_job_body(const std::string& id) {
  json rec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rec = entry(id).record;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path dir = job_dir(id);
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(dir / "package"));
  auto sp = jobs::make_sim_package(pkg);
  {
    std::lock_guard<std::mutex> lock(mu_);
    packages_[id] = sp;
  }
  std::vector<search::experience> corpus = job_corpus(id, rec);
  const auto& o = rec.at("options");
  // As resolved at submission (a node's npu class may not have joined again yet); older records
  // hold only the profile.
  const auto resolved = o.contains("chip") ? resolved_profile{o.at("profile"), o.at("chip"), o.value("backend", std::string("sim"))}
                                           : resolve_profile(o.at("profile"));
  const std::string profile = resolved.sim_profile;
  const std::uint64_t seed = o.at("seed");
  jobs::engine_options eo{o.value("engine", std::string("offline")) == "llm", jobs::offline_config(profile, seed), {},
                          pkg->spec.kernel, profile};
  if (eo.llm) eo.session = llm_session_options(id);
  // The job's own copy of the corpus is embedded; the bank keeps what it has (aopt bank and
  // `aopt optimize --engine llm` write embeddings back).
  jobs::job_engine engine(eo, corpus);
  actors::search_spec spec;
  spec.engine = &engine.engine();
  spec.make_ranker = engine.ranker_factory();
  store_journal journal(*store_, id);
  spec.package = id;
  spec.device_class = resolved.device_class;
  spec.base_files = sp->base;
  spec.config.budget = o.at("budget");
  spec.config.search_form = true;  // Stage I variants on one build: the same results, sooner
  spec.bank = std::move(corpus);
  if (cfg_.learn) spec.learned = jobs::bank_sink(bank_dir(), &bank_mu_);  // idempotent: a replay adds nothing twice
  spec.progress = progress_recorder(id);
  spec.decorate = [this, &journal, id](optimize::runner& inner) -> std::unique_ptr<optimize::runner> {
    return std::make_unique<jobs::journaled_runner>(inner, journal, [this, id]() -> std::optional<std::string> {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = jobs_.find(id);
      if (it != jobs_.end() && it->second.cancel) return std::string("cancelled");
      if (stopping_) return std::string("aoptd is stopping");
      return std::nullopt;
    });
  };
  const optimize::optimize_result res = runtime_->run_optimize(spec);
  if (res.stop_reason.starts_with("base failed")) {
    throw error(ec::invalid_spec, "the operator itself does not pass its cases, nothing to optimize: " + res.stop_reason);
  }
  optimize::report_context ctx;
  ctx.op_dir = rec.value("name", id);
  ctx.out_dir = "package";
  ctx.backend = resolved.backend;
  ctx.profile = resolved.backend == "sim" ? profile : resolved.device_class;
  ctx.seed = seed;
  ctx.config = spec.config;
  ctx.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctx.command = reproduce_command(rec);
  ctx.engine_usage = engine.usage();
  write_result(dir, *pkg, res, ctx);
  std::lock_guard<std::mutex> lock(mu_);
  set_state(entry(id), "finished",
            {{"speedup", res.speedup},
             {"base_us", res.base_us},
             {"best_us", res.best_us},
             {"evaluations", res.evaluations},
             {"failures", res.failures},
             {"accepted_changes", res.changes.size()},
             {"stop_reason", res.stop_reason},
             {"verified", res.verification ? json(res.verification->ok) : json()}});
}

llm::session_options job_manager::llm_session_options(const std::string& id) {
  if (!cfg_.llm) {
    throw error(ec::invalid_spec, "the job asks for the llm engine and this aoptd's config has no [llm] table (any more); "
                                  "add it back and restart aoptd, or submit the operator again with engine offline");
  }
  llm::session_options s;
  s.config = *cfg_.llm;
  // Every exchange is recorded with the job, and a resumed job is answered from its own
  // recording first: it meets the answers it met before the interruption, so it takes the same
  // path (the evaluation journal then replays its evaluations) and pays for no request twice.
  s.record_dir = job_dir(id) / "llm";
  s.resume = true;
  s.observe = [this, id](const llm::request_observation& r) {
    if (r.replayed) return;  // no request reached the model
    for (auto* obs : observers_) obs->on_llm_request(id, r);
  };
  return s;
}

json job_manager::engines() const {
  json e = json::array({"offline"});
  if (cfg_.llm) e.push_back("llm");
  return e;
}

json job_manager::backends() const {
  std::set<std::string> names;
  for (const auto& d : runtime_->devices()) names.insert(d.value("kind", std::string("sim")) == "npu" ? "cann" : "sim");
  return names;
}

void job_manager::request_stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  changed_.notify_all();
}

bool job_manager::shutdown(std::chrono::milliseconds grace) {
  request_stop();
  return supervisor_ == nullptr || supervisor_->drain(grace);
}

}  // namespace aopt::daemon
