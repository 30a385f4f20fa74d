// The daemon's client commands: `aopt submit`, `jobs`, `devices`, `job`, `watch`, `cancel`, `fetch`. Each
// talks HTTP/1.1 to aoptd over its Unix socket with libcurl (CURLOPT_UNIX_SOCKET_PATH); the API
// is docs/api.md. Exit codes: 0 done, 1 the job failed or was cancelled (watch, submit --wait),
// 2 an error (the daemon's error message is printed).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <curl/curl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/ownership.h"
#include "aopt/common/tar.h"
#include "aopt/evaluation/package_build.h"
#include "aopt/jobs/daemon_paths.h"
#include "aopt/optimize/optimizer.h"
#include "commands.h"

namespace aopt::app {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Who may answer on the socket (docs/api.md, "Access"): the socket, its directory and the process
// listening (SO_PEERCRED, checked before a byte is sent) must belong to this user, root, the user
// of --daemon-user / $AOPT_DAEMON_USER, or the owner of a socket directory that sits in a
// directory only root may write to (root placed it: systemd's /run/aoptd). Anything else may be
// another user's fake daemon: refused, exit 2.
struct trust {
  std::string socket;
  std::vector<uid_t> owners;

  [[noreturn]] void refuse(const std::string& why) const {
    throw error(ec::invalid_argument,
                fmt::format("refusing to talk to aoptd at {}: {}. Another user could be answering in aoptd's place; if "
                            "you trust that user, pass --daemon-user USER (or set AOPT_DAEMON_USER), else ask who runs "
                            "aoptd (docs/api.md, \"Access\")",
                            socket, why));
  }

  // The path's checks; nothing when the socket is missing (connecting says so).
  std::vector<uid_t> check_path() const {
    struct stat s {};
    if (::lstat(socket.c_str(), &s) != 0) return owners;
    const fs::path dir = fs::absolute(socket).lexically_normal().parent_path();
    std::vector<uid_t> ok = owners;
    struct stat d {}, up {};
    if (::lstat(dir.c_str(), &d) == 0 && S_ISDIR(d.st_mode) && ::stat(dir.parent_path().c_str(), &up) == 0 &&
        up.st_uid == 0 && (up.st_mode & (S_IWGRP | S_IWOTH)) == 0) {
      ok.push_back(d.st_uid);
    }
    if (const auto why = common::untrusted_dir(dir, ok); !why.empty()) refuse("its directory " + why);
    if (!S_ISSOCK(s.st_mode)) refuse("it is not a socket");
    if (std::find(ok.begin(), ok.end(), s.st_uid) == ok.end()) {
      refuse("the socket is owned by " + common::describe_uid(s.st_uid) + "; expected " +
             common::describe_uid(ok.front()) + ", root or the daemon's user");
    }
    return ok;
  }
};

struct client {
  std::string socket;
  trust trusted;

  struct reply {
    long status = 0;
    std::string body;
  };

