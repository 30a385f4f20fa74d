// aoptd through its real socket: every endpoint and error of docs/api.md, four jobs sharing the
// evaluators, kill -9 at seeded random moments (every job finishes, budgets hold, the fixed-seed
// job ends with the uninterrupted best, the bank opens cleanly), SIGTERM under load, and a
// bounded seeded fuzz of the API. AOPT_CRASH_KILLS and AOPT_FUZZ_REQUESTS raise the counts
// (scripts/daemon-stress.sh).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "aopt/common/error.h"
#include "aopt/common/tar.h"
#include "aopt/storage/experience_bank.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;
using nlohmann::json;

namespace {

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

void expect_error(const http_reply& r, int status, const std::string& code, const std::string& field = "") {
  EXPECT_EQ(r.status, status) << r.head << "\n" << r.body;
  if (r.status != status) return;
  const auto j = json::parse(r.body);
  ASSERT_TRUE(j.contains("error")) << r.body;
  EXPECT_EQ(j["error"]["code"], code) << r.body;
  EXPECT_TRUE(j["error"]["message"].is_string() && !j["error"]["message"].get<std::string>().empty());
  ASSERT_TRUE(j["error"].contains("field"));
  if (!field.empty()) {
    EXPECT_EQ(j["error"]["field"], field) << r.body;
  }
}

}  // namespace

