// Motif tests: match, forward, inverse, round trip and compiling output, on a fixture kernel
// holding every de-optimized pattern, on a renamed + clang-formatted copy of it, and no match on
// a kernel without the patterns.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "aopt/motifs/motif.h"

namespace aopt::motifs {
namespace {

const std::string kernel_path = "op_kernel/fixture.cpp";

std::string read(const std::string& name) {
  std::ifstream in(std::string(AOPT_MOTIFS_TEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

parser& shared_parser() {
  static parser p(parse_options{AOPT_MOTIFS_TEST_SIM_INCLUDE, {}, true});
  return p;
}

file_set kernel_set(const std::string& fixture) { return {{kernel_path, read(fixture)}}; }

// g++ -fsyntax-only of one kernel against sim/include: the transformed code must compile.
bool compiles(const std::string& text, std::string& log) {
  const auto dir = std::filesystem::temp_directory_path() / ("aopt-motifs-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto src = dir / "k.cpp";
  std::ofstream(src) << text;
  const std::string out = (dir / "log.txt").string();
  const std::string cmd = "g++ -std=c++17 -fsyntax-only -mf16c -I" + std::string(AOPT_MOTIFS_TEST_SIM_INCLUDE) +
                          " -D__CCE_AICORE__=220 -DDTYPE_X=half " + src.string() + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  log = ss.str();
  std::filesystem::remove_all(dir);
  return rc == 0;
}

// Applies `d` at the first site admitting it; the result.
applied apply_first(const motif& m, const file_set& files, direction d) {
  source_set src(files, shared_parser());
  auto sites = sites_for(m, src, d);
  if (sites.empty()) return {};
  return apply_site(m, src, sites.front(), d);
}

// Some site of `d` in `files` turns them into `want` (modulo whitespace).
bool some_site_gives(const motif& m, const file_set& files, direction d, const file_set& want, std::string& seen) {
  source_set src(files, shared_parser());
  for (const auto& s : sites_for(m, src, d)) {
    auto a = apply_site(m, src, s, d);
    if (!a.ok) continue;
    seen = a.files.at(kernel_path);
    if (equal_modulo_whitespace(a.files.at(kernel_path), want.at(kernel_path))) return true;
  }
  return false;
}

class MotifTest : public ::testing::TestWithParam<std::string> {
 protected:
  const motif& m() const {
    const motif* p = find_motif(GetParam());
    EXPECT_NE(p, nullptr);
    return *p;
  }
};

// Kernel motifs: the fixture holds each one's de-optimized pattern.
const std::vector<std::string> kernel_motifs = {"double_buffer",    "pipe_all_barrier", "redundant_pipe_v", "vectorize_scalar_loop",
                                                "fuse_vector_ops",  "hoist_invariant",  "tbuf_temps",       "merge_copies",
                                                "datacopypad_tail"};

TEST_P(MotifTest, ForwardThenInverseRoundTrips) {
  for (const std::string fixture : {"slow_kernel.cpp", "slow_kernel_renamed.cpp"}) {
    SCOPED_TRACE(fixture);
    const file_set x = kernel_set(fixture);
    applied y = apply_first(m(), x, direction::forward);
    ASSERT_TRUE(y.ok) << "no forward site or apply failed: " << y.reason;
    EXPECT_FALSE(y.diff.empty());
    EXPECT_NE(y.files.at(kernel_path), x.at(kernel_path));
    // The forward result admits the inverse, and forward after that is y again.
    applied z = apply_first(m(), y.files, direction::inverse);
    ASSERT_TRUE(z.ok) << "inverse did not apply to the forward result: " << z.reason << "\n" << y.diff;
    std::string seen;
    if (m().exact_round_trip()) {
      EXPECT_TRUE(some_site_gives(m(), z.files, direction::forward, y.files, seen)) << y.diff << "\n---- got\n" << seen;
    }
  }
}

TEST_P(MotifTest, InverseThenForwardRoundTrips) {
  // Inverse on the optimized form (the forward result of the fixture), then forward again.
  for (const std::string fixture : {"slow_kernel.cpp", "slow_kernel_renamed.cpp"}) {
    SCOPED_TRACE(fixture);
    applied fast = apply_first(m(), kernel_set(fixture), direction::forward);
    ASSERT_TRUE(fast.ok) << fast.reason;
    source_set src(fast.files, shared_parser());
    const auto sites = sites_for(m(), src, direction::inverse);
    ASSERT_FALSE(sites.empty());
    for (const auto& s : sites) {
      applied slow = apply_site(m(), src, s, direction::inverse);
      ASSERT_TRUE(slow.ok) << slow.reason;
      std::string seen;
      if (m().exact_round_trip()) {
        EXPECT_TRUE(some_site_gives(m(), slow.files, direction::forward, fast.files, seen)) << slow.diff << "\n---- got\n" << seen;
      }
    }
  }
}

TEST_P(MotifTest, OutputCompiles) {
  applied y = apply_first(m(), kernel_set("slow_kernel.cpp"), direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  std::string log;
  EXPECT_TRUE(compiles(y.files.at(kernel_path), log)) << y.diff << "\n" << log;
  applied z = apply_first(m(), y.files, direction::inverse);
  ASSERT_TRUE(z.ok) << z.reason;
  EXPECT_TRUE(compiles(z.files.at(kernel_path), log)) << z.diff << "\n" << log;
}

TEST_P(MotifTest, EditsAreMinimal) {
  // Only the bytes of the edits change: everything before the first edit is byte-identical.
  const file_set x = kernel_set("slow_kernel.cpp");
  applied y = apply_first(m(), x, direction::forward);
  ASSERT_TRUE(y.ok) << y.reason;
  std::size_t first = std::string::npos;
  for (const auto& e : y.edits) first = std::min(first, e.r.begin);
  EXPECT_EQ(y.files.at(kernel_path).substr(0, first), x.at(kernel_path).substr(0, first));
}

INSTANTIATE_TEST_SUITE_P(Kernel, MotifTest, ::testing::ValuesIn(kernel_motifs));

TEST(Motifs, NoMatchWithoutThePattern) {
  source_set src(kernel_set("none_kernel.cpp"), shared_parser());
  for (const auto& mp : all_motifs()) {
    EXPECT_TRUE(mp->match(src).empty()) << mp->id();
  }
}

TEST(Motifs, RegistryIsComplete) {
  // The kernel motifs above plus multicore_split, tail_balance, tile_size and counter_mode_mask
  // (tiling_motifs_test.cpp) and stream_core_cap, enque_pipe_all, div_to_reciprocal
  // (sync_motifs_test.cpp), sigmoid_gate_direct, inplace_to_dead_temp (compute_motifs_test.cpp),
  // dead_vector_write, common_subexpression, sqrt_div_to_rsqrt (pass_motifs_test.cpp) and
  // prefetch_next_tile, prefetch_across_rows (prefetch_motifs_test.cpp), spread_single_core
  // (spread_motif_test.cpp), stagger_ub_buffers (stagger_motif_test.cpp) and compute_in_input_type
  // (precision_motif_test.cpp).
  EXPECT_EQ(all_motifs().size(), kernel_motifs.size() + 17);
  for (const auto& mp : all_motifs()) {
    EXPECT_FALSE(mp->title().empty());
    EXPECT_FALSE(mp->description().empty());
    EXPECT_EQ(find_motif(mp->id()), mp.get());
  }
}

TEST(Motifs, ParserFindsCallsWithRanges) {
  source_set src(kernel_set("slow_kernel_renamed.cpp"), shared_parser());
  auto f = src.get(kernel_path);
  auto inits = f->calls("InitBuffer");
  ASSERT_EQ(inits.size(), 5u);
  EXPECT_EQ(inits[0].object(), "pipe");
  EXPECT_EQ(f->text_of(inits[0].args[1]), "SLOTS");
  auto bars = f->calls("PipeBarrier");
  ASSERT_FALSE(bars.empty());
  EXPECT_EQ(bars[0].template_args, std::vector<std::string>{"PIPE_ALL"});
  EXPECT_EQ(f->text_of(bars[0].statement), "AscendC::PipeBarrier<PIPE_ALL>();");
  auto k = f->integer_constant("SLOTS");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->value, 1);
}

}  // namespace
}  // namespace aopt::motifs

namespace aopt::motifs {
namespace {

// The parser's memo answers a parse of the same file and the files it includes without libclang:
// a header nobody includes changes nothing, a change of an included header or of the file itself
// is a new parse; the least recently used entry goes first.
TEST(Motifs, ParserReusesAParseOfTheSameFileAndItsIncludesOnly) {
  parse_options o{AOPT_MOTIFS_TEST_SIM_INCLUDE, {}, true};
  o.memo_entries = 2;
  parser p(o);
  const file_set a = kernel_set("slow_kernel_renamed.cpp");
  const auto first = p.parse(a, kernel_path);
  const auto again = p.parse(a, kernel_path);
  EXPECT_EQ(first.get(), again.get());
  EXPECT_EQ(p.stats().parses, 1u);
  EXPECT_EQ(p.stats().memo_hits, 1u);

  // A header of the same directory that the kernel does not include: the same parse.
  file_set unrelated = a;
  unrelated["op_kernel/other.h"] = "// a header\n";
  EXPECT_EQ(p.parse(unrelated, kernel_path).get(), first.get());
  EXPECT_EQ(p.stats().parses, 1u);

  // The kernel includes it: a new parse, and again when only the included header changes.
  file_set b = unrelated;
  b[kernel_path] = "#include \"other.h\"\n" + b[kernel_path];
  const auto with_header = p.parse(b, kernel_path);
  EXPECT_NE(with_header.get(), first.get());
  EXPECT_EQ(p.stats().parses, 2u);
  file_set b2 = b;
  b2["op_kernel/other.h"] = "// the header, changed\n";
  EXPECT_NE(p.parse(b2, kernel_path).get(), with_header.get());
  EXPECT_EQ(p.stats().parses, 3u);
  EXPECT_EQ(p.parse(b, kernel_path).get(), with_header.get());  // b is still held (capacity 2)
  EXPECT_EQ(p.stats().parses, 3u);

  file_set c = a;
  c[kernel_path] += "\n// changed\n";
  const auto changed = p.parse(c, kernel_path);
  EXPECT_NE(changed.get(), first.get());
  EXPECT_EQ(changed->calls("InitBuffer").size(), first->calls("InitBuffer").size());
  EXPECT_EQ(p.stats().parses, 4u);
  // Capacity 2: c and b are kept, a was dropped.
  p.parse(c, kernel_path);
  p.parse(b, kernel_path);
  EXPECT_EQ(p.stats().parses, 4u);
  p.parse(a, kernel_path);
  EXPECT_EQ(p.stats().parses, 5u);

  parse_options off = o;
  off.memo_entries = 0;
  parser q(off);
  q.parse(a, kernel_path);
  q.parse(a, kernel_path);
  EXPECT_EQ(q.stats().parses, 2u);
  EXPECT_EQ(q.stats().memo_hits, 0u);
}

}  // namespace
}  // namespace aopt::motifs

namespace aopt::motifs {
namespace {

// A kernel that includes a sibling source (`#include "impl_f32.cpp"`, trunc's layout): the
// nodes of the parse are the main file's only. Every file of the set is an unsaved file of
// libclang, and those compare equal by their (absent) inode, so the included file's statements
// came back with their own offsets, past the end of the main file's text (trunc's internal
// error `basic_string_view::substr: __pos (which is 3003) > __size (which is 1756)`).
TEST(Motifs, ParserKeepsOnlyTheMainFilesNodesWhenTheKernelIncludesASiblingSource) {
  file_set files;
  std::string impl = "// a sibling source, longer than the entry\n";
  for (int i = 0; i < 40; ++i) impl += "// padding line " + std::to_string(i) + " of the implementation file\n";
  impl +=
      "template <typename T> __aicore__ inline void Compute(AscendC::LocalTensor<T>& y, AscendC::LocalTensor<T>& x,\n"
      "                                                     AscendC::LocalTensor<float>& t, uint32_t n) {\n"
      "  if constexpr (!std::is_same_v<T, float>) {\n"
      "    AscendC::Cast(t, x, AscendC::RoundMode::CAST_NONE, n);\n"
      "    AscendC::Cast(y, t, AscendC::RoundMode::CAST_RINT, n);\n"
      "  } else {\n"
      "    AscendC::Abs(y, x, n);\n"
      "  }\n"
      "}\n";
  files["op_kernel/impl_f32.cpp"] = impl;
  files["op_kernel/entry.cpp"] =
      "#include \"kernel_operator.h\"\n#include \"impl_f32.cpp\"\n"
      "extern \"C\" __global__ __aicore__ void entry(GM_ADDR x, GM_ADDR y) {\n"
      "  if constexpr (std::is_same_v<DTYPE_X, float>) {\n  } else {\n  }\n}\n";
  source_set src(files, shared_parser());
  auto entry = src.get("op_kernel/entry.cpp");
  const std::size_t size = files["op_kernel/entry.cpp"].size();
  ASSERT_LT(size, impl.size());
  for (const node& n : entry->nodes()) EXPECT_LE(n.r.end, size) << "a node of clang kind " << n.clang_kind;
  EXPECT_EQ(entry->find(node_kind::if_stmt).size(), 1u);
  // The sibling's own parse sees its branch, and every motif matches the set without throwing.
  EXPECT_EQ(src.get("op_kernel/impl_f32.cpp")->find(node_kind::if_stmt).size(), 1u);
  for (const auto& m : all_motifs()) EXPECT_NO_THROW(m->match(src)) << m->id();
}

}  // namespace
}  // namespace aopt::motifs
