// The trace each instruction leaves (class, repeats, bank cycles, call site) and the hardware
// errors the vector API raises (kind, message, file and line of the offending call).
#include "vec_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::vec_class;

TEST(Trace, AddRecordConflictFreeAndConflicting) {
  unsigned line_free = 0, line_cflt = 0;
  auto r = vt::run_ok([&] {
    auto a = vt::ub<half>(0, 8192), b = vt::ub<half>(16384 + 256, 8192), c = vt::ub<half>(65536, 8192);
    Add(c, a, b, 8192); line_free = __LINE__;
    auto b2 = vt::ub<half>(32768, 8192);
    Add(c, a, b2, 8192); line_cflt = __LINE__;
  });
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].vclass, vec_class::binary);
  EXPECT_EQ(recs[0].repeats, 64u);
  EXPECT_EQ(recs[0].dtype_bytes, 2);
  EXPECT_EQ(recs[0].ub_addr, 65536u);
  EXPECT_EQ(recs[0].p, aopt::sim::pipe::v);
  EXPECT_EQ(recs[0].bank_cycles, 0);
  EXPECT_EQ(recs[1].bank_cycles, 2);
  const auto& sites = r.cores[0].sites;
  EXPECT_EQ(sites.at(recs[0].site).api, "Add");
  EXPECT_EQ(sites.at(recs[0].site).line, line_free);
  EXPECT_EQ(sites.at(recs[1].site).line, line_cflt);
  EXPECT_NE(sites.at(recs[0].site).file.find("test_trace_errors.cpp"), std::string::npos);
}

TEST(Trace, ClassesAndRepeatsOfOtherInstructions) {
  auto r = vt::run_ok([&] {
    auto h = vt::ub<half>(0, 256);
    auto fl = vt::ub<float>(4096, 1000), w = vt::ub<float>(16384, 64);
    auto d = vt::ub<float>(20480, 8);
    auto h2 = vt::ub<half>(24576, 256);
    Cast(fl, h, RoundMode::CAST_NONE, 256);         // 4 repeats of 64 lanes
    Exp(h2, h, 200);                                // ceil(200 / 128) = 2
    Div(h2, h, h, 256);                             // 2
    Duplicate(fl, 1.0f, 1000);                      // 16
    ReduceSum(d, fl, w, 1000);                      // 16, then 1
    Duplicate(fl, 1.0f, 64, 1, 16, 8);              // blkStride 16: 8 cycles per repeat
  });
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 7u);
  EXPECT_EQ(recs[0].vclass, vec_class::cast);
  EXPECT_EQ(recs[0].repeats, 4u);
  EXPECT_EQ(recs[0].dtype_bytes, 4);
  EXPECT_EQ(recs[1].vclass, vec_class::exp_ln);
  EXPECT_EQ(recs[1].repeats, 2u);
  EXPECT_EQ(recs[2].vclass, vec_class::div);
  EXPECT_EQ(recs[3].vclass, vec_class::duplicate);
  EXPECT_EQ(recs[3].repeats, 16u);
  EXPECT_EQ(recs[4].vclass, vec_class::reduce_sum);
  EXPECT_EQ(recs[4].repeats, 16u);
  EXPECT_EQ(recs[5].repeats, 1u);
  EXPECT_EQ(recs[6].bank_cycles, 8);
}

TEST(Trace, MaskSettersAreScalarWork) {
  auto r = vt::run_ok([&] {
    SetMaskCount();
    SetVectorMask<half, MaskMode::COUNTER>(0, 10);
    SetMaskNorm();
    ResetMask();
  });
  std::uint64_t cycles = 0;
  for (const auto& rec : r.cores[0].recs) {
    if (rec.kind == aopt::sim::rec_kind::scalar) cycles += rec.cycles;
  }
  EXPECT_EQ(cycles, 4u);
  EXPECT_TRUE(vt::vector_recs(r).empty());
}

