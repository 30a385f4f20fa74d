// kv_store's column families, read-only opens and writers that wait, which the experience bank
// now stands on (it opened RocksDB itself before): keys of one family are not seen in another,
// a read-only open sees the store as it was and refuses writes, a missing family is named.
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/storage/kv_store.h"
#include "bank_test_util.h"

namespace aopt::storage {
namespace {

using namespace aopt::storage::test;

kv_store::options with_families(bool read_only = false) {
  kv_store::options o;
  o.names = {"test store", "wait", "share it", "move it away"};
  o.families = {"a", "b"};
  o.read_only = read_only;
  return o;
}

TEST(KvFamilies, KeysStayInTheirFamily) {
  temp_dir tmp;
  kv_store kv(tmp.path() / "kv", with_families());
  const auto a = kv.family("a"), b = kv.family("b");
  kv.write({{kv_write::kind::put, "k1", "in a", a}, {kv_write::kind::put, "k1", "in b", b},
            {kv_write::kind::put, "k2", "in a", a}});
  EXPECT_EQ(kv.get(a, "k1"), "in a");
  EXPECT_EQ(kv.get(b, "k1"), "in b");
  EXPECT_FALSE(kv.get("k1"));  // the default family has nothing
  EXPECT_EQ(kv.count(a, "k"), 2u);
  EXPECT_EQ(kv.keys(a, "k", "2"), std::vector<std::string>{"k2"});
  EXPECT_EQ(kv.scan(b, "").size(), 1u);
  kv.write({{kv_write::kind::erase, "k1", "", a}});
  EXPECT_FALSE(kv.get(a, "k1"));
  EXPECT_EQ(kv.get(b, "k1"), "in b");
  EXPECT_THROW(kv.family("c"), aopt::error);
}

TEST(KvFamilies, ReadOnlyOpenSeesTheStoreAndRefusesWrites) {
  temp_dir tmp;
  {
    kv_store kv(tmp.path() / "kv", with_families());
    kv.write({{kv_write::kind::put, "x", "1", kv.family("b")}});
  }
  kv_store writer(tmp.path() / "kv", with_families());  // holds the lock: readers still open
  kv_store reader(tmp.path() / "kv", with_families(/*read_only=*/true));
  EXPECT_EQ(reader.get(reader.family("b"), "x"), "1");
  try {
    reader.put("y", "2");
    FAIL() << "a read-only store took a write";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
}

TEST(KvFamilies, ReadOnlyOpenNamesAMissingFamily) {
  temp_dir tmp;
  {
    kv_store::options o;
    o.names = {"test store", "", "", ""};
    kv_store kv(tmp.path() / "kv", o);  // made without families
    kv.put("k", "v");
  }
  try {
    kv_store kv(tmp.path() / "kv", with_families(/*read_only=*/true));
    FAIL() << "opened without its families";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::invalid_spec);
    EXPECT_NE(std::string(e.what()).find("has no column family 'a'"), std::string::npos) << e.what();
  }
  kv_store kv(tmp.path() / "kv", with_families());  // a writer adds them; the old keys stay
  EXPECT_EQ(kv.get("k"), "v");
  EXPECT_FALSE(kv.get(kv.family("a"), "k"));
}

TEST(KvFamilies, ReadOnlyOpenOfNothingIsNotFound) {
  temp_dir tmp;
  try {
    kv_store kv(tmp.path() / "absent", with_families(/*read_only=*/true));
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), ec::not_found) << e.what();
  }
}

}  // namespace
}  // namespace aopt::storage
