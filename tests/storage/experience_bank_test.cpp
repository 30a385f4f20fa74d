// The experience bank on a real RocksDB in a temporary directory: put/get/list/erase, idempotent
// put and import, close and reopen, lock errors (another process, twice in one process), imports
// of the paper's format and JSONL, malformed files rejected without any change.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <cstdio>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "aopt/common/error.h"
#include "aopt/storage/experience_bank.h"
#include "bank_test_util.h"

namespace aopt::storage {
namespace {

using namespace aopt::storage::test;
using search::bottleneck_class;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aopt::error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ExperienceBank, PutGetListErase) {
  temp_dir tmp;
  experience_bank bank(tmp.path() / "bank");
  EXPECT_EQ(bank.schema_version(), 1);
  EXPECT_EQ(bank.count(), 0u);
  std::vector<std::string> ids;
  for (const auto& [title, b] : std::vector<std::pair<std::string, std::string>>{
           {"double buffer", "serialized_pipes"}, {"bigger copies", "mte2_bound"}, {"vectorize", "scalar_bound"}}) {
    const auto r = bank.put(tuple(title, b));
    EXPECT_TRUE(r.inserted);
    EXPECT_EQ(r.id, search::content_id(tuple(title, b)));
    ids.push_back(r.id);
  }
  EXPECT_EQ(bank.count(), 3u);
  const auto got = bank.get(ids[1]);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->title, "bigger copies");
  EXPECT_GT(got->created_ms, 0);
  EXPECT_FALSE(bank.get("0000"));

  std::sort(ids.begin(), ids.end());
  const auto p1 = bank.list("", 2);
  ASSERT_EQ(p1.items.size(), 2u);
  EXPECT_EQ(p1.items[0].id, ids[0]);
  EXPECT_EQ(p1.items[1].id, ids[1]);
  EXPECT_EQ(p1.next_after, ids[1]);
  const auto p2 = bank.list(p1.next_after, 2);
  ASSERT_EQ(p2.items.size(), 1u);
  EXPECT_EQ(p2.items[0].id, ids[2]);
  EXPECT_TRUE(p2.next_after.empty());
  EXPECT_THROW(bank.list("", 0), aopt::error);

  EXPECT_TRUE(bank.erase(ids[0]));
  EXPECT_FALSE(bank.erase(ids[0]));
  EXPECT_EQ(bank.count(), 2u);
  EXPECT_FALSE(bank.get(ids[0]));
  for (auto c : search::all_bottleneck_classes()) {
    for (const auto& e : bank.by_bottleneck(c)) EXPECT_NE(e.id, ids[0]);  // index entry gone too
  }
}

