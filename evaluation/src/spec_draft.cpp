// The pure half of `aopt init` (spec_draft.h): interface, probes, ranges, attributes, the draft.
#include "aopt/evaluation/spec_draft.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>

#include "aopt/common/error.h"

namespace aopt::evaluation {

namespace {

// Adds a draft note once (the same guess made for several inputs or probes is said once).
void note_once(std::vector<std::string>* notes, const std::string& note) {
  if (notes != nullptr && std::find(notes->begin(), notes->end(), note) == notes->end()) notes->push_back(note);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

// The operator's name in lower case without separators: "ApplyAdamWV2" and "apply_adam_w_v2"
// both read "applyadamwv2".
std::string op_key(const std::string& op_type) {
  std::string out;
  for (char c : lower(op_type)) {
    if (c != '_') out += c;
  }
  return out;
}

bool all_integer(const draft_param& p) {
  if (p.dtypes.empty()) return false;
  for (const auto& d : p.dtypes) {
    const auto t = parse_dtype(d);
    if (!t || is_float(*t) || is_complex(*t) || *t == dtype::bool_) return false;
  }
  return true;
}

// An integer-list attribute the OpDef leaves for the caller: no default (required), or an empty one
// (`.ListInt()`: avg_pool3_d_grad's ksize, strides and pads).
bool unset_list(const draft_attr& a) {
  return a.type == "list_int" && (a.default_value.is_null() || (a.default_value.is_array() && a.default_value.empty()));
}

// The pooling idiom's lists left to the caller: a window (ksize, kernel_size) and pads (padding,
// paddings), without the per-spatial-dimension dilation default that settles their convention.
bool unsettled_pooling(const op_interface& op) {
  bool window = false, pads = false, dilation = false;
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    window = window || (unset_list(a) && one_of(n, {"ksize", "kernel_size"}));
    pads = pads || (unset_list(a) && one_of(n, {"pads", "padding", "paddings"}));
    dilation = dilation || (a.type == "list_int" && one_of(n, {"dilation", "dilations"}));
  }
  return window && pads && !dilation;
}

// An integer input carrying, as values, the shape of the forward operator's input (a gradient
// operator's `orig_input_shape`, TensorFlow's AvgPoolGrad; `input_shape`, `orig_shape`): the
// InferShape gives the output that shape and the tiling reads the spatial sizes from it.
bool forward_shape_input(const draft_param& p) {
  if (!all_integer(p)) return false;
  const std::string n = lower(p.name);
  return one_of(n, {"orig_input_shape", "orig_shape", "input_shape", "orig_input_size", "orig_input_sizes"});
}

const draft_param* find_input(const op_interface& op, const std::string& name) {
  for (const auto& p : op.inputs) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// An operator of the CTC loss idiom: PyTorch's ctc_loss inputs log_probs, targets, input_lengths
// and target_lengths.
bool ctc_loss_op(const op_interface& op) {
  for (const char* n : {"log_probs", "targets", "input_lengths", "target_lengths"}) {
    if (find_input(op, n) == nullptr) return false;
  }
  return true;
}

// A float attribute's default as the OpDef wrote it: the float32 value with the fewest digits
// (1e-06, not 9.999999974752427e-07).
nlohmann::json float_text(const std::string& type, const nlohmann::json& v) {
  auto shortest = [](double d) {
    const float f = static_cast<float>(d);
    for (int digits = 1; digits <= 9; ++digits) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
      const double back = std::strtod(buf, nullptr);
      if (static_cast<float>(back) == f) return back;
    }
    return d;
  };
  if (type == "float" && v.is_number_float()) return shortest(v.get<double>());
  if (type == "list_float" && v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& x : v) out.push_back(x.is_number_float() ? nlohmann::json(shortest(x.get<double>())) : x);
    return out;
  }
  return v;
}

}  // namespace

op_interface op_interface::from_signature(const nlohmann::json& sig) {
  if (!sig.is_object() || !sig.contains("inputs") || !sig["inputs"].is_array()) {
    throw error(ec::invalid_argument, "the operator's signature (host --signature) has no \"inputs\" list");
  }
  op_interface op;
  op.op_type = sig.value("op_type", std::string());
  op.kernel = sig.value("kernel", std::string());
  op.has_infer_shape = sig.value("has_infer_shape", false);
  auto params = [](const nlohmann::json& arr) {
    std::vector<draft_param> out;
    if (!arr.is_array()) return out;
    for (const auto& j : arr) {
      draft_param p;
      p.name = j.value("name", std::string());
      p.kind = j.value("param_type", std::string("required"));
      p.value_depend = j.value("value_depend", false);
      for (const auto& d : j.value("dtypes", nlohmann::json::array())) p.dtypes.push_back(d.is_string() ? d.get<std::string>() : "unsupported");
      for (const auto& f : j.value("formats", nlohmann::json::array())) p.formats.push_back(f.is_string() ? f.get<std::string>() : "");
      out.push_back(std::move(p));
    }
    return out;
  };
  op.inputs = params(sig["inputs"]);
  op.outputs = params(sig.value("outputs", nlohmann::json::array()));
  for (const auto& j : sig.value("attrs", nlohmann::json::array())) {
    draft_attr a;
    a.name = j.value("name", std::string());
    a.type = j.value("type", std::string());
    a.required = j.value("required", false);
    a.default_value = j.contains("default") ? j["default"] : nlohmann::json();
    op.attrs.push_back(std::move(a));
  }
  return op;
}

std::size_t op_interface::columns() const {
  std::size_t n = 1;
  for (const auto& p : inputs) n = std::max(n, p.dtypes.size());
  for (const auto& p : outputs) n = std::max(n, p.dtypes.size());
  return n;
}

namespace {

// The dtype of parameter `p` in column `col` (a single-dtype list serves every column).
std::optional<dtype> dtype_at(const draft_param& p, std::size_t col) {
  if (p.dtypes.empty()) return std::nullopt;
  return parse_dtype(p.dtypes[std::min(col, p.dtypes.size() - 1)]);
}

}  // namespace

std::optional<std::size_t> preferred_column(const op_interface& op) {
  std::vector<std::size_t> usable;
  for (std::size_t c = 0; c < op.columns(); ++c) {
    bool ok = true;
    for (const auto& p : op.inputs) ok = ok && (p.dtypes.empty() || dtype_at(p, c).has_value());
    for (const auto& p : op.outputs) ok = ok && (p.dtypes.empty() || dtype_at(p, c).has_value());
    if (ok) usable.push_back(c);
  }
  if (usable.empty()) return std::nullopt;
  if (op.inputs.empty() || op.inputs.front().dtypes.empty()) return usable.front();
  for (dtype want : {dtype::float16, dtype::float32, dtype::bfloat16}) {
    for (auto c : usable) {
      if (dtype_at(op.inputs.front(), c) == want) return c;
    }
  }
  return usable.front();
}

namespace {

// Repeat counts (PyTorch's repeat_interleave `repeats`, feeds_repeat's `feeds_repeat_times`): an
// integer input named so holds one count per row of the repeated input.
bool repeat_counts(const draft_param& in) {
  const std::string n = lower(in.name);
  return all_integer(in) && (one_of(n, {"repeats", "repeat", "repeat_times"}) ||
                             (n.size() > 13 && n.compare(n.size() - 13, 13, "_repeat_times") == 0));
}

// The fixed count each row gets in a probe (the repeat idiom: every row twice, the output's
// repeated dimension twice the input's).
constexpr std::int64_t kRepeatCount = 2;

}  // namespace

input_role guess_role(const std::string& op_type, const draft_param& in) {
  const std::string n = lower(in.name);
  const bool ints = all_integer(in);
  // Repeat counts are one value per row, shaped as indices are (their values: value_idioms).
  if (repeat_counts(in)) return input_role::index;
  if (ints && (one_of(n, {"axis", "axes", "dim", "dims", "reduce_axis", "reduce_axes"}))) return input_role::axis;
  if (ints && one_of(n, {"paddings", "padding", "pads", "pad"})) return input_role::paddings;
  // Sequence lengths (TensorFlow's reverse_sequence, CTC losses: one length per batch entry, at
  // most the sequence dimension) are shaped and bounded as indices are.
  // A top-k count (k): one element.
  if (ints && one_of(n, {"k", "topk", "top_k"})) return input_role::scalar;
  if (ints && one_of(n, {"seq_lengths", "seq_length", "seq_len", "seq_lens", "lengths", "input_lengths", "target_lengths"})) return input_role::index;
  // Offsets of bags or segments into another input (embedding_bag's offsets, a CSR row pointer):
  // indices too, generated sorted (probe_case).
  if (ints && (has(n, "indice") || has(n, "index") ||
               one_of(n, {"idx", "ids", "input_ids", "label", "labels", "target", "position", "positions", "pos", "offsets", "offset"}) ||
               (n.size() > 4 && (n.compare(n.size() - 4, 4, "_idx") == 0 || n.compare(n.size() - 4, 4, "_ids") == 0)))) {
    return input_role::index;
  }
  const std::string op = op_key(op_type);
  if (!ints && n == "grid" && has(op, "grid")) return input_role::grid;
  if (one_of(n, {"gamma", "beta", "bias", "scale", "scales", "smooth_scale", "smooth_scales", "smooth_scale1", "smooth_scale2",
                 "running_mean", "running_var"}) ||
      (n == "weight" && !has(op, "embedding"))) {
    return input_role::vector;
  }
  if (!ints && has(op, "norm") && one_of(n, {"mean", "rstd", "invstd", "inv_std", "variance", "var", "std", "save_mean", "save_invstd"})) {
    return input_role::stat;
  }
  if (one_of(n, {"value", "alpha", "scalar", "scalars", "lr", "learning_rate", "step", "weight_decay", "beta1_power",
                 "beta2_power", "max_grad_norm", "global_grad_norm", "epsilon", "eps"})) {
    return input_role::scalar;
  }
  return input_role::data;
}

