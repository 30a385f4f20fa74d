// `aopt init`'s matrix-product idiom (issue 38): an operator whose type names a matrix product
// (cann-ops' MatMulV3, BatchMatMulV3, GemmV2, QuantBatchMatmulV3, ...) is probed first with square
// operands, so [S, S] x [S, S] agree on the inner dimension (transposed or not) and a bias takes
// S. Before, every probe gave x1 and x2 the same non-square shape ([2048, 1024] x [2048, 1024]) or
// a vector, and mat_mul_v3's InferShape refused them all ("The k-axis of a(1024) and b(2048)
// tensors must be the same").
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "aopt/evaluation/spec_draft.h"

namespace ev = aopt::evaluation;

namespace {

ev::draft_param param(const std::string& name, const std::string& kind = "required") {
  ev::draft_param p;
  p.name = name;
  p.kind = kind;
  p.dtypes = {"float16"};
  p.formats = {"ND"};
  return p;
}

ev::op_interface op_of(const std::string& type, std::vector<ev::draft_param> inputs) {
  ev::op_interface op;
  op.op_type = type;
  op.kernel = "k";
  op.inputs = std::move(inputs);
  op.outputs = {param("y")};
  op.has_infer_shape = true;
  return op;
}

}  // namespace

TEST(SpecDraftMatmul, MatrixProductTypesAreRecognisedByName) {
  for (const char* t : {"MatMulV3", "BatchMatMulV3", "GemmV2", "QuantBatchMatmulV3", "matmul_leakyrelu", "Bmm"}) {
    EXPECT_TRUE(ev::matrix_product_op(t)) << t;
  }
  for (const char* t : {"Add", "Gelu", "Mul", "MatrixDiag"}) EXPECT_FALSE(ev::matrix_product_op(t)) << t;
}

TEST(SpecDraftMatmul, SquareOperandsFollowTheProductAndTheBiasTakesTheirSide) {
  const auto op = op_of("MatMulV3", {param("x1"), param("x2"), param("bias", "optional")});
  auto probes = ev::timed_probes(op, nlohmann::json::object());
  // The a [M, K] x b [K, N] probes first (SpecDraftMatmul.ProductProbes...), then the square ones.
  ASSERT_GE(probes.size(), 5u);
  ASSERT_TRUE(probes[0].product && probes[1].product) << probes[0].what;
  probes.erase(probes.begin(), probes.begin() + 2);
  ASSERT_TRUE(probes[0].square) << probes[0].what;
  EXPECT_FALSE(probes[0].with_optional);
  const auto c = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false);
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{512, 512}));
  EXPECT_EQ(c.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{512, 512}));

  // With the optional bias, by name: one value per column.
  const ev::probe* with_bias = nullptr;
  for (const auto& p : probes) {
    if (p.square && p.with_optional) {
      with_bias = &p;
      break;
    }
  }
  ASSERT_NE(with_bias, nullptr);
  const auto b = ev::probe_case(op, *with_bias, 0, "perf", true, 1 << 21, false);
  ASSERT_EQ(b.inputs.size(), 3u);
  EXPECT_EQ(b.inputs[2].tensors[0].shape, (std::vector<std::int64_t>{512}));

  // Small element counts: a multiple of 16 whose square stays within them; tails stay square.
  EXPECT_EQ(ev::probe_case(op, probes[0], 0, "perf", true, 4096, false).inputs[0].tensors[0].shape,
            (std::vector<std::int64_t>{64, 64}));
  const auto tails = ev::tail_probes(probes[0]);
  ASSERT_EQ(tails.size(), 2u);
  EXPECT_EQ(ev::probe_case(op, tails[0], 0, "tail", false, 1 << 21, true).inputs[1].tensors[0].shape,
            (std::vector<std::int64_t>{101, 101}));
  EXPECT_EQ(ev::probe_case(op, tails[1], 0, "tail", false, 1 << 21, true).inputs[1].tensors[0].shape,
            (std::vector<std::int64_t>{112, 112}));
}

TEST(SpecDraftMatmul, OtherOperatorsGetNoSquareProbe) {
  const auto op = op_of("Add", {param("x1"), param("x2")});
  for (const auto& p : ev::timed_probes(op, nlohmann::json::object())) EXPECT_FALSE(p.square) << p.what;
}

// s29 (issue 38): a matrix product is probed first as one product of distinct sides, a [M, K] x
// b [K, N] with M = N = 2K: gemm_v2's tiling runs its only kernel branch (the general template)
// on no square shape init gave it ([512, 512]: nothing written), and its other inputs (alpha,
// beta, the addend c) and its output (no InferShape) take their own shapes.
TEST(SpecDraftMatmul, ProductProbesGiveEachOperandItsSide) {
  auto op = op_of("GemmV2", {param("a"), param("b"), param("alpha"), param("beta"), param("c")});
  op.outputs = {param("c")};
  op.has_infer_shape = false;
  const auto probes = ev::timed_probes(op, nlohmann::json::object());
  ASSERT_FALSE(probes.empty());
  ASSERT_TRUE(probes[0].product) << probes[0].what;
  EXPECT_EQ(ev::product_dims(1 << 21, false), (std::array<std::int64_t, 3>{1024, 256, 1024}));
  const auto c = ev::probe_case(op, probes[0], 0, "perf", true, 1 << 21, false);
  ASSERT_EQ(c.inputs.size(), 5u);
  EXPECT_EQ(c.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{1024, 256}));
  EXPECT_EQ(c.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{256, 1024}));
  EXPECT_EQ(c.inputs[2].tensors[0].shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(c.inputs[3].tensors[0].shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(c.inputs[4].tensors[0].shape, (std::vector<std::int64_t>{1024, 1024}));
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].shape, (std::vector<std::int64_t>{1024, 1024}));
  // Transposed operands as the attributes say.
  const auto t = ev::probe_case(op, ev::timed_probes(op, {{"transpose_a", true}, {"transpose_b", true}})[0], 0, "perf", true,
                                1 << 21, false);
  EXPECT_EQ(t.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{256, 1024}));
  EXPECT_EQ(t.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{1024, 256}));
  // The tails: unaligned sides.
  const auto tails = ev::tail_probes(probes[0]);
  ASSERT_FALSE(tails.empty());
  const auto tail = ev::probe_case(op, tails[0], 0, "tail", false, 1 << 21, true);
  EXPECT_EQ(tail.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{202, 50}));
  EXPECT_EQ(tail.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{50, 202}));
}

TEST(SpecDraftMatmul, ProductProbeGivesTheBiasOneValuePerColumnAndLeavesShapedOutputsToInferShape) {
  const auto op = op_of("MatMulV3", {param("x1"), param("x2"), param("bias", "optional")});
  const auto probes = ev::timed_probes(op, nlohmann::json::object());
  ASSERT_GE(probes.size(), 2u);
  ASSERT_TRUE(probes[1].product && probes[1].with_optional) << probes[1].what;
  const auto c = ev::probe_case(op, probes[1], 0, "perf", true, 1 << 21, false);
  ASSERT_EQ(c.inputs.size(), 3u);
  EXPECT_EQ(c.inputs[2].tensors[0].shape, (std::vector<std::int64_t>{1024}));
  EXPECT_TRUE(c.outputs.empty());  // its InferShape shapes y
}