TEST(ExperienceBank, PutIsIdempotentAndUpdateReplaces) {
  temp_dir tmp;
  experience_bank bank(tmp.path());
  auto e = tuple("double buffer", "serialized_pipes");
  e.origin = search::provenance::rewind;
  const auto first = bank.put(e);
  auto again = e;
  again.origin = search::provenance::import;
  const auto second = bank.put(again);
  EXPECT_TRUE(first.inserted);
  EXPECT_FALSE(second.inserted);
  EXPECT_EQ(first.id, second.id);
  EXPECT_EQ(bank.count(), 1u);
  EXPECT_EQ(bank.get(first.id)->origin, search::provenance::rewind);  // left unchanged

  auto with_embedding = *bank.get(first.id);
  with_embedding.embedding = search::experience_embedding{"m", {1.0f, 2.0f}};
  EXPECT_TRUE(bank.update(with_embedding));
  ASSERT_TRUE(bank.get(first.id)->embedding);
  EXPECT_EQ(bank.get(first.id)->embedding->vector, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_FALSE(bank.update(tuple("absent", "mte2_bound")));
  EXPECT_EQ(bank.count(), 1u);

  auto bad = tuple("", "mte2_bound");
  EXPECT_NE(error_of([&] { bank.put(bad); }).find("title is empty"), std::string::npos);
}

TEST(ExperienceBank, CloseAndReopenKeepEverything) {
  const std::uint32_t seed = 7741;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  temp_dir tmp;
  const auto dir = tmp.path() / "bank";
  const std::vector<std::string> bottlenecks = {"mte2_bound", "Serialized pipes: PIPE_ALL barrier",
                                                "bank conflicts", "nothing we know"};
  std::vector<search::experience> stored;
  {
    experience_bank bank(dir, {.create_if_missing = true, .sync_writes = false});
    for (int i = 0; i < 40; ++i) {
      auto e = tuple("tuple " + std::to_string(rng()), bottlenecks[rng() % bottlenecks.size()],
                     "diff " + std::to_string(i));
      e.evidence = search::experience_evidence{"op" + std::to_string(i % 3), 100.0 + i, 50.0 + i, "sim", "910b4"};
      e.embedding = search::experience_embedding{"m", {static_cast<float>(rng() % 100) / 7.0f, 1.5f}};
      e.motif = i % 2 == 0 ? "double_buffer" : "";
      e.origin = static_cast<search::provenance>(i % 3);
      search::finalize(e);
      bank.put(e);
      stored.push_back(e);
    }
    bank.close();
    EXPECT_FALSE(bank.is_open());
    EXPECT_THROW(bank.count(), aopt::error);
    bank.close();  // idempotent
  }
  experience_bank bank(dir, {.create_if_missing = false});
  EXPECT_EQ(bank.count(), stored.size());
  EXPECT_EQ(bank.schema_version(), 1);
  for (const auto& e : stored) {
    const auto got = bank.get(e.id);
    ASSERT_TRUE(got) << e.id;
    EXPECT_EQ(search::to_json(*got), search::to_json(e));
  }
  std::size_t indexed = 0;
  for (auto c : search::all_bottleneck_classes()) indexed += bank.by_bottleneck(c).size();
  const auto unclassified = bank.unclassified_ids();
  std::size_t expect_unclassified = 0, expect_indexed = 0;
  for (const auto& e : stored) {
    const auto cls = search::classify_bottleneck(e.bottleneck);
    expect_indexed += cls.size();
    expect_unclassified += cls.empty() ? 1 : 0;
  }
  EXPECT_EQ(indexed, expect_indexed);
  EXPECT_EQ(unclassified.size(), expect_unclassified);
  EXPECT_GT(expect_unclassified, 0u);  // the seed gives at least one "nothing we know"
}

TEST(ExperienceBank, FindByUniquePrefixAndAmbiguousPrefix) {
  temp_dir tmp;
  experience_bank bank(tmp.path(), {.create_if_missing = true, .sync_writes = false});
  // Add tuples until two ids share their first 4 hex characters (deterministic content).
  std::map<std::string, std::string> by_prefix;
  std::string shared;
  for (int i = 0; i < 5000 && shared.empty(); ++i) {
    const auto r = bank.put(tuple("t" + std::to_string(i), "mte2_bound"));
    const auto p = r.id.substr(0, 4);
    if (by_prefix.count(p)) shared = p;
    by_prefix[p] = r.id;
  }
  ASSERT_FALSE(shared.empty());
  EXPECT_NE(error_of([&] { bank.find(shared); }).find("ambiguous"), std::string::npos);
  const std::string some = bank.list("", 1).items.at(0).id;
  ASSERT_TRUE(bank.find(some.substr(0, 20)));
  EXPECT_EQ(bank.find(some.substr(0, 20))->id, some);
  EXPECT_FALSE(bank.find("zzzzzz"));
  EXPECT_FALSE(bank.find("abc"));  // too short for a prefix lookup
}

TEST(ExperienceBank, OpenedTwiceInOneProcessIsExplained) {
  temp_dir tmp;
  experience_bank first(tmp.path());
  const std::string msg = error_of([&] { experience_bank second(tmp.path()); });
  EXPECT_NE(msg.find("already open in this process"), std::string::npos) << msg;
  EXPECT_NE(msg.find(tmp.path().string()), std::string::npos) << msg;
}

TEST(ExperienceBank, LockedByAnotherProcessIsExplained) {
  temp_dir tmp;
  { experience_bank create(tmp.path()); }
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another process holding the bank: take the same POSIX lock RocksDB takes on LOCK.
    const int fd = ::open((tmp.path() / "LOCK").c_str(), O_RDWR);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    const char ok = (fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0) ? 'y' : 'n';
    if (write(ready[1], &ok, 1) != 1) _exit(2);
    char c;
    if (read(done[0], &c, 1) < 0) _exit(3);
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  const std::string msg = error_of([&] { experience_bank bank(tmp.path(), {.lock_wait = std::chrono::milliseconds(100)}); });
  const char c = 'x';
  EXPECT_EQ(write(done[1], &c, 1), 1);
  int status = 0;
  waitpid(child, &status, 0);
  close(ready[0]);
  close(ready[1]);
  close(done[0]);
  close(done[1]);
  EXPECT_NE(msg.find("in use by another process"), std::string::npos) << msg;
  EXPECT_NE(msg.find((tmp.path() / "LOCK").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("--bank"), std::string::npos) << msg;
  // Once the other process is gone the bank opens.
  experience_bank bank(tmp.path());
  EXPECT_EQ(bank.count(), 0u);
}

TEST(ExperienceBank, RocksDbMessagesAreTranslated) {
  const std::filesystem::path dir = "/data/bank";
  EXPECT_NE(explain_rocksdb_error("IO error: While lock file: /data/bank/LOCK: Resource temporarily unavailable",
                                  dir, "open")
                .find("cannot open the experience bank /data/bank: it is in use by another process"),
            std::string::npos);
  EXPECT_NE(explain_rocksdb_error("IO error: lock hold by current process, acquire time 1 acquiring thread 2: "
                                  "/data/bank/LOCK: No locks available", dir, "open")
                .find("already open in this process"),
            std::string::npos);
  EXPECT_NE(explain_rocksdb_error("Corruption: bad block", dir, "read").find("corrupt"), std::string::npos);
  EXPECT_EQ(explain_rocksdb_error("IO error: weird", dir, "open"),
            "cannot open the experience bank /data/bank (RocksDB: IO error: weird)");
}

TEST(ExperienceBank, MissingBankAndNewerSchemaAreRefused) {
  temp_dir tmp;
  const std::string missing = error_of([&] { experience_bank b(tmp.path() / "none", {.create_if_missing = false}); });
  EXPECT_NE(missing.find("no experience bank at"), std::string::npos) << missing;
  { experience_bank create(tmp.path() / "b"); }
  {
    // Simulate a bank written by a future version.
    rocksdb::DBOptions o;
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(o, (tmp.path() / "b").string(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> d;
    for (const auto& n : names) d.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> h;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, (tmp.path() / "b").string(), d, &h, &db).ok());
    const auto meta = std::find(names.begin(), names.end(), "meta") - names.begin();
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), h[static_cast<std::size_t>(meta)], "schema_version", "99").ok());
    for (auto* x : h) db->DestroyColumnFamilyHandle(x);
    ASSERT_TRUE(db->Close().ok());
    delete db;
  }
  const std::string newer = error_of([&] { experience_bank b(tmp.path() / "b"); });
  EXPECT_NE(newer.find("schema version 99, newer than this aopt understands"), std::string::npos) << newer;
}

