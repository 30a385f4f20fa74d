// What docs/api.md promises, against the real aoptd and aopt: after SIGTERM the socket answers
// while running jobs checkpoint (health "stopping", 503 shutting_down for submissions and new
// event streams, `aopt watch` says so), then it goes; report.md's "Reproduce" is a command that
// runs the same search again; `aopt watch`'s first line shows the base as the best so far.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "../support/aopt_process.h"
#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;
using nlohmann::json;

namespace {

// add_custom whose tiling function sleeps `seconds` first: every evaluation of it takes so long.
std::string slow_add_custom_tar(int seconds) {
  auto files = common::read_tree(source_dir() / "examples" / "ops" / "add_custom");
  std::string& host = files.at("op_host/add_custom.cpp");
  const std::string head = "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n{\n";
  const auto at = host.find(head);
  EXPECT_NE(at, std::string::npos) << "add_custom's TilingFunc changed; update this test";
  host.insert(at + head.size(), "    ::sleep(" + std::to_string(seconds) + ");\n");
  host = "#include <unistd.h>\n" + host;
  return common::tar_write(files);
}

std::string error_code(const http_reply& r) {
  const auto j = json::parse(r.body, nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"].value("code", "") : "";
}

TEST(daemon_docs, SigtermServes503WhileJobsCheckpoint) {
  temp_dir t("aoptd-s");
  daemon_process d(t.path);  // shutdown_grace_ms = 5000
  ASSERT_TRUE(d.start()) << d.log();
  const std::string sock = d.socket().string();
  const auto sub = request(d.socket(), "POST", "/v1/jobs?budget=2&name=slow", slow_add_custom_tar(60));
  ASSERT_EQ(sub.status, 201) << sub.body;
  const std::string id = sub.json().at("id");
  // Its first evaluation is under way (a device is busy with it for a minute).
  bool busy = false;
  for (int i = 0; i < 1200 && !busy; ++i) {
    for (const auto& dev : request(d.socket(), "GET", "/v1/devices").json()) busy |= dev.value("state", "") == "busy";
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(busy) << d.log();

  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(d.pid(), SIGTERM), 0);
  // The socket still answers: health says "stopping" ...
  std::string status;
  for (int i = 0; i < 100 && status != "stopping"; ++i) {
    const auto h = request(d.socket(), "GET", "/v1/health", {}, 2000);
    status = h.status == 200 ? h.json().value("status", "") : "no answer (" + std::to_string(h.status) + ")";
    if (status != "stopping") std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, "stopping") << d.log();
  // ... a submission and a new event stream get 503 shutting_down, reads answer ...
  const auto again = request(d.socket(), "POST", "/v1/jobs?budget=2", add_custom_tar());
  EXPECT_EQ(again.status, 503) << again.body;
  EXPECT_EQ(error_code(again), "shutting_down") << again.body;
  const auto stream = request(d.socket(), "GET", "/v1/jobs/" + id + "/events");
  EXPECT_EQ(stream.status, 503) << stream.body;
  EXPECT_EQ(error_code(stream), "shutting_down") << stream.body;
  const auto past = request(d.socket(), "GET", "/v1/jobs/" + id + "/events?follow=0");
  EXPECT_EQ(past.status, 200) << past.body;
  EXPECT_EQ(request(d.socket(), "GET", "/v1/jobs/" + id).status, 200);
  // ... and `aopt watch` says aoptd is stopping instead of waiting or spinning.
  const auto watch = run_aopt({"watch", id, "--socket", sock}, 30);
  EXPECT_EQ(watch.exit_code, 2) << watch.out << watch.err;
  EXPECT_NE(watch.err.find("aoptd is stopping"), std::string::npos) << watch.err;
  const double answered = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(answered, 4.5) << "all of the above within shutdown_grace_ms (5 s)";

  // The evaluation outlives the grace: aoptd exits after it, and the socket goes.
  double seconds = 0;
  const int rc = d.terminate(seconds, 30);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "SIGTERM during a 60 s evaluation: exit " << rc << " after " << total << " s\n";
  EXPECT_EQ(rc, 0) << d.log();
  EXPECT_GE(total, 4.5);
  EXPECT_LT(total, 10.0);
  EXPECT_FALSE(fs::exists(d.socket())) << "the socket is removed at exit";
  EXPECT_EQ(request(d.socket(), "GET", "/v1/health", {}, 1000).status, 0);
}

// The first line of an event stream as `aopt watch` prints it: the base, its latency as the best.
TEST(daemon_docs, ReportReproducesTheJobAndWatchShowsTheBase) {
  temp_dir t("aoptd-r");
  daemon_process::options o;
  o.learn = false;  // the same bank for both runs
  daemon_process d(t.path, o);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string sock = d.socket().string();
  const fs::path op = source_dir() / "examples" / "ops" / "add_custom";
  const auto sub = run_aopt({"submit", op.string(), "--budget", "3", "--seed", "5", "--wait", "--socket", sock}, 600);
  ASSERT_EQ(sub.exit_code, 0) << sub.out << sub.err << d.log();
  std::string id = sub.out.substr(0, sub.out.size() - 1);
  id = id.substr(id.rfind('\n') + 1);
  // "  [  1] r1 base   ok   52.10 us best      52.10 us  base"
  std::smatch m;
  ASSERT_TRUE(std::regex_search(sub.out, m, std::regex(R"(\[ *1\] r1 base +ok +([0-9.]+) us best +([0-9.]+) us)")))
      << sub.out;
  EXPECT_EQ(m[1].str(), m[2].str()) << "the base is the best so far: " << m[0];

  const auto report = request(d.socket(), "GET", "/v1/jobs/" + id + "/report.md");
  ASSERT_EQ(report.status, 200) << report.body;
  ASSERT_TRUE(std::regex_search(report.body, m, std::regex("Reproduce: `([^`]*)`"))) << report.body;
  const std::string command = m[1];
  ASSERT_EQ(command.rfind("aopt submit OP_DIR ", 0), 0u) << command;
  EXPECT_NE(command.find("# OP_DIR: the package of job " + id + " (add_custom)"), std::string::npos) << command;
  // The command as the shell runs it, OP_DIR the package: the same search, the same result.
  std::vector<std::string> args;
  std::istringstream words(command.substr(0, command.find('#')));
  for (std::string w; words >> w;) args.push_back(w == "OP_DIR" ? op.string() : w);
  ASSERT_EQ(args.front(), "aopt");
  args.erase(args.begin());
  for (const char* more : {"--wait", "-q", "--socket", sock.c_str()}) args.push_back(more);
  const auto again = run_aopt(args, 600);
  ASSERT_EQ(again.exit_code, 0) << command << "\n" << again.out << again.err;
  std::string id2 = again.out.substr(0, again.out.size() - 1);
  id2 = id2.substr(id2.rfind('\n') + 1);
  const json first = get_job(d, id), second = get_job(d, id2);
  EXPECT_NE(id, id2);
  EXPECT_EQ(first.at("options"), second.at("options"));
  EXPECT_EQ(first.at("best_us"), second.at("best_us"));
  EXPECT_EQ(first.at("evaluations"), second.at("evaluations"));
  EXPECT_EQ(first.at("accepted_changes"), second.at("accepted_changes"));
}

}  // namespace