namespace {
// An operator with an input named as indices (guess_role: index_add, gather, scatter, embedding).
bool has_index_input(const op_interface& op) {
  return std::any_of(op.inputs.begin(), op.inputs.end(), [&](const draft_param& p) { return guess_role(op.op_type, p) == input_role::index; });
}
}  // namespace

bool sorted_input(const draft_param& in) {
  const std::string n = lower(in.name);
  return has(n, "sorted") || one_of(n, {"offsets", "offset"});
}

range_guess guess_range(const std::string& op_type, const draft_param& in, std::size_t position, input_role role,
                        dtype type, std::int64_t index_bound) {
  range_guess g;
  const std::string n = lower(in.name);
  const std::string op = op_key(op_type);
  if (type == dtype::bool_) return g;
  if (!is_float(type) && !is_complex(type)) {
    if (role == input_role::index) {
      const std::int64_t hi = std::max<std::int64_t>(index_bound, 1) - 1;
      g.range = std::make_pair(0.0, static_cast<double>(hi));
      g.note = "input '" + in.name + "': indices in [0, smallest data dimension - 1] (guessed from its name; check which dimension they index)";
    } else if (role == input_role::axis) {
      g.range = std::make_pair(-1.0, -1.0);
      g.note = "input '" + in.name + "': axis -1 (the last dimension; guessed from its name)";
    } else if (role == input_role::scalar && one_of(n, {"k", "topk", "top_k"})) {
      const double k = static_cast<double>(std::clamp<std::int64_t>(index_bound, 1, 8));
      g.range = std::make_pair(k, k);
      g.note = "input '" + in.name + "': k = " + std::to_string(static_cast<int>(k)) + " (a top-k count, at most the smallest data dimension; "
               "guessed from its name)";
    } else if (role == input_role::paddings) {
      g.range = std::make_pair(0.0, 0.0);
      g.note = "input '" + in.name + "': paddings 0, two per dimension (guessed from its name; the output keeps the input's shape: "
               "give other values and the output's shape in the case)";
    }
    return g;
  }
  const std::pair<double, double> positive{0.5, 2.0};
  // Functions defined on part of the real line, by the operator's name.
  const bool positive_op = (has(op, "log") && !has(op, "logical") && !has(op, "softmax") && !has(op, "sigmoid") &&
                            !has(op, "sumexp") && !has(op, "logit")) ||
                           has(op, "sqrt") || has(op, "reciprocal") || has(op, "pow") || has(op, "gamma") ||
                           has(op, "xlogy");
  if (role == input_role::data && positive_op) {
    g.range = positive;
    g.note = "input '" + in.name + "': positive values [0.5, 2] (the operator's name suggests log, sqrt, reciprocal, pow or gamma)";
    return g;
  }
  if (role == input_role::data && has(op, "acosh")) {
    g.range = std::make_pair(1.1, 3.0);
    g.note = "input '" + in.name + "': values in [1.1, 3] (acosh is defined from 1)";
    return g;
  }
  if (role == input_role::data && (has(op, "asin") || has(op, "acos") || has(op, "atanh"))) {
    g.range = std::make_pair(-0.9, 0.9);
    g.note = "input '" + in.name + "': values in [-0.9, 0.9] (asin, acos and atanh are defined on [-1, 1])";
    return g;
  }
  if (has(n, "prob") || (role == input_role::data && (has(op, "binarycrossentropy") || has(op, "bce")))) {
    g.range = std::make_pair(0.01, 0.99);
    g.note = "input '" + in.name + "': probabilities in [0.01, 0.99] (from its name or the operator's)";
    return g;
  }
  if (one_of(n, {"variance", "running_var", "rstd", "std", "exp_avg_sq", "max_exp_avg_sq", "var_sq", "denominator",
                 "divisor"}) ||
      (n == "v" && has(op, "adam"))) {
    g.range = positive;
    g.note = "input '" + in.name + "': positive values [0.5, 2] (a variance, a second moment or a divisor, from its name)";
    return g;
  }
  if (has(op, "div") && role == input_role::data && position > 0) {
    g.range = positive;
    g.note = "input '" + in.name + "': positive values [0.5, 2] (a division's divisor: every data input but the first)";
  }
  return g;
}

int ge_dtype_number(dtype t) {
  switch (t) {
    case dtype::float32: return 0;
    case dtype::float16: return 1;
    case dtype::int8: return 2;
    case dtype::int32: return 3;
    case dtype::uint8: return 4;
    case dtype::int16: return 6;
    case dtype::uint16: return 7;
    case dtype::uint32: return 8;
    case dtype::int64: return 9;
    case dtype::uint64: return 10;
    case dtype::bool_: return 12;
    case dtype::bfloat16: return 27;
    case dtype::complex64: return 16;
  }
  return 0;
}

nlohmann::json draft_attrs(const op_interface& op, std::size_t column, std::vector<std::string>& notes) {
  nlohmann::json attrs = nlohmann::json::object();
  const bool indexed = has_index_input(op);
  for (const auto& a : op.attrs) {
    const std::string an = lower(a.name);
    if ((a.type == "int" || a.type == "data_type") &&
        one_of(an, {"dst_type", "dst_dtype", "dtype", "out_dtype", "output_dtype", "dst_t", "to"}) && !op.outputs.empty()) {
      if (const auto t = dtype_at(op.outputs.front(), column)) {
        attrs[a.name] = ge_dtype_number(*t);
        notes.push_back("attribute '" + a.name + "': " + std::to_string(ge_dtype_number(*t)) + " (ge::DataType of output '" +
                        op.outputs.front().name + "', " + dtype_name(*t) + ")");
        continue;
      }
    }
    // An in-place operator's multiplier at its default 1 (the BLAS scal idiom: x = alpha x) leaves
    // its inputs as they were, and an evaluation that sees nothing written compares nothing.
    if (op.outputs.empty() && a.type == "float" && a.default_value.is_number() && a.default_value.get<double>() == 1.0 &&
        one_of(an, {"alpha", "scale", "factor", "scale_factor", "multiplier"})) {
      attrs[a.name] = 1.5;
      notes.push_back("attribute '" + a.name + "': 1.5, not its default 1 (the identity: the in-place operator would leave its inputs "
                      "unchanged and nothing would be compared)");
      continue;
    }
    if (!a.default_value.is_null()) {
      attrs[a.name] = float_text(a.type, a.default_value);
      // A required attribute the OpDef still writes a value for (`.AttrType(REQUIRED).String("reflect")`).
      if (a.required) notes.push_back("attribute '" + a.name + "' (" + a.type + ", required): " + attrs[a.name].dump() + ", the value its OpDef writes");
      continue;
    }
    const std::string n = lower(a.name);
    const bool axis = has(n, "axis") || has(n, "axes") || n == "dim" || n == "dims";
    if (a.type == "list_int" && one_of(n, {"shape", "shapes", "size", "sizes", "out_shape", "output_shape"})) continue;  // per case: probe_case
    if (a.type == "list_int" && one_of(n, {"input_size", "output_size"})) continue;  // per case: probe_case (resize idiom)
    nlohmann::json v;
    if (a.type == "int") {
      // An axis of an operator with inputs named as indices (index_add, gather, scatter: their
      // `dim`) is 0, the rows, which every such kernel takes; another -1, the last dimension.
      v = axis ? (indexed ? 0 : -1) : 1;
    } else if (a.type == "data_type") {
      v = 0;  // ge::DT_FLOAT
    } else if (a.type == "float") {
      v = (has(n, "eps") ? 1e-5 : 1.0);
    } else if (a.type == "bool") {
      v = false;
    } else if (a.type == "string") {
      v = n == "reduction" ? "mean" : "";
    } else if (a.type == "list_int") {
      v = axis ? nlohmann::json::array({-1}) : nlohmann::json::array({1});
    } else if (a.type == "list_float") {
      v = nlohmann::json::array({1.0});
    } else if (a.type == "list_bool") {
      v = nlohmann::json::array({false});
    } else {
      continue;
    }
    attrs[a.name] = v;
    notes.push_back("attribute '" + a.name + "' (" + a.type + (a.required ? ", required" : ", no default") +
                    "): guessed " + v.dump() + (axis && a.type == "int" && indexed ? " (the rows: the operator has inputs named as indices)" : ""));
  }
  return attrs;
}

namespace {
// The rank a layout name gives (NCHW 4, NDHWC 5, NCL 3), 0 for a string that is none.
int layout_rank(const std::string& layout) {
  if (layout.size() < 3 || layout.size() > 5 || layout.front() != 'N' || layout.find('C') == std::string::npos) return 0;
  for (char ch : layout) {
    if (std::string_view("NCDHWL").find(ch) == std::string_view::npos) return 0;
  }
  return static_cast<int>(layout.size());
}
}  // namespace

std::vector<nlohmann::json> attr_variants(const op_interface& op, const nlohmann::json& base) {
  std::vector<nlohmann::json> out;
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    const bool axis = has(n, "axis") || has(n, "axes") || n == "dim" || n == "dims";
    std::vector<nlohmann::json> values;
    if (axis && a.type == "int") values = {0, 1, -2};
    if (axis && a.type == "list_int") values = {nlohmann::json::array({0}), nlohmann::json::array({1}), nlohmann::json::array({-2})};
    if (a.type == "bool" && has(n, "keep")) values = {!base.value(a.name, false)};
    // A layout attribute (data_format): the other layouts an N-dimensional tensor may be read in,
    // channel-first first; a probe of such a variant takes the rank its layout names (layout_rank).
    if (a.type == "string" && one_of(n, {"data_format", "format"})) values = {"NCHW", "NCDHW", "NHWC", "NDHWC"};
    for (const auto& v : values) {
      if (base.contains(a.name) && base[a.name] == v) continue;
      nlohmann::json x = base;
      x[a.name] = v;
      out.push_back(std::move(x));
    }
  }
  return out;
}

