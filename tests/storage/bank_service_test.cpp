// jobs::bank_service: the bank's operations `aopt bank` and aoptd's /v1/bank both run. An absent
// bank reads as empty; an import is all or nothing; a filtered list pages.
#include <sstream>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/jobs/bank_service.h"
#include "bank_test_util.h"

namespace aopt::storage {
namespace {

using namespace aopt::storage::test;

TEST(BankService, AnAbsentBankReadsAsEmpty) {
  temp_dir tmp;
  const jobs::bank_service bank(tmp.path() / "none");
  EXPECT_FALSE(bank.exists());
  EXPECT_TRUE(bank.all().empty());
  const auto page = bank.list("", 10);
  EXPECT_TRUE(page.tuples.empty());
  EXPECT_EQ(page.total, 0u);
  EXPECT_TRUE(bank.search("double buffering", std::nullopt, 5).empty());
  EXPECT_FALSE(bank.find("abcd"));
  std::ostringstream out;
  EXPECT_EQ(bank.export_to(out, vocab::file_format::jsonl, /*empty_ok=*/true), 0u);
  EXPECT_EQ(out.str(), "");
  EXPECT_THROW(bank.export_to(out, vocab::file_format::jsonl, /*empty_ok=*/false), aopt::error);
  EXPECT_FALSE(bank.exists()) << "reading made no bank";
}

TEST(BankService, ImportIsAllOrNothingAndListsPageByClass) {
  temp_dir tmp;
  const jobs::bank_service bank(tmp.path() / "bank");
  std::vector<vocab::experience> tuples = {tuple("Double buffer the input", "serialized pipes: no overlap"),
                                           tuple("Bigger copies", "MTE2 bound: small GM->UB copies"),
                                           tuple("Fewer barriers", "serialized pipes: barriers")};
  auto bad = tuples;
  bad.push_back(tuple("", "empty title"));
  EXPECT_THROW(bank.import_tuples(bad, "request body"), aopt::error);
  EXPECT_EQ(bank.list("", 10).total, 0u) << "an invalid entry changed the bank";

  const auto r = bank.import_tuples(tuples, "request body");
  EXPECT_EQ(r.report.inserted, 3u);
  EXPECT_EQ(r.total, 3u);
  EXPECT_EQ(bank.import_tuples(tuples, "again").report.duplicates, 3u);

  const auto cls = jobs::parse_bottleneck_filter("serialized_pipes", "--bottleneck");
  const auto first = bank.list("", 1, cls);
  ASSERT_EQ(first.tuples.size(), 1u);
  EXPECT_EQ(first.total, 3u);
  ASSERT_FALSE(first.next_after.empty());
  const auto second = bank.list(first.next_after, 1, cls);
  ASSERT_EQ(second.tuples.size(), 1u);
  EXPECT_NE(second.tuples[0].id, first.tuples[0].id);
  EXPECT_TRUE(bank.list(second.tuples[0].id, 1, cls).tuples.empty());
  EXPECT_THROW(jobs::parse_bottleneck_filter("slow", "bottleneck"), aopt::error);

  const auto hits = bank.search("double buffer input", std::nullopt, 2);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].tuple.title, "Double buffer the input");
  EXPECT_EQ(bank.find(hits[0].tuple.id.substr(0, 8))->title, "Double buffer the input");
  EXPECT_EQ(bank.tuples({hits[0].tuple.id, "not-an-id"}).size(), 1u);
}

}  // namespace
}  // namespace aopt::storage
