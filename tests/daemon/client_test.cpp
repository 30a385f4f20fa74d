// The client commands of the real `aopt` binary against a real aoptd: devices, submit -q, jobs,
// watch (until the job ends), job, fetch, and cancel of a finished job (an error, exit 1 or 2).
#include <gtest/gtest.h>

#include <fstream>

#include "../support/aopt_process.h"
#include "daemon_process.h"

namespace fs = std::filesystem;
using namespace aopt;
using namespace aopt::testing;

namespace {

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

TEST(daemon_client, SubmitWatchFetchThroughTheAoptBinary) {
  temp_dir t("aoptd-c");
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string sock = d.socket().string();

  const auto devs = run_aopt({"devices", "--socket", sock}, 60);
  ASSERT_EQ(devs.exit_code, 0) << devs.out << devs.err;
  EXPECT_NE(devs.out.find("sim0"), std::string::npos) << devs.out;
  EXPECT_NE(devs.out.find("idle"), std::string::npos) << devs.out;

  const auto sub = run_aopt({"submit", (source_dir() / "examples" / "ops" / "add_custom").string(), "--budget", "3", "-q",
                             "--socket", sock},
                            60);
  ASSERT_EQ(sub.exit_code, 0) << sub.out << sub.err;
  const std::string id = last_line(sub.out);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(sub.out.find('\n'), sub.out.size() - 1) << "-q prints only the id: " << sub.out;

  const auto list = run_aopt({"jobs", "--socket", sock}, 60);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(id), std::string::npos) << list.out;

  const auto watch = run_aopt({"watch", id, "--socket", sock}, 600);
  EXPECT_EQ(watch.exit_code, 0) << watch.out << watch.err << d.log();
  EXPECT_NE(watch.out.find("eval"), std::string::npos) << watch.out;

  const auto job = run_aopt({"job", id, "--socket", sock}, 60);
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(nlohmann::json::parse(job.out).value("state", ""), "finished") << job.out;

  const fs::path out = t.path / "out";
  const auto fetch = run_aopt({"fetch", id, "--out", out.string(), "--socket", sock}, 60);
  ASSERT_EQ(fetch.exit_code, 0) << fetch.out << fetch.err;
  EXPECT_TRUE(fs::exists(out / "report.md")) << fetch.out;

  const auto cancel = run_aopt({"cancel", id, "--socket", sock}, 60);
  EXPECT_NE(cancel.exit_code, 0);
  EXPECT_NE((cancel.out + cancel.err).find("finished"), std::string::npos) << cancel.out << cancel.err;

  const auto nobody = run_aopt({"jobs", "--socket", (t.path / "none.sock").string()}, 60);
  EXPECT_EQ(nobody.exit_code, 2) << nobody.out << nobody.err;
  EXPECT_NE(nobody.err.find("none.sock"), std::string::npos) << nobody.err;
}

// `aopt submit --timed-shape` carries the shape in the uploaded aopt.json: the job's evaluations
// (on any device, a node's included) run the timed case at that shape.
TEST(daemon_client, SubmitWithTimedShape) {
  temp_dir t("aoptd-ts");
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const std::string sock = d.socket().string();
  const std::string pkg = (source_dir() / "examples" / "ops" / "abs" / "baseline").string();
  const auto bad = run_aopt({"submit", pkg, "--timed-shape", "0x3", "--socket", sock}, 60);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--timed-shape"), std::string::npos) << bad.err;

  const auto sub = run_aopt({"submit", pkg, "--timed-shape", "3x4096", "--budget", "1", "--wait", "--socket", sock}, 600);
  ASSERT_EQ(sub.exit_code, 0) << sub.out << sub.err << d.log();
  const std::string id = last_line(sub.out);
  const fs::path out = t.path / "out";
  ASSERT_EQ(run_aopt({"fetch", id, "--out", out.string(), "--socket", sock}, 60).exit_code, 0);
  std::ifstream in(out / "report.json");
  const auto rep = nlohmann::json::parse(in);
  std::size_t timed_elements = 0;
  for (const auto& c : rep["result"]["base"]["cases"]) {
    if (c.value("timed", false)) timed_elements = c.value("output_elements", std::size_t{0});
  }
  EXPECT_EQ(timed_elements, 3u * 4096u) << rep["result"]["base"].dump().substr(0, 3000);
}

}  // namespace
