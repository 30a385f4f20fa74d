// Who may join the node registry (docs/deploy.md, "Security"): nodes authenticate on loopback
// too, with the daemon's node token; another user's node without it is refused and gets
// nothing; a second node under a live node's name is refused with a warning. A real aoptd and
// real aopt-node processes on loopback; the other user is uid 65534.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aopt/common/error.h"
#include "aopt/common/secret.h"
#include "daemon_process.h"
#include "node_process.h"

namespace aopt::testing {
namespace {

using namespace std::chrono_literals;

constexpr uid_t nobody = 65534;

daemon_process::options trust_daemon_options(const std::string& more_nodes_keys = {}) {
  daemon_process::options o;
  o.evaluator_slots = 0;  // every evaluation runs on a node
  o.tables = "[nodes]\nlisten = \"127.0.0.1:0\"\nheartbeat_timeout_ms = 3000\ndevice_wait_ms = 120000\n" +
             more_nodes_keys;
  return o;
}

// Waits until `text` is in `log()` (false after `seconds`).
template <class Log>
bool wait_for_log(Log log, const std::string& text, double seconds = 90) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (log().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// The whole line of `log` holding `text` ("" when none).
std::string line_with(const std::string& log, const std::string& text) {
  const auto at = log.find(text);
  if (at == std::string::npos) return {};
  const auto begin = log.rfind('\n', at);
  const auto end = log.find('\n', at);
  return log.substr(begin == std::string::npos ? 0 : begin + 1, end == std::string::npos ? end : end - begin - 1);
}

std::size_t count_of(const std::string& log, const std::string& text) {
  std::size_t n = 0;
  for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
  return n;
}

// Whether uid 65534 can open `file` for reading.
bool readable_by_nobody(const fs::path& file) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0 || ::setuid(nobody) != 0) std::_Exit(100);
    std::_Exit(::open(file.c_str(), O_RDONLY) >= 0 ? 1 : 0);
  }
  int st = 0;
  ::waitpid(child, &st, 0);
  return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

// The node names GET /v1/devices has listed.
std::set<std::string> node_names(const daemon_process& d) {
  std::set<std::string> out;
  for (const auto& dev : devices(d)) out.insert(dev.value("node", ""));
  return out;
}

// Whether a node kept any package (they are kept under its --state-dir/packages/DIGEST).
bool got_a_package(const fs::path& node_dir) {
  std::error_code e;
  const auto dir = node_dir / "state" / "packages";
  return fs::exists(dir, e) && !fs::is_empty(dir, e);
}

TEST(node_trust, AnotherUsersNodeWithoutTheTokenIsRefusedAndGetsNothing) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a node as uid 65534";
  temp_dir t("aopt-trust");
  daemon_process d(t.path / "daemon", trust_daemon_options());
  ASSERT_TRUE(d.start()) << d.log();
  const auto join = nodes_address(d);
  ASSERT_FALSE(join.empty()) << d.log();
  ::chmod(t.path.c_str(), 0711);  // uid 65534 reaches its own node directories below
  // Another user's nodes: one without a token, one with a token of its own (a guess).
  node_process intruder(t.path / "intruder", "intruder"), guesser(t.path / "guesser", "guesser");
  intruder.run_as(nobody);
  guesser.run_as(nobody);
  const auto guess = t.path / "guesser" / "token";
  common::write_text_file(guess, common::random_hex(32) + "\n");
  ASSERT_EQ(::chown(guess.c_str(), nobody, nobody), 0);
  ASSERT_EQ(::chmod(guess.c_str(), 0600), 0);
  intruder.start(join, {"--no-cache"});
  guesser.start(join, {"--no-cache", "--token-file", guess.string()});
  // The daemon refuses both (a warning each); neither is ever a device.
  auto refused_or_joined = [&](const std::string& name) {
    const auto end = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < end) {
      if (d.log().find("refused the registration of a node named \"" + name + "\"") != std::string::npos) return true;
      if (node_names(d).count(name) != 0) return false;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  };
  EXPECT_TRUE(refused_or_joined("intruder")) << d.log() << intruder.log();
  EXPECT_TRUE(refused_or_joined("guesser")) << d.log() << guesser.log();
  EXPECT_NE(line_with(d.log(), "refused the registration of a node named \"intruder\"").rfind("warning: ", 0), std::string::npos)
      << d.log();
  // The daemon's own node joins with the token and evaluates a job while the others keep knocking.
  node_process box(t.path / "box", "box");
  box.start(join, with_token(d));
  ASSERT_TRUE(wait_devices_up(d, 2)) << box.log() << d.log();
  const auto id = submit(d, "budget=4&seed=" + std::to_string(::getpid() % 1000 + 500));
  ASSERT_FALSE(id.empty());
  const auto end = std::chrono::steady_clock::now() + 600s;
  while (std::chrono::steady_clock::now() < end && !is_final(get_job(d, id))) {
    EXPECT_EQ(node_names(d), std::set<std::string>{"box"}) << devices(d).dump();
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(get_job(d, id).value("state", ""), "finished") << d.log();
  EXPECT_EQ(node_names(d), std::set<std::string>{"box"}) << devices(d).dump();
  EXPECT_TRUE(got_a_package(t.path / "box")) << box.log();
  for (auto* n : {&intruder, &guesser}) {
    EXPECT_TRUE(n->alive()) << n->log();
    EXPECT_FALSE(got_a_package(t.path / n->name())) << "a package reached " << n->name() << ": " << n->log();
    EXPECT_NE(n->log().find("refused this node"), std::string::npos) << n->log();
    EXPECT_NE(n->log().find("--token-file"), std::string::npos) << n->log();
    EXPECT_EQ(n->log().find("joined the daemon"), std::string::npos) << n->log();
  }
  // The token is the daemon's user's alone: made at its first start, mode 0600, unreadable by 65534.
  const auto token = d.dir() / "state" / "node-token";
  struct stat st {};
  ASSERT_EQ(::stat(token.c_str(), &st), 0) << d.log();
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_FALSE(readable_by_nobody(token));
}

TEST(node_trust, ASecondNodeUnderALiveNodesNameIsRefusedWithAWarning) {
  temp_dir t("aopt-trust");
  daemon_process d(t.path / "daemon", trust_daemon_options());
  ASSERT_TRUE(d.start()) << d.log();
  const auto join = nodes_address(d);
  node_process box(t.path / "box", "box"), twin(t.path / "twin", "box");
  box.start(join, with_token(d));
  ASSERT_TRUE(wait_devices_up(d, 2)) << box.log() << d.log();
  twin.start(join, with_token(d));  // the token, but a live node's name
  ASSERT_TRUE(wait_for_log([&] { return d.log(); }, "refused a second evaluator node named box")) << d.log();
  // A warning naming both: the newcomer's process and the live node's.
  const auto warning = line_with(d.log(), "refused a second evaluator node named box");
  EXPECT_EQ(warning.rfind("warning: ", 0), 0u) << warning;
  EXPECT_NE(warning.find("#" + std::to_string(twin.pid())), std::string::npos) << warning;
  EXPECT_NE(warning.find("#" + std::to_string(box.pid())), std::string::npos) << warning;
  EXPECT_EQ(count_of(d.log(), "evaluator node box joined"), 1u) << d.log();
  ASSERT_TRUE(wait_for_log([&] { return twin.log(); }, "refused this node")) << twin.log();
  EXPECT_NE(line_with(twin.log(), "refused this node").find("[warning]"), std::string::npos) << twin.log();
  EXPECT_NE(twin.log().find("taken"), std::string::npos) << twin.log();
  // The live node keeps its devices and evaluates; the twin gets nothing.
  const auto id = submit(d, "budget=4&seed=" + std::to_string(::getpid() % 1000 + 700));
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  EXPECT_EQ(get_job(d, id).value("state", ""), "finished") << d.log();
  ASSERT_EQ(devices(d).size(), 2u) << devices(d).dump();
  std::uint64_t evaluations = 0;
  for (const auto& dev : devices(d)) {
    EXPECT_NE(dev.value("state", ""), "down") << dev.dump();
    evaluations += dev.value("evaluations", std::uint64_t(0));
  }
  EXPECT_GE(evaluations, 1u) << devices(d).dump();
  EXPECT_TRUE(got_a_package(t.path / "box")) << box.log();
  EXPECT_FALSE(got_a_package(t.path / "twin")) << twin.log();
  EXPECT_EQ(twin.log().find("joined the daemon"), std::string::npos) << twin.log();
  // Once the live node is lost, its name is free: the twin, still retrying, takes it.
  box.kill9();
  ASSERT_TRUE(wait_for_log([&] { return d.log(); }, "evaluator node box lost")) << d.log();
  EXPECT_TRUE(wait_for_log([&] { return twin.log(); }, "joined the daemon", 90)) << twin.log() << d.log();
  EXPECT_TRUE(wait_devices_up(d, 2, 30)) << devices(d).dump();
}

TEST(node_trust, ANodeWithTheConfiguredTokenJoinsAndALooseTokenFileStopsTheDaemon) {
  temp_dir t("aopt-trust");
  const auto token = t.path / "nodes.token";
  common::write_text_file(token, common::random_hex(32) + "\n");
  ::chmod(token.c_str(), 0640);
  daemon_process loose(t.path / "loose", trust_daemon_options("token_file = \"" + token.string() + "\"\n"));
  EXPECT_FALSE(loose.start());
  EXPECT_NE(loose.log().find(token.string() + ": mode 0640 lets other users read or change it; chmod 600"),
            std::string::npos)
      << loose.log();
  ::chmod(token.c_str(), 0600);
  daemon_process d(t.path / "daemon", trust_daemon_options("token_file = \"" + token.string() + "\"\n"));
  ASSERT_TRUE(d.start()) << d.log();
  const auto join = nodes_address(d);
  EXPECT_NE(d.log().find("(aopt-node --join " + join + " --token-file " + token.string() + ")"), std::string::npos)
      << d.log();
  EXPECT_FALSE(fs::exists(d.dir() / "state" / "node-token")) << "a configured token replaces the default one";
  node_process n1(t.path / "n1", "n1");
  n1.start(join, {"--token-file", token.string()});
  ASSERT_TRUE(wait_devices_up(d, 2)) << n1.log() << d.log();
  EXPECT_NE(n1.log().find("joined the daemon at " + join + " as n1"), std::string::npos) << n1.log();
  const auto id = submit(d, "budget=3&seed=" + std::to_string(::getpid() % 1000 + 900));
  ASSERT_TRUE(wait_final(d, {id}, 600)) << d.log();
  EXPECT_EQ(get_job(d, id).value("state", ""), "finished") << d.log() << n1.log();
}

TEST(node_trust, SecretFilesAreTheirOwnersAlone) {
  temp_dir t("aopt-trust");
  const auto file = t.path / "sub" / "secret";
  const auto made = common::read_or_create_secret_file(file, "the test secret");
  EXPECT_EQ(made.size(), 64u);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(common::read_or_create_secret_file(file, "the test secret"), made) << "made once, then kept";
  EXPECT_EQ(common::read_secret_file(file, "x"), made);
  ::chmod(file.c_str(), 0604);
  try {
    (void)common::read_secret_file(file, "the test secret");
    ADD_FAILURE() << "a secret others may read was accepted";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("the test secret " + file.string() + ": mode 0604"), std::string::npos)
        << e.what();
  }
  const auto short_one = t.path / "short";
  common::write_text_file(short_one, "1234\n");
  ::chmod(short_one.c_str(), 0600);
  EXPECT_THROW((void)common::read_secret_file(short_one, "s"), aopt::error);
  EXPECT_THROW((void)common::read_secret_file(t.path / "none", "s"), aopt::error);
  EXPECT_TRUE(common::equal_constant_time(made, made));
  EXPECT_FALSE(common::equal_constant_time(made.substr(0, 63), made));
  EXPECT_FALSE(common::equal_constant_time(made + "0", made));
  EXPECT_FALSE(common::equal_constant_time("", made));
  std::string other = made;
  other[63] = other[63] == '0' ? '1' : '0';
  EXPECT_FALSE(common::equal_constant_time(other, made));
}

}  // namespace
}  // namespace aopt::testing