std::vector<std::int64_t> main_shape(int rank, std::int64_t elements, bool tail, std::int64_t last) {
  rank = std::clamp(rank, 1, 5);
  if (tail) {
    static const std::vector<std::vector<std::int64_t>> tails = {
        {37037}, {37, 1001}, {3, 37, 1001}, {2, 3, 37, 101}, {2, 3, 5, 7, 101}};
    auto s = tails[static_cast<std::size_t>(rank - 1)];
    if (last > 0) s.back() = rank == 1 ? 37 * last : last;
    return s;
  }
  elements = std::max<std::int64_t>(elements, 1);
  if (rank == 1) return {elements};
  static const std::vector<std::vector<std::int64_t>> leading = {{}, {}, {16}, {8, 16}, {2, 16, 8}};
  std::vector<std::int64_t> s = leading[static_cast<std::size_t>(rank - 1)];
  const std::int64_t l = last > 0 ? last : (rank >= 4 ? 128 : 1024);
  std::int64_t fixed = l;
  for (auto d : s) fixed *= d;
  s.push_back(std::max<std::int64_t>(1, elements / fixed));
  s.push_back(l);
  return s;
}

std::vector<std::int64_t> square_shape(std::int64_t elements, bool tail, std::int64_t last) {
  if (tail) return last > 0 ? std::vector<std::int64_t>{112, 112} : std::vector<std::int64_t>{101, 101};
  std::int64_t s = 16;
  while ((s + 16) * (s + 16) <= elements && s + 16 <= 512) s += 16;
  return {s, s};
}

std::int64_t size_for_output(std::int64_t elements, std::int64_t in, std::int64_t out) {
  if (elements < 1 || in < 2 || out <= in) return 0;
  const double k = std::log(static_cast<double>(out)) / std::log(static_cast<double>(in));
  if (k <= 1.0) return 0;
  return std::max<std::int64_t>(1, std::llround(std::pow(static_cast<double>(elements), 1.0 / k)));
}

std::array<std::int64_t, 3> product_dims(std::int64_t elements, bool tail, std::int64_t last) {
  const std::int64_t s = square_shape(elements, tail, last).front();
  return {2 * s, std::max<std::int64_t>(1, s / 2), 2 * s};
}

bool matrix_product_op(const std::string& op_type) {
  std::string n;
  for (char ch : lower(op_type)) {
    if (ch != '_') n += ch;
  }
  return has(n, "matmul") || has(n, "gemm") || has(n, "bmm");
}

bool convolution_op(const op_interface& op) {
  bool strides = false, pads = false, filter = false;
  for (const auto& a : op.attrs) {
    strides = strides || (a.type == "list_int" && lower(a.name) == "strides");
    pads = pads || (a.type == "list_int" && lower(a.name) == "pads");
  }
  for (const auto& p : op.inputs) filter = filter || one_of(lower(p.name), {"filter", "filter_size"});
  return strides && pads && filter;
}

conv_geometry conv_shapes(int rank, bool input_size_given, bool filter_size_given, bool tail, int kernel) {
  const std::int64_t eight = tail ? 7 : 8;
  std::int64_t n = 2, c = 16, s = eight, cout = 16, k = kernel;
  if (filter_size_given) cout = c = k = 4;
  if (input_size_given) n = c = s = eight;
  if (input_size_given && filter_size_given) n = c = s = cout = k = eight;
  const std::size_t spatial = static_cast<std::size_t>(std::clamp(rank, 3, 5) - 2);
  conv_geometry g;
  g.input = {n, c};
  g.filter = {cout, c};
  g.output = {n, cout};
  for (std::size_t i = 0; i < spatial; ++i) {
    g.input.push_back(s);
    g.filter.push_back(k);
    g.output.push_back(s - k + 1);
  }
  return g;
}

namespace {

// The convolution idiom's rank: the length of the OpDef's default `dilations` or `strides` (one
// value per dimension of NCHW / NCDHW), else 5 for a format naming D, else 4.
int conv_rank(const op_interface& op) {
  for (const char* name : {"dilations", "strides"}) {
    for (const auto& a : op.attrs) {
      if (lower(a.name) == name && a.default_value.is_array() && (a.default_value.size() == 4 || a.default_value.size() == 5)) {
        return static_cast<int>(a.default_value.size());
      }
    }
  }
  for (const auto& p : op.inputs) {
    for (const auto& f : p.formats) {
      if (has(f, "NCDHW") || has(f, "NDHWC") || has(f, "NDC1HWC0")) return 5;
    }
  }
  return 4;
}

// A shape given as data in the convolution idiom: an input the tiling reads or one named *_size.
bool conv_size_input(const draft_param& p) {
  const std::string n = lower(p.name);
  return n == "input_size" || n == "filter_size";
}

// The attributes of the convolution idiom's probe: stride 1, no padding, dilation 1, one group,
// the channel-first layout its shapes use.
nlohmann::json conv_attrs(const op_interface& op, int rank, nlohmann::json attrs) {
  const std::size_t r = static_cast<std::size_t>(rank);
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    if (a.type == "list_int" && (n == "strides" || n == "dilations")) attrs[a.name] = std::vector<std::int64_t>(r, 1);
    if (a.type == "list_int" && n == "pads") attrs[a.name] = std::vector<std::int64_t>(2 * (r - 2), 0);
    if (a.type == "int" && n == "groups") attrs[a.name] = 1;
    if (a.type == "string" && n == "data_format") attrs[a.name] = rank == 5 ? "NCDHW" : "NCHW";
  }
  return attrs;
}

bool channel_first(const op_interface& op, std::size_t column, const nlohmann::json& attrs);
}  // namespace

namespace {

// Ranks (with the last dimension) in the order to try; the formats say NCHW or NCDHW first.
std::vector<std::pair<int, std::int64_t>> probe_ranks(const op_interface& op) {
  std::vector<std::pair<int, std::int64_t>> ranks;
  bool five = false, four = false;
  for (const auto& p : op.inputs) {
    for (const auto& f : p.formats) {
      if (has(f, "NCDHW") || has(f, "NDHWC") || has(f, "NDC1HWC0")) five = true;
      if (f == "NCHW" || f == "NHWC" || f == "NC1HWC0") four = true;
    }
  }
  if (five) ranks.emplace_back(5, 0);
  if (four) ranks.emplace_back(4, 0);
  for (auto r : std::vector<std::pair<int, std::int64_t>>{{2, 0}, {1, 0}, {2, 2048}, {3, 0}, {4, 0}, {5, 0}}) {
    if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
  }
  return ranks;
}

// The index_add idiom (PyTorch's index_add(dim, index, source), index_put's values): in an
// operator with inputs named as indices, a `value` (`values`) is the rows added, shaped like the
// first input (index_fill's scalar value keeps "roles by name").
input_role index_add_role(const op_interface& op, const draft_param& p) {
  return one_of(lower(p.name), {"value", "values"}) ? input_role::data : guess_role(op.op_type, p);
}

// The rank the layout attribute (data_format, format) of an attribute variant names where it
// differs from `attrs`, 0 when it names none.
int variant_layout_rank(const nlohmann::json& attrs, const nlohmann::json& variant) {
  int layout = 0;
  for (const char* k : {"data_format", "format"}) {
    if (variant.contains(k) && variant[k].is_string() && (!attrs.contains(k) || attrs[k] != variant[k])) {
      layout = layout_rank(variant[k].get<std::string>());
    }
  }
  return layout;
}

// The pooling idiom's per-dimension convention (probe::pool_per_dimension) for an operator whose
// OpDef leaves it open (unsettled_pooling): the drafted attributes at ranks 5 and 4 (three and two
// spatial dimensions), then each layout variant at the rank its layout names.
std::vector<std::pair<int, nlohmann::json>> pooling_variants(const op_interface& op, const nlohmann::json& attrs) {
  std::vector<std::pair<int, nlohmann::json>> out;
  if (!unsettled_pooling(op)) return out;
  out.emplace_back(5, attrs);
  out.emplace_back(4, attrs);
  for (const auto& variant : attr_variants(op, attrs)) {
    const int layout = variant_layout_rank(attrs, variant);
    if (layout >= 4) out.emplace_back(layout, variant);
  }
  return out;
}

// The matrix-product probes (timed_probes): a [M, K] x b [K, N], then square operands, the first
// two inputs data and the others by name, then every input data; each with and without the
// optional inputs. `push` is timed_probes' (false when the probes are full).
template <typename Push>
void product_probes(const op_interface& op, const nlohmann::json& attrs, bool any_optional, Push& push, std::vector<probe>& out) {
  // a [M, K] x b [K, N] first: a tiling keyed on the shape runs its general template on it.
  for (bool with_optional : {false, true}) {
    if (with_optional && !any_optional) continue;
    std::vector<std::pair<std::string, input_role>> roles;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const auto& p = op.inputs[i];
      if (p.kind != "optional" || with_optional) roles.emplace_back(p.name, i < 2 ? input_role::data : guess_role(op.op_type, p));
    }
    const std::size_t before = out.size();
    push(2, 0, "a matrix product a [M, K] x b [K, N] (the others by name: bias [N], alpha/beta one element, other data [M, N])",
         roles, with_optional, attrs);
    if (out.size() > before) out.back().product = true;
  }
  for (bool with_optional : {false, true}) {
    if (with_optional && !any_optional) continue;
    std::vector<std::pair<std::string, input_role>> by_name, all_data;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const auto& p = op.inputs[i];
      if (p.kind == "optional" && !with_optional) continue;
      by_name.emplace_back(p.name, i < 2 ? input_role::data : guess_role(op.op_type, p));
      all_data.emplace_back(p.name, input_role::data);
    }
    for (const auto* roles : {&by_name, &all_data}) {
      if (roles == &all_data && all_data == by_name) continue;
      const std::size_t before = out.size();
      push(2, 0, std::string("square (a matrix product's operands), ") + (roles == &by_name ? "the first two inputs data, the others by name" : "every input the same shape"),
           *roles, with_optional, attrs);
      if (out.size() > before) out.back().square = true;
    }
  }
}

}  // namespace

namespace {
// An `output_size` integer list the draft's attributes leave unset (the resize idiom's probes).
bool unset_resize_size(const op_interface& op, const nlohmann::json& attrs) {
  return std::any_of(op.attrs.begin(), op.attrs.end(), [&](const auto& a) {
    return a.type == "list_int" && lower(a.name) == "output_size" && !attrs.contains(a.name);
  });
}
}  // namespace