TEST(ExperienceBank, MissingColumnFamiliesAreCreatedOnOpen) {
  temp_dir tmp;
  {
    // A RocksDB directory with only the default column family (e.g. an older or partial bank).
    rocksdb::Options o;
    o.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, tmp.path().string(), &db).ok());
    ASSERT_TRUE(db->Close().ok());
    delete db;
  }
  {
    experience_bank bank(tmp.path());
    EXPECT_EQ(bank.count(), 0u);
    bank.put(tuple("after upgrade", "launch_bound"));
  }
  experience_bank bank(tmp.path());
  EXPECT_EQ(bank.by_bottleneck(bottleneck_class::launch_bound).size(), 1u);
}

TEST(ExperienceBank, ImportPaperFormatIsIdempotent) {
  temp_dir tmp;
  experience_bank bank(tmp.path());
  const auto file = data_dir() / "paper_bank.json";
  const auto r1 = bank.import_file(file);
  EXPECT_EQ(r1.read, 5u);
  EXPECT_EQ(r1.inserted, 5u);
  EXPECT_EQ(r1.duplicates, 0u);
  const auto r2 = bank.import_file(file);
  EXPECT_EQ(r2.inserted, 0u);
  EXPECT_EQ(r2.duplicates, 5u);
  EXPECT_EQ(bank.count(), 5u);
  for (const auto& e : bank.all()) EXPECT_EQ(e.origin, search::provenance::import);
  auto titles = [](const std::vector<search::experience>& v) {
    std::set<std::string> s;
    for (const auto& e : v) s.insert(e.title);
    return s;
  };
  EXPECT_EQ(titles(bank.by_bottleneck(bottleneck_class::serialized_pipes)),
            std::set<std::string>{"Enable double buffering on the input queues"});
  EXPECT_EQ(titles(bank.by_bottleneck(bottleneck_class::bank_conflict)),
            std::set<std::string>{"Offset the second input by 256 bytes"});
  EXPECT_EQ(titles(bank.by_bottleneck(bottleneck_class::scalar_bound)),
            std::set<std::string>{"Replace the GetValue loop with vector Muls"});
  EXPECT_EQ(titles(bank.by_bottleneck(bottleneck_class::load_imbalance)),
            std::set<std::string>{"Spread the work over all vector cores"});
  EXPECT_TRUE(titles(bank.by_bottleneck(bottleneck_class::mte2_bound)).count("Use 32 KB transfers instead of 8 KB"));

  // Wrapped in an object, with duplicates inside the file: still the same five.
  const auto wrapped = tmp.path() / "wrapped.json";
  write_file(wrapped, "{\"entries\": " + common::read_text_file(file) + "}");
  const auto r3 = bank.import_file(wrapped, search::file_format::json, search::provenance::rewind);
  EXPECT_EQ(r3.inserted, 0u);
}

