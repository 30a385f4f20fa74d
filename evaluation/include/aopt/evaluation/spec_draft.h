// `aopt init OP_DIR`: a draft aopt.json made from the operator itself (docs/evaluation.md,
// "Drafting a spec: aopt init"). This header holds the pure half: the operator's interface as
// `host --signature` reports it, the shapes and attributes worth trying (probes), the value
// ranges its math needs, and the spec written from the probes the tiling accepted. The impure
// half, which builds the host and runs each probe's tiling, is spec_draft_probe.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

// One input or output of the OpDef (signature "inputs"/"outputs").
struct draft_param {
  std::string name;
  std::string kind = "required";      // required, optional, dynamic (a tensor list)
  std::vector<std::string> dtypes;    // per column, aopt.json names ("unsupported" when none)
  std::vector<std::string> formats;   // per column, e.g. "ND", "NCHW"
  bool value_depend = false;          // the tiling reads its data
};

struct draft_attr {
  std::string name;
  std::string type;                   // bool, int, float, string, list_int, list_float, list_bool, data_type
  bool required = false;
  nlohmann::json default_value;       // null when required
};

// The OpDef as `host --signature` prints it (docs/harness-protocol.md, "Running").
struct op_interface {
  std::string op_type, kernel;
  std::vector<draft_param> inputs, outputs;
  std::vector<draft_attr> attrs;
  bool has_infer_shape = false;
  // Throws aopt::error(invalid_argument) when `signature` is not an object with "inputs".
  static op_interface from_signature(const nlohmann::json& signature);
  std::size_t columns() const;        // dtype columns (the longest dtypes list; at least 1)
};

// The dtype column a draft uses: the first whose inputs all have an aopt.json dtype, preferring
// float16, then float32, then bfloat16 for the first input. nullopt when no column is usable.
std::optional<std::size_t> preferred_column(const op_interface& op);

// What an input is guessed to be, from its name (and the operator's): decides its shape in a
// probe and its value range.
enum class input_role {
  data,       // shaped like the main tensor
  vector,     // a per-channel parameter: the main shape's last dimension (gamma, beta, weight, bias, scale,
              // running_mean); its dimension 1 (C) for a channel-first operator (NCHW, NCDHW, NCL)
  stat,       // a norm's statistic (mean, rstd, variance): the main shape with its last dimension 1 (a
              // layer norm's per-row value); [N, groups] for a channel-first operator with a group count
  scalar,     // one element (value, alpha, a scalar operand)
  index,      // indices into another input: one dimension, values within bounds
  axis,       // axes given as data: one element, value -1
  paddings,   // paddings given as data: two per dimension of the main tensor, value 0 (nothing added)
  rows,       // a group's rows of the last dimension: [kGroupRows, the main shape's last dimension] (a
              // per-group scale of a grouped quantisation or matmul: one row per group)
  grid,       // a sampling grid (grid_sample): [N, the main shape's spatial sizes..., their count], values in
              // [-1, 1] (normalised coordinates); spatial after N and C, or between N and C with channel_last
  groups,     // one value per group: [kGroupRows], indices within bounds (a group index, group sizes)
  topk,       // k indices per row of the main tensor: [its first dimension, kTopK], within bounds (a top-k
              // routing's expert_idx, top-k's indices)
};
// The group count of the `rows`/`groups` probe family: small, so indices into it stay in bounds.
inline constexpr std::int64_t kGroupRows = 4;
// The k of the `topk` probe: a mixture-of-experts routing's top-k, small so its outputs (rows x k) stay near the input.
inline constexpr std::int64_t kTopK = 4;
input_role guess_role(const std::string& op_type, const draft_param& in);
// Whether an input the kernel reads as indices must be sorted, from its name: "sorted" in it
// (sorted_indices) or offsets of bags (offsets). probe_case generates it sorted (tensor_spec::sorted).
bool sorted_input(const draft_param& in);

// A value range an input needs, with the note saying why (empty `note` and no range: the
// generator's default, [-1, 1] for floats, small integers). `index_bound` is the smallest
// dimension of the case's data inputs (indices stay below it); `position` is the input's place
// in the OpDef (a division's divisor is any data input but the first).
struct range_guess {
  std::optional<std::pair<double, double>> range;
  std::string note;
};
range_guess guess_range(const std::string& op_type, const draft_param& in, std::size_t position, input_role role,
                        dtype type, std::int64_t index_bound);