TEST(daemon_api, EveryEndpointAndError) {
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  struct stat st{};
  ASSERT_EQ(::stat(d.socket().parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the socket directory is private";

  auto h = request(d.socket(), "GET", "/v1/health");
  ASSERT_EQ(h.status, 200);
  EXPECT_EQ(h.json()["status"], "ok");
  EXPECT_NE(h.head.find("Content-Type: application/json"), std::string::npos);
  auto v = request(d.socket(), "GET", "/v1/version");
  ASSERT_EQ(v.status, 200);
  EXPECT_EQ(v.json()["api"], "v1");

  // Submit, list, get, events (whole and resumed), result, reports, delete.
  const auto r = request(d.socket(), "POST", "/v1/jobs?budget=4&seed=7&priority=5&name=add", add_custom_tar());
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string id = r.json()["id"];
  EXPECT_EQ(r.json()["state"], "queued");
  EXPECT_EQ(r.json()["options"]["budget"], 4);
  EXPECT_EQ(r.json()["uid"], static_cast<std::int64_t>(::getuid()));
  const auto list = request(d.socket(), "GET", "/v1/jobs").json();
  ASSERT_EQ(list["jobs"].size(), 1u);
  EXPECT_EQ(list["jobs"][0]["id"], id);
  // The following stream ends when the job does.
  const auto stream = request(d.socket(), "GET", "/v1/jobs/" + id + "/events", {}, 120000);
  ASSERT_EQ(stream.status, 200);
  EXPECT_NE(stream.head.find("application/x-ndjson"), std::string::npos);
  const auto job = get_job(d, id);
  ASSERT_EQ(job["state"], "finished") << job.dump(2) << d.log();
  EXPECT_TRUE(job["speedup"].is_number());
  EXPECT_LE(job["evaluations"].get<int>(), 4);
  const auto evs = all_events(d, id);
  ASSERT_GE(evs.size(), 4u);
  for (std::size_t i = 0; i < evs.size(); ++i) EXPECT_EQ(evs[i]["n"], i);
  EXPECT_EQ(evs.front()["state"], "queued");
  EXPECT_EQ(evs.back()["state"], "finished");
  EXPECT_TRUE(std::any_of(evs.begin(), evs.end(), [](const json& e) { return e["kind"] == "point"; }));
  const auto resumed = all_events(d, id, 2);
  ASSERT_EQ(resumed.size(), evs.size() - 2);
  EXPECT_EQ(resumed.front(), evs[2]);
  const auto res = request(d.socket(), "GET", "/v1/jobs/" + id + "/result");
  ASSERT_EQ(res.status, 200);
  const auto files = common::tar_read(res.body);
  EXPECT_TRUE(files.count("report.md") && files.count("report.json") && files.count("package/aopt.json"));
  EXPECT_EQ(request(d.socket(), "GET", "/v1/jobs/" + id + "/report.md").status, 200);
  const auto rj = request(d.socket(), "GET", "/v1/jobs/" + id + "/report.json");
  ASSERT_EQ(rj.status, 200);
  EXPECT_TRUE(rj.json().contains("result"));
  expect_error(request(d.socket(), "POST", "/v1/jobs/" + id + "/cancel"), 409, "conflict", "id");

  // A job cancelled while queued or running; its result does not exist.
  const std::string id2 = submit(d, "budget=40&priority=-5");
  expect_error(request(d.socket(), "GET", "/v1/jobs/" + id2 + "/result"), 409, "conflict", "id");
  expect_error(request(d.socket(), "DELETE", "/v1/jobs/" + id2), 409, "conflict", "id");
  EXPECT_EQ(request(d.socket(), "POST", "/v1/jobs/" + id2 + "/cancel").status, 202);
  ASSERT_TRUE(wait_final(d, {id2}, 60));
  EXPECT_EQ(get_job(d, id2)["state"], "cancelled");

  EXPECT_EQ(request(d.socket(), "DELETE", "/v1/jobs/" + id).status, 200);
  expect_error(request(d.socket(), "GET", "/v1/jobs/" + id), 404, "not_found", "id");
  expect_error(request(d.socket(), "DELETE", "/v1/jobs/" + id), 404, "not_found", "id");
  expect_error(request(d.socket(), "GET", "/v1/jobs/" + id + "/events"), 404, "not_found", "id");

  // Routing and options.
  expect_error(request(d.socket(), "GET", "/v2/jobs"), 404, "not_found");
  expect_error(request(d.socket(), "GET", "/v1/jobs/" + id2 + "/bogus"), 404, "not_found");
  expect_error(request(d.socket(), "PUT", "/v1/jobs"), 405, "method_not_allowed");
  expect_error(request(d.socket(), "POST", "/v1/health"), 405, "method_not_allowed");
  const auto tar = add_custom_tar();
  expect_error(request(d.socket(), "POST", "/v1/jobs?budget=abc", tar), 400, "invalid_argument", "budget");
  expect_error(request(d.socket(), "POST", "/v1/jobs?budget=0", tar), 400, "invalid_argument", "budget");
  expect_error(request(d.socket(), "POST", "/v1/jobs?budget=1000000", tar), 400, "invalid_argument", "budget");
  expect_error(request(d.socket(), "POST", "/v1/jobs?bogus=1", tar), 400, "invalid_argument", "bogus");
  expect_error(request(d.socket(), "POST", "/v1/jobs?engine=llm", tar), 400, "invalid_argument", "engine");
  expect_error(request(d.socket(), "POST", "/v1/jobs?profile=nope", tar), 400, "invalid_argument", "profile");
  expect_error(request(d.socket(), "POST", "/v1/jobs?priority=500", tar), 400, "invalid_argument", "priority");
  expect_error(request(d.socket(), "POST", "/v1/jobs", ""), 400, "invalid_package", "body");
  expect_error(request(d.socket(), "POST", "/v1/jobs", std::string(2048, 'x')), 400, "invalid_package", "body");
  expect_error(request(d.socket(), "POST", "/v1/jobs", common::tar_write({{"op_kernel/k.cpp", "int x;"}})), 422,
               "invalid_package", "body");
  expect_error(request(d.socket(), "GET", "/v1/jobs?x=1"), 400, "invalid_argument", "x");
  expect_error(request(d.socket(), "GET", "/v1/jobs/" + id2 + "/events?from=-1"), 400, "invalid_argument", "from");

  // HTTP limits and malformed requests.
  expect_error(request(d.socket(), "POST", "/v1/jobs", std::string(2 << 20, 'x')), 413, "body_too_large");
  expect_error(raw_request(d.socket(), "GET /v1/health HTTP/1.1\r\nX-Big: " + std::string(8000, 'b') + "\r\n\r\n"),
               431, "headers_too_large");
  expect_error(raw_request(d.socket(), "GARBAGE\r\n\r\n"), 400, "bad_request");
  expect_error(raw_request(d.socket(), "GET /v1/health HTTP/2.0\r\n\r\n"), 505, "http_version");
  expect_error(raw_request(d.socket(), "GET /v1/%zz HTTP/1.1\r\n\r\n"), 400, "bad_request");
  expect_error(raw_request(d.socket(), "POST /v1/jobs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 411,
               "length_required", "Transfer-Encoding");
  expect_error(raw_request(d.socket(), "POST /v1/jobs HTTP/1.1\r\nContent-Length: 12x\r\n\r\n"), 400, "bad_request",
               "Content-Length");
  const auto t0 = std::chrono::steady_clock::now();
  expect_error(raw_request(d.socket(), "GET /v1/health HTTP/1.1\r\n"), 408, "request_timeout");
  expect_error(raw_request(d.socket(), "POST /v1/jobs HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc"), 408,
               "request_timeout");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_TRUE(d.alive());
}

TEST(daemon_api, OnlyTheSubmitterOrRootMayCancelOrDelete) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  temp_dir t;
  daemon_process d(t.path, {.max_running = 1, .learn = false, .metrics_address = "", .fresh_cache = false, .daemon_keys = "", .tables = ""});
  ASSERT_TRUE(d.start()) << d.log();
  ::chmod(t.path.c_str(), 0711);  // let uid 65534 reach the socket for this test
  ::chmod(d.socket().parent_path().c_str(), 0711);
  ::chmod(d.socket().c_str(), 0666);
  const std::string mine = submit(d, "budget=40&priority=-1");
  const std::string tar = add_custom_tar();
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) std::_Exit(100);
    int rc = 0;
    rc |= request(d.socket(), "POST", "/v1/jobs/" + mine + "/cancel").status == 403 ? 1 : 0;
    rc |= request(d.socket(), "DELETE", "/v1/jobs/" + mine).status == 403 ? 2 : 0;
    const auto sub = request(d.socket(), "POST", "/v1/jobs?budget=1&priority=-2", tar);
    if (sub.status == 201) {
      const auto id = json::parse(sub.body)["id"].get<std::string>();
      rc |= json::parse(sub.body)["uid"] == 65534 ? 4 : 0;
      rc |= request(d.socket(), "POST", "/v1/jobs/" + id + "/cancel").status == 202 ? 8 : 0;
    }
    std::_Exit(rc);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 15) << "bits: 1 cancel refused, 2 delete refused, 4 uid stored, 8 own cancel allowed";
  // Root may cancel anyone's job.
  EXPECT_EQ(request(d.socket(), "POST", "/v1/jobs/" + mine + "/cancel").status, 202);
}