std::vector<probe> timed_probes(const op_interface& op, const nlohmann::json& attrs, std::size_t max_probes) {
  const std::vector<std::pair<int, std::int64_t>> ranks = probe_ranks(op);
  auto role_sets = [&](bool with_optional) {
    std::vector<const draft_param*> present;
    for (const auto& p : op.inputs) {
      if (p.kind != "optional" || with_optional) present.push_back(&p);
    }
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, input_role>>>> sets;
    auto add = [&](const std::string& what, auto role_of) {
      std::vector<std::pair<std::string, input_role>> roles;
      for (std::size_t i = 0; i < present.size(); ++i) roles.emplace_back(present[i]->name, role_of(i, *present[i]));
      for (const auto& s : sets) {
        if (s.second == roles) return;
      }
      sets.emplace_back(what, std::move(roles));
    };
    add("roles by name", [&](std::size_t, const draft_param& p) { return guess_role(op.op_type, p); });
    auto index_add = [&](std::size_t, const draft_param& p) { return index_add_role(op, p); };
    if (has_index_input(op)) add("roles by name, 'value' the rows added (the index_add idiom)", index_add);
    add("every input the same shape", [&](std::size_t, const draft_param&) { return input_role::data; });
    add("first input full, the others one element", [&](std::size_t i, const draft_param&) { return i == 0 ? input_role::data : input_role::scalar; });
    add("first input full, the others its last dimension", [&](std::size_t i, const draft_param&) { return i == 0 ? input_role::data : input_role::vector; });
    return sets;
  };
  std::vector<probe> out;
  auto push = [&](int rank, std::int64_t last, const std::string& what, const std::vector<std::pair<std::string, input_role>>& roles,
                  bool with_optional, const nlohmann::json& probe_attrs, bool outputs_given = false) {
    if (out.size() >= max_probes) return false;
    probe p;
    p.outputs_given = outputs_given;
    p.rank = rank;
    p.last = last;
    p.roles = roles;
    p.with_optional = with_optional;
    p.attrs = probe_attrs;
    p.what = "rank " + std::to_string(rank) + (last ? " (last dimension " + std::to_string(last) + ")" : "") + ", " + what +
             (with_optional ? ", with the optional inputs" : "") + (probe_attrs == attrs ? "" : ", attrs " + probe_attrs.dump());
    out.push_back(std::move(p));
    return true;
  };
  // The convolution and CTC loss idioms first: one geometry, each required input shaped by its name.
  std::vector<std::pair<std::string, input_role>> required;
  for (const auto& p : op.inputs) {
    if (p.kind != "optional") required.emplace_back(p.name, input_role::data);
  }
  for (const int k : {3, 1}) {  // a 3-wide filter, then a pointwise one (conv3dv2's NCDHW kernel)
    if (!convolution_op(op) || !push(conv_rank(op), 0, k == 3 ? "one convolution (stride 1, no padding, dilation 1; each input shaped by its name)"
                                                              : "one pointwise convolution (a filter of spatial size 1, stride 1, no padding, dilation 1)",
                                     required, false, conv_attrs(op, conv_rank(op), attrs))) break;
    out.back().conv = true;
    out.back().conv_kernel = k;
  }
  if (ctc_loss_op(op) && push(3, 0, "one CTC loss (log_probs [T, N, C]; each input shaped by its name)", required, false, attrs)) out.back().ctc = true;
  // A matrix product: square operands first, the first two inputs data and the others by name (a
  // bias or scale takes the last dimension), then every input data.
  bool any_optional = false;
  for (const auto& p : op.inputs) any_optional = any_optional || p.kind == "optional";
  if (matrix_product_op(op.op_type) && op.inputs.size() >= 2) product_probes(op, attrs, any_optional, push, out);
  for (bool with_optional : {false, true}) {
    if (with_optional && !any_optional) continue;
    for (const auto& [rank, last] : ranks) {
      for (const auto& [what, roles] : role_sets(with_optional)) push(rank, last, what, roles, with_optional, attrs);
      if (rank == 2 && last == 0 && op.inputs.size() >= 2) {
        // The grouped idiom (group quantisation, grouped matmul epilogues): x [S, H] with a
        // per-group row of H in each float input and one value per group in each integer one.
        std::vector<std::pair<std::string, input_role>> grouped;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
          const auto& p = op.inputs[i];
          if (p.kind == "optional" && !with_optional) continue;
          // An integer input is one value per group only when its name says so (group_index,
          // group_list, indices); another (top_k's k) keeps the role its name gives.
          const auto by_name = guess_role(op.op_type, p);
          const bool per_group = has(lower(p.name), "group") || by_name == input_role::index;
          grouped.emplace_back(p.name, i == 0 ? input_role::data : !all_integer(p) ? input_role::rows : per_group ? input_role::groups : by_name);
        }
        push(rank, last, "first input full, the other float inputs one row of its last dimension per group (" + std::to_string(kGroupRows) +
                             "), the integer group or index ones one value per group",
             grouped, with_optional, attrs);
      }
    }
  }
  // Other values of the guessed attributes, on the likeliest shapes.
  for (const auto& variant : attr_variants(op, attrs)) {
    // A variant that changes a layout attribute: the rank that layout names (an NCHW tiling
    // reads four dimensions), else the likeliest ranks.
    const int layout = variant_layout_rank(attrs, variant);
    const auto variant_ranks = layout > 0 ? std::vector<std::pair<int, std::int64_t>>{{layout, 0}}
                                          : std::vector<std::pair<int, std::int64_t>>{ranks[0], ranks[1], {3, 0}};
    for (const auto& [rank, last] : variant_ranks) {
      for (const auto& [what, roles] : role_sets(false)) push(rank, last, what, roles, false, variant);
    }
  }
  for (const auto& [rank, variant] : pooling_variants(op, attrs)) {
    for (const auto& [what, roles] : role_sets(false)) {
      if (push(rank, 0, what + ", ksize/strides/pads one value per spatial dimension", roles, false, variant)) {
        out.back().pool_per_dimension = true;
      }
    }
  }
  // The resize idiom with output_size unset: read channel-last (when no format says channel-first,
  // NCHW/NCDHW/NCL: an ND input's layout is what its tiling makes of it), then a 2x upsample
  // (probe::resize_scale) after every identity probe, channel-first then channel-last.
  if (unset_resize_size(op, attrs)) {
    for (const auto& [scale, last] : {std::pair{1, true}, std::pair{2, false}, std::pair{2, true}}) {
      if (last && channel_first(op, 0, attrs)) continue;
      const std::string how = std::string(scale > 1 ? ", output_size 2x the spatial sizes" : ", output_size") +
                              (last ? (scale > 1 ? ", read" : " read") + std::string(" channel-last (N, spatial..., C)") : "");
      for (int rank : {4, 3, 5}) {
        for (const auto& [what, roles] : role_sets(false)) {
          if (!push(rank, 0, what + how, roles, false, attrs)) continue;
          out.back().resize_scale = scale;
          out.back().channels_last = last;
        }
      }
    }
  }
  // InferShape bypassed: the outputs given (the main shape), as an aclnn caller gives them. Also
  // at ranks 5 and 4, which N-D tilings read (an InferShape reading an attribute its OpDef does not
  // declare refuses every shape: pad_v3_grad_replication's tiling takes 4 or 5 dimensions), and 3
  // for the resize idiom (its tiling reads output_size of a 3-5 dimensional input).
  // The top-k routing idiom (a mixture of experts' expert_idx [tokens, k] beside x [tokens, H]),
  // rank 2, late: the probes before it keep their places (a probe count is bounded).
  if (has_index_input(op)) {
    std::vector<std::pair<std::string, input_role>> routed;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const auto& p = op.inputs[i];
      if (p.kind == "optional") continue;
      const auto r = guess_role(op.op_type, p);
      routed.emplace_back(p.name, i > 0 && r == input_role::index ? input_role::topk : r);
    }
    push(2, 0, "roles by name, the index inputs k per row ([rows, " + std::to_string(kTopK) + "]: a top-k routing)", routed, false,
         attrs);
  }
  if (op.has_infer_shape) {
    std::vector<std::pair<int, std::int64_t>> given = {ranks[0], ranks[1]};
    bool resize = false;
    for (const auto& a : op.attrs) resize = resize || (a.type == "list_int" && lower(a.name) == "output_size");
    for (int rank : {5, 4, 3}) {
      const bool seen = std::find(given.begin(), given.end(), std::make_pair(rank, std::int64_t{0})) != given.end();
      if (!seen && (rank != 3 || resize)) given.emplace_back(rank, 0);
    }
    for (const auto& [rank, last] : given) {
      for (const auto& [what, roles] : role_sets(false)) {
        push(rank, last, what + ", every output the main shape (InferShape not run)", roles, false, attrs, true);
      }
    }
  }
  return out;
}

namespace {

// A channel-first operator: its first input's format in `column` is NCHW, NCDHW or NCL, or its
// data_format attribute says NC...: per-channel parameters are dimension 1 of the main shape.
bool channel_first(const op_interface& op, std::size_t column, const nlohmann::json& attrs) {
  if (!op.inputs.empty() && !op.inputs.front().formats.empty()) {
    const auto& f = op.inputs.front().formats;
    const std::string fmt = f[std::min(column, f.size() - 1)];
    if (fmt == "NCHW" || fmt == "NCDHW" || fmt == "NCL") return true;
  }
  for (const char* k : {"data_format", "format"}) {
    if (attrs.contains(k) && attrs[k].is_string() && attrs[k].get<std::string>().rfind("NC", 0) == 0) return true;
  }
  return false;
}

// The group count a group norm's attributes give (num_groups, groups, group), 0 when none.
std::int64_t group_count(const nlohmann::json& attrs) {
  for (const char* k : {"num_groups", "groups", "group", "num_group"}) {
    if (attrs.contains(k) && attrs[k].is_number_integer() && attrs[k].get<std::int64_t>() > 0) return attrs[k].get<std::int64_t>();
  }
  return 0;
}

// A norm's statistic (mean, rstd, variance: input_role::stat) for the main shape: [N, G] for a
// group norm (a group count attribute: the channels after N split in G groups), [N, C, 1...] for
// another channel-first norm (an instance norm's statistics: each sample's channel over its
// spatial dimensions, the dimensions kept), else the main shape with its last (normalised)
// dimension 1.
std::vector<std::int64_t> stat_shape(const op_interface& op, std::size_t column, const nlohmann::json& attrs,
                                     const std::vector<std::int64_t>& main) {
  if (group_count(attrs) > 0) return {main.front(), group_count(attrs)};
  std::vector<std::int64_t> s = main;
  if (channel_first(op, column, attrs) && s.size() >= 3) {
    std::fill(s.begin() + 2, s.end(), 1);
  } else {
    s.back() = 1;
  }
  return s;
}

}  // namespace

