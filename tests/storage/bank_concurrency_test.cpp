// One bank, several processes (issue 12, item 6): while another process holds the bank open
// for writing (bank_lock_holder), `aopt bank list/search/show/export` read it, and a writer
// waits for the lock, then either gets it or fails naming the bank and the holder.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "bank_command.h"
#include "aopt/storage/experience_bank.h"
#include "bank_test_util.h"

namespace aopt::storage {
namespace {

using namespace aopt::storage::test;
using std::chrono::milliseconds;


// bank_lock_holder in a child process: holds DIR open for writing until release().
class holder {
 public:
  holder(const std::filesystem::path& dir, const std::string& title) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(AOPT_BANK_LOCK_HOLDER, AOPT_BANK_LOCK_HOLDER, dir.c_str(), title.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    std::string got;
    char c;
    while (got.find('\n') == std::string::npos && read(out[0], &c, 1) == 1) got += c;
    close(out[0]);
    ready_ = got == "ready\n";
  }
  ~holder() { release(); }
  bool ready() const { return ready_; }
  pid_t pid() const { return pid_; }
  // Closes its stdin: it closes the bank and exits. Returns its exit status.
  int release() {
    if (stdin_ < 0) return status_;
    close(stdin_);
    stdin_ = -1;
    waitpid(pid_, &status_, 0);
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int status_ = 0;
  bool ready_ = false;
};

class BankConcurrency : public ::testing::Test {
 protected:
  void SetUp() override { run({"bank", "--bank", bank_, "import", (data_dir() / "paper_bank.json").string()}); }
  temp_dir tmp_;
  std::string bank_ = (tmp_.path() / "bank").string();
};

TEST_F(BankConcurrency, ReadersWorkWhileAnotherProcessWrites) {
  // Before: "cannot open the experience bank ...: it is in use by another process".
  holder h(bank_, "Held open by another process");
  ASSERT_TRUE(h.ready());
  const std::string list = run({"bank", "--bank", bank_, "list"});
  EXPECT_NE(list.find("6 shown of 6 tuples"), std::string::npos) << list;  // the holder's put included
  EXPECT_NE(list.find("Held open by another process"), std::string::npos) << list;
  const std::string hits = run({"bank", "--bank", bank_, "search", "held open"});
  EXPECT_EQ(hits.rfind("1. ", 0), 0u) << hits;
  const std::string id = list.substr(0, 12);
  EXPECT_NE(run({"bank", "--bank", bank_, "show", id}).find("id:          " + id), std::string::npos);
  const std::string jsonl = run({"bank", "--bank", bank_, "export"});
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 6) << jsonl;
  // A reader in this process while the holder writes: the library's read-only mode.
  experience_bank reader(bank_, {.create_if_missing = false, .read_only = true});
  EXPECT_EQ(reader.count(), 6u);
  EXPECT_THROW(reader.put(tuple("t", "mte2 bound")), aopt::error);
  EXPECT_EQ(h.release(), 0);
}

TEST_F(BankConcurrency, WriterWaitsThenFailsNamingBankAndHolder) {
  holder h(bank_, "Held");
  ASSERT_TRUE(h.ready());
  const auto start = std::chrono::steady_clock::now();
  std::string msg;
  try {
    experience_bank writer(bank_, {.lock_wait = milliseconds(300)});
    ADD_FAILURE() << "opened a bank another process holds";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::io_error);
    msg = e.what();
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, milliseconds(5000));
  EXPECT_NE(msg.find("cannot open the experience bank " + bank_), std::string::npos) << msg;
  EXPECT_NE(msg.find("process " + std::to_string(h.pid()) + " ("), std::string::npos) << msg;
  EXPECT_NE(msg.find("bank_lock_holder"), std::string::npos) << msg;
  EXPECT_NE(msg.find(bank_ + "/LOCK"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(waited 300 ms for the lock)"), std::string::npos) << msg;
  // The wait of `aopt bank import` comes from AOPT_BANK_LOCK_WAIT (seconds).
  setenv("AOPT_BANK_LOCK_WAIT", "0.2", 1);
  try {
    run({"bank", "--bank", bank_, "import", (data_dir() / "paper_bank.json").string()});
    ADD_FAILURE() << "imported into a bank another process holds";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("(waited 200 ms for the lock)"), std::string::npos) << e.what();
  }
  unsetenv("AOPT_BANK_LOCK_WAIT");
}

TEST_F(BankConcurrency, WriterGetsTheLockOnceTheHolderFinishes) {
  holder h(bank_, "Held");
  ASSERT_TRUE(h.ready());
  std::thread later([&] {
    std::this_thread::sleep_for(milliseconds(300));
    h.release();
  });
  const auto start = std::chrono::steady_clock::now();
  std::size_t count = 0;
  EXPECT_NO_THROW({
    experience_bank writer(bank_, {.lock_wait = milliseconds(10000)});
    writer.put(tuple("Written after the wait", "vector bound"));
    count = writer.count();
  });
  later.join();
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(250));
  EXPECT_EQ(count, 7u);
}

}  // namespace
}  // namespace aopt::storage
