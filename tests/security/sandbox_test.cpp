// A candidate cannot lie, escape or leave anything behind; shared caches are race-free. Each test
// writes a hostile operator of its own (the add_custom example's kernel, renamed, behind an entry
// that also does one bad thing), runs the real `aopt eval` on it and checks the machine after.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;
using json = nlohmann::json;

namespace {

const fs::path source_dir = AOPT_TEST_SOURCE_DIR;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

class Security : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-sec-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "tmp");
    cache_ = root_ / "cache";
  }
  void TearDown() override {
    std::error_code e;
    fs::remove_all(root_, e);
  }

  // A package: the add_custom host, a C++ reference, case `perf` (and `extra_cases`), and a kernel
  // whose entry runs the real add, then `hook()` once (from the first core to get there).
  fs::path package(const std::string& name, const std::string& includes, const std::string& hook,
                   const std::string& range = "[-1, 1]", const std::string& reference = "reference.cpp") {
    const fs::path dir = root_ / name;
    fs::create_directories(dir / "op_kernel");
    fs::create_directory_symlink(source_dir / "examples/ops/add_custom/op_host", dir / "op_host");
    write_file(dir / "reference.cpp", read_file(source_dir / "tests/integration/packages/cpp_reference/reference.cpp"));
    write_file(dir / "aopt.json", R"({ "kernel": "add_custom", "reference": ")" + reference + R"(",
  "cases": [ { "name": "perf", "timed": true,
    "inputs": { "x": {"shape": [8, 4096], "dtype": "float16", "range": )" + range + R"(},
                "y": {"shape": [8, 4096], "dtype": "float16", "range": )" + range + R"(} } } ] })");
    std::string kernel = includes + "\n#include <atomic>\n#include \"kernel_operator.h\"\nnamespace evil {\n" + hook +
                         "\n}\n#define add_custom add_custom_real\n" +
                         read_file(source_dir / "examples/ops/add_custom/op_kernel/add_custom.cpp") +
                         "\n#undef add_custom\n"
                         "extern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR t) {\n"
                         "  add_custom_real(x, y, z, w, t);\n"
                         "  static std::atomic<int> once{0};\n"
                         "  if (once.fetch_add(1) == 0) evil::hook(z);\n"
                         "}\n";
    write_file(dir / "op_kernel/add_custom.cpp", kernel);
    return dir;
  }

  process_outcome aopt(const std::vector<std::string>& args, std::vector<std::pair<std::string, std::string>> env = {},
                       const fs::path& cwd = {}) {
    aopt::common::process_request r;
    r.argv = {AOPT_BINARY};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    r.env = std::move(env);
    r.env.emplace_back("TMPDIR", (root_ / "tmp").string());
    r.cwd = cwd.string();
    r.limits.wall_timeout = std::chrono::seconds(300);
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  json eval(const fs::path& pkg, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"eval", pkg.string(), "--json", "--cache-dir", cache_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    last_ = aopt(args);
    EXPECT_EQ(last_.end, aopt::common::process_end::exited) << last_.describe() << "\n" << last_.err;
    try {
      return json::parse(last_.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "aopt printed no JSON (" << e.what() << "): " << last_.out << "\n" << last_.err;
      return json::object();
    }
  }
  static std::string text(const json& r) { return r.dump(); }

  fs::path root_, cache_;
  process_outcome last_;
};

// Pids of live processes whose name (comm) is `name`.
std::vector<int> processes_named(const std::string& name) {
  std::vector<int> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string n = e.path().filename().string();
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    std::string comm = read_file(e.path() / "comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name) pids.push_back(std::stoi(n));
  }
  return pids;
}

// Pids of live processes whose executable lies below `dir`.
std::vector<int> processes_below(const fs::path& dir) {
  std::vector<int> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string n = e.path().filename().string();
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    std::error_code ec;
    const auto exe = fs::read_symlink(e.path() / "exe", ec).string();
    if (!ec && exe.rfind(dir.string(), 0) == 0) pids.push_back(std::stoi(n));
  }
  return pids;
}

}  // namespace

TEST_F(Security, ChildOfTheKernelDiesWithTheRun) {
  const auto pkg = package("survivor", "#include <unistd.h>\n#include <sys/prctl.h>", R"(
void hook(GM_ADDR) {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, "aoptsurvivor");
      close(0); close(1); close(2);
      for (int i = 0; i < 60; ++i) sleep(1);
      _exit(0);
    }
    _exit(0);
  }
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "ok") << text(r);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto alive = processes_named("aoptsurvivor");
  for (int pid : alive) ::kill(pid, SIGKILL);
  EXPECT_TRUE(alive.empty()) << alive.size() << " process(es) of the kernel outlived the evaluation";
}