namespace {

// The matrix-size idiom (TensorFlow's Eye, MatrixDiag...: `num_rows`, `num_columns` and a
// `batch_shape` of leading dimensions, the tensor being batch_shape + [rows, columns]): integer
// attributes naming the row or column count left at 0 take the main shape's last two
// dimensions, and an empty `batch_shape` the dimensions before them. A 0 row count is no matrix
// (eye_fp64's tiling divides by it).
void matrix_size_attrs(const op_interface& op, const std::vector<std::int64_t>& main, nlohmann::json& attrs,
                       std::vector<std::string>* notes) {
  if (main.size() < 2) return;
  bool any = false;
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    const bool rows = one_of(n, {"num_rows", "rows", "n_rows"});
    const bool cols = one_of(n, {"num_columns", "num_cols", "columns", "cols", "n_cols"});
    if (a.type != "int" || (!rows && !cols)) continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_number_integer() && attrs[a.name].get<std::int64_t>() == 0)) continue;
    attrs[a.name] = main[main.size() - (rows ? 2 : 1)];
    any = true;
  }
  if (!any) return;
  for (const auto& a : op.attrs) {
    if (a.type != "list_int" || lower(a.name) != "batch_shape") continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_array() && attrs[a.name].empty())) continue;
    attrs[a.name] = std::vector<std::int64_t>(main.begin(), main.end() - 2);
  }
  const std::string note = "attributes naming a matrix's row and column counts: the main shape's last two dimensions (a "
                           "batch_shape the dimensions before them; guessed from their names)";
  note_once(notes, note);
}

// The rigid-motion idiom (point-cloud operators: a `translation` and a rotation `quaternion`,
// often as a min/max pair): a float list named so and left empty takes the identity motion, 3
// zeros for a translation and [1, 0, 0, 0] (w, x, y, z) for a quaternion, and the max (end) of a
// min/max pair another pose; a tiling reads that many values (motion_compensation's read past
// its empty lists: SIGSEGV on every probe).
void rigid_motion_attrs(const op_interface& op, nlohmann::json& attrs, std::vector<std::string>* notes) {
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    const bool translation = has(n, "translation");
    const bool quaternion = has(n, "quaternion");
    if (a.type != "list_float" || (!translation && !quaternion)) continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_array() && attrs[a.name].empty())) continue;
    // The end of a min/max (start/end) pair is another pose: a tiling interpolating between the
    // two refuses equal ones (motion_compensation: "sin_theta == 0").
    const bool end = has(n, "max") || has(n, "end");
    if (translation) {
      attrs[a.name] = end ? nlohmann::json::array({0.5, -0.25, 1.0}) : nlohmann::json::array({0.0, 0.0, 0.0});
    } else {
      // 0.2 rad about z: [cos 0.1, 0, 0, sin 0.1].
      attrs[a.name] = end ? nlohmann::json::array({0.9950041652780258, 0.0, 0.0, 0.09983341664682815}) : nlohmann::json::array({1.0, 0.0, 0.0, 0.0});
    }
    const std::string note = "attribute '" + a.name + "': " + attrs[a.name].dump() + " (" +
                             (end ? std::string("a pose other than the identity, the end of a min/max pair") : std::string("the identity")) + ", " +
                             (translation ? "a translation" : "a rotation quaternion, w x y z") + "; guessed from its name)";
    note_once(notes, note);
  }
}

// The sequence idiom (TensorFlow's reverse_sequence: x holds sequences along `seq_dim`, one per
// entry of `batch_dim`, seq_lengths one per batch entry): the two dimensions differ, so a
// `seq_dim` equal to `batch_dim` (both left at 0) takes the dimension after it.
void sequence_dims_attrs(const op_interface& op, nlohmann::json& attrs, std::vector<std::string>* notes) {
  const draft_attr* seq = nullptr;
  const draft_attr* batch = nullptr;
  for (const auto& a : op.attrs) {
    if (a.type == "int" && lower(a.name) == "seq_dim") seq = &a;
    if (a.type == "int" && lower(a.name) == "batch_dim") batch = &a;
  }
  if (seq == nullptr || batch == nullptr) return;
  const auto b = attrs.value(batch->name, nlohmann::json(0));
  if (!b.is_number_integer() || attrs.value(seq->name, nlohmann::json(0)) != b) return;
  attrs[seq->name] = b.get<std::int64_t>() + 1;
  note_once(notes, "attribute '" + seq->name + "': " + attrs[seq->name].dump() + ", the dimension after '" + batch->name +
                       "' (a sequence dimension differs from the batch dimension; guessed from their names)");
}

// The repeat idiom (PyTorch's repeat_interleave(input, repeats, dim, output_size): the output's
// repeated dimension is the sum of the counts): in an operator with repeat counts (repeat_counts,
// each kRepeatCount in a probe), an integer attribute `output_size` (or `output_*_size`) is that
// sum, kRepeatCount times the main input's rows (feeds_repeat's `output_feeds_size`: its kernel
// pads the rows past the sum with zeros and writes out of bounds below it).
void repeat_attrs(const op_interface& op, const std::vector<std::int64_t>& main, nlohmann::json& attrs,
                  std::vector<std::string>* notes) {
  if (main.empty() || std::none_of(op.inputs.begin(), op.inputs.end(), [](const draft_param& p) { return repeat_counts(p); })) return;
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    if (a.type != "int" || n.rfind("output_", 0) != 0 || n.size() < 11 || n.compare(n.size() - 4, 4, "size") != 0) continue;
    attrs[a.name] = kRepeatCount * main.front();
    note_once(notes, "attribute '" + a.name + "': the sum of the repeat counts, " + std::to_string(kRepeatCount) +
                         " times the main input's rows (the repeat idiom; guessed from its name)");
  }
}

// The GLU idiom (GLU, GeGLU, SwiGLU: the input x split into two halves along `dim`, one gating the
// other, the output one half's size): for an operator the name says is one, the split dimension
// of a main shape of `rank` dimensions (the probe's `dim`, else -1, the last).
std::optional<std::size_t> glu_split(const op_interface& op, const nlohmann::json& attrs, std::size_t rank) {
  if (!has(op_key(op.op_type), "glu") || rank == 0) return std::nullopt;
  std::int64_t dim = -1;
  if (attrs.is_object() && attrs.contains("dim") && attrs["dim"].is_number_integer()) dim = attrs["dim"].get<std::int64_t>();
  if (dim < 0) dim += static_cast<std::int64_t>(rank);
  if (dim < 0 || dim >= static_cast<std::int64_t>(rank)) return std::nullopt;
  return static_cast<std::size_t>(dim);
}

}  // namespace