  // One request; `sink` (optional) receives the body as it arrives and returns false to stop.
  reply call(const std::string& method, const std::string& path, const std::string& body = {},
             const std::function<bool(std::string_view)>& sink = {}) const {
    std::unique_ptr<CURL, void (*)(CURL*)> h(curl_easy_init(), curl_easy_cleanup);
    if (!h) throw error(ec::internal, "curl_easy_init failed");
    struct state {
      std::string data;
      const std::function<bool(std::string_view)>* sink;
    } st{{}, &sink};
    auto write = +[](char* p, std::size_t, std::size_t n, void* u) -> std::size_t {
      auto* s = static_cast<state*>(u);
      if (*s->sink) return (*s->sink)(std::string_view(p, n)) ? n : 0;
      s->data.append(p, n);
      return n;
    };
    // Who listens is asked of the connected socket (SO_PEERCRED) before the request is sent:
    // libcurl hands over its socket before connecting, and calls the pre-request check after.
    struct peer {
      std::vector<uid_t> owners;
      curl_socket_t fd;
      std::string untrusted;
    } pr{trusted.check_path(), CURL_SOCKET_BAD, {}};
    auto remember = +[](void* u, curl_socket_t fd, curlsocktype) -> int {
      static_cast<peer*>(u)->fd = fd;
      return CURL_SOCKOPT_OK;
    };
    auto check_peer = +[](void* u, char*, char*, int, int) -> int {
      auto* p = static_cast<peer*>(u);
      ucred cred{};
      socklen_t len = sizeof cred;
      if (p->fd == CURL_SOCKET_BAD || ::getsockopt(p->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        p->untrusted = std::string("cannot tell who listens on it (SO_PEERCRED: ") + std::strerror(errno) + ")";
        return CURL_PREREQFUNC_ABORT;
      }
      if (std::find(p->owners.begin(), p->owners.end(), cred.uid) == p->owners.end()) {
        p->untrusted = "the process listening on it (pid " + std::to_string(cred.pid) + ") runs as " +
                       common::describe_uid(cred.uid) + "; expected " + common::describe_uid(p->owners.front()) +
                       ", root or the daemon's user";
        return CURL_PREREQFUNC_ABORT;
      }
      return CURL_PREREQFUNC_OK;
    };
    curl_easy_setopt(h.get(), CURLOPT_SOCKOPTFUNCTION, remember);
    curl_easy_setopt(h.get(), CURLOPT_SOCKOPTDATA, &pr);
    curl_easy_setopt(h.get(), CURLOPT_PREREQFUNCTION, check_peer);
    curl_easy_setopt(h.get(), CURLOPT_PREREQDATA, &pr);
    const std::string url = "http://localhost" + path;
    curl_easy_setopt(h.get(), CURLOPT_UNIX_SOCKET_PATH, socket.c_str());
    curl_easy_setopt(h.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h.get(), CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(h.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &st);
    curl_slist* headers = nullptr;
    if (method == "POST") {
      curl_easy_setopt(h.get(), CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(h.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      headers = curl_slist_append(headers, "Content-Type: application/x-tar");
      headers = curl_slist_append(headers, "Expect:");
      curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers);
    }
    const CURLcode rc = curl_easy_perform(h.get());
    curl_slist_free_all(headers);
    reply r;
    curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &r.status);
    if (!pr.untrusted.empty()) trusted.refuse(pr.untrusted);
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && sink)) {
      throw error(ec::io_error, fmt::format("cannot talk to aoptd at {}: {} (is it running? start it with `aoptd`, or "
                                            "give --socket PATH or AOPT_SOCKET)",
                                            socket, curl_easy_strerror(rc)));
    }
    r.body = std::move(st.data);
    return r;
  }