TEST_F(Security, ResultIsNotForgedByAtexit) {
  const auto pkg = package("forger", "#include <cstdlib>\n#include <fstream>", R"K(
void forge() {
  std::ofstream f("result.json");
  f << R"J({"status":"ok","message":"","outputs":[{"name":"z","shape":[8,4096],"dtype":"float16","file":"out_z.bin"}],"timing":{"Task Duration(us)":0.001},"tiling":null})J";
}
void hook(GM_ADDR) { std::atexit(forge); })K");
  const auto r = eval(pkg, {"--no-cache"});
  ASSERT_EQ(r.value("status", ""), "ok") << text(r);
  EXPECT_GT(r.value("latency_us", 0.0), 0.1) << "the forged latency was taken: " << text(r);
}

TEST_F(Security, ForgedChannelFrameIsRejected) {
  const auto pkg = package("channel_forger", "#include <unistd.h>\n#include <cstring>", R"(
void hook(GM_ADDR) {
  const char* fake = "AOPT-RESULT 1 0000000000000000\n2\n{}\nEND 0000000000000000\n";
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, fake, strlen(fake));
  _exit(0);
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_NE(r.value("status", ""), "ok") << text(r);
  EXPECT_NE(r.value("diagnostic", "").find("result channel"), std::string::npos) << text(r);
}

TEST_F(Security, KernelCannotPoisonTheSharedReferences) {
  const auto good = package("good", "", "void hook(GM_ADDR) {}");
  const auto evil = package("poisoner", "#include <filesystem>\n#include <fstream>\n#include <string>\n#include <cstring>", R"(
void hook(GM_ADDR z) {
  std::ifstream in("run.json");
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = s.find("/inputs/");
  if (at != std::string::npos) {
    const auto start = s.rfind('"', at) + 1;
    std::error_code e;
    const std::string refs = s.substr(start, at - start) + "/references";
    for (auto it = std::filesystem::recursive_directory_iterator(refs, e); !e && it != std::filesystem::recursive_directory_iterator(); it.increment(e)) {
      if (it->path().extension() != ".bin") continue;
      const auto n = std::filesystem::file_size(it->path(), e);
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::add, e);
      std::ofstream(it->path(), std::ios::binary | std::ios::trunc) << std::string(n, '\0');
    }
  }
  std::memset(z, 0, 8 * 4096 * 2);
})");
  ASSERT_EQ(eval(good).value("status", ""), "ok") << last_.err;
  const auto bad = eval(evil, {"--no-cache"});
  EXPECT_NE(bad.value("status", ""), "ok") << "zeros passed: " << text(bad);
  const auto again = eval(good, {"--no-cache"});
  EXPECT_EQ(again.value("status", ""), "ok") << "the stored reference was poisoned: " << text(again);
}