// A value for each attribute the case must or may set: the OpDef's default, else a guess by
// type and name (axis/dim -1, eps 1e-5, a count 1, ...); an attribute naming the output's type
// (dst_type, dtype, out_dtype: int or data_type) is the first output's dtype in `column` as a
// ge::DataType number, its default included. `notes` gets one line per guess.
nlohmann::json draft_attrs(const op_interface& op, std::size_t column, std::vector<std::string>& notes);
// ge::DataType's number of a dtype (DT_FLOAT 0, DT_FLOAT16 1, DT_INT32 3, DT_BF16 27, ...).
int ge_dtype_number(dtype t);
// Other values worth trying for the guessed attributes when no probe with draft_attrs is
// accepted (axis 0 and 1, keep_dims true, ...): each a full attrs object.
std::vector<nlohmann::json> attr_variants(const op_interface& op, const nlohmann::json& base);

// The main tensor's shape in a probe: rank `rank`, about `elements` elements for the timed case
// ([elements / 1024, 1024] at rank 2; `last` overrides the last dimension), or the unaligned tail
// shape ([37037], [37, 1001], [3, 37, 1001], ...) when `tail`.
std::vector<std::int64_t> main_shape(int rank, std::int64_t elements, bool tail, std::int64_t last = 0);

// The main shape of a square probe (probe::square): [S, S] with S a multiple of 16 near the square
// root of `elements`, at most 512 (a product costs S^3: the timed case stays quick on sim); the
// tails [101, 101] (unaligned) and [112, 112] (`last` > 0: aligned).
std::vector<std::int64_t> square_shape(std::int64_t elements, bool tail, std::int64_t last = 0);

// A matrix product probe's dimensions (probe::product) {M, K, N}: M = N = 2S, K = S / 2 from the
// square side S (square_shape), so a [M, K] and b [K, N] hold 2 S^2 / 2 elements each, neither fits
// a core's L1 whole at the timed size (a tiling's full-load template is its own branch) and the
// product costs S^3 as the square one; the tails {202, 50, 202} and {224, 56, 224}.
std::array<std::int64_t, 3> product_dims(std::int64_t elements, bool tail, std::int64_t last = 0);

// Whether the operator's type names a matrix product (MatMul, BatchMatMul, Gemm, Bmm, ... anywhere
// in the name, case and underscores ignored): its probes start with square ones.
bool matrix_product_op(const std::string& op_type);

// Whether the operator follows the convolution idiom (Conv2D/Conv3D and their backprop and
// transpose forms): integer-list attributes `strides` and `pads` and an input named `filter` or
// `filter_size`. Its probes start with one convolution geometry (conv_shapes).
bool convolution_op(const op_interface& op);

// One convolution's shapes, channel first (NCHW / NCDHW) at `rank` (4 or 5), stride 1, no padding,
// dilation 1, one group: the input x [N, C, S...], the filter [Cout, C, K...] and the output
// [N, Cout, S-K+1...]. A shape given as data (`input_size`, `filter_size`: one value per dimension)
// is drafted as a range of one value, so that shape has every dimension equal: N = C = S when the
// input's is, Cout = C = K when the filter's is. A tail case takes S = 7 (odd) for 8. `kernel`: K
// (3; 1 for the pointwise probe that follows: conv3dv2 runs its NCDHW formats only for a 1x1x1
// filter, its pointwise kernel) when no size is given as data.
struct conv_geometry {
  std::vector<std::int64_t> input, filter, output;
};
conv_geometry conv_shapes(int rank, bool input_size_given, bool filter_size_given, bool tail = false, int kernel = 3);