namespace {

// Adds to `c` each input of probe `p` the OpDef declares, its dtype from `column`, shaped by
// `shape_by_name(lower-case name, its OpDef entry, the tensor)`: the idioms that shape every input
// by its name (convolution, CTC loss).
template <typename F>
void add_named_inputs(const op_interface& op, const probe& p, std::size_t column, case_spec& c, F shape_by_name) {
  for (const auto& [in, role] : p.roles) {
    const auto* d = find_input(op, in);
    if (d == nullptr) continue;
    tensor_spec ts;
    ts.type = dtype_at(*d, column).value_or(dtype::float32);
    shape_by_name(lower(in), *d, ts);
    input_spec is;
    is.name = in;
    is.is_list = d->kind == "dynamic";
    is.tensors.push_back(ts);
    c.inputs.push_back(std::move(is));
  }
}

// probe_case of the convolution idiom (probe::conv): x (fmap, input) the input, or the output
// gradient for an operator given the input's size (a transpose convolution); filter (weight) the
// filter; out_backprop (dy, y_grad) the output; bias one value per output channel; input_size and
// filter_size those shapes as data.
case_spec conv_case(const op_interface& op, const probe& p, std::size_t column, bool tail, case_spec c, std::vector<std::string>* notes) {
  bool input_size = false, filter_size = false;
  for (const auto& [in, role] : p.roles) {
    input_size = input_size || lower(in) == "input_size";
    filter_size = filter_size || lower(in) == "filter_size";
  }
  const auto g = conv_shapes(p.rank, input_size, filter_size, tail, p.conv_kernel);
  add_named_inputs(op, p, column, c, [&](const std::string& n, const draft_param& d, tensor_spec& ts) {
    if (conv_size_input(d)) {
      const auto& shape = n == "input_size" ? g.input : g.filter;
      ts.shape = {static_cast<std::int64_t>(shape.size())};
      ts.range = std::make_pair(static_cast<double>(shape.front()), static_cast<double>(shape.front()));
      note_once(notes, "input '" + d.name + "': the shape " + nlohmann::json(shape).dump() +
                           " as data (the convolution idiom: every dimension equal, as a range of one value gives it; give the real shape)");
    } else if (one_of(n, {"filter", "weight", "w"})) {
      ts.shape = g.filter;
    } else if (one_of(n, {"out_backprop", "dy", "y_grad", "grad_output"}) || (input_size && one_of(n, {"x", "fmap", "input"}))) {
      ts.shape = g.output;
    } else if (one_of(n, {"bias", "b"})) {
      ts.shape = {g.filter.front()};
    } else {
      ts.shape = g.input;
    }
  });
  note_once(notes, "shapes: one convolution, channel first, stride 1, no padding, dilation 1 (the convolution idiom; guessed from the "
                   "attributes strides/pads and the filter input): check them");
  return c;
}

// probe_case of the CTC loss idiom (probe::ctc; PyTorch's ctc_loss and its backward, whose input
// names these operators keep): the main shape is log_probs [T, N, C] (time, batch, classes);
// targets [N, S] class indices other than the blank (attribute `blank`, default 0), S = T / 2 (at
// least 1); input_lengths, target_lengths, the loss (neg_log_likelihood) and its gradient
// (grad_out) one per batch entry; log_alpha [N, T, 2 S + 1] (the forward variables over the
// target with a blank around each label). Lengths as documented: an input length at most T (here
// in [S, T], so every target fits), a target length at most S (in [1, S]). An output named
// log_alpha or as the loss is shaped so, another (the gradient) like log_probs, given when the
// operator has no InferShape.
case_spec ctc_case(const op_interface& op, const probe& p, std::size_t column, const std::vector<std::int64_t>& main, case_spec c,
                   std::vector<std::string>* notes) {
  const std::int64_t t_len = main.at(0), batch = main.at(1), classes = std::max<std::int64_t>(main.at(2), 2);
  const std::int64_t s_len = std::max<std::int64_t>(t_len / 2, 1);
  const std::int64_t blank = c.attrs.value("blank", std::int64_t{0});
  const std::vector<std::int64_t> alpha = {batch, t_len, 2 * s_len + 1};
  auto range = [](std::int64_t lo, std::int64_t hi) { return std::make_pair(static_cast<double>(lo), static_cast<double>(hi)); };
  add_named_inputs(op, p, column, c, [&](const std::string& n, const draft_param&, tensor_spec& ts) {
    if (n == "log_probs") {
      ts.shape = {t_len, batch, classes};
    } else if (n == "targets") {
      ts.shape = {batch, s_len};
      ts.range = blank == 0 ? range(1, classes - 1) : range(0, std::min(blank, classes) - 1);
    } else if (n == "input_lengths") {
      ts.shape = {batch};
      ts.range = range(s_len, t_len);
    } else if (n == "target_lengths") {
      ts.shape = {batch};
      ts.range = range(1, s_len);
    } else {
      ts.shape = n == "log_alpha" ? alpha : std::vector<std::int64_t>{batch};
    }
  });
  if (!op.has_infer_shape) {
    for (const auto& o : op.outputs) {
      const std::string n = lower(o.name);
      output_spec os;
      os.name = o.name;
      os.shape = n == "log_alpha" ? alpha : one_of(n, {"neg_log_likelihood", "loss", "y"}) ? std::vector<std::int64_t>{batch}
                                                                                              : std::vector<std::int64_t>{t_len, batch, classes};
      c.outputs.push_back(std::move(os));
    }
  }
  note_once(notes, "shapes: one CTC loss, log_probs [T, N, C], targets [N, S] (S = T / 2) of labels other than the blank, input "
                   "lengths in [S, T], target lengths in [1, S], log_alpha [N, T, 2 S + 1], the loss and its gradient one per batch "
                   "entry (the CTC idiom, PyTorch's ctc_loss; guessed from the input names): check them");
  return c;
}

}  // namespace

namespace {

// The attribute idioms of a probe's case, from its main shape: the BLAS `n`, an output shape left
// empty, the resize idiom's sizes, the pooling/convolution `pads` and the resize `scales`.
void idiom_attrs(const op_interface& op, const std::vector<std::int64_t>& main, const probe& p, nlohmann::json& attrs,
                 std::vector<std::string>* notes) {
  const bool channels_last = p.channels_last;
  // BLAS convention (isamax, sasum, sscal, ...: `n` elements of the vector x): an integer
  // attribute `n` left at 0 takes the element count of the main shape, which kernels size their
  // buffers by.
  for (const auto& a : op.attrs) {
    if (a.type != "int" || lower(a.name) != "n") continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_number_integer() && attrs[a.name].get<std::int64_t>() == 0)) continue;
    std::int64_t count = 1;
    for (auto d : main) count *= d;
    attrs[a.name] = count;
    const std::string note = "attribute '" + a.name + "': the element count of the main input (BLAS convention; guessed from its name)";
    note_once(notes, note);
  }
  // An integer-list attribute naming an output shape (`shape`, `size`, ...: expand, reshape,
  // broadcast_to) left empty takes the main shape: the identity, which every such operator accepts.
  for (const auto& a : op.attrs) {
    if (a.type != "list_int" || !one_of(lower(a.name), {"shape", "shapes", "size", "sizes", "out_shape", "output_shape"})) continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_array() && attrs[a.name].empty())) continue;
    attrs[a.name] = main;
    const std::string note = "attribute '" + a.name + "': the main input's shape (an output shape left empty; guessed from its name)";
    note_once(notes, note);
  }
  // The resize idiom (PyTorch's upsample_* and interpolate, which the image operators follow):
  // `output_size` lists the output's spatial sizes (the dimensions after N and C), and a backward
  // operator's `input_size` the forward input's whole shape. Left unset they take the identity
  // resampling of the main shape, which every such operator accepts (scale 1).
  for (const auto& a : op.attrs) {
    const std::string n = lower(a.name);
    if (a.type != "list_int" || !one_of(n, {"input_size", "output_size"})) continue;
    if (attrs.contains(a.name) && !(attrs[a.name].is_array() && attrs[a.name].empty())) continue;
    const bool spatial = n == "output_size" && main.size() > 2;
    const bool last = spatial && channels_last;
    std::vector<std::int64_t> sizes = last ? std::vector<std::int64_t>(main.begin() + 1, main.end() - 1)
                                           : spatial ? std::vector<std::int64_t>(main.begin() + 2, main.end()) : main;
    const bool scaled = spatial && p.resize_scale > 1;
    if (scaled) {
      for (auto& v : sizes) v *= p.resize_scale;
    }
    attrs[a.name] = sizes;
    const std::string note = "attribute '" + a.name + "': " +
                             (last ? std::string("the main shape's sizes between N and C, the last dimension (channel-last)")
                              : spatial ? std::string("the main shape's sizes after N and C") : std::string("the main input's shape")) +
                             (scaled ? " times " + std::to_string(p.resize_scale) + " (a " + std::to_string(p.resize_scale) +
                                           "x upsample; guessed from its name)"
                                     : std::string(" (the identity resampling; guessed from its name)"));
    note_once(notes, note);
  }
  // The pooling/convolution idiom: an integer list `pads` (`padding`, `paddings`) the OpDef gives
  // no default is two values per spatial dimension (the dimensions after N and C; every dimension
  // of a rank-1 or rank-2 shape), 0 each: nothing added, which every such operator accepts
  // (avg_pool3_d's InferShape wants six for a rank-5 input and refuses the guessed [1]).
  // PyTorch's convention (max_pool3d, its backward: `padding` one value per spatial dimension, the
  // same before and after) instead when the OpDef's `dilation` (`dilations`) default lists one
  // value per spatial dimension, as PyTorch's does (a convolution's lists one per dimension, N and C
  // included): max_pool3d_grad_with_argmax's tiling wants 3 (or 1) pads for its rank-5 input.
  // A probe of the per-dimension variant (probe::pool_per_dimension) takes that convention too.
  // A list the OpDef declares with an empty default (`.ListInt()`) is as unset as one without.
  const std::size_t spatial = main.size() > 2 ? main.size() - 2 : main.size();
  bool per_dimension_pads = p.pool_per_dimension && spatial != main.size();
  std::string convention = "PyTorch's kernel_size, stride and padding, tried where the OpDef leaves it open";
  for (const auto& a : op.attrs) {
    if (a.type == "list_int" && one_of(lower(a.name), {"dilation", "dilations"}) && a.default_value.is_array() &&
        a.default_value.size() == spatial && spatial != main.size()) {
      per_dimension_pads = true;
      convention = "the OpDef's dilation default lists";
    }
  }
  for (const auto& a : op.attrs) {
    if (!unset_list(a) || !one_of(lower(a.name), {"pads", "padding", "paddings"})) continue;
    attrs[a.name] = std::vector<std::int64_t>(per_dimension_pads ? spatial : 2 * spatial, 0);
    const std::string note =
        "attribute '" + a.name + "': " +
        (per_dimension_pads ? std::string("0 for each spatial dimension (no padding, one value a dimension as ") + convention +
                                  "; guessed from their names)"
                            : std::string("0 before and after each spatial dimension (no padding; guessed from its name)"));
    note_once(notes, note);
  }
  // In that convention the window and its step are one value per spatial dimension too (PyTorch's
  // kernel_size, stride): a required `ksize` (`kernel_size`) or `strides` the OpDef gives no default
  // is 1 for each (max_pool3_d_with_argmax_v2's tiling reads three ksize values unchecked).
  for (const auto& a : op.attrs) {
    if (!per_dimension_pads || !unset_list(a) || !one_of(lower(a.name), {"ksize", "kernel_size", "strides", "stride"})) {
      continue;
    }
    attrs[a.name] = std::vector<std::int64_t>(spatial, 1);
    note_once(notes, "attribute '" + a.name + "': 1 for each spatial dimension (one value a dimension as " + convention +
                     "; guessed from their names)");
  }
  // In that idiom `scales` (one factor per spatial dimension) is the alternative to output_size, a
  // factor of 0 meaning "not given" (the 3D backward operators' InferShape: "only one of
  // output_size or scales should be non-empty"; the 2D tilings read one factor per dimension). A
  // float list `scales` left empty or all zero takes the identity, 1.0 per spatial dimension; an
  // output_size the OpDef only defaults to zeros is then left unset (empty).
  auto all_zero = [](const nlohmann::json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_number() && x.get<double>() == 0.0; });
  };
  for (const auto& a : op.attrs) {
    if (a.type != "list_float" || lower(a.name) != "scales") continue;
    if (attrs.contains(a.name) && !all_zero(attrs[a.name])) continue;
    const std::size_t spatial = main.size() > 2 ? main.size() - 2 : 1;
    attrs[a.name] = std::vector<double>(spatial, 1.0);
    std::string note = "attribute '" + a.name + "': 1.0 per spatial dimension (the identity resampling; guessed from its name)";
    for (const auto& o : op.attrs) {
      if (o.type != "list_int" || lower(o.name) != "output_size" || o.default_value.empty() || !all_zero(o.default_value)) continue;
      if (attrs.contains(o.name) && !all_zero(attrs[o.name])) continue;
      attrs[o.name] = nlohmann::json::array();
      note += "; '" + o.name + "' left empty (its OpDef default of zeros: unset)";
    }
    note_once(notes, note);
  }
}

