// A kernel translation unit (built as candidates are: __CCE_AICORE__) that includes the tiling
// header machinery may declare global names a host-only CANN header puts in the global namespace
// (platform_info_def.h: `using std::map; using std::string; using std::vector;`): a real kernel
// build never sees that header. Compiling this file is the check; the test uses what it declares.
#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "register/tilingdata_base.h"

template <typename K, typename V>
struct map {  // a kernel's own (a key/value pair table), as a real kernel may name it
  K key;
  V value;
};
struct string {
  int length = 3;
};
struct vector {
  float x = 1, y = 2, z = 3;
};

TEST(KernelTuNames, AKernelMayDeclareGlobalMapStringAndVector) {
  map<int, float> m{1, 2.0f};
  string s;
  vector v;
  EXPECT_EQ(m.key + s.length, 4);
  EXPECT_FLOAT_EQ(m.value + v.z, 5.0f);
}
