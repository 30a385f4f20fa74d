// Every actor interface of aopt, in one place (DESIGN.md §3):
//
//   Scheduler ──► job driver × jobs ──► Mutator (Stage I)   Diagnoser ─► Retriever ─► Refiner (Stage II)
//                    │                   (each a pool of workers serving every job)
//                    └──► evaluator pool ──► Evaluator × N (one per device or slot)
//   Rewinder ──► evaluator pool;  Rewinder, Scheduler ──► Distiller ──► sink (experience bank)
//
// The interfaces are CAF 0.17 typed actors (`replies_to<...>::with<...>`). Handlers marked
// "local" take or return `local<T>` (messages.hpp) and only work inside one process; the others
// are network-ready. The search types are only forward-declared here: this header does not
// pull the search headers into CAF code and CAF into search code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <nlohmann/json_fwd.hpp>

#include "aopt/common/outcome.h"
#include "aopt/protocols/messages.hpp"
#include "aopt/vocab/experience.h"

namespace aopt::stage1 {
struct synthesis_input;
struct tiling_template;
class stage1_history;
struct tiling_proposal;
}  // namespace aopt::stage1

// What the messages carry from the rooms below: outcome (common/) and the experience tuple
// (vocab/) are included; the search's own records are declared here and defined in search/.
namespace aopt::search {
struct diagnosis;
struct kernel_rewrite;
struct rewind_config;
struct rewind_result;
}  // namespace aopt::search

namespace aopt::optimize {
struct optimize_result;
}  // namespace aopt::optimize

// (the records carried by wire<T> are forward-declared in messages.hpp)

