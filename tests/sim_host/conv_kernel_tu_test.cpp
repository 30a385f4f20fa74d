// Issue 38 (s25-conv): the interface header names conv/'s and stft's kernels include
// (kernel_operator_{data_copy,fixpipe,mm}_intf.h, kernel_tpipe.h) resolve in a kernel TU and give
// the basic API, and AscendC::BLOCK_CUBE is the cube fractal's edge on the kernel side too.
// Compiling this file is most of the check.
#include <gtest/gtest.h>

#include <type_traits>

#include "kernel_operator_data_copy_intf.h"
#include "kernel_operator_fixpipe_intf.h"
#include "kernel_operator_mm_intf.h"
#include "kernel_tpipe.h"

TEST(ConvKernelHeaders, InterfaceHeaderNamesGiveTheBasicApi) {
  static_assert(std::is_class_v<AscendC::TPipe>);
  static_assert(std::is_class_v<AscendC::LoadData2DParams>);
  static_assert(std::is_class_v<AscendC::MmadParams>);
  static_assert(std::is_class_v<AscendC::DataCopyParams>);
  EXPECT_EQ(static_cast<int>(AscendC::BLOCK_CUBE), 16);
}