TEST(daemon_api, FourJobsShareTheEvaluators) {
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(submit(d, "budget=6&seed=7"));  // the shared cache keeps it quick
  ASSERT_TRUE(wait_final(d, ids, 240)) << d.log();
  std::map<std::string, std::vector<std::int64_t>> times;  // job -> time of each evaluation
  for (const auto& id : ids) {
    const auto j = get_job(d, id);
    EXPECT_EQ(j["state"], "finished") << j.dump(2);
    EXPECT_LE(j["evaluations"].get<int>(), 6) << "budget respected";
    for (const auto& e : all_events(d, id)) {
      if (e["kind"] == "point" && !e["point"]["memo"].get<bool>()) times[id].push_back(e["time_ms"]);
    }
  }
  // Interleaving: some job evaluated while another was between two of its evaluations.
  int interleaved = 0;
  for (const auto& [a, ta] : times) {
    for (const auto& [b, tb] : times) {
      if (a == b || ta.size() < 2) continue;
      for (auto x : tb) interleaved += x > ta.front() && x < ta.back();
    }
  }
  EXPECT_GT(interleaved, 0) << "the jobs ran at once, sharing the evaluators";
}

TEST(daemon_api, CrashesLoseNothing) {
  const unsigned seed = static_cast<unsigned>(env_count("AOPT_CRASH_SEED", 14));
  const auto kills = env_count("AOPT_CRASH_KILLS", 5);
  std::cout << "crash test: seed " << seed << ", " << kills << " kill -9\n";
  // The uninterrupted reference: the same fixed-seed job alone on a fresh daemon and bank.
  json reference;
  std::string reference_report;
  {
    temp_dir t;
    daemon_process d(t.path);
    ASSERT_TRUE(d.start()) << d.log();
    const auto id = submit(d, "budget=12&seed=7");
    ASSERT_TRUE(wait_final(d, {id}, 180)) << d.log();
    reference = get_job(d, id);
    ASSERT_EQ(reference["state"], "finished") << reference.dump(2);
    reference_report = request(d.socket(), "GET", "/v1/jobs/" + id + "/report.json").body;
  }
  temp_dir t;
  daemon_process d(t.path, {.max_running = 3, .learn = true, .metrics_address = "", .fresh_cache = false, .daemon_keys = "", .tables = ""});
  ASSERT_TRUE(d.start()) << d.log();
  // The fixed-seed job first; every job takes its bank snapshot when it is accepted.
  const std::vector<std::string> ids = {submit(d, "budget=12&seed=7&priority=10"), submit(d, "budget=10&seed=2"),
                                        submit(d, "budget=10&seed=7")};
  std::mt19937 rng(seed);
  for (std::uint64_t k = 0; k < kills; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 600));
    d.kill9();
    ASSERT_TRUE(d.start()) << "restart " << k << "\n" << d.log();
  }
  ASSERT_TRUE(wait_final(d, ids, 300)) << d.log();
  const std::vector<int> budgets = {12, 10, 10};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto j = get_job(d, ids[i]);
    ASSERT_EQ(j["state"], "finished") << j.dump(2) << d.log();
    EXPECT_LE(j["evaluations"].get<int>(), budgets[i]);
    // Events: numbered densely, no search event twice.
    const auto evs = all_events(d, ids[i]);
    std::set<std::uint64_t> progress;
    for (std::size_t n = 0; n < evs.size(); ++n) {
      EXPECT_EQ(evs[n]["n"], n);
      if (evs[n].contains("p")) {
        EXPECT_TRUE(progress.insert(evs[n]["p"].get<std::uint64_t>()).second) << evs[n];
      }
    }
    if (!progress.empty()) {
      EXPECT_EQ(*progress.rbegin() + 1, progress.size()) << "no search event lost";
    }
  }
  int restarted = 0;  // jobs a kill interrupted while they ran (else the test proved nothing)
  for (const auto& id : ids) restarted += get_job(d, id)["attempts"].get<int>() > 1;
  std::cout << "crash test: " << restarted << " of 3 jobs resumed after a kill\n";
  EXPECT_GT(restarted, 0);
  const auto fixed = get_job(d, ids[0]);
  // The same best as the uninterrupted run, given the same evaluation results: a timeout on a
  // loaded machine (never cached, so the two runs can see different verdicts) is reported and
  // excuses a difference.
  auto timeouts = [](const std::string& report_json) {
    int n = 0;
    const json r = json::parse(report_json);  // held: a range-for over a temporary's member dangles
    for (const auto& p : r.at("result").at("trajectory")) n += p["status"] == "timeout";
    return n;
  };
  const int noise = timeouts(request(d.socket(), "GET", "/v1/jobs/" + ids[0] + "/report.json").body) +
                    timeouts(reference_report);
  if (noise > 0) {
    std::cout << "crash test: " << noise << " evaluation(s) timed out under load; best " << fixed["best_us"]
              << " vs uninterrupted " << reference["best_us"] << " not compared\n";
  } else {
    // On a difference, both trajectories: which evaluation saw another verdict or latency.
    auto trajectory = [](const std::string& report_json) {
      std::string out;
      const json r = json::parse(report_json);
      for (const auto& p : r.at("result").at("trajectory")) {
        out += "  " + p.value("stage", std::string()) + " " + p.value("status", std::string()) + " " +
               p["latency_us"].dump() + (p.value("accepted", false) ? " accepted " : " ") + p.value("proposal", std::string()) + "\n";
      }
      return out;
    };
    EXPECT_EQ(fixed["best_us"], reference["best_us"])
        << "the interrupted job ends with the uninterrupted best\ninterrupted:\n"
        << trajectory(request(d.socket(), "GET", "/v1/jobs/" + ids[0] + "/report.json").body) << "uninterrupted:\n"
        << trajectory(reference_report);
    EXPECT_EQ(fixed["evaluations"], reference["evaluations"]) << "no evaluation counted twice";
    EXPECT_EQ(fixed["accepted_changes"], reference["accepted_changes"]);
  }
  const auto r1 = request(d.socket(), "GET", "/v1/jobs/" + ids[0] + "/result");
  const auto ref_files = common::tar_read(r1.body);
  EXPECT_TRUE(ref_files.count("package/aopt.json"));
  d.kill9();
  // The bank opens cleanly and every tuple is stored once, under its content id.
  if (fs::exists(t.path / "bank" / "CURRENT")) {
    storage::experience_bank bank(t.path / "bank", {.create_if_missing = false, .read_only = true});
    std::set<std::string> seen;
    for (const auto& e : bank.all()) EXPECT_TRUE(seen.insert(e.id).second) << e.id;
    std::cout << "bank: " << seen.size() << " tuple(s)\n";
  }
}