  // The JSON of a 2xx reply; the daemon's error as aopt::error otherwise.
  json ok_json(const reply& r) const {
    if (r.status >= 200 && r.status < 300) return json::parse(r.body);
    throw_error(r);
  }
  [[noreturn]] void throw_error(const reply& r) const {
    std::string msg = fmt::format("aoptd answered HTTP {}", r.status);
    try {
      const auto e = json::parse(r.body).at("error");
      msg = e.at("message").get<std::string>();
      if (e.contains("field") && e["field"].is_string()) msg += fmt::format(" (field: {})", e["field"].get<std::string>());
    } catch (const std::exception&) {
    }
    throw error(r.status == 404 ? ec::not_found : ec::invalid_argument, msg);
  }
};

// Where the daemon is, and whom besides this user and root to trust to answer there.
struct endpoint {
  std::string socket, daemon_user;
};

void add_socket_option(CLI::App& app, endpoint& ep) {
  app.add_option("--socket", ep.socket, "aoptd's socket (default: $AOPT_SOCKET, else the daemon's default path)");
  app.add_option("--daemon-user", ep.daemon_user,
                 "The user (name or uid) aoptd runs as, when neither you nor root (default: $AOPT_DAEMON_USER); the "
                 "socket must be this user's, yours or root's");
}

client make_client(const endpoint& ep) {
  client c{ep.socket.empty() ? jobs::default_socket_path(/*with_env=*/true).string() : ep.socket, {}};
  c.trusted.socket = c.socket;
  c.trusted.owners = {::geteuid(), 0};
  const char* env = std::getenv("AOPT_DAEMON_USER");
  const std::string user = !ep.daemon_user.empty() ? ep.daemon_user : env != nullptr ? env : "";
  if (!user.empty()) c.trusted.owners.push_back(common::uid_of_user(user, "--daemon-user"));
  return c;
}

std::string fmt_speedup(const json& j) {
  return j.contains("speedup") && j["speedup"].is_number() ? fmt::format("{:.3f}x", j["speedup"].get<double>()) : "-";
}

// The line `watch` prints for an event.
void print_event(const json& e) {
  const std::string kind = e.value("kind", "");
  if (kind == "point") {
    std::cout << e.value("line", "") << "\n";
  } else if (kind == "stage" || kind == "accepted") {
    std::cout << "  -- " << e.value("message", "") << "\n";
  } else if (kind == "state") {
    std::string extra;
    if (e.contains("speedup")) extra = " speedup " + fmt_speedup(e);
    if (e.contains("error")) extra = ": " + e["error"].get<std::string>();
    if (e.value("resume", false)) extra = " (resuming after a restart)";
    std::cout << "  == " << e.value("state", "") << extra << "\n";
  }
  std::cout.flush();
}

// Streams the events of `id` from `from` until the job ends; returns its final state.
std::string follow(const client& c, const std::string& id, std::uint64_t from, bool print) {
  std::string last_state;
  std::string pending;
  std::uint64_t next = from;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string received;  // the whole body: an error's JSON when the status is not 200
    auto r = c.call("GET", fmt::format("/v1/jobs/{}/events?from={}", id, next), {}, [&](std::string_view chunk) {
      if (received.size() < 65536) received.append(chunk);
      pending.append(chunk);
      std::size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        const auto e = json::parse(pending.substr(0, nl));
        pending.erase(0, nl + 1);
        next = e.value("n", next) + 1;
        if (e.value("kind", "") == "state") last_state = e.value("state", "");
        if (print) print_event(e);
      }
      return true;
    });
    if (r.status != 200) {
      r.body = received;  // an error's body came through the sink (503 shutting_down while aoptd stops)
      c.throw_error(r);
    }
    if (last_state == "finished" || last_state == "failed" || last_state == "cancelled") return last_state;
    // The daemon restarted or the stream ended early: reconnect and resume from the next event.
    pending.clear();
    const auto j = c.ok_json(c.call("GET", "/v1/jobs/" + id));
    const std::string s = j.value("state", "");
    if ((s == "finished" || s == "failed" || s == "cancelled") && j.value("events", std::uint64_t{0}) <= next) return s;
  }
  throw error(ec::io_error, "lost the event stream of job " + id);
}

// The package as uploaded: the directory's files, plus aopt.json (and reference sources) from
// the parent when the spec lives there (the suite's <op>/baseline layout), or from beside
// `--spec`; `--timed-shape` is written into that aopt.json (as its "timed_shape" key) so that
// every evaluator of the job, a node's included, runs the same cases. With `--tree` the shared
// files the package's CMakeLists reaches go along (evaluation::carried_shared_files), so that the
// daemon and its nodes build it without the tree.
std::string package_tar(const fs::path& dir, const package_args& pa) {
  const auto opts = pa.options();  // a bad shape is a usage error before anything is sent
  auto files = common::read_tree(dir);
  for (auto& [rel, text] : evaluation::carried_shared_files(dir, opts.tree_root)) files[rel] = std::move(text);
  const auto add_spec_dir = [&](const fs::path& spec) {
    for (const auto& e : fs::directory_iterator(spec.parent_path())) {
      if (e.is_regular_file() && e.path().extension() == ".cpp") files[e.path().filename().string()] = common::read_text_file(e.path());
    }
    files["aopt.json"] = common::read_text_file(spec);
  };
  if (!opts.spec_file.empty()) {
    add_spec_dir(fs::absolute(opts.spec_file));
  } else if (!files.count("aopt.json") && fs::exists(dir.parent_path() / "aopt.json")) {
    add_spec_dir(dir.parent_path() / "aopt.json");
  }
  if (!opts.timed_shape.empty()) {
    if (!files.count("aopt.json")) {
      throw error(ec::invalid_argument, dir.string() + ": --timed-shape needs an aopt.json to carry it to the daemon, and this "
                                        "package has msOpST cases only; write one (docs/evaluation.md) and pass it with --spec");
    }
    auto j = nlohmann::ordered_json::parse(files["aopt.json"], nullptr, false);
    if (!j.is_object()) throw error(ec::invalid_spec, "aopt.json of " + dir.string() + ": not a JSON object; check it with aopt eval");
    j["timed_shape"] = opts.timed_shape;
    files["aopt.json"] = j.dump(2) + "\n";
  }
  return common::tar_write(files);
}

}  // namespace