// The value rules of one input of a probe's case: indices bounded (and sorted where the name says
// so), a sampling grid in [-1, 1], cumulative group ends, the slice idiom's begin/end/strides/axes;
// each with its note.
void value_idioms(const op_interface& op, const draft_param& d, input_role role, dtype t, const std::vector<std::int64_t>& main,
                  std::int64_t index_bound, tensor_spec& ts, std::vector<std::string>* notes) {
  const auto position = static_cast<std::size_t>(&d - op.inputs.data());
  // An input named as indices is bounded as indices in every probe, also where the probe shapes it
  // as data or one element: out of bounds, the kernel reads or writes outside its tensors.
  const bool named_index = guess_role(op.op_type, d) == input_role::index;
  auto g = guess_range(op.op_type, d, position, named_index && role != input_role::groups ? input_role::index : role, t,
                       index_bound);
  ts.range = g.range;
  if (named_index && ts.range && sorted_input(d)) {
    ts.sorted = true;
    g.note += "; generated sorted, non-decreasing from " + std::to_string(static_cast<std::int64_t>(ts.range->first)) +
              " (its name says the kernel needs them sorted: sorted indices, offsets of bags)";
  }
  if (repeat_counts(d) && role == input_role::index) {
    ts.range = std::make_pair(static_cast<double>(kRepeatCount), static_cast<double>(kRepeatCount));
    g.note = "input '" + d.name + "': one repeat count per row of the main input, each " + std::to_string(kRepeatCount) +
             " (the repeat idiom, guessed from its name; an output size attribute is their sum): give the counts wanted";
  }
  if (role == input_role::topk) {
    g.note += "; " + std::to_string(kTopK) + " per row of the first input (the top-k routing idiom, [rows, k]: give the real k)";
  }
  if (role == input_role::grid) {
    ts.range = std::make_pair(-1.0, 1.0);
    g.note = "input '" + d.name + "': a sampling grid [N, the spatial sizes of the output, their count], normalised coordinates in "
             "[-1, 1] (the grid_sample idiom; guessed from its name)";
  }
  if (role == input_role::groups && !is_float(t)) {
    // Cumulative group ends (a group index, group list: each group's last row + 1, non-decreasing,
    // the last the row count) as the grouped kernels check them: every value S puts every row in
    // group 0 (as sizes they would sum to 4 S: an operator reading sizes refuses it, noted).
    ts.range = std::make_pair(static_cast<double>(main.front()), static_cast<double>(main.front()));
    g.note = "input '" + d.name + "': one value per group, each the row count of the first input (cumulative group ends, every row in "
             "group 0; guessed from the shapes the tiling accepted: give the real grouping)";
  }
  // The slice idiom (ONNX Slice, PyTorch's x[b:e:s]; strided_slice and its assign form): integer
  // inputs begin, end, strides (steps) and axes whose values the tiling reads are one value per
  // dimension of the main input, given as the whole slice: begin 0, end the dimension's size,
  // stride 1, axes 0 .. rank - 1 (the sliced part is the main shape, which data inputs have).
  const std::string ln = lower(d.name);
  if (d.value_depend && !is_float(t) && find_input(op, "begin") != nullptr && find_input(op, "end") != nullptr &&
      one_of(ln, {"begin", "end", "strides", "steps", "axes"})) {
    ts.shape = {static_cast<std::int64_t>(main.size())};
    ts.range.reset();
    ts.values.clear();
    for (std::size_t k = 0; k < main.size(); ++k) {
      ts.values.push_back(ln == "begin" ? 0.0 : ln == "end" ? static_cast<double>(main[k]) : ln == "axes" ? static_cast<double>(k) : 1.0);
    }
    g.note = "inputs begin/end/strides/axes: the whole main shape as one slice (begin 0, end each dimension's size, stride 1, every "
             "axis; the slice idiom, guessed from their names): give the slice wanted";
  }
  // The forward input's shape given as values (forward_shape_input): one value per dimension of
  // the main shape, which is that input's shape under the identity window the pooling idiom drafts
  // (ksize 1, stride 1, no padding: the gradient keeps the forward input's shape).
  if (forward_shape_input(d)) {
    ts.shape = {static_cast<std::int64_t>(main.size())};
    ts.range.reset();
    ts.values.assign(main.begin(), main.end());
    g.note = "input '" + d.name + "': the forward input's shape as values, the main shape (a gradient operator given its forward "
             "input's shape; guessed from its name): give the shape of the forward case";
  }
  if (!g.note.empty()) note_once(notes, g.note);
}

// Whether a matrix product's attributes transpose its first (`first`) or second operand:
// transpose_a / transpose_x1 / trans_a / adj_x1 (b: _b, _x2, adj_x2) set true.
bool product_transposed(const nlohmann::json& attrs, bool first) {
  for (const auto& [k, v] : attrs.items()) {
    const std::string n = lower(k);
    const bool named = first ? one_of(n, {"transpose_a", "transpose_x1", "trans_a", "adj_x1", "transa"})
                             : one_of(n, {"transpose_b", "transpose_x2", "trans_b", "adj_x2", "transb"});
    if (named && ((v.is_boolean() && v.get<bool>()) || (v.is_number_integer() && v.get<std::int64_t>() != 0))) return true;
  }
  return false;
}

// The matrix-product idiom's case (probe::product): a [M, K], b [K, N] (transposed as the attributes
// say), the other inputs by name, the outputs [M, N] when no InferShape shapes them.
case_spec product_case(const op_interface& op, const probe& p, std::size_t column, std::int64_t elements, bool tail, case_spec c,
                       std::vector<std::string>* notes) {
  const auto [m, k, n] = product_dims(elements, tail, p.last);
  const std::vector<std::int64_t> out_shape = {m, n};
  std::size_t position = 0;
  for (const auto& [in, role] : p.roles) {
    const auto* d = find_input(op, in);
    if (d == nullptr) continue;
    const std::size_t i = position++;
    const std::string name = lower(in);
    const auto t = dtype_at(*d, column).value_or(dtype::float32);
    tensor_spec ts;
    ts.type = t;
    input_role r = role;
    if (i == 0) {
      ts.shape = product_transposed(c.attrs, true) ? std::vector<std::int64_t>{k, m} : std::vector<std::int64_t>{m, k};
    } else if (i == 1) {
      ts.shape = product_transposed(c.attrs, false) ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n};
    } else if (one_of(name, {"alpha", "beta"}) || role == input_role::scalar || role == input_role::axis) {
      r = input_role::scalar;
      ts.shape = {1};
    } else if (role == input_role::vector) {
      ts.shape = {n};
    } else {
      r = input_role::data;
      ts.shape = out_shape;
    }
    value_idioms(op, *d, r, t, out_shape, std::min(m, n), ts, notes);
    input_spec is;
    is.name = in;
    is.is_list = d->kind == "dynamic";
    is.tensors.push_back(ts);
    c.inputs.push_back(std::move(is));
  }
  if (!op.has_infer_shape) {
    for (const auto& o : op.outputs) {
      if (o.kind == "dynamic") continue;
      output_spec os;
      os.name = o.name;
      os.shape = out_shape;
      c.outputs.push_back(std::move(os));
    }
  }
  note_once(notes, "shapes: one matrix product a [M, K] x b [K, N] -> [M, N] (M = N = 2K; transposed operands as the transpose "
                   "attributes say; a bias [N], alpha/beta one element, other data inputs and the outputs [M, N]; guessed from the "
                   "operator's name): check them");
  return c;
}

}  // namespace

// The resize idiom's outputs for an operator without an InferShape (the harness would shape them
// like the input): the main shape with the spatial sizes output_size gives (after N and C, or
// between N and C when read channel-last).
void resized_outputs(const op_interface& op, const std::vector<std::int64_t>& main, const probe& p, case_spec& c,
                     std::vector<std::string>* notes) {
  std::vector<std::int64_t> sizes;
  for (const auto& a : op.attrs) {
    if (a.type == "list_int" && lower(a.name) == "output_size" && c.attrs.contains(a.name) && c.attrs[a.name].is_array()) {
      sizes = c.attrs[a.name].get<std::vector<std::int64_t>>();
    }
  }
  if (main.size() < 3 || sizes.size() != main.size() - 2) return;
  std::vector<std::int64_t> shape = main;
  std::copy(sizes.begin(), sizes.end(), shape.begin() + (p.channels_last ? 1 : 2));
  for (const auto& o : op.outputs) {
    if (o.kind == "dynamic") continue;
    output_spec os;
    os.name = o.name;
    os.shape = shape;
    c.outputs.push_back(std::move(os));
  }
  note_once(notes, "outputs: the input's shape with output_size's spatial sizes (the operator has no InferShape)");
}