TEST_F(Security, KernelHasNoNetwork) {
  const int srv = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(srv, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(srv, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(srv, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  const auto pkg = package("network", "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <unistd.h>", R"(
void hook(GM_ADDR) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons()" + std::to_string(port) + R"();
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) (void)!write(s, "hello", 5);
  close(s);
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "ok") << text(r);
  const int c = ::accept(srv, nullptr, nullptr);
  const bool connected = c >= 0;
  if (c >= 0) ::close(c);
  ::close(srv);
  EXPECT_FALSE(connected) << "the kernel connected to 127.0.0.1:" << port;
}

TEST_F(Security, KernelCannotWriteOutsideItsRun) {
  const fs::path outside = root_ / "outside.txt";
  const fs::path in_package = root_ / "writer" / "op_kernel" / "planted.h";
  const auto pkg = package("writer", "#include <fstream>", R"(
void hook(GM_ADDR) {
  std::ofstream(")" + outside.string() + R"(") << "escaped";
  std::ofstream(")" + in_package.string() + R"(") << "planted";
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "ok") << text(r);
  EXPECT_FALSE(fs::exists(outside)) << "the kernel wrote " << outside;
  EXPECT_FALSE(fs::exists(in_package)) << "the kernel wrote into its own package";
}

TEST_F(Security, ForkBombIsStoppedByTheProcessLimit) {
  const auto pkg = package("forkbomb", "#include <unistd.h>\n#include <cstdio>\n#include <cstdlib>", R"(
void hook(GM_ADDR) {
  int forked = 0;
  for (int i = 0; i < 3000; ++i) {
    const pid_t p = fork();
    if (p < 0) break;
    if (p == 0) { sleep(30); _exit(0); }
    ++forked;
  }
  std::fprintf(stderr, "forked=%d\n", forked);
  std::fflush(stderr);
  std::abort();
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "runtime_error") << text(r);
  const std::string d = r.value("diagnostic", "");
  const auto at = d.find("forked=");
  ASSERT_NE(at, std::string::npos) << d;
  const int forked = std::stoi(d.substr(at + 7));
  EXPECT_LT(forked, 1100) << "no process limit: " << d;
}

TEST_F(Security, DiskUseOfARunIsBounded) {
  const auto pkg = package("filler", "#include <csignal>\n#include <cstdio>\n#include <cstdlib>\n#include <string>\n#include <unistd.h>\n#include <fcntl.h>", R"(
void hook(GM_ADDR) {
  std::signal(SIGXFSZ, SIG_IGN);
  static char block[1 << 20];
  long long written = 0;
  for (int f = 0; f < 64 && written < (1LL << 30); ++f) {
    const std::string name = (f % 2 ? std::string("/tmp/fill") : std::string("fill")) + std::to_string(f);
    const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) continue;
    for (int k = 0; k < 64; ++k) {
      const ssize_t w = write(fd, block, sizeof block);
      if (w <= 0) break;
      written += w;
    }
    close(fd);
  }
  std::fprintf(stderr, "written=%lld\n", written);
  std::fflush(stderr);
  std::abort();
})");
  const auto r = eval(pkg, {"--no-cache"});
  const std::string d = r.value("diagnostic", "");
  const auto at = d.find("written=");
  ASSERT_NE(at, std::string::npos) << text(r);
  const long long written = std::stoll(d.substr(at + 8));
  EXPECT_LT(written, 600LL << 20) << "disk use is not bounded: " << d;
}

TEST_F(Security, OutsideIncludeIsNeverEchoed) {
  const std::string secret = "TOPSECRET_" + std::to_string(std::random_device{}());
  const fs::path secret_file = root_ / "secret.h";
  write_file(secret_file, secret + " leaked_here;\n");
  const auto pkg = package("includer", "#include \"" + secret_file.string() + "\"", "void hook(GM_ADDR) {}");
  for (const char* mode : {"sandboxed", "--no-sandbox"}) {
    std::vector<std::string> extra = {"--no-cache"};
    if (std::string(mode) == "--no-sandbox") extra.push_back(mode);
    const auto r = eval(pkg, extra);
    EXPECT_EQ(r.value("status", ""), "compile_error") << mode << ": " << text(r);
    EXPECT_EQ(last_.out.find(secret), std::string::npos) << mode << ": " << last_.out;
    EXPECT_EQ(last_.err.find(secret), std::string::npos) << mode << ": " << last_.err;
  }
}

TEST_F(Security, KernelCannotPrintTheUsersFiles) {
  const std::string secret = "TOPSECRET_" + std::to_string(std::random_device{}());
  const fs::path secret_file = root_ / "private.txt";
  write_file(secret_file, secret + "\n");
  const auto pkg = package("reader", "#include <fstream>\n#include <iostream>\n#include <cstdlib>\n#include <string>", R"(
void hook(GM_ADDR) {
  std::ifstream in(")" + secret_file.string() + R"(");
  std::string line;
  std::getline(in, line);
  std::cerr << "read: " << line << std::endl;
  std::abort();
})");
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "runtime_error") << text(r);
  EXPECT_EQ(last_.out.find(secret), std::string::npos) << last_.out;
}

TEST_F(Security, SkippedOutputIsNotZeroAndFails) {
  // The reference is all zeros (x = y = 0): a kernel that writes nothing passed when outputs
  // started zeroed; device memory starts with junk.
  const auto pkg = package("lazy", "#include <cstring>", "void hook(GM_ADDR) {}", "[0, 0]");
  const fs::path kernel = pkg / "op_kernel" / "add_custom.cpp";
  std::string k = read_file(kernel);
  const std::string call = "  add_custom_real(x, y, z, w, t);\n";
  k.replace(k.find(call), call.size(), "  (void)x; (void)y; (void)z; (void)w; (void)t;\n");
  write_file(kernel, k);
  // The baseline of this package is its own reference only with `reference: baseline`; here the
  // C++ reference computes zeros, so the junk must show.
  const auto r = eval(pkg, {"--no-cache"});
  EXPECT_EQ(r.value("status", ""), "precision_error") << text(r);
}

namespace {

// Starts `aopt eval` on a kernel that never ends, waits for the candidate to run, sends `sig` to
// aopt and checks that the candidate goes with it.
void candidate_dies_with_evaluator(const fs::path& root, int sig) {
  const fs::path tmp = root / "tmp";
  fs::create_directories(tmp);
  const std::string bin = AOPT_BINARY;
  const std::string pkg = (source_dir / "tests/integration/packages/loop_forever").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(bin.c_str(), bin.c_str(), "eval", pkg.c_str(), "--no-cache", "--cache-dir", (root / "cache").c_str(),
            "--timeout", "200", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::vector<int> running;
  for (int i = 0; i < 1200 && running.empty(); ++i) {  // up to 120 s for the build
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    running = processes_below(tmp);
    for (auto it = running.begin(); it != running.end();) {
      // Compilers run from /usr; the candidate is the host executable below the work root.
      it = fs::path(fs::read_symlink("/proc/" + std::to_string(*it) + "/exe")).filename() == "host" ? it + 1 : running.erase(it);
    }
  }
  ASSERT_FALSE(running.empty()) << "the candidate never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, sig);
  ::waitpid(pid, nullptr, 0);
  std::vector<int> left;
  for (int i = 0; i < 30; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = processes_below(tmp);
    if (left.empty()) break;
  }
  for (int p : left) ::kill(p, SIGKILL);
  EXPECT_TRUE(left.empty()) << left.size() << " candidate process(es) outlived the killed evaluator";
}

}  // namespace

TEST_F(Security, CandidateDiesWhenTheEvaluatorIsKilled) { candidate_dies_with_evaluator(root_, SIGKILL); }
TEST_F(Security, CandidateDiesWhenTheEvaluatorIsTerminated) { candidate_dies_with_evaluator(root_, SIGTERM); }

namespace {

// `procs` concurrent evaluations of one package on one fresh cache, `rounds` times: every one ok.
void shared_cache_race(const fs::path& root, const fs::path& pkg, int procs, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    const fs::path cache = root / ("race-" + std::to_string(round));
    std::vector<std::future<process_outcome>> runs;
    for (int p = 0; p < procs; ++p) {
      runs.push_back(std::async(std::launch::async, [&] {
        aopt::common::process_request r;
        r.argv = {AOPT_BINARY, "eval", pkg.string(), "--json", "--cache-dir", cache.string()};
        r.env = {{"TMPDIR", (root / "tmp").string()}};
        r.limits.wall_timeout = std::chrono::seconds(300);
        r.limits.max_output_bytes = 4 << 20;
        return aopt::common::run_process(r);
      }));
    }
    for (auto& f : runs) {
      const auto o = f.get();
      json r;
      try {
        r = json::parse(o.out);
      } catch (const std::exception&) {
      }
      ASSERT_EQ(r.value("status", ""), "ok") << "round " << round << " of " << procs << " processes: " << o.out << o.err;
    }
    fs::remove_all(cache);
  }
}

}  // namespace

TEST_F(Security, SharedCacheTwoProcessesTwentyRounds) {
  shared_cache_race(root_, package("race2", "", "void hook(GM_ADDR) {}", "[-1, 1]", "baseline"), 2, 20);
}

TEST_F(Security, SharedCacheEightProcessesTwentyRounds) {
  shared_cache_race(root_, package("race8", "", "void hook(GM_ADDR) {}", "[-1, 1]", "baseline"), 8, 20);
}

TEST_F(Security, SharedCacheOnTheSwishExample) {
  shared_cache_race(root_, source_dir / "examples/ops/swish/baseline", 2, 1);
}

TEST_F(Security, RelativeCacheDirectoryWorks) {
  const auto pkg = package("relative", "", "void hook(GM_ADDR) {}");
  const auto rel = aopt({"eval", pkg.string(), "--json", "--cache-dir", "relcache"}, {}, root_);
  const auto r = json::parse(rel.out.empty() ? "{}" : rel.out);
  EXPECT_EQ(r.value("status", ""), "ok") << rel.out << rel.err;
  const auto abs = aopt({"eval", pkg.string(), "--json", "--cache-dir", (root_ / "relcache").string()});
  const auto a = json::parse(abs.out.empty() ? "{}" : abs.out);
  EXPECT_EQ(a.value("status", ""), "ok") << abs.out << abs.err;
  EXPECT_TRUE(a.value("cached", false)) << "the same cache by another spelling missed: " << abs.out;
}

TEST_F(Security, StaleWorkDirectoriesAreRemoved) {
  // A work directory left by a process that is gone (pid 1's start time never matches "0").
  const fs::path stale = root_ / "tmp" / "aopt-work" / "deadbeef-stale";
  write_file(stale / ".aopt-owner", "1 0\n");
  write_file(stale / "build" / "junk.o", "x");
  const auto pkg = package("cleanup", "", "void hook(GM_ADDR) {}");
  EXPECT_EQ(eval(pkg).value("status", ""), "ok") << last_.err;
  EXPECT_FALSE(fs::exists(stale)) << "the stale work directory is still there";
  std::size_t left = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_ / "tmp" / "aopt-work")) ++left;
  EXPECT_EQ(left, 0u) << "the evaluation left its own work directory behind";
}