command_fn add_submit_command(CLI::App& app) {
  struct args {
    std::string op_dir, engine = "offline", profile;
    endpoint ep;
    std::size_t budget = 0;
    int priority = 0;
    std::uint64_t seed = 1;
    bool wait = false, quiet = false;
    package_args package;
  };
  auto a = std::make_shared<args>();
  app.add_option("OP_DIR", a->op_dir, "Operator package (e.g. examples/ops/add_custom)")->required()->check(CLI::ExistingDirectory);
  app.add_option("--budget", a->budget, "Evaluations, failures included (default: the daemon's, 40)");
  app.add_option("--engine", a->engine, "Proposal engine: offline, or llm when the daemon's config has an [llm] table");
  app.add_option("--seed", a->seed, "Seed of the engine's random choices (default 1)");
  app.add_option("--profile", a->profile, "Device profile of the sim backend (default: the daemon's)");
  app.add_option("--priority", a->priority, "-100..100; higher runs first (default 0)");
  add_package_options(app, a->package);
  app.add_flag("--wait", a->wait, "Follow the job's progress until it ends");
  app.add_flag("-q,--quiet", a->quiet, "Print only the job id");
  add_socket_option(app, a->ep);
  return [a]() {
    const auto c = make_client(a->ep);
    const fs::path dir = fs::absolute(a->op_dir).lexically_normal();
    std::string name = dir.filename().string();
    if (name == "baseline" || name == "expert") name = dir.parent_path().filename().string();
    std::string path = fmt::format("/v1/jobs?engine={}&seed={}&priority={}&name={}", a->engine, a->seed, a->priority, name);
    if (a->budget != 0) path += fmt::format("&budget={}", a->budget);
    if (!a->profile.empty()) path += "&profile=" + a->profile;
    const auto j = c.ok_json(c.call("POST", path, package_tar(dir, a->package)));
    const std::string id = j.at("id");
    if (!a->quiet) {
      std::cout << fmt::format("submitted {} as job {} (budget {}, priority {}, state {})\n", name, id,
                               j["options"].value("budget", 0), j.value("priority", 0), j.value("state", ""));
    }
    int rc = 0;
    if (a->wait) {
      const std::string state = follow(c, id, 0, !a->quiet);
      const auto fin = c.ok_json(c.call("GET", "/v1/jobs/" + id));
      if (!a->quiet) {
        std::cout << fmt::format("job {} {}: speedup {}, {} evaluation(s)\n", id, state, fmt_speedup(fin),
                                 fin.value("evaluations", 0));
      }
      rc = state == "finished" ? 0 : 1;
    }
    std::cout << id << "\n";
    return rc;
  };
}

namespace {

// A listing command: `--socket`, `--json` (the API's JSON as is), else a table of `rows(json)`.
command_fn listing_command(CLI::App& app, std::string path, std::function<void(const nlohmann::json&)> table) {
  auto socket = std::make_shared<endpoint>();
  auto as_json = std::make_shared<bool>(false);
  add_socket_option(app, *socket);
  app.add_flag("--json", *as_json, "Print the API's JSON");
  return [socket, as_json, path = std::move(path), table = std::move(table)]() {
    const auto c = make_client(*socket);
    const auto j = c.ok_json(c.call("GET", path));
    if (*as_json) {
      std::cout << j.dump(2) << "\n";
    } else {
      table(j);
    }
    return 0;
  };
}

}  // namespace