case_spec probe_case(const op_interface& op, const probe& p, std::size_t column, const std::string& name, bool timed,
                     std::int64_t elements, bool tail, std::vector<std::string>* notes) {
  bool any_list = false;
  for (const auto& [in, role] : p.roles) {
    const auto* d = find_input(op, in);
    any_list = any_list || (d != nullptr && d->kind == "dynamic");
  }
  auto main = p.square ? square_shape(elements, tail, p.last) : main_shape(p.rank, any_list ? elements / 2 : elements, tail, p.last);
  // A GLU backward operator's data inputs other than x (the gradient of the output and the saved
  // activation: dy, y_grad, gelu) are x halved along the split dimension, which is even (an odd one
  // is doubled, so the halves keep it: the unaligned tail stays unaligned).
  const auto split = glu_split(op, p.attrs, main.size());
  std::vector<std::int64_t> half;
  if (split) {
    if (main[*split] % 2 != 0) main[*split] *= 2;
    half = main;
    half[*split] /= 2;
  }
  const bool glu_backward = split && has(op_key(op.op_type), "grad");
  const std::int64_t index_bound = *std::min_element(main.begin(), main.end());
  case_spec c;
  c.name = name;
  c.timed = timed;
  c.attrs = p.attrs.is_object() ? p.attrs : nlohmann::json::object();
  if (p.conv) return conv_case(op, p, column, tail, std::move(c), notes);
  if (p.product) return product_case(op, p, column, elements, tail, std::move(c), notes);
  if (p.ctc && main.size() == 3) return ctc_case(op, p, column, main, std::move(c), notes);
  for (const auto& [in, role] : p.roles) {
    const auto* d = find_input(op, in);
    if (d == nullptr) continue;
    const auto t = dtype_at(*d, column).value_or(dtype::float32);
    tensor_spec ts;
    ts.type = t;
    switch (role) {
      case input_role::data: ts.shape = glu_backward && lower(in) != "x" ? half : main; break;
      case input_role::vector:
        ts.shape = {channel_first(op, column, c.attrs) && main.size() >= 2 ? main[1] : main.back()};
        break;
      case input_role::stat: ts.shape = stat_shape(op, column, c.attrs, main); break;
      case input_role::scalar: ts.shape = {1}; break;
      case input_role::index: ts.shape = {main.front()}; break;
      case input_role::axis: ts.shape = {1}; break;
      case input_role::paddings: ts.shape = {2 * static_cast<std::int64_t>(main.size())}; break;
      case input_role::rows: ts.shape = {kGroupRows, main.back()}; break;
      case input_role::groups: ts.shape = {kGroupRows}; break;
      case input_role::topk: ts.shape = {main.front(), kTopK}; break;
      case input_role::grid: {
        // x [N, C, spatial...] (or [N, spatial..., C] with channel_last): the grid samples every
        // output position of the same spatial sizes, one coordinate per spatial dimension.
        if (main.size() < 3) {
          ts.shape = main;
          break;
        }
        const bool last = c.attrs.value("channel_last", false);
        ts.shape = {main.front()};
        ts.shape.insert(ts.shape.end(), main.begin() + (last ? 1 : 2), main.end() - (last ? 1 : 0));
        ts.shape.push_back(static_cast<std::int64_t>(main.size()) - 2);
        break;
      }
    }
    value_idioms(op, *d, role, t, main, index_bound, ts, notes);
    input_spec is;
    is.name = in;
    is.is_list = d->kind == "dynamic";
    is.tensors.push_back(ts);
    if (is.is_list) is.tensors.push_back(ts);
    c.inputs.push_back(std::move(is));
  }
  // The GLU idiom's output shapes: a backward operator's outputs are x's gradients, x's shape (its
  // first input is the output's gradient, half x); a forward one's outputs are x halved, and a
  // quantising one's `scale` one value per row (x without its last dimension: dequant_swiglu_quant's
  // dynamic quantisation scale). Given when the operator has no InferShape (the harness would
  // shape them like the first input) and when a probe bypasses it.
  const bool quant = has(op_key(op.op_type), "quant");
  auto glu_output = [&](const draft_param& o) {
    if (glu_backward) return main;
    if (quant && one_of(lower(o.name), {"scale", "scales", "y_scale", "out_scale"}) && main.size() >= 2) {
      return std::vector<std::int64_t>(main.begin(), main.end() - 1);
    }
    return half;
  };
  if (split && !op.has_infer_shape && !p.outputs_given) {
    for (const auto& o : op.outputs) {
      if (o.kind == "dynamic") continue;
      output_spec os;
      os.name = o.name;
      os.shape = glu_output(o);
      c.outputs.push_back(std::move(os));
    }
    note_once(notes, glu_backward ? "outputs: x's shape (a GLU backward operator's outputs are x's gradients; it has no InferShape)"
                                  : "outputs: x halved in dimension " + std::to_string(*split) + (quant ? ", a quantisation scale one per row" : "") +
                                        " (the GLU idiom; the operator has no InferShape)");
  }
  if (p.outputs_given) {
    for (const auto& o : op.outputs) {
      if (o.kind == "dynamic") continue;
      output_spec os;
      os.name = o.name;
      os.shape = split ? glu_output(o) : main;
      c.outputs.push_back(std::move(os));
    }
    const std::string note = "outputs: each given the main input's shape, so InferShape is not run (no probe it shaped ran; "
                             "an aclnn caller gives the outputs itself): check them";
    note_once(notes, note);
  }
  // A norm's statistics outputs when it has no InferShape (the harness would shape them like the
  // first input, which a kernel writing one value per group leaves mostly unwritten): a
  // statistics input's shape (stat_shape).
  if (!op.has_infer_shape && !p.outputs_given && !split) {
    bool any = false;
    for (const auto& o : op.outputs) {
      if (o.kind == "dynamic" || guess_role(op.op_type, o) != input_role::stat) continue;
      output_spec os;
      os.name = o.name;
      os.shape = stat_shape(op, column, c.attrs, main);
      c.outputs.push_back(std::move(os));
      any = true;
    }
    if (any) {
      note_once(notes, "outputs named as a norm's statistics (mean, rstd, variance): one value per normalised group, the dimensions "
                       "kept (the operator has no InferShape; guessed from their names): check them");
    }
  }
  idiom_attrs(op, main, p, c.attrs, notes);
  if (p.resize_scale > 1 && !op.has_infer_shape) resized_outputs(op, main, p, c, notes);
  if (glu_backward) {
    const std::string note = "inputs other than 'x': x halved in dimension " + std::to_string(*split) +
                             " (the GLU idiom: x splits in two halves along 'dim', the output and its gradient are one half's size; "
                             "guessed from the operator's name)";
    note_once(notes, note);
  }
  matrix_size_attrs(op, main, c.attrs, notes);
  repeat_attrs(op, main, c.attrs, notes);
  sequence_dims_attrs(op, c.attrs, notes);
  rigid_motion_attrs(op, c.attrs, notes);
  return c;
}

std::vector<probe> tail_probes(const probe& timed) {
  std::vector<probe> out;
  for (std::int64_t last : {std::int64_t{0}, std::int64_t{1024}}) {
    probe p = timed;
    p.last = last;
    p.what = timed.what + (last ? ", tail aligned in the last dimension" : ", unaligned tail");
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json draft_json(const std::string& kernel, const std::vector<case_spec>& cases,
                                  const std::vector<std::string>& notes) {
  nlohmann::ordered_json spec;
  spec["kernel"] = kernel;
  spec["notes"] = notes;
  nlohmann::ordered_json cs = nlohmann::ordered_json::array();
  std::set<dtype> floats;
  for (const auto& c : cases) {
    nlohmann::ordered_json cj;
    cj["name"] = c.name;
    if (c.timed) cj["timed"] = true;
    nlohmann::ordered_json ins = nlohmann::ordered_json::object();
    auto tensor = [&](const tensor_spec& t) {
      nlohmann::ordered_json tj;
      tj["shape"] = t.shape;
      tj["dtype"] = dtype_name(t.type);
      if (t.range) tj["range"] = {t.range->first, t.range->second};
      if (t.sorted) tj["sorted"] = true;
      // Given data (a shape as values, the slice idiom's begin/end): integers as integers.
      if (!t.values.empty()) {
        nlohmann::ordered_json v = nlohmann::ordered_json::array();
        for (double x : t.values) {
          if (is_float(t.type) || is_complex(t.type)) v.push_back(x);
          else v.push_back(static_cast<std::int64_t>(x));
        }
        tj["value"] = v;
      }
      if (is_float(t.type)) floats.insert(t.type);
      return tj;
    };
    for (const auto& i : c.inputs) {
      if (i.is_list) {
        nlohmann::ordered_json l = nlohmann::ordered_json::array();
        for (const auto& t : i.tensors) l.push_back(tensor(t));
        ins[i.name] = {{"list", l}};
      } else if (!i.tensors.empty()) {
        ins[i.name] = tensor(i.tensors.front());
      }
    }
    cj["inputs"] = ins;
    if (!c.outputs.empty()) {
      nlohmann::ordered_json outs = nlohmann::ordered_json::object();
      for (const auto& o : c.outputs) {
        if (o.shape) outs[o.name] = {{"shape", *o.shape}};
      }
      if (!outs.empty()) cj["outputs"] = outs;
    }
    if (!c.attrs.empty()) cj["attrs"] = c.attrs;
    cs.push_back(cj);
  }
  spec["cases"] = cs;
  nlohmann::ordered_json tol = nlohmann::ordered_json::object();
  const tolerance_spec defaults;
  for (auto t : floats) {
    const auto e = defaults.for_dtype(t);
    tol[dtype_name(t)] = {{"rtol", e.rtol}, {"atol", e.atol}};
  }
  tol["max_mismatch_ratio"] = defaults.max_mismatch_ratio;
  spec["tolerance"] = tol;
  spec["reference"] = "baseline";
  return spec;
}

std::string draft_text(const nlohmann::ordered_json& spec) {
  std::string out = "{\n";
  bool first = true;
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    out += first ? "" : ",\n";
    first = false;
    out += "  " + nlohmann::ordered_json(it.key()).dump() + ": ";
    if ((it.key() == "cases" || it.key() == "notes") && it.value().is_array()) {
      if (it.value().empty()) {
        out += "[]";
        continue;
      }
      out += "[\n";
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        out += "    " + it.value()[i].dump() + (i + 1 < it.value().size() ? ",\n" : "\n");
      }
      out += "  ]";
    } else {
      out += it.value().dump();
    }
  }
  return out + "\n}\n";
}

}  // namespace aopt::evaluation