TEST(daemon_api, SigtermUnderLoadExitsInTimeAndResumes) {
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const std::vector<std::string> ids = {submit(d, "budget=6&seed=7"), submit(d, "budget=6&seed=2")};
  // Wait until both run and have evaluated something.
  for (int i = 0; i < 600; ++i) {
    if (std::all_of(ids.begin(), ids.end(), [&](const auto& id) { return get_job(d, id).value("evaluations", 0) > 0; }))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  double seconds = 0;
  const int rc = d.terminate(seconds);
  std::cout << "SIGTERM under load: exit " << rc << " after " << seconds << " s\n";
  EXPECT_EQ(rc, 0) << d.log();
  EXPECT_LT(seconds, 10.0);
  EXPECT_FALSE(fs::exists(d.socket())) << "the socket is removed";
  ASSERT_TRUE(d.start()) << d.log();
  ASSERT_TRUE(wait_final(d, ids, 240)) << d.log();
  for (const auto& id : ids) {
    const auto j = get_job(d, id);
    EXPECT_EQ(j["state"], "finished") << j.dump(2);
    EXPECT_LE(j["evaluations"].get<int>(), 6);
  }
}

TEST(daemon_api, SeededFuzzNeverCrashesOrHangs) {
  const unsigned seed = static_cast<unsigned>(env_count("AOPT_FUZZ_SEED", 1126));
  const auto n = env_count("AOPT_FUZZ_REQUESTS", 300);
  std::cout << "fuzz: seed " << seed << ", " << n << " requests\n";
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  std::mt19937 rng(seed);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto junk = [&](std::size_t max) {
    std::string s(rng() % (max + 1), '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  };
  const std::vector<std::string> methods = {"GET", "POST", "DELETE", "PUT", "HEAD", "get", "", "G\x01T"};
  const std::vector<std::string> paths = {"/v1/health", "/v1/version", "/v1/jobs", "/v1/jobs/j000001",
                                          "/v1/jobs/j000001/events?from=0&follow=0", "/v1/jobs/j9/cancel",
                                          "/v1/jobs/%00", "/v1/jobs/../../etc/passwd", "/", "*", "/v1/jobs?budget=%ff",
                                          "/v1/" + std::string(300, 'a')};
  const std::string valid = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  const auto tar = add_custom_tar();
  std::size_t answered = 0;
  // Slow clients hold connections the whole time; valid clients must still be served quickly.
  std::vector<std::thread> slow;
  for (int i = 0; i < 3; ++i) {
    slow.emplace_back([&] { (void)raw_request(d.socket(), "GET /v1/health HTTP/1.1\r\nHost:", 3000); });
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string req;
    switch (rng() % 7) {
      case 0: req = junk(600); break;
      case 1: req = valid.substr(0, rng() % valid.size()) + junk(20) + "\r\n\r\n"; break;
      case 2: req = pick(methods) + " " + pick(paths) + " HTTP/1.1\r\n" + junk(40) + "\r\n\r\n"; break;
      case 3: req = "POST /v1/jobs HTTP/1.1\r\nContent-Length: " + std::to_string(rng()) + "\r\n\r\n" + junk(100); break;
      case 4: {
        std::string body = tar;
        for (int k = 0; k < 4; ++k) body[rng() % body.size()] = static_cast<char>(rng());
        body.resize(rng() % body.size());
        req = "POST /v1/jobs?budget=1 HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        break;
      }
      case 5: req = "GET " + pick(paths) + " HTTP/1.1\r\n" + std::string(rng() % 6000, 'h') + ": v\r\n\r\n"; break;
      default: req = pick(methods) + " " + pick(paths) + " HTTP/1.1\r\nContent-Length: 3\r\n\r\n" + junk(3); break;
    }
    const auto r = raw_request(d.socket(), req, 5000);
    answered += r.status != 0;
    if (r.status >= 400 && r.status != 503) {
      EXPECT_NO_THROW((void)json::parse(r.body).at("error").at("code")) << "request " << i << ": " << r.body;
    }
    if (i % 50 == 0) {
      const auto t0 = std::chrono::steady_clock::now();
      ASSERT_EQ(request(d.socket(), "GET", "/v1/health").status, 200) << "request " << i << "\n" << d.log();
      EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0)
          << "a valid client waited behind the others";
    }
  }
  for (auto& s : slow) s.join();
  EXPECT_TRUE(d.alive()) << d.log();
  EXPECT_EQ(request(d.socket(), "GET", "/v1/health").status, 200);
  std::cout << "fuzz: " << answered << " of " << n << " requests answered with a status\n";
  // Jobs some fuzzed uploads may have created: cancel them so the daemon stops promptly.
  for (const auto& j : request(d.socket(), "GET", "/v1/jobs").json()["jobs"]) {
    (void)request(d.socket(), "POST", "/v1/jobs/" + j["id"].get<std::string>() + "/cancel");
  }
}

namespace {

// The bank and devices endpoints through the socket: an empty bank, an import, list, show by
// prefix, search, export, and their errors; the evaluators as devices.
TEST(daemon_api, BankAndDevices) {
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const auto devs = request(d.socket(), "GET", "/v1/devices");
  ASSERT_EQ(devs.status, 200) << devs.body;
  ASSERT_EQ(devs.json().size(), 2u) << devs.body;
  EXPECT_EQ(devs.json()[0]["id"], "sim0");
  EXPECT_EQ(devs.json()[0]["state"], "idle");
  expect_error(request(d.socket(), "POST", "/v1/devices"), 405, "method_not_allowed");

  auto empty = request(d.socket(), "GET", "/v1/bank");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.json()["count"], 0);
  expect_error(request(d.socket(), "GET", "/v1/bank/0123abcd"), 404, "not_found", "id");

  std::ifstream in(source_dir() / "tests" / "integration" / "data" / "pipe_all_tuple.jsonl");
  const std::string tuples((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(tuples.empty());
  const auto imp = request(d.socket(), "POST", "/v1/bank/import", tuples);
  ASSERT_EQ(imp.status, 200) << imp.body;
  const auto inserted = imp.json()["inserted"].get<std::size_t>();
  EXPECT_GE(inserted, 1u);
  EXPECT_EQ(request(d.socket(), "POST", "/v1/bank/import", tuples).json()["inserted"], 0);  // idempotent
  expect_error(request(d.socket(), "POST", "/v1/bank/import", "{\"title\": 3"), 422, "invalid_tuples", "body");

  const auto list = request(d.socket(), "GET", "/v1/bank?limit=1");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.json()["count"], inserted);
  ASSERT_EQ(list.json()["tuples"].size(), 1u);
  const std::string id = list.json()["tuples"][0]["id"];
  const auto show = request(d.socket(), "GET", "/v1/bank/" + id.substr(0, 12));
  ASSERT_EQ(show.status, 200) << show.body;
  EXPECT_EQ(show.json()["id"], id);

  const auto found = request(d.socket(), "GET", "/v1/bank/search?q=pipeline%20barriers&k=3");
  ASSERT_EQ(found.status, 200) << found.body;
  ASSERT_FALSE(found.json().empty()) << found.body;
  EXPECT_TRUE(found.json()[0].contains("score"));
  expect_error(request(d.socket(), "GET", "/v1/bank/search"), 400, "invalid_argument", "q");
  expect_error(request(d.socket(), "GET", "/v1/bank/search?q=x&bottleneck=nonsense"), 400, "invalid_argument", "bottleneck");

  const auto exported = request(d.socket(), "GET", "/v1/bank/export");
  ASSERT_EQ(exported.status, 200);
  EXPECT_EQ(static_cast<std::size_t>(std::count(exported.body.begin(), exported.body.end(), '\n')), inserted);
}

}  // namespace