command_fn add_jobs_command(CLI::App& app) {
  return listing_command(app, "/v1/jobs", [](const nlohmann::json& j) {
    std::cout << fmt::format("{:<9} {:<10} {:>4} {:>7} {:>6} {:>9}  {}\n", "ID", "STATE", "PRIO", "BUDGET", "EVALS",
                             "SPEEDUP", "NAME");
    for (const auto& job : j.at("jobs")) {
      std::cout << fmt::format("{:<9} {:<10} {:>4} {:>7} {:>6} {:>9}  {}\n", job.value("id", ""), job.value("state", ""),
                               job.value("priority", 0), job["options"].value("budget", 0), job.value("evaluations", 0),
                               fmt_speedup(job), job.value("name", ""));
    }
  });
}

command_fn add_devices_command(CLI::App& app) {
  return listing_command(app, "/v1/devices", [](const nlohmann::json& j) {
    std::size_t width = 6;
    for (const auto& d : j) width = std::max(width, d.value("name", d.value("id", "")).size());
    const auto row = [width](std::string_view name, std::string_view kind, std::string_view profile,
                             std::string_view state, std::string_view queue, std::string_view evals,
                             std::string_view failures, std::string_view busy) {
      std::cout << fmt::format("{:<{}} {:<5} {:<8} {:<6} {:>5} {:>11} {:>8} {:>5}\n", name, width, kind, profile, state,
                               queue, evals, failures, busy);
    };
    row("DEVICE", "KIND", "PROFILE", "STATE", "QUEUE", "EVALUATIONS", "FAILURES", "BUSY");
    for (const auto& d : j) {
      row(d.value("name", d.value("id", "")), d.value("kind", ""), d.value("profile", ""), d.value("state", ""),
          std::to_string(d.value("queue", 0)), std::to_string(d.value("evaluations", 0)),
          std::to_string(d.value("failures", 0)), fmt::format("{:.0f}%", 100.0 * d.value("busy_ratio", 0.0)));
    }
  });
}

namespace {

// A command about one job: `ID`, `--socket`, and `run(client, id)`.
command_fn id_command(CLI::App& app, std::function<int(const client&, const std::string&)> run) {
  auto socket = std::make_shared<endpoint>();
  auto id = std::make_shared<std::string>();
  app.add_option("ID", *id, "Job id (from aopt submit or aopt jobs)")->required();
  add_socket_option(app, *socket);
  return [socket, id, run = std::move(run)]() { return run(make_client(*socket), *id); };
}

}  // namespace

command_fn add_job_command(CLI::App& app) {
  return id_command(app, [](const client& c, const std::string& id) {
    std::cout << c.ok_json(c.call("GET", "/v1/jobs/" + id)).dump(2) << "\n";
    return 0;
  });
}

command_fn add_watch_command(CLI::App& app) {
  auto from = std::make_shared<std::uint64_t>(0);
  app.add_option("--from", *from, "First event number (resume a watch)");
  return id_command(app, [from](const client& c, const std::string& id) {
    return follow(c, id, *from, true) == "finished" ? 0 : 1;
  });
}

command_fn add_cancel_command(CLI::App& app) {
  return id_command(app, [](const client& c, const std::string& id) {
    const auto j = c.ok_json(c.call("POST", "/v1/jobs/" + id + "/cancel"));
    std::cout << fmt::format("job {}: {}\n", id,
                             j.value("state", "") == "running" ? "cancel requested (stops at its next evaluation)"
                                                               : j.value("state", ""));
    return 0;
  });
}

command_fn add_fetch_command(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  app.add_option("--out", *out, "Directory for the optimized package and report.md / report.json")->required();
  return id_command(app, [out](const client& c, const std::string& id) {
    const auto r = c.call("GET", "/v1/jobs/" + id + "/result");
    if (r.status != 200) c.throw_error(r);
    const auto files = common::tar_read(r.body);
    common::write_tree(*out, files);
    std::cout << fmt::format("wrote {} file(s) to {} (package/, report.md, report.json)\n", files.size(), *out);
    return 0;
  });
}

}  // namespace aopt::app