TEST(ExperienceBank, ExportJsonlAndJsonReimportIdentically) {
  temp_dir tmp;
  std::string jsonl, json;
  std::vector<search::experience> originals;
  {
    experience_bank bank(tmp.path() / "a");
    bank.import_file(data_dir() / "paper_bank.json", search::file_format::automatic, search::provenance::rewind);
    std::ostringstream a, b;
    EXPECT_EQ(bank.export_to(a, search::file_format::jsonl), 5u);
    EXPECT_EQ(bank.export_to(b, search::file_format::json), 5u);
    jsonl = a.str();
    json = b.str();
    originals = bank.all();
  }
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 5);
  for (const auto& [name, text] : {std::pair{"x.jsonl", jsonl}, std::pair{"x.json", json}}) {
    write_file(tmp.path() / name, text);
    experience_bank other(tmp.path() / (std::string("bank-") + name));
    const auto r = other.import_file(tmp.path() / name);
    EXPECT_EQ(r.inserted, 5u) << name;
    const auto back = other.all();
    ASSERT_EQ(back.size(), originals.size());
    for (std::size_t i = 0; i < back.size(); ++i)
      EXPECT_EQ(search::to_json(back[i]), search::to_json(originals[i])) << name;  // provenance, time kept
  }
}

TEST(ExperienceBank, MalformedFileIsRejectedWithFileIndexFieldAndChangesNothing) {
  temp_dir tmp;
  experience_bank bank(tmp.path() / "bank");
  bank.put(tuple("already here", "mte2_bound"));
  const auto file = tmp.path() / "bad.json";
  write_file(file,
             "[\n"
             "  {\"title\": \"ok 0\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\"},\n"
             "  {\"title\": \"ok 1\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\"},\n"
             "  {\"title\": \"bad\", \"description\": \"d\", \"bottleneck\": \"b\"}\n"
             "]\n");
  const std::string msg = error_of([&] { bank.import_file(file); });
  EXPECT_NE(msg.find(file.string() + ":4:3: entry 2: field 'code_diff': missing"), std::string::npos) << msg;
  EXPECT_EQ(bank.count(), 1u);

  const auto jl = tmp.path() / "bad.jsonl";
  write_file(jl,
             "{\"title\": \"ok\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\"}\n"
             "{\"title\": \"bad\", \"description\": [], \"bottleneck\": \"b\", \"code_diff\": \"\"}\n");
  const std::string msg2 = error_of([&] { bank.import_file(jl); });
  EXPECT_NE(msg2.find(jl.string() + ":2: entry 1: field 'description': expected a string, found array"),
            std::string::npos)
      << msg2;
  EXPECT_EQ(bank.count(), 1u);
  EXPECT_NE(error_of([&] { bank.import_file(tmp.path() / "absent.json"); }).find("absent.json"), std::string::npos);
}

}  // namespace
}  // namespace aopt::storage
