#include <gtest/gtest.h>

#include "aopt/common/sha256.h"

using aopt::common::sha256;
using aopt::common::sha256_hex;

TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, StreamingEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>(i * 7);
  for (std::size_t split : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 999u}) {
    sha256 h;
    h.update(data.substr(0, split)).update(data.substr(split));
    EXPECT_EQ(h.finish_hex(), sha256_hex(data)) << "split " << split;
  }
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  EXPECT_NE(sha256().field("ab").field("c").finish_hex(), sha256().field("a").field("bc").finish_hex());
}