namespace {
void expect_error(const aopt::sim::launch_result& r, hw_error_kind kind, unsigned line, const char* api,
                  const char* words) {
  ASSERT_TRUE(r.error.has_value()) << "expected " << aopt::sim::hw_error_kind_name(kind);
  EXPECT_EQ(r.error->kind, kind) << r.error->to_string();
  EXPECT_EQ(r.error->site.line, line) << r.error->to_string();
  EXPECT_NE(r.error->site.file.find("test_trace_errors.cpp"), std::string::npos) << r.error->site.file;
  EXPECT_EQ(r.error->site.api, api);
  EXPECT_NE(r.error->message.find(words), std::string::npos) << r.error->message;
  const std::string s = r.error->to_string();
  EXPECT_NE(s.find("test_trace_errors.cpp:" + std::to_string(line)), std::string::npos) << s;
}
}  // namespace

TEST(HwErrors, Misaligned) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<float>(16, 64), c = vt::ub<float>(1024, 64);
    line = __LINE__ + 1;
    Adds(c, a, 1.0f, 64);
  });
  expect_error(r, hw_error_kind::misaligned, line, "Adds", "32-byte aligned");
}

TEST(HwErrors, RepeatOver255) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<float>(0, 64), c = vt::ub<float>(1024, 64);
    line = __LINE__ + 1;
    Add(c, a, a, 64, 300, {1, 1, 1, 0, 0, 0});
  });
  expect_error(r, hw_error_kind::param_out_of_range, line, "Add", "repeatTimes 300");
}

TEST(HwErrors, OperandLeavesTensor) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<half>(0, 128), c = vt::ub<half>(1024, 64);
    line = __LINE__ + 1;
    Mul(c, a, a, 128);
  });
  // The chip checks no tensor bounds: inside UB the overrun reaches the next buffer (a warning).
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].kind, hw_error_kind::ub_out_of_bounds);
  EXPECT_EQ(r.warnings[0].site.line, line);
  EXPECT_NE(r.warnings[0].message.find("holds 128 from there"), std::string::npos) << r.warnings[0].message;
}

TEST(HwErrors, OperandLeavesUb) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<half>(0, 128), c = vt::ub<half>(aopt::sim::ub_capacity() - 64, 32);
    line = __LINE__ + 1;
    Mul(c, a, a, 128);
  });
  expect_error(r, hw_error_kind::ub_overflow, line, "Mul", "past the end");
}

TEST(HwErrors, StridedOperandLeavesTensor) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<float>(0, 128), c = vt::ub<float>(1024, 128);
    line = __LINE__ + 1;
    Exp(c, a, 64, 2, {2, 1, 8, 8});  // dst blocks 0,2,..,14 then repeat 1 up to block 22
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  ASSERT_EQ(r.warnings.size(), 1u) << "dst runs past its tensor, inside UB";
  EXPECT_EQ(r.warnings[0].site.line, line);
  EXPECT_NE(r.warnings[0].message.find("dst"), std::string::npos) << r.warnings[0].message;
}

TEST(HwErrors, BadContinuousMask) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto a = vt::ub<float>(0, 128);
    line = __LINE__ + 1;
    Muls(a, a, 2.0f, 65, 1, {1, 1, 8, 8});  // fp32 repeats hold 64 lanes
  });
  expect_error(r, hw_error_kind::param_out_of_range, line, "Muls", "continuous mask 65");
}

TEST(HwErrors, GatherOffsetOutside) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto s = vt::ub<float>(0, 8), d = vt::ub<float>(1024, 8);
    auto off = vt::ub<uint32_t>(2048, 8);
    vt::fill(off, std::vector<uint32_t>{0, 4, 8, 4096, 0, 0, 0, 0});
    line = __LINE__ + 1;
    Gather(d, s, off, 0, 8);
  });
  expect_error(r, hw_error_kind::ub_out_of_bounds, line, "Gather", "outside src");
}

TEST(HwErrors, CastMisalignedDestination) {
  unsigned line = 0;
  auto r = vt::run([&] {
    auto s = vt::ub<half>(0, 64);
    auto d = vt::ub<float>(1028, 64);
    line = __LINE__ + 1;
    Cast(d, s, RoundMode::CAST_NONE, 64);
  });
  expect_error(r, hw_error_kind::misaligned, line, "Cast", "dst");
}