// One try: every present input's shape (in OpDef order) and the attributes, and what it is.
struct probe {
  std::string what;                    // "rank 2, same shape", ...
  int rank = 2;
  std::int64_t last = 0;               // main_shape's `last` (0: the default)
  std::vector<std::pair<std::string, input_role>> roles;  // present inputs: role each
  bool with_optional = false;
  nlohmann::json attrs = nlohmann::json::object();
  // A matrix product's operands: the main shape is square ([S, S], square_shape), so the first two
  // inputs, both shaped like it, agree on the inner dimension whichever of them is transposed.
  bool square = false;
  // The matrix-product idiom (matrix_product_op): the first input a [M, K], the second b [K, N]
  // (each transposed when its transpose attribute is set), M = N = 2K from the square side
  // (product_dims); the other inputs by name: a bias or scale [N], alpha/beta one element, any
  // other data [M, N] (gemm's addend c); the outputs [M, N] when the operator has no InferShape.
  bool product = false;
  // Every output given the main shape, so the harness does not run InferShape: an aclnn caller
  // gives the outputs itself, and some operators' InferShape fails where their tiling and kernel
  // work (it reads an attribute its OpDef never declares).
  bool outputs_given = false;
  // The convolution idiom (convolution_op): each input shaped by its name from conv_shapes, a size
  // input given as one value per dimension.
  bool conv = false;
  int conv_kernel = 3;  // the filter's spatial size K (conv_shapes)
  // The resize idiom read channel-last (NHWC, NDHWC, NLC: the spatial sizes between N and C, the
  // last dimension): an `output_size` left unset takes the main shape's dimensions 1 to rank - 2.
  // For an ND operator, which a tiling may read either way (upsample_nearest: NCHW when the
  // format says so, NHWC otherwise).
  bool channels_last = false;
  // The resize idiom upsampling: an `output_size` left unset takes the spatial sizes times this
  // (2: a 2x upsample, after the identity's probes; an operator may refuse or mishandle scale 1,
  // upsample_bilinear2d_aa's W pass divides by its zero cores). Without an InferShape the outputs
  // are given that shape.
  int resize_scale = 1;
  // The pooling lists (ksize, strides, pads) one value per spatial dimension (PyTorch's
  // kernel_size, stride, padding) where the OpDef gives no sign which convention its tiling reads:
  // avg_pool3_d's InferShape wants two pads per spatial dimension, avg_pool3_d_grad's tiling one.
  bool pool_per_dimension = false;
  // The CTC loss idiom (PyTorch's ctc_loss and its backward: log_probs [T, N, C], targets,
  // input/target lengths, log_alpha): each input shaped by its name from a main shape of rank 3.
  bool ctc = false;
};

// The probes for the timed case, most likely first, at most `max_probes`: for a matrix product
// (matrix_product_op) first the square rank-2 probes (the first two inputs data, the others by name;
// then every input data); ranks from the
// formats (NCDHW: 5, NCHW/NHWC: 4) then 2, 1, 3, 4; per rank the roles all-data, by-name,
// first-data-others-scalar, first-data-others-vector; then with optional inputs; then the
// attribute variants (at rank 2 also the grouped family: the first input [S, H], the other float
// inputs [kGroupRows, H] and the integer group/index ones [kGroupRows], after the four role sets); last, for an operator with InferShape, the two likeliest ranks with every
// output given the main shape (probe::outputs_given); for an operator of the resize idiom whose
// first input is not channel-first, the two likeliest ranks with output_size read channel-last
// (probe::channels_last).
std::vector<probe> timed_probes(const op_interface& op, const nlohmann::json& attrs, std::size_t max_probes = 48);

// The size to draft an operator at whose InferShape made an output of `out` elements from inputs of
// at most `in` (more than the probe accepts: a vector's diagonal matrix, an outer product): the
// output taken to grow as the input to a power k (out = in^k), the input size whose output holds
// about `elements`, elements^(1/k). 0 when the output does not grow faster than the input (k <= 1).
std::int64_t size_for_output(std::int64_t elements, std::int64_t in, std::int64_t out);

// The case a probe makes in `column`: tensors shaped by role (a list input holds two tensors),
// ranges by guess_range (notes appended to `notes` once per input), the probe's attributes.
case_spec probe_case(const op_interface& op, const probe& p, std::size_t column, const std::string& name,
                     bool timed, std::int64_t elements, bool tail, std::vector<std::string>* notes = nullptr);

// The tail shapes to try after the probe the timed case took, in order: the unaligned tail, then
// tails aligned in the last dimension (the operator may refuse ragged rows; the note says so).
std::vector<probe> tail_probes(const probe& timed);

// The draft aopt.json (DESIGN.md section 4): kernel, notes, the cases, tolerances by dtype (the
// defaults of tolerance_spec::for_dtype for every float dtype the cases use), reference
// "baseline". Input ranges are written only where guessed.
nlohmann::ordered_json draft_json(const std::string& kernel, const std::vector<case_spec>& cases,
                                  const std::vector<std::string>& notes);
// draft_json as text: one case per line, as a person would write it.
std::string draft_text(const nlohmann::ordered_json& spec);

}  // namespace aopt::evaluation
