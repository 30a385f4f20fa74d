// `aopt bank ...` commands, driven in-process on a CLI11 app.
#include <sstream>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "bank_command.h"
#include "aopt/storage/experience_bank.h"
#include "bank_test_util.h"

namespace aopt::storage {
namespace {

using namespace aopt::storage::test;


class BankCli : public ::testing::Test {
 protected:
  temp_dir tmp_;
  std::string bank_ = (tmp_.path() / "bank").string();
  std::string fixture_ = (data_dir() / "paper_bank.json").string();
};

TEST_F(BankCli, ImportListSearchShow) {
  EXPECT_EQ(run({"bank", "--bank", bank_, "import", fixture_}),
            "imported " + fixture_ + ": 5 entries, 5 new, 0 already present; 5 tuples in " + bank_ + "\n");
  EXPECT_NE(run({"bank", "import", fixture_, "--bank", bank_}).find("0 new, 5 already present"), std::string::npos);

  const std::string list = run({"bank", "list", "--bank", bank_});
  EXPECT_NE(list.find("5 shown of 5 tuples"), std::string::npos) << list;
  EXPECT_NE(list.find("serialized_pipes  import  Enable double buffering on the input queues"), std::string::npos)
      << list;
  const std::string page = run({"bank", "list", "--bank", bank_, "--limit", "2"});
  EXPECT_NE(page.find("2 shown of 5 tuples"), std::string::npos) << page;
  EXPECT_NE(page.find("more: --after "), std::string::npos) << page;
  const std::string filtered = run({"bank", "list", "--bank", bank_, "--bottleneck", "bank_conflict"});
  EXPECT_NE(filtered.find("1 shown of 5"), std::string::npos) << filtered;

  const std::string hits = run({"bank", "search", "double buffering overlap", "--bank", bank_, "-k", "2"});
  EXPECT_EQ(hits.rfind("1. ", 0), 0u) << hits;
  EXPECT_NE(hits.find("Enable double buffering on the input queues"), std::string::npos) << hits;
  EXPECT_LT(hits.find("Enable double buffering"), hits.find("2. ") == std::string::npos ? hits.size() : hits.find("2. "));
  const auto json_hits = nlohmann::json::parse(
      run({"bank", "search", "DataCopy bandwidth", "--bank", bank_, "--bottleneck", "mte2_bound", "--json"}));
  ASSERT_FALSE(json_hits.empty());
  EXPECT_EQ(json_hits[0]["title"], "Use 32 KB transfers instead of 8 KB");
  EXPECT_GT(json_hits[0]["score"].get<double>(), 0.0);

  std::string id;
  {
    experience_bank bank(bank_);
    id = bank.by_bottleneck(search::bottleneck_class::scalar_bound).at(0).id;
  }
  const std::string shown = run({"bank", "show", id.substr(0, 10), "--bank", bank_});
  EXPECT_NE(shown.find("id:          " + id), std::string::npos) << shown;
  EXPECT_NE(shown.find("AscendC::Muls(y, x, s, n);"), std::string::npos) << shown;
  EXPECT_EQ(nlohmann::json::parse(run({"bank", "show", id, "--json", "--bank", bank_}))["id"], id);
}

TEST_F(BankCli, ExportToFileAndImportElsewhere) {
  run({"bank", "--bank", bank_, "import", fixture_, "--provenance", "rewind"});
  const std::string out_file = (tmp_.path() / "export.json").string();
  EXPECT_EQ(run({"bank", "export", "--bank", bank_, "--format", "json", "--out", out_file}),
            "exported 5 tuples to " + out_file + "\n");
  const auto arr = nlohmann::json::parse(common::read_text_file(out_file));
  ASSERT_EQ(arr.size(), 5u);
  EXPECT_EQ(arr[0]["provenance"], "rewind");
  const std::string jsonl = run({"bank", "export", "--bank", bank_});
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 5);
  const std::string other = (tmp_.path() / "other").string();
  EXPECT_NE(run({"bank", "import", out_file, "--bank", other}).find("5 new"), std::string::npos);
}

TEST_F(BankCli, ErrorsAreClear) {
  EXPECT_NE(run({"bank", "list", "--bank", bank_}).find("does not exist yet: 0 tuples"), std::string::npos);
  run({"bank", "import", fixture_, "--bank", bank_});
  try {
    run({"bank", "list", "--bank", bank_, "--bottleneck", "slow"});
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("--bottleneck 'slow' is not a bottleneck class; use one of: mte2_bound"),
              std::string::npos);
  }
  try {
    run({"bank", "show", "ffffffffffff", "--bank", bank_});
    FAIL() << "no error";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("no tuple with id 'ffffffffffff'"), std::string::npos);
  }
  EXPECT_THROW(run({"bank", "import", fixture_, "--bank", bank_, "--provenance", "magic"}), aopt::error);
  EXPECT_THROW(run({"bank", "export", "--bank", bank_, "--format", "xml"}), aopt::error);
  EXPECT_THROW(run({"bank", "search", "--bank", bank_}), CLI::ParseError);  // QUERY required
}

TEST(BankCliWiring, ReusesAnExistingBankSubcommand) {
  CLI::App app{"aopt"};
  auto* existing = app.add_subcommand("bank", "bank");
  existing->add_subcommand("rewind", "rewind seeds");
  std::ostringstream out;
  EXPECT_EQ(aopt::app::add_bank_commands(app, out), existing);
  EXPECT_NO_THROW(existing->get_subcommand("rewind"));
  EXPECT_NO_THROW(existing->get_subcommand("search"));
}

}  // namespace
}  // namespace aopt::storage
