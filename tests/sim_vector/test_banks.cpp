// banks.h: bank-group conflict cost per repeat (MODEL.md section 3 and the official examples).
#include <gtest/gtest.h>

#include "aopt_sim/kernel/banks.h"

using aopt::sim::bank_access;
using aopt::sim::bank_conflict_cycles;

TEST(Banks, ContiguousAddIsConflictFree) {
  // src0 at 0, src1 256 B further (other 8 groups), dst in another 64 KB bank.
  const bank_access ops[] = {{0, 1, 8, false}, {256, 1, 8, false}, {0x10000, 1, 8, true}};
  EXPECT_EQ(bank_conflict_cycles(ops), 0);
}

TEST(Banks, TwoInputsInSameGroupsCostTwo) {
  const bank_access ops[] = {{0, 1, 8, false}, {8192, 1, 8, false}, {0x10000 + 256, 1, 8, true}};
  EXPECT_EQ(bank_conflict_cycles(ops), 2);
}

TEST(Banks, BlockStride16And8) {
  const bank_access s16[] = {{0x1FE00, 16, 8, true}};
  EXPECT_EQ(bank_conflict_cycles(s16), 8);
  const bank_access s8[] = {{0x1FE00, 8, 8, true}};
  EXPECT_EQ(bank_conflict_cycles(s8), 4);
}

TEST(Banks, ReadWriteSameBankAddsOne) {
  // Official example 2: src 0x10020 and dst 0x10E20 are both in bank 17.
  const bank_access same[] = {{0x10020, 1, 1, false}, {0x10E20, 1, 1, true}};
  EXPECT_EQ(bank_conflict_cycles(same), 2);
  // Example 1: 0x10020 (bank 17) and 0x10000 (bank 16): no conflict.
  const bank_access diff[] = {{0x10020, 1, 1, false}, {0x10000, 1, 1, true}};
  EXPECT_EQ(bank_conflict_cycles(diff), 0);
  // Same group, different bank (0x10020 vs 0x20020): read/write does not conflict...
  const bank_access rw_other_bank[] = {{0x10020, 1, 1, false}, {0x20020, 1, 1, true}};
  EXPECT_EQ(bank_conflict_cycles(rw_other_bank), 0);
  // ...but two reads in the same group do.
  const bank_access rr[] = {{0x10020, 1, 1, false}, {0x20020, 1, 1, false}};
  EXPECT_EQ(bank_conflict_cycles(rr), 2);
}