namespace aopt::protocols {

// -- atoms (at most 10 characters each) -----------------------------------------------------
using evaluate_atom = caf::atom_constant<caf::atom("evaluate")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;
using parallelism_atom = caf::atom_constant<caf::atom("parallel")>;
using name_atom = caf::atom_constant<caf::atom("name")>;
using synthesize_atom = caf::atom_constant<caf::atom("synthesize")>;
using propose_atom = caf::atom_constant<caf::atom("propose")>;
using diagnose_atom = caf::atom_constant<caf::atom("diagnose")>;
using retrieve_atom = caf::atom_constant<caf::atom("retrieve")>;
using refine_atom = caf::atom_constant<caf::atom("refine")>;
using enqueue_atom = caf::atom_constant<caf::atom("enqueue")>;
using drain_atom = caf::atom_constant<caf::atom("drain")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using learn_atom = caf::atom_constant<caf::atom("learn")>;
using rewind_atom = caf::atom_constant<caf::atom("rewind")>;
using optimize_atom = caf::atom_constant<caf::atom("optimize")>;
using local_atom = caf::atom_constant<caf::atom("local")>;
using progress_atom = caf::atom_constant<caf::atom("progress")>;
using register_atom = caf::atom_constant<caf::atom("register")>;
using heartbeat_atom = caf::atom_constant<caf::atom("heartbeat")>;
using devices_atom = caf::atom_constant<caf::atom("devices")>;
using node_down_atom = caf::atom_constant<caf::atom("nodedown")>;
using digest_atom = caf::atom_constant<caf::atom("digest")>;
using package_atom = caf::atom_constant<caf::atom("package")>;
using artifact_atom = caf::atom_constant<caf::atom("artifact")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using ok_atom = caf::atom_constant<caf::atom("ok")>;

// -- local payload types --------------------------------------------------------------------
using template_outcome = aopt::outcome<stage1::tiling_template>;
using proposals_outcome = aopt::outcome<std::vector<stage1::tiling_proposal>>;
using diagnosis_outcome = aopt::outcome<search::diagnosis>;
using rewrites_outcome = aopt::outcome<std::vector<search::kernel_rewrite>>;
using experiences = std::vector<vocab::experience>;

// -- network-ready payload types -------------------------------------------------------------
using eval_request_wire = wire<vocab::eval_request>;
using eval_report_wire = wire<vocab::eval_report>;
using progress_wire = wire<optimize::progress_event>;
// The evaluator pool's answer to a batch: its reports as the pool read them, once (local: the
// pool and the searches that ask it share a process; the evaluators may be on nodes and send
// their reports as eval_report_wire).
using eval_reports = local<std::vector<vocab::eval_report>>;

// -- interfaces -----------------------------------------------------------------------------

// Evaluator: one device or slot; evaluates one candidate at a time (blocking: spawned detached).
using evaluator_actor = caf::typed_actor<
    // Evaluates a candidate (the request names its package). A bad candidate is a report, never
    // an error.
    caf::replies_to<evaluate_atom, eval_request_wire>::with<eval_report_wire>,
    // Answers once every earlier request is done (the pool's "is this slot free again?").
    caf::replies_to<ping_atom>::with<ping_atom>>;

// Evaluator pool: spreads a batch over the devices of its class, one request per device at a
// time. Devices are this process's evaluators and those remote nodes register.
using evaluator_pool_actor = caf::typed_actor<
    // (package, device class, requests): one report per request, in request order; each request
    // is routed by its envelope's route (messages.hpp), never by its body; a timed-out
    // or dead evaluator gives a report with status "timeout" or "runtime_error". Only devices
    // whose profile is the class serve the batch ("" = any device). Batches of different
    // packages (jobs) share the devices in turn. A request in flight on a node that is lost is
    // queued again (at most twice) for another device: it is answered once.
    caf::replies_to<evaluate_atom, std::string, std::string,
                    std::vector<eval_envelope>>::with<eval_reports>,
    // The number of devices of a class still usable (at least 1 while nodes may still join).
    caf::replies_to<parallelism_atom, std::string>::with<std::uint64_t>,
    // A node's devices join (registry key, node, devices, one evaluator per device). A node
    // registering again under the same name replaces its earlier devices (their requests in
    // flight are re-queued). The key is a secret of this process that only its node registry
    // holds: once the pool has sent work to a node, its handle has crossed the network, and CAF
    // 0.17 lets a peer address it; without the key nothing changes (an error).
    caf::replies_to<register_atom, std::string, std::string, std::vector<device_info>,
                    std::vector<evaluator_actor>>::with<ok_atom>,
    // A node is lost (no heartbeat, disconnected): its devices go down, their requests are
    // re-queued. (registry key, node, why); ignored without the key.
    caf::reacts_to<node_down_atom, std::string, std::string, std::string>,
    // Every device as a JSON array (docs/api.md, GET /v1/devices).
    caf::replies_to<devices_atom>::with<std::string>,
    // Internal: queued requests whose class has no device wait so long for one to join.
    caf::reacts_to<tick_atom>>;

// Node registry: what a remote evaluator node talks to (published on the daemon's middleman
// port). It forwards registrations to the pool, watches heartbeats, and serves packages by
// content: a node asks for a package's digest, and only for the files of a digest it lacks; and
// built artifacts by key: a node asks before it compiles, and hands over what it compiled.
// Every message starts with the node token (docs/deploy.md, "Security"): CAF 0.17's protocol
// authenticates neither a connection nor a message's sender, so the registry checks the token
// on each message and answers nothing without it ("" when the daemon's mutual TLS alone
// authenticates nodes).
using node_registry_actor = caf::typed_actor<
    // (token, node, devices, evaluators) -> ok; an error when the token is wrong or the name is
    // taken by another live node.
    caf::replies_to<register_atom, std::string, std::string, std::vector<device_info>,
                    std::vector<evaluator_actor>>::with<ok_atom>,
    // (token, node) -> whether the registry knows it (false: register again, e.g. after a restart).
    caf::replies_to<heartbeat_atom, std::string, std::string>::with<bool>,
    // (token, package id) -> its content digest (SHA-256 of its files); "" when unknown.
    caf::replies_to<digest_atom, std::string, std::string>::with<std::string>,
    // (token, digest) -> the package's files (relative path -> bytes); empty when unknown.
    caf::replies_to<package_atom, std::string, std::string>::with<file_map>,
    // (token, artifact key) -> the built artifact's bytes; empty when the daemon has none.
    caf::replies_to<artifact_atom, std::string, std::string>::with<std::string>,
    // (token, artifact key, bytes): what a node built, kept for the other nodes.
    caf::reacts_to<artifact_atom, std::string, std::string, std::string>,
    // Internal: the heartbeat check.
    caf::reacts_to<tick_atom>>;

// The role actors below serve every job of the process: each is a pool (cooperative, it only
// routes) over detached workers, since a call may block (a libclang parse, a model request).
// A request goes to the worker with the fewest calls in flight, so the calls of different jobs
// run at once; the calls of one job go to its own engine, one at a time (the search asks one
// thing at a time). An unknown job id is a system fault carried in the local reply.

// Mutator (Stage I, local): template synthesis and tiling variants from the job's engine.
using mutator_actor = caf::typed_actor<
    // The job's engine's name ("offline", "llm").
    caf::replies_to<name_atom, search_id>::with<std::string>,
    caf::replies_to<synthesize_atom, search_id,
                    local<stage1::synthesis_input>>::with<local<template_outcome>>,
    // (job, template, history, n): the engine keeps its per-template state (its mutator) across
    // calls on a template of the same content (stage1::template_id), as a direct call would.
    caf::replies_to<propose_atom, search_id, local<stage1::tiling_template>,
                    local<stage1::stage1_history>, std::uint64_t>::with<local<proposals_outcome>>>;

// Diagnoser (Stage II, local): (job, profile, kernel files) -> bottleneck findings.
using diagnoser_actor =
    caf::typed_actor<caf::replies_to<diagnose_atom, search_id, local<nlohmann::json>,
                                     local<file_map>>::with<local<diagnosis_outcome>>>;

// Retriever (Stage II, local): the k best experience tuples of the job's bank for a diagnosis.
using retriever_actor =
    caf::typed_actor<caf::replies_to<retrieve_atom, search_id, local<search::diagnosis>,
                                     std::uint64_t>::with<local<experiences>>>;

// Refiner (Stage II, local): kernel rewrites of the files applying the tuples.
using refiner_actor =
    caf::typed_actor<caf::replies_to<refine_atom, search_id, local<file_map>,
                                     local<experiences>>::with<local<rewrites_outcome>>>;

// Distiller (local): hands experience tuples to the job's sink (the bank), one at a time, in
// arrival order, for every job: the bank has one writer.
using distiller_actor =
    caf::typed_actor<caf::reacts_to<learn_atom, search_id, local<vocab::experience>>,
                     // Answers once every earlier tuple reached the sink (a flush before shutdown).
                     caf::replies_to<ping_atom>::with<ping_atom>>;

// Rewinder (local): a rewind chain of one seed (file map, config); every step evaluated through
// the evaluator pool; the kept tuples go to the Distiller (when there is one) and the reply.
using rewinder_actor =
    caf::typed_actor<caf::replies_to<rewind_atom, local<file_map>, local<search::rewind_config>>::
                         with<local<search::rewind_result>>>;

// Progress listener: receives one job's progress events in order.
using progress_listener_actor =
    caf::typed_actor<caf::reacts_to<progress_atom, progress_wire>,
                     // Answers once every earlier event was handled (a flush before shutdown).
                     caf::replies_to<ping_atom>::with<ping_atom>>;

// Scheduler: long-lived; runs every optimize job of the process (Algorithm 1 over the role
// actors), each on a job driver of its own (a detached actor that blocks for the job's length),
// so jobs run at once and the Scheduler itself never blocks. The job id names the job's entry in
// the process's job table (its engine, bank, listener, services decorator).
using scheduler_actor = caf::typed_actor<
    // Network-ready: the result as JSON (optimize::to_json) plus the best files.
    caf::replies_to<optimize_atom, search_id, optimize_job_msg>::with<optimize_reply_msg>,
    // Local: the complete result object.
    caf::replies_to<optimize_atom, local_atom, search_id,
                    optimize_job_msg>::with<local<optimize::optimize_result>>>;

// Job supervisor (aoptd, cooperative: it only decides): the queue of the daemon's jobs and who
// runs them. Each job runs on one of its job workers, spawned with it (detached: a job's life
// blocks on its search), so the daemon's threads do not grow with its jobs.
using job_supervisor_actor = caf::typed_actor<
    // (job id, resumed, priority, submission order): queue a job; it starts when a worker is
    // free and it ranks first (resumed ones, then the higher priority, then the earlier order).
    caf::reacts_to<enqueue_atom, std::string, bool, std::int32_t, std::int64_t>,
    // Start no more jobs; answers once no job runs.
    caf::replies_to<drain_atom>::with<drain_atom>>;

// Job worker: runs one job's whole life (set up, search, result) and answers when it ended.
using job_worker_actor = caf::typed_actor<caf::replies_to<run_atom, std::string>::with<run_atom>>;

}  // namespace aopt::protocols
